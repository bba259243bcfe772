/* grading/run/grade_grader.h: grading one student: for each lab, take the student's file from
 * the submission, build it against the lab's kit in a scratch folder, run it (again when
 * the speed lies within the noise band of a threshold), and score it by the rubric; then
 * write the student's report.txt, results.json and junit.xml. */
#ifndef STREAMLAB_GRADE_GRADER_H
#define STREAMLAB_GRADE_GRADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "grading/build/grade_kit.h"
#include "grading/reports/grade_report.h"
#include "grading/run/grade_runner.h"
#include "grading/sandbox/grade_sandbox.h"
#include "grading/score/grade_result.h"
#include "grading/score/grade_rubric.h"
#include "grading/submissions/grade_submission.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct grade_env {
    const grade_sandbox_config *sandbox;
    const grade_rubric *rubric;
    const grade_kit *kits;           /* installed kits, one per graded lab */
    const grade_rubric_lab *const *rules; /* the rubric's entry for each */
    size_t n_labs;
    grade_run_settings run;
    bool loose;                      /* Gradescope: a lone lab.c anywhere counts */
    bool fixed_seed;                 /* use `seed` instead of a fresh one per student */
    uint64_t seed;
    grade_report_context report;
    /* Per lab: why it is graded on another backend than asked (grade_devices.h), or NULL;
     * the array itself may be NULL. */
    const char *const *backend_notes;
    /* Per lab: the spec's target as a fraction of the bound, which the pre-flight run of its
     * skeleton reported (0: not known); a result naming another is not believed. May be NULL. */
    const double *targets;
} grade_env;

/* Grades sub in work_dir (created; a scratch folder of its own) into *out. */
void grade_student_grade(const grade_env *env, const grade_submission *sub, const char *work_dir, grade_student *out);
/* Writes report.txt, results.json and junit.xml into the folder `folder` (created; from
 * grade_student_dirnames) of the class's --out, opened as out_fd and called out_shown in
 * messages: never outside it, never through a symbolic link (grade_beneath.h). Returns 0,
 * or -1 with err naming the path. */
int grade_student_write(const grade_student *s, const grade_report_context *ctx, int out_fd, const char *out_shown,
                        const char *folder, char *err, size_t err_len);

#ifdef __cplusplus
}
#endif

#endif
