/* grading/reports/grade_adjust.h: the instructor's manual adjustments, kept across a regrade.
 *
 * gradebook.csv has, per lab, an "<lab> adjustment" column (points added, or taken when
 * negative; empty for none) and an "<lab> adjustment_note" column, for the instructor to
 * type into. --regrade and --resume read them back from the existing gradebook before
 * anyone is graded and give them to the students' rows again (graded again or kept), so
 * that a regrade never loses an instructor's work. A cell that is not a number is refused
 * with its row and column named, and the grader stops with the gradebook as it was. */
#ifndef STREAMLAB_GRADE_ADJUST_H
#define STREAMLAB_GRADE_ADJUST_H

#include <stdbool.h>
#include <stddef.h>

#include "grading/score/grade_result.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct grade_adjustment {
    char *student; /* the gradebook's student column */
    char *lab;
    bool adjusted; /* a number in the cell (else only a note) */
    double points;
    char *note;    /* NULL when none */
} grade_adjustment;

typedef struct grade_adjustments {
    grade_adjustment *items;
    size_t n;
    char **students; /* every student with a row (their labs without a cell: no adjustment) */
    size_t n_students;
} grade_adjustments;

/* Reads the adjustments of a gradebook's text (what grade_gradebook_csv wrote, edited by
 * the instructor or a spreadsheet). `name` stands for the file in messages. Returns 0, or
 * -1 with "FILE: row N (student "x"), column "lab adjustment": why" in err. */
int grade_adjustments_parse(const char *text, size_t len, const char *name, grade_adjustments *out, char *err,
                            size_t err_len);
/* The same from a file; a file that does not exist has none. */
int grade_adjustments_load(const char *path, grade_adjustments *out, char *err, size_t err_len);
void grade_adjustments_free(grade_adjustments *a);
/* Gives s's labs the adjustments its gradebook row had (clearing those of labs whose cell
 * is empty now) and totals s again. A student without a row is left as is. */
void grade_adjustments_apply(const grade_adjustments *a, grade_student *s);

#ifdef __cplusplus
}
#endif

#endif
