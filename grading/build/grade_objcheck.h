/* grading/build/grade_objcheck.h: the build step between compiling a student's file and linking
 * it: the kit's objcheck (labs/objcheck, the same check labs/lab.bzl runs before linking a
 * lab binary) reads the compiled object in the sandbox, as the compiler ran, and refuses
 * code that runs outside setup/run/teardown, global definitions but LAB_STUDENT and calls
 * outside the allow-list. A refusal fails the build like a compile error:
 *
 *   not accepted: labs/03_double_buffer/lab.c:12: defines lab_verify, a name of the harness
 *
 * with every refusal in the diagnostics the reports show. */
#ifndef STREAMLAB_GRADE_OBJCHECK_H
#define STREAMLAB_GRADE_OBJCHECK_H

#include <stdbool.h>

#include "grading/build/grade_kit.h"
#include "grading/sandbox/grade_sandbox.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Checks build_dir/obj (compiled from kit->student_file) with the kit's objcheck, its
 * output kept in log_dir/objcheck.log. Returns 0 when accepted; otherwise -1 with *error
 * set (malloc'd: "not accepted: ..." for a refusal, a grader problem with *grader_fault)
 * and the refusals added to *diagnostics (a malloc'd string, replaced). */
int grade_objcheck_step(const grade_sandbox_config *cfg, const grade_kit *kit, const char *build_dir,
                        const char *log_dir, const char *obj, char **diagnostics, char **error, bool *grader_fault);

#ifdef __cplusplus
}
#endif

#endif
