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
 * In run() the time charged for a command is not what the process spent before it this
 * time but the least it spent before that command in this run and every earlier one
 * (host_history.h): noise strikes one run, host work every run. What is left is small: on
 * this kit's build machine under a full test load, the labs' references then spent at most
 * 57 us before any command, and most commands nothing measurable. So a command's allowance
 * is 50 us, the phase's start credit 2 ms and the cap 4 ms, room for what noise is left and
 * for setup() and teardown(), which are not filtered. These used to be 200 us, 10 ms and
 * 20 ms, with no history, which let a lab 01 program copy its 64 MiB of inputs with memcpy
 * in every run (4-8 ms of CPU here) for nothing, where a lent H200 took 11 ms for it and
 * the program read 12% of its bound there (docs/measured.md); a run() after the first starts
 * with 0.5 ms (LAB_HOST_CHARGE_FILTERED_START_NS). What the simulator charges here is this
 * machine's CPU time, though, which is not a GPU host's: the labs' runs last 0.5 to 30 ms,
 * so host work of a millisecond or more a run is what decides a verdict, and work spread
 * thinly, under the allowance of the commands around it, is not charged. Host copies, the
 * host work a lab's programs do most, are therefore not charged from here: a lab file's
 * memcpy costs what the profile's host copy curve says a GPU's host spends on it
 * (lab.h's lab_host_memcpy; remote.c, charge_host_copy), and its CPU time here is left out
 * of what this credit sees. */
#ifndef STREAMLAB_LAB_HOST_CHARGE_H
#define STREAMLAB_LAB_HOST_CHARGE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LAB_HOST_CHARGE_ALLOWANCE_NS 50000ull
#define LAB_HOST_CHARGE_START_NS 2000000ull
#define LAB_HOST_CHARGE_CAP_NS 4000000ull
/* A run() after the first, whose commands are filtered (host_history.h), starts with less:
 * what is left of noise there is small, and a run's host work of a millisecond or two is
 * what must be seen. */
#define LAB_HOST_CHARGE_FILTERED_START_NS 500000ull
#define LAB_HOST_CHARGE_STEP_NS 100000ull

typedef struct lab_host_charge {
    int64_t balance_ns; /* host time still free; below 0, a part of a step not yet charged */
} lab_host_charge;

/* A phase begins: its credit is LAB_HOST_CHARGE_START_NS. */
void lab_host_charge_begin(lab_host_charge *c);
/* A phase begins with another credit (LAB_HOST_CHARGE_FILTERED_START_NS, say). */
void lab_host_charge_begin_with(lab_host_charge *c, uint64_t credit_ns);

/* A command arrives after `spent_ns` of the student's CPU time since the last one (or the
 * phase's start): what the simulated host is charged for it, in whole steps (0 for most). */
uint64_t lab_host_charge_take(lab_host_charge *c, uint64_t spent_ns);

#ifdef __cplusplus
}
#endif

#endif
