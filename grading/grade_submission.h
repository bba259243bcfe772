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

#ifdef __cplusplus
extern "C" {
#endif

#define GRADE_MAX_SOURCE_BYTES (1u << 20) /* a lab file larger than this is not graded */

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

/* One file the grader wants from a submission, and what was found. */
typedef struct grade_wanted {
    const char *path; /* "labs/03_double_buffer/lab.c" */
    char *data;       /* its bytes, NUL-terminated, or NULL when missing */
    size_t len;
    char *missing;    /* why it is missing (with what the submission has instead) */
    char *note;       /* how it was found when not at its exact path, or NULL */
} grade_wanted;

/* The regular files of a submission, with the bytes of the ones that may be wanted. */
typedef struct grade_entry {
    char *path;
    char *data;
    size_t len;
    bool loaded;
    bool too_big;
} grade_entry;

typedef struct grade_index {
    grade_entry *e;
    size_t n, cap;
    size_t links; /* symbolic links and other non-files, ignored */
} grade_index;

void grade_index_add(grade_index *idx, const char *path, const char *data, size_t len, bool loaded, bool too_big);
void grade_index_free(grade_index *idx);
/* Whether path could be one of the wanted files (at its path, below one folder, or in
 * loose mode by its name): worth reading. */
bool grade_index_may_want(const char *path, const grade_wanted *wanted, size_t n, bool loose);

/* Fills each wanted file from the submission. Returns 0, or -1 with err when the whole
 * submission cannot be read (a malformed archive, an unreadable folder). */
int grade_submission_fetch(const grade_submission *sub, grade_wanted *wanted, size_t n, bool loose, char *err,
                           size_t err_len);
void grade_wanted_clear(grade_wanted *w);

#ifdef __cplusplus
}
#endif

#endif
