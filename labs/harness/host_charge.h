/* labs/harness/host_charge.h: what the student's host work costs the simulated host.
 *
 * On the simulator, the referee measures the CPU time the student's process spends between
 * two of its commands and charges what is beyond the client library's own share to the
 * simulated host clock, so that computing outputs on the host is not free there
 * (docs/referee.md). A measured CPU time is noisy: a page fault, a cache refill, or the
 * virtual machine's host taking the CPU away from it can add a millisecond to any one
 * command on a loaded machine. The charge must not follow that noise, or the same program
 * gets a different figure on every run.
 *
 * So the allowance is a bucket, not a per-command limit: every command adds
 * LAB_HOST_CHARGE_ALLOWANCE_NS of credit (a phase starts with LAB_HOST_CHARGE_START_NS, for
 * its first page faults), CPU time spends it, and only time beyond the credit is charged,
 * in whole LAB_HOST_CHARGE_STEP_NS (the part of a step left over is owed, and paid
 * from the next command's credit, so that small overdrafts add up to what they cost). A program issuing its calls pays nothing, however a
 * moment of noise falls, because its credit (about 200 us a command, of which it spends a
 * few tens) covers it; a program computing on the host spends the credit of all its calls
 * and pays the rest, where it spends it. The credit never exceeds LAB_HOST_CHARGE_CAP_NS,
 * so a long run of cheap calls cannot pay in advance for a batch computed on the host.
 * What a command buys is the same as with a per-command allowance: no program gets more
 * free host time from the bucket than from a limit per command.
 *
 * The phase's start credit (10 ms) and the cap (20 ms) are generous on purpose. On a loaded
 * virtual machine a thread's measured CPU time can grow by milliseconds that it never used
 * (its host took the CPU away while it ran), and no verdict may follow that. Nor does the
 * charge have to catch every millisecond: the lab's results must come from the device's
 * kernels (work.h), so host work cannot replace the device's; the charge is what keeps
 * sustained host work (tens of milliseconds a run, as computing a lab's outputs takes)
 * from being free on the simulated clock. */
#ifndef STREAMLAB_LAB_HOST_CHARGE_H
#define STREAMLAB_LAB_HOST_CHARGE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LAB_HOST_CHARGE_ALLOWANCE_NS 200000ull
#define LAB_HOST_CHARGE_START_NS 10000000ull
#define LAB_HOST_CHARGE_CAP_NS 20000000ull
#define LAB_HOST_CHARGE_STEP_NS 100000ull

typedef struct lab_host_charge {
    int64_t balance_ns; /* host time still free; below 0, a part of a step not yet charged */
} lab_host_charge;

/* A phase begins: its credit is LAB_HOST_CHARGE_START_NS. */
void lab_host_charge_begin(lab_host_charge *c);

/* A command arrives after `spent_ns` of the student's CPU time since the last one (or the
 * phase's start): what the simulated host is charged for it, in whole steps (0 for most). */
uint64_t lab_host_charge_take(lab_host_charge *c, uint64_t spent_ns);

#ifdef __cplusplus
}
#endif

#endif
