/* grading/grade_submission.h: finding the students and their files.
 *
 * A submissions folder holds one entry per student: a folder whose files mirror the
 * repository's paths (alice/labs/03_double_buffer/lab.c), or an archive (.zip, .tar.gz,
 * .tgz, .tar) holding the same, with or without one enclosing folder. Only the lab files
 * the grader asks for are taken; nothing else of a submission is used. A file is found
 * at its exact path, or below a single enclosing folder; in loose mode (Gradescope, one
 * lab), a lone file of the same name anywhere is taken too, with a note. When a file is
 * missing, the reason says what the submission holds instead. */
#ifndef STREAMLAB_GRADE_SUBMISSION_H
#define STREAMLAB_GRADE_SUBMISSION_H

#include <stdbool.h>
#include <stddef.h>

#include "grading/grade_index.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum grade_sub_kind {
    GRADE_SUB_FOLDER = 0,
    GRADE_SUB_ARCHIVE
} grade_sub_kind;

typedef struct grade_submission {
    char *name; /* the student: the folder's name, or the archive's without its extension */
    char *path;
    grade_sub_kind kind;
} grade_submission;

typedef struct grade_submission_list {
    grade_submission *items;
    size_t n;
    char *warnings; /* entries that were skipped, one line each ("" when none) */
} grade_submission_list;

/* Lists dir's entries (sorted by name). Returns 0, or -1 when dir cannot be read. */
int grade_submissions_list(const char *dir, grade_submission_list *out, char *err, size_t err_len);
void grade_submission_list_free(grade_submission_list *l);

/* Fills each wanted file from the submission. Returns 0, or -1 with err when the whole
 * submission cannot be read (a malformed archive, an unreadable folder). */
int grade_submission_fetch(const grade_submission *sub, grade_wanted *wanted, size_t n, bool loose, char *err,
                           size_t err_len);

#ifdef __cplusplus
}
#endif

#endif
