/* grading/reports/grade_report_junit.h: JUnit XML for CI dashboards: per student (one testsuite
 * per lab) or for the class (one testsuite per student), one testcase per check, a
 * <failure> with the reason where the check did not get full points. Everything is
 * XML-escaped, and characters XML 1.0 cannot hold at all are replaced. */
#ifndef STREAMLAB_GRADE_REPORT_JUNIT_H
#define STREAMLAB_GRADE_REPORT_JUNIT_H

#include <stdbool.h>
#include <stddef.h>

#include "grading/score/grade_result.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One student's file. */
char *grade_report_junit_student(const grade_student *s);
/* The class's file. */
char *grade_report_junit_class(const grade_student *const *students, size_t n);
/* s XML-escaped for text and attribute values (malloc'd). */
char *grade_xml_escape(const char *s);

#ifdef __cplusplus
}
#endif

#endif
