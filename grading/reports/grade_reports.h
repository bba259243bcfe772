/* grading/reports/grade_reports.h: the front door of grading/reports/, what the grader
 * writes from the results (docs/architecture.md): a student's report.txt
 * (grade_report_text.h), results.json for Gradescope (grade_report_gradescope.h) and JUnit
 * XML (grade_report_junit.h); the class's gradebook.csv (grade_gradebook.h) with the
 * instructor's adjustments read back from it (grade_adjust.h); the progress bar and the
 * summary table (grade_progress.h). Include this header, or the one you need. */
#ifndef STREAMLAB_GRADING_REPORTS_GRADE_REPORTS_H
#define STREAMLAB_GRADING_REPORTS_GRADE_REPORTS_H

#include "grading/reports/grade_adjust.h"
#include "grading/reports/grade_gradebook.h"
#include "grading/reports/grade_progress.h"
#include "grading/reports/grade_report.h"
#include "grading/reports/grade_report_gradescope.h"
#include "grading/reports/grade_report_junit.h"
#include "grading/reports/grade_report_text.h"

#endif
