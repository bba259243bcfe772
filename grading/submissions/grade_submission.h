/* grading/submissions/grade_submission.h: finding the students and their files.
 *
 * A submissions folder holds one entry per student: a folder whose files mirror the
 * repository's paths (alice/labs/03_double_buffer/lab.c), an archive (.zip, .tar.gz,
 * .tgz, .tar) holding the same, with or without one enclosing folder, or a bare .c file
 * (alice.c). Course platforms' exports (grade_layout.h) give a student as a set of files
 * and folders instead (GRADE_SUB_FILES: Canvas's and Moodle's flat files), or as what the
 * student uploaded to Gradescope. Only the lab files the grader asks for are taken;
 * nothing else of a submission is used. A file is found at its exact path, or below a
 * single enclosing folder; in loose mode (Gradescope, and what a student uploaded to a
 * platform, when one lab is graded) a lone file of the same name anywhere is taken too,
 * or else the submission's only .c file, with a note; an archive inside an upload is
 * opened. When a file is missing, the reason says what the submission holds instead. */
#ifndef STREAMLAB_GRADE_SUBMISSION_H
#define STREAMLAB_GRADE_SUBMISSION_H

#include <stdbool.h>
#include <stddef.h>

#include "grading/base/grade_text.h"
#include "grading/submissions/grade_index.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum grade_sub_kind {
    GRADE_SUB_FOLDER = 0,
    GRADE_SUB_ARCHIVE,
    GRADE_SUB_FILES /* parts: files (archives are opened) and folders, under names of their own */
} grade_sub_kind;

/* One file or folder of a GRADE_SUB_FILES submission: where it is, and the name the
 * student gave it (Canvas's original name; a folder's files keep their paths below it). */
typedef struct grade_sub_part {
    char *path;
    char *name;
    /* A platform's file whose own name claims another participant: what it claims and who
     * uploaded it, in words (the file stays with its uploader; the lab notes say so), else
     * NULL. */
    char *claim;
} grade_sub_part;

typedef struct grade_submission {
    char *name; /* the student: the folder's name, or the archive's without its extension */
    char *path; /* the folder or archive (GRADE_SUB_FILES: the first part) */
    grade_sub_kind kind;
    grade_sub_part *parts; /* GRADE_SUB_FILES */
    size_t n_parts;
    bool loose;        /* what a student uploaded to a platform: loose matching, archives inside opened */
    char *problem;     /* the export says this submission cannot be graded (why), else NULL */
    char *sid, *email; /* who it is, when the export or the roster says (else NULL) */
    char *platform_id; /* the platform's id of the student or submission, else NULL */
    /* When it was handed in, for a late policy (grade_late.h): time_from says where the
     * time came from ("Gradescope's :created_at:", "--submitted-at roster.csv", ...). */
    bool has_time;
    long long submitted_at; /* seconds since 1970, UTC */
    char *time_from;
    int canvas_late;        /* a Canvas download: 2 a file marked _LATE, 1 none; 0 not Canvas */
    char *group;            /* one member's row of a group's submission: "a group submission of A & B", else NULL */
    /* A student on the roster of whom --submissions holds nothing: why every lab is not
     * submitted (the row is 0, "not submitted"), else NULL. */
    char *absent;
} grade_submission;

typedef struct grade_submission_list {
    grade_submission *items;
    size_t n;
    char *warnings; /* entries that were skipped, one line each ("" when none) */
} grade_submission_list;

/* Lists dir's entries (sorted by name). Returns 0, or -1 when dir cannot be read. */
int grade_submissions_list(const char *dir, grade_submission_list *out, char *err, size_t err_len);
void grade_submission_list_free(grade_submission_list *l);
/* A new, zeroed entry at the end of l. */
grade_submission *grade_submission_list_add(grade_submission_list *l);
/* The loose files submission of a course platform's user (platform_id: Canvas's user id,
 * Moodle's participant id): the one in l already, or a new one named name (cleaned for
 * display) when there is none. */
grade_submission *grade_submission_list_loose(grade_submission_list *l, const char *platform_id, const char *name);
/* Adds a part to a GRADE_SUB_FILES submission (both strings copied). */
void grade_submission_add_part(grade_submission *s, const char *path, const char *name);
/* Sorts l by name and gives a name that is taken twice its path's last part (with a
 * warning line). */
void grade_submission_list_finish(grade_submission_list *l, grade_buf *warn);

/* Fills each wanted file from the submission. Returns 0, or -1 with err when the whole
 * submission cannot be read (a malformed archive, an unreadable folder). */
int grade_submission_fetch(const grade_submission *sub, grade_wanted *wanted, size_t n, bool loose, char *err,
                           size_t err_len);

#ifdef __cplusplus
}
#endif

#endif
