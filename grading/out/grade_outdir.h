/* grading/out/grade_outdir.h: the class's --out folder, guarded against the instructor's
 * mistakes: it may not lie inside --submissions nor hold it (either would grade the
 * reports as a student, or write into students' folders); one grader at a time writes it
 * (a lock, flock on OUT/.streamlab-grade.lock, held until the grader exits); and a folder
 * an earlier run used is refused unless the instructor says what to do with it:
 *
 *   --regrade  grade the students again and merge: their rows are replaced, the others of
 *              the earlier run keep theirs
 *   --resume   the same, skipping students whose stored result is still up to date (same
 *              submission, kits, rubric and settings): finishes an interrupted run
 *   --force    remove the earlier reports and start clean
 *
 * A slurm/ folder (the scripts and tasks of `grade --slurm`, grade_slurm.h) does not make a
 * folder used: the class's reports are written when its tasks are merged.
 *
 * Each finished student's result is kept in OUT/.streamlab-grade/ with the fingerprint of
 * what it depends on (grade_hash.h); the gradebook of a merged run is made from these.
 *
 * Every file the grader writes in OUT is written through od->fd, the folder opened once,
 * with grade_beneath.h: never outside it, never through a symbolic link placed in it. */
#ifndef STREAMLAB_GRADE_OUTDIR_H
#define STREAMLAB_GRADE_OUTDIR_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum grade_out_mode {
    GRADE_OUT_NEW = 0, /* refuse a used folder */
    GRADE_OUT_REGRADE,
    GRADE_OUT_RESUME,
    GRADE_OUT_FORCE
} grade_out_mode;

typedef struct grade_outdir {
    char *path;
    char *state_dir; /* OUT/.streamlab-grade */
    int fd;          /* OUT, opened (O_DIRECTORY): every write in OUT goes through it */
    int lock_fd;
    bool used;       /* an earlier run's results were there (and are kept: regrade, resume) */
    bool clean;      /* --force on a used folder: grade_outdir_clean removes the earlier run */
} grade_outdir;

/* One stored result: the student's JSON (grade_student_to_json) and its fingerprint. */
typedef struct grade_stored {
    char *name;
    char *key;
    cJSON *student;
} grade_stored;

/* Checks out against submissions, creates out, locks it and deals with an earlier run by
 * mode. Returns 0, or -1 with what is wrong and what to do in err. */
int grade_outdir_open(const char *out, const char *submissions, grade_out_mode mode, const char *usage_name,
                      grade_outdir *od, char *err, size_t err_len);
/* Removes an earlier run's reports (--force), once the grader is sure it can grade. */
int grade_outdir_clean(grade_outdir *od, char *err, size_t err_len);
/* Whether path a is b or lies inside it (after resolving both; a need not exist). */
bool grade_path_within(const char *a, const char *b);
/* Stores a finished student's result (student_json: grade_student_to_json's text). */
int grade_outdir_store(const grade_outdir *od, const char *name, const char *key, const cJSON *student, char *err,
                       size_t err_len);
/* Every stored result (none in a new folder). */
int grade_outdir_load(const grade_outdir *od, grade_stored **out, size_t *n, char *err, size_t err_len);
void grade_stored_free(grade_stored *s, size_t n);
/* Writes data to the file rel in OUT (grade_beneath_write: inside OUT, through no link). */
int grade_outdir_write(const grade_outdir *od, const char *rel, const char *data, size_t len, char *err,
                       size_t err_len);
/* Marks the folder's gradebook complete or not (OUT/INCOMPLETE.txt holds `how` when not). */
int grade_outdir_mark(const grade_outdir *od, bool complete, const char *how, char *err, size_t err_len);
/* Releases the lock and closes OUT. */
void grade_outdir_close(grade_outdir *od);

#ifdef __cplusplus
}
#endif

#endif
