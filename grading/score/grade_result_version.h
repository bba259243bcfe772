/* grading/score/grade_result_version.h: whether this grader can read a lab's result, by
 * the result's schema version (labs/harness/result_schema.h). A lab binary of a newer kit
 * writes keys this grader may not know, or knows by another meaning: its result is refused,
 * not graded wrongly. A result with no version was written before versions were (a class's
 * results stored in --out by an older kit): it is version 1, and a term's stored results
 * still score again (--rescore). */
#ifndef STREAMLAB_GRADE_RESULT_VERSION_H
#define STREAMLAB_GRADE_RESULT_VERSION_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "grading/score/grade_result.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The version of result: its "result_version", or 1 when it has none and !required.
 * Returns 0 when this grader reads that version (1 to LAB_RESULT_VERSION); else -1 with
 * why, naming both versions ("the lab binary writes result version 2; this grader reads
 * version 1: rebuild the grader from the same kit"). required: the result comes from a lab
 * binary of this grader's kits, which writes a version (a result without one is from
 * another kit). */
int grade_result_version_check(const cJSON *result, bool required, char *why, size_t why_len);
/* The same for every lab result of a student stored in --out (not required: results of an
 * older kit have none); why names the student and the lab. */
int grade_student_version_check(const grade_student *s, char *why, size_t why_len);

#ifdef __cplusplus
}
#endif

#endif
