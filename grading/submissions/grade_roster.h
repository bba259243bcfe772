/* grading/submissions/grade_roster.h: --roster FILE.csv: the class list that maps the ids a platform
 * gives (a Gradescope sid or email, a Canvas user id, a Moodle participant id, a folder's
 * name) to the student's name and student id for the gradebook.
 *
 * A CSV file (RFC 4180, UTF-8, a byte order mark allowed) with a header row naming its
 * columns, in any order and case: `name` (needed), and one or more of `sid`, `email`,
 * `canvas_id`, `moodle_id` and `id` (any other id: a submission folder's or archive's
 * name). Other columns are ignored. An id given twice is refused, naming both lines. */
#ifndef STREAMLAB_GRADE_ROSTER_H
#define STREAMLAB_GRADE_ROSTER_H

#include <stddef.h>

#include "grading/base/grade_text.h"
#include "grading/submissions/grade_submission.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { GRADE_ROSTER_SID = 0, GRADE_ROSTER_EMAIL, GRADE_ROSTER_CANVAS, GRADE_ROSTER_MOODLE, GRADE_ROSTER_ID,
       GRADE_ROSTER_IDS };

typedef struct grade_roster_row {
    char *name;
    char *ids[GRADE_ROSTER_IDS]; /* NULL where the column is missing or the cell empty */
    int line;
} grade_roster_row;

typedef struct grade_roster {
    char *path;
    grade_roster_row *rows;
    size_t n;
} grade_roster;

/* One CSV record (RFC 4180) from *p: its fields (malloc'd), trimmed of surrounding
 * spaces; *line counts the lines read. Returns the number of fields, 0 at the end, -1 on
 * an unterminated quote. Also read by --submitted-at and the gradebook's adjustments. */
int grade_csv_record(const char **p, const char *end, char ***fields, int *line);
/* The same with fields separated by sep (',' or ';'). */
int grade_csv_record_sep(const char **p, const char *end, char ***fields, int *line, char sep);
/* The field separator of a CSV text from its first line: ';' when it has semicolons and no
 * comma outside quotes (a spreadsheet saved in a locale whose decimal mark is a comma:
 * German, French, ...), else ','. */
char grade_csv_separator(const char *p, const char *end);
void grade_csv_fields_free(char **fields, int n);

/* Returns 0, or -1 with "FILE: line N: why" in err. */
int grade_roster_load(const char *path, grade_roster *r, char *err, size_t err_len);
int grade_roster_parse(const char *path, const char *text, size_t len, grade_roster *r, char *err, size_t err_len);
void grade_roster_free(grade_roster *r);
/* The row for a submission (by its sid, email, platform id or name), or NULL. */
const grade_roster_row *grade_roster_find(const grade_roster *r, const grade_submission *s);
/* Gives every submission the roster knows its roster name, sid and email; a line in warn
 * lists those it does not know. */
void grade_roster_apply(const grade_roster *r, grade_submission_list *l, grade_buf *warn);
/* Gives every roster student of whom l holds no submission one that is absent (every lab
 * not submitted: a row of 0 that says so, so that the instructor sees who is missing), and
 * a line in warn naming them. */
void grade_roster_add_missing(const grade_roster *r, grade_submission_list *l, grade_buf *warn);

#ifdef __cplusplus
}
#endif

#endif
