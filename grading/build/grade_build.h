/* grading/build/grade_build.h: building one student's lab binary from their file and the lab's
 * kit, in a scratch folder, with the compiler and linker run in the sandbox. Diagnostics
 * are the compiler's and linker's own, with the scratch and kit paths taken out, so that
 * they speak of the student's file and the lab only. */
#ifndef STREAMLAB_GRADE_BUILD_H
#define STREAMLAB_GRADE_BUILD_H

#include <stdbool.h>
#include <stddef.h>

#include "grading/build/grade_kit.h"
#include "grading/sandbox/grade_sandbox.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct grade_build_result {
    bool built;
    char *binary;      /* the linked lab binary (malloc'd), when built */
    char *diagnostics; /* compiler and linker output, cleaned ("" when none) */
    char *error;       /* "does not compile: ..." / "does not link: ..." / a grader problem */
    bool grader_fault; /* error is the grader's (could not start the compiler), not the file's */
} grade_build_result;

/* Builds in build_dir (created; given to the sandbox user), writing the source at the
 * kit's student_file path below it. log_dir holds the grader's own files. */
int grade_build_lab(const grade_sandbox_config *cfg, const grade_kit *kit, const char *build_dir, const char *log_dir,
                    const char *source, size_t source_len, grade_build_result *out);
void grade_build_result_free(grade_build_result *r);

#ifdef __cplusplus
}
#endif

#endif
