/* grading/reports/grade_progress.h: what the grader shows while it works and when it is done: a
 * progress bar on stderr when that is a terminal (one line per student otherwise), and a
 * summary table of the class. */
#ifndef STREAMLAB_GRADE_PROGRESS_H
#define STREAMLAB_GRADE_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

#include "grading/score/grade_result.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct grade_progress {
    size_t total, done;
    bool enabled;
    bool tty;
    double start;
} grade_progress;

void grade_progress_start(grade_progress *p, size_t total, bool enabled);
/* A student is done. */
void grade_progress_step(grade_progress *p, const grade_student *s);
/* Clears the bar. */
void grade_progress_finish(grade_progress *p);

/* The class as a table: student, score, and each lab's outcome in a few words. */
char *grade_summary_table(const grade_student *const *students, size_t n);
/* One lab's outcome in a few words ("pass", "40/100", "does not compile", ...). */
char *grade_lab_outcome(const grade_lab *lab);

#ifdef __cplusplus
}
#endif

#endif
