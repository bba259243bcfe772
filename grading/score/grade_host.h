/* grading/score/grade_host.h: a student whose lab run the grading host was too slow for.
 *
 * The harness's own work (the baseline, checking every result, the report) has a budget
 * of its own, scaled to the machine (labs/harness/budget.h); when a busy host makes it run
 * past that, neither the lab nor the grader's watchdog blames the student
 * (grade_runner.h: grade_attempt.host_problem, grade_lab.host_problem). Such a student is
 * not graded: their row in the gradebook has empty cells and a NOT GRADED note naming the
 * lab, as a student an interrupted run did not get to; the gradebook is INCOMPLETE
 * (INCOMPLETE.txt, exit status 1), and --resume (or --regrade) grades them again. */
#ifndef STREAMLAB_GRADE_HOST_H
#define STREAMLAB_GRADE_HOST_H

#include <stdbool.h>
#include <stddef.h>

#include "grading/score/grade_result.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The first lab of s that the host was too slow for, or NULL. */
const grade_lab *grade_student_host_problem(const grade_student *s);
/* When s has such a lab: marks s not graded, with the NOT GRADED note ("NOT GRADED: lab
 * 03_double_buffer: the grading host was too slow: ...") as its problem. Returns whether
 * it did. */
bool grade_student_mark_host_problem(grade_student *s);
/* What INCOMPLETE.txt says when n students of the class of `total` had a host problem
 * (names: theirs, ", "-separated), with the command that grades them again. malloc'd. */
char *grade_host_incomplete(size_t n, size_t total, const char *names, const char *again);

#ifdef __cplusplus
}
#endif

#endif
