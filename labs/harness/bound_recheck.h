/* labs/harness/bound_recheck.h: the bound measured more than once: three times across the
 * timed runs, the median standing, and again where it came out longer than the baseline.
 *
 * A bound measured once, before the timed runs, is one sample of a machine whose speed
 * drifts: on a lent H200, lab 07's graph bound came out 1.24 ms in one process and 1.52 ms
 * in another (three replays each) while the reference's median run was 1.39-1.42 ms in
 * every process, so the same program read 88% of the bound on one seed and 107% on
 * another. The runner measures it before the timed runs, after the middle one and after
 * the last, and the median of the three stands, so a host that slows down or speeds up
 * during the runs moves the bound with them (lab_bound_median_index).
 *
 * A spec's bound is the lab's work done as well as the device allows, so it cannot take
 * longer than the baseline's median run; one that did was disturbed while it was measured
 * (on a GPU, host or device time taken by something else). Its fraction would make a
 * program far below the target look above it, so the runner measures such a bound again,
 * after the timed runs, and the shortest measurement stands. */
#ifndef STREAMLAB_LABS_HARNESS_BOUND_RECHECK_H
#define STREAMLAB_LABS_HARNESS_BOUND_RECHECK_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How many times the runner measures the bound on a GPU (before the timed runs, after the
 * middle one, after the last one; only before them when there is one timed run, and on the
 * simulator, whose clock does not drift). */
#define LAB_BOUND_MEASUREMENTS 3

/* The index of the median of n measurements (ns; the shorter middle one for an even n),
 * or -1 when n <= 0. */
int lab_bound_median_index(const double *ideal_ns, int n);

/* Writes into buf, for the report, the n measurements (ms) of a bound that differ by more
 * than 5% of their median ("measured 3 times, before, during and after your runs (1.392,
 * 1.228, 1.380 ms): this machine's speed moved, and the median stands"). Returns whether
 * it wrote it: false for fewer than two, or for measurements that agree. */
bool lab_bound_spread_text(const double *ms, int n, char *buf, size_t len);

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
