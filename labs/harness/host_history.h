/* labs/harness/host_history.h: the least CPU time the student's process has spent before
 * each command of a run, over the runs so far: what the simulated host is charged for.
 *
 * The student's run() issues the same commands in every run, and host work it does (a
 * memcpy of its inputs, a loop that computes on the host) comes before the same command
 * each time. Noise does not: a page fault, a cache refill, a loaded machine taking the CPU
 * away lands on one command in one run. So the referee charges each command of a run the
 * least time spent before that command in this run and every earlier one (by its place in
 * the run: the k-th command). Noise must then strike the same command in every run to be
 * charged, and host work is charged in every run but the first, which is the harness's
 * untimed warm-up. A run that issues more commands than any before it is charged what it
 * measured for the extra ones; a program whose commands differ from run to run (a loop of
 * queries that ends when work is done) is charged the least of whatever came at each
 * place, which can only be less than it spent. */
#ifndef STREAMLAB_LAB_HOST_HISTORY_H
#define STREAMLAB_LAB_HOST_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lab_host_history {
    uint64_t *least; /* per command of a run: the least time spent before it so far */
    size_t n, cap;   /* commands known, and room */
    size_t at;       /* the current run's next command */
    int runs;        /* runs begun */
} lab_host_history;

/* A run begins (a phase that runs the student's run()). */
void lab_host_history_begin_run(lab_host_history *h);

/* The current run's next command came after `spent_ns` of CPU time: the time to charge for
 * it, the least spent before this command in this run and the earlier ones. */
uint64_t lab_host_history_filter(lab_host_history *h, uint64_t spent_ns);

/* Forgets every run (the student's process started again). */
void lab_host_history_reset(lab_host_history *h);

#ifdef __cplusplus
}
#endif

#endif
