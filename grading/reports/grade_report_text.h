/* grading/reports/grade_report_text.h: a student's report.txt: for each lab, each check with its
 * points and reason, the compiler's diagnostics, the race reports with their fixes, the
 * speed figures of every run, the text timeline of the last run, and the first part of
 * the program's output. */
#ifndef STREAMLAB_GRADE_REPORT_TEXT_H
#define STREAMLAB_GRADE_REPORT_TEXT_H

#include "grading/reports/grade_report.h"
#include "grading/score/grade_result.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The report as a malloc'd string. */
char *grade_report_text(const grade_student *s, const grade_report_context *ctx);
/* One lab's part of it (also the Gradescope test output). */
char *grade_report_text_lab(const grade_lab *lab);

#ifdef __cplusplus
}
#endif

#endif
