/* grading/run/grade_preflight.h: the run before anyone is graded. For each lab, the grader
 * builds the lab's own skeleton (the kit's starting file) and runs it once with the
 * instructor's settings (--profile, --timeout, --memory-mb, ...; one timed run, no
 * perturbed schedules), so that
 *   - an option the lab binary refuses (--profile nosuch) or a kit that does not build or
 *     run stops the grader before it gives the whole class a zero, and
 *   - the rubric's speed rule is checked against the lab's actual target (the spec's
 *     target_bound_fraction, and the target speedup it means on this device): a floor at or
 *     above the target (which would give full marks below the floor) is refused. */
#ifndef STREAMLAB_GRADE_PREFLIGHT_H
#define STREAMLAB_GRADE_PREFLIGHT_H

#include <stddef.h>

#include "grading/build/grade_kit.h"
#include "grading/run/grade_runner.h"
#include "grading/sandbox/grade_sandbox.h"
#include "grading/score/grade_rubric.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct grade_lab_facts {
    double target_bound_fraction; /* the spec's pass target, a fraction of the bound (0: none) */
    double target_speedup;        /* what it means as a speedup on this device */
    double pipeline_bound;
} grade_lab_facts;

/* Builds and runs kit's skeleton in work_dir (created). Returns 0 with the lab's facts, or
 * -1 with what went wrong (the lab binary's own words when it refused an option). A kit
 * without a skeleton gives 0 and zero facts. */
int grade_preflight_lab(const grade_sandbox_config *cfg, const grade_kit *kit, const grade_run_settings *run,
                        const char *work_dir, grade_lab_facts *facts, char *err, size_t err_len);
/* Checks rule against the lab's facts. Returns 0, or -1 with "RUBRIC: labs.ID.speedup: ..."
 * in err. */
int grade_preflight_check_rule(const char *rubric_path, const grade_rubric_lab *rule, const grade_lab_facts *facts,
                               char *err, size_t err_len);

#ifdef __cplusplus
}
#endif

#endif
