/* labs/harness/budget.h: how long the harness's own work in one lab run may take (the
 * baseline's phases, checking every result, the bound, the report: guard.h's "harness"
 * side), scaled to how fast the machine is right now.
 *
 * The student's --timeout counts their own phases only, so a busy machine, which slows
 * the kit's code as much as theirs, must not turn into their timeout. The harness gets
 * a budget of its own instead: until it has measured anything, LAB_HARNESS_FLOOR_S; then
 * the runner times one run of the baseline, before the student's code has run at all (so
 * nothing the student's code does can make the budget grow), and the budget becomes
 *
 *   max(LAB_HARNESS_FLOOR_S, spent so far + LAB_HARNESS_FACTOR x that run x the runs'
 *       worth of harness work still to do)
 *
 * never more than --harness-timeout. Running past it is the grading host's problem, never
 * the student's: the lab says so (exit status LAB_EXIT_HOST) and the grader asks for a
 * regrade.
 *
 * Two environment variables are test hooks, for the tests of this (labs/03_double_buffer/lab_test.cc,
 * grading/grade_mistakes_test.cc; the grader passes them on to the lab when it has them),
 * not settings:
 *
 *   STREAMLAB_TEST_SLOW_BASELINE_MS=N   every run() of the baseline takes N ms longer (the
 *                                       harness sleeps in the baseline's phase, after the
 *                                       run is timed, so no figure changes): a host on
 *                                       which the kit's own code is slow;
 *   STREAMLAB_TEST_HARNESS_BUDGET_S=N   the harness's budget is N s (at most
 *                                       --harness-timeout) whatever the machine's speed:
 *                                       a host that turns slow after the calibration. */
#ifndef STREAMLAB_LAB_BUDGET_H
#define STREAMLAB_LAB_BUDGET_H

#ifdef __cplusplus
extern "C" {
#endif

#define LAB_HARNESS_FLOOR_S 60.0
#define LAB_HARNESS_FACTOR 4.0

/* The harness's budget before anything is measured: the floor, at most cap_s. */
double lab_harness_budget_start(int cap_s);
/* The harness's budget once a run of the baseline took calibration_s, with units more
 * runs' worth of harness work to come and used_s of the harness's time spent. */
double lab_harness_budget(double calibration_s, int units, double used_s, int cap_s);

/* The test hooks above: 0 when unset. A value that is not a whole number from 1 to 86400000
 * (ms) or 86400 (s) is said once on stderr and ignored. */
unsigned lab_test_slow_baseline_ms(void);
double lab_test_harness_budget_s(void);

#ifdef __cplusplus
}
#endif

#endif
