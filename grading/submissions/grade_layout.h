/* grading/submissions/grade_layout.h: what a submissions folder is, and reading it into students.
 *
 * The layouts a grader reads (docs/grading.md, "Submissions"):
 *  - folders: one folder, archive or bare .c file per student (the documented layout);
 *  - gradescope-export: Gradescope's "Export submissions": submission_NNN/ folders and
 *    submission_metadata.yml naming each one's submitters (:name:, :sid:, :email:), read
 *    with libyaml;
 *  - canvas: Canvas's "Download submissions": flat files named
 *    lastfirst[_LATE]_<userid>_<attachmentid>_<original name>, grouped by user, with the
 *    "-N" Canvas adds to a repeated name taken off again;
 *  - moodle: Moodle's "Download submissions": <Full Name>_<id>_assignsubmission_file/
 *    folders, or flat <Full Name>_<id>_assignsubmission_file_<name> files, grouped by id.
 * Detection: submission_metadata.yml makes an export; any Moodle name makes a Moodle
 * download; files only, Canvas-named, a Canvas download; anything else folders. In a
 * platform's layout every entry must be named as the platform names them: one that is not
 * stops the grader (nothing is dropped without a word). */
#ifndef STREAMLAB_GRADE_LAYOUT_H
#define STREAMLAB_GRADE_LAYOUT_H

#include <stddef.h>

#include "grading/submissions/grade_layout_walk.h"
#include "grading/submissions/grade_roster.h"
#include "grading/submissions/grade_submission.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum grade_layout {
    GRADE_LAYOUT_AUTO = 0,
    GRADE_LAYOUT_FOLDERS,
    GRADE_LAYOUT_GRADESCOPE,
    GRADE_LAYOUT_CANVAS,
    GRADE_LAYOUT_MOODLE
} grade_layout;

/* "folders", "gradescope-export", "canvas", "moodle" ("auto" for GRADE_LAYOUT_AUTO). */
const char *grade_layout_name(grade_layout l);
/* Returns 0, or -1 when s names no layout. */
int grade_layout_parse(const char *s, grade_layout *out);
/* Every word --layout takes: "auto, folders, gradescope-export, moodle or canvas". */
const char *grade_layout_choices(void);

/* Reads dir as `forced` (GRADE_LAYOUT_AUTO: detected) into out, with the roster (may be
 * NULL) giving names and ids. *used is the layout read, *how (malloc'd) a line saying
 * which and why. Returns 0, or -1 with err when dir cannot be read as that layout. */
int grade_layout_read(const char *dir, grade_layout forced, const grade_roster *roster, grade_submission_list *out,
                      grade_layout *used, char **how, char *err, size_t err_len);

/* The export's reader (grade_layout_gradescope.c); warnings go to warn. Returns 0, or -1
 * with err. */
int grade_layout_read_gradescope(const char *dir, grade_submission_list *out, grade_buf *warn, char *err,
                                 size_t err_len);

/* What a platform reader's visit of an entry (grade_layout_walk.h) adds to: the
 * submissions and the warnings. */
typedef struct grade_layout_reading {
    grade_submission_list *out;
    grade_buf *warn;
} grade_layout_reading;

/* The readers of the downloads (Canvas, Moodle), whose every entry is a student's file or
 * folder named as the platform names them: each looks at one entry of the folder's walk
 * (grade_layout_walk.h) with a grade_layout_reading, and says whether it is misnamed.
 * grade_layout_read refuses a download with a misnamed entry, naming the first few. */
bool grade_layout_visit_canvas(const grade_layout_entry *e, void *reading, const char **note);
bool grade_layout_visit_moodle(const grade_layout_entry *e, void *reading, const char **note);

/* A file whose own name is a platform's name of another person (c_name, c_id) stays with
 * its uploader, s (its id `id`): its part (the last added) says so, for s's report, and a
 * warning for the class, in the platform's words: platform "Canvas", person "student",
 * id_word "user". shown is the file's name made printable. */
void grade_layout_claimed(grade_layout_reading *r, grade_submission *s, const char *shown, const char *platform,
                          const char *person, const char *id_word, const char *c_name, const char *c_id,
                          const char *id);

/* Whether a file name is Canvas's, and its parts (any pointer may be NULL; strings malloc'd):
 * the student's lastfirst, the late flag, the user id, and the original name without the
 * "-N" Canvas adds to a repeated one. */
bool grade_canvas_name(const char *name, char **student, bool *late, char **user_id, char **original);
/* Whether a name is Moodle's: the full name, the id, the plugin ("file", "onlinetext")
 * and what follows it (a flat file's own name, "" for a folder). */
bool grade_moodle_name(const char *name, char **full_name, char **id, char **plugin, char **rest);

#ifdef __cplusplus
}
#endif

#endif
