/* grading/submissions/grade_layout_walk.h: the walk every reader of a submissions folder
 * makes over its entries (the platforms' layout readers, grade_layout_NAME.c, and the
 * folders layout, grade_submission.c): each entry but dot files, its path, its lstat and
 * its name made safe to print, given to the reader's visit; the entries the visit finds
 * misnamed are counted and the first few listed, for the reader's error (a platform's
 * layout stops on a misnamed entry: nothing is dropped without a word). */
#ifndef STREAMLAB_GRADE_LAYOUT_WALK_H
#define STREAMLAB_GRADE_LAYOUT_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "grading/base/grade_text.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One entry of the folder. */
typedef struct grade_layout_entry {
    const char *name;  /* as the folder names it */
    const char *path;  /* the folder's path joined with name */
    const char *shown; /* name made printable (grade_text_clean, 200 bytes at most) */
    bool stat_ok;      /* lstat succeeded: st holds what it said; else stat_errno why not */
    int stat_errno;
    struct stat st;
} grade_layout_entry;

/* A reader's look at one entry: takes it (or skips it with a warning of its own) and
 * returns false, or returns true when the entry is misnamed, with *note ("" unless set)
 * shown after its name in the list. */
typedef bool (*grade_layout_visit)(const grade_layout_entry *e, void *arg, const char **note);

/* The misnamed entries of a walk. */
#define GRADE_LAYOUT_LISTED 10
typedef struct grade_layout_misnamed {
    size_t n;       /* how many */
    grade_buf list; /* the first GRADE_LAYOUT_LISTED, shown with their notes, sep between them */
} grade_layout_misnamed;

/* Walks dir's entries in readdir's order, skipping names that start with '.' and `skip`
 * (may be NULL), and gives each to visit. Returns 0 with *bad filled (free it with
 * grade_layout_misnamed_free), or -1 with err when dir cannot be opened. */
int grade_layout_walk(const char *dir, const char *skip, const char *sep, grade_layout_visit visit, void *arg,
                      grade_layout_misnamed *bad, char *err, size_t err_len);
void grade_layout_misnamed_free(grade_layout_misnamed *bad);

#ifdef __cplusplus
}
#endif

#endif
