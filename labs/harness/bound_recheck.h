/* labs/harness/bound_recheck.h: a bound measured longer than the baseline is measured again.
 *
 * A spec's bound is the lab's work done as well as the device allows, so it cannot take
 * longer than the baseline's median run; one that did was disturbed while it was measured
 * (on a GPU, host or device time taken by something else). Its fraction would make a
 * program far below the target look above it, so the runner measures such a bound again,
 * after the timed runs, and the shortest measurement stands. */
#ifndef STREAMLAB_LABS_HARNESS_BOUND_RECHECK_H
#define STREAMLAB_LABS_HARNESS_BOUND_RECHECK_H

#ifdef __cplusplus
extern "C" {
#endif

/* How to measure the bound again: measure() writes the new measurement's length (ns) and
 * returns 0, or returns non-zero where it failed; keep() makes the last measurement the
 * bound. */
typedef struct lab_bound_again {
    int (*measure)(void *arg, double *ideal_ns);
    void (*keep)(void *arg);
    void *arg;
} lab_bound_again;

/* While *ideal_ns is longer than baseline_ns, measures again, at most tries times, and
 * keeps a measurement shorter than *ideal_ns (updating it). Stops at a failed measurement.
 * Returns how many measurements it made. */
int lab_bound_recheck(double *ideal_ns, double baseline_ns, int tries, const lab_bound_again *again);

#ifdef __cplusplus
}
#endif

#endif
