/* grading/grade_report_gradescope.h: a student's results.json in Gradescope's autograder
 * format: the score, an output text, and one test per lab and check (name, score,
 * max_score, status "passed"/"failed", output, visibility). */
#ifndef STREAMLAB_GRADE_REPORT_GRADESCOPE_H
#define STREAMLAB_GRADE_REPORT_GRADESCOPE_H

#include "grading/grade_report.h"
#include "grading/grade_result.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The JSON text (malloc'd). */
char *grade_report_gradescope(const grade_student *s, const grade_report_context *ctx);

#ifdef __cplusplus
}
#endif

#endif
