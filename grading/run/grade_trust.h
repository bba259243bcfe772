/* grading/run/grade_trust.h: whether a lab run's result can be believed. The result reaches the
 * grader over the lab's private event stream, with the run's nonce; these checks catch what
 * a program that got hold of the stream anyway would send:
 *   - more than one result (a forged one after the harness's): the first is kept, and the
 *     run is not believed;
 *   - a seed other than the one the grader gave the run: not this run's result;
 *   - a target other than the one the lab's pre-flight run reported: its speed is not
 *     believed (a result of another lab, or a spec changed under the grader);
 *   - a speed far past the lab's own bound (more than GRADE_BOUND_FRACTION_MAX of it, well
 *     beyond what timing noise gives: the GPUs measured in docs/measured.md stayed within
 *     5% above it, the latency labs within 41%; three times the bound leaves room for
 *     any timing noise): the speed is not believed.
 * The first two cost the run every point, the others its speed points; the report says
 * why. The run itself cannot forge a result (the event stream is the referee's, docs/
 * referee.md): these checks are a second line. */
#ifndef STREAMLAB_GRADE_TRUST_H
#define STREAMLAB_GRADE_TRUST_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GRADE_BOUND_FRACTION_MAX 3.0

typedef enum grade_trust {
    GRADE_TRUST_OK = 0,
    GRADE_TRUST_NO_SPEED, /* the speed is not believed: no speed points */
    GRADE_TRUST_NONE      /* nothing of the result is believed: no points */
} grade_trust;

/* Judges result, the first of `results` result records a run sent, for a run given seed, of
 * a lab whose target is target_bound_fraction of its bound (what the pre-flight run of its
 * skeleton reported; 0: not known). Writes why (for the report) when it is not
 * GRADE_TRUST_OK. */
grade_trust grade_result_trust(const cJSON *result, uint64_t seed, unsigned results, double target_bound_fraction,
                               char *why, size_t why_len);

#ifdef __cplusplus
}
#endif

#endif
