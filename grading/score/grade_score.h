/* grading/score/grade_score.h: from what a lab run found to points, by the rubric.
 *
 *   correct    full points when every output bit matched the oracle in every run;
 *   race_free  full points when the happens-before checker found no race (and the lab
 *              ran to the end, so that it could look); with the rubric's
 *              race_free.needs_correct, only for a correct lab;
 *   speedup    linear between the rubric's floor (none) and target (all), on the median
 *              speedup over the baseline; only for a correct, race-free lab;
 *   measurement (only labs whose rubric gives it points) full points when the lab accepted
 *              the stage times the student measured and reported (its result's
 *              measurement.ok), none otherwise, the reason built from each stage's "why";
 *              only for a correct lab, but a race does not cost it (timing a stage is a
 *              skill of its own, and the lab compares the report with the device's own
 *              figures whatever the ordering).
 *
 * A lab not submitted, not built or not finished gets none, each check saying why. */
#ifndef STREAMLAB_GRADE_SCORE_H
#define STREAMLAB_GRADE_SCORE_H

#include <stdbool.h>
#include <stddef.h>

#include "grading/score/grade_result.h"
#include "grading/score/grade_rubric.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The rule's floor and target as speedups over the baseline, for a run whose pipeline
 * bound and lab target (both speedups) are given. Returns 0, or -1 with why (a figure the
 * rule needs is unknown: 0). */
int grade_speed_thresholds(const grade_speed_rule *rule, double pipeline_bound, double lab_target, double *floor_s,
                           double *target_s, char *why, size_t why_len);
/* Share of the speed points, 0..1: linear from floor_s to target_s. */
double grade_speed_fraction(double speedup, double floor_s, double target_s);
/* Whether speedup lies within band (a fraction, 0.05 = 5%) of the target, where timing noise
 * could decide between full and partial points. */
bool grade_speed_near_target(double speedup, double target_s, double band);
/* The median of n values (0 when n is 0). */
/* What the lab calls its bound ("pipeline bound", "concurrency bound"), from its result;
 * "pipeline bound" for results that do not say (lab 03's older ones). */
const char *grade_bound_name(const cJSON *result);
/* A race report's stream as feedback names it: the student's own name quoted ("buf A",
 * from lab_name_stream or NVTX), s<N> for a stream they never named, stream 0, the host. */
char *grade_race_stream(const char *name);
double grade_median(const double *v, int n);
/* Whether the lab accepted the stage times the student measured (result's
 * "measurement": {"ok": ..., "stages": [...]}), and why in words: each stage's figures and
 * the lab's "why" (the failed stages only, when it did not); "the lab reported no
 * measurement" when the result has none. Returns the reason, to free. */
char *grade_measurement_reason(const cJSON *result, bool *ok);
/* What stopped a lab that ran to its end with an error of the program's (its setup() or
 * run() returned non-zero, a CUDA error after it): the lab's words, for the summary and the
 * gradebook, which must not call it "wrong and racy"; NULL when the lab did not stop so. */
const char *grade_lab_error(const grade_lab *lab);
/* Sets lab->checks from what lab holds (see grade_result.h) and the rule. */
void grade_score_lab(const grade_rubric_lab *rule, grade_lab *lab);

#ifdef __cplusplus
}
#endif

#endif
