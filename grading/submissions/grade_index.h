/* grading/submissions/grade_index.h: what the grader wants from one submission, and the index of the
 * files the submission holds (a folder's or an archive's, read by grade_submission.c and
 * grade_archive.c alike): their paths, and the bytes of the ones that may be wanted. A
 * wanted file matches at its exact path, below one enclosing folder, or, in loose mode
 * (Gradescope, one lab), by its name alone. */
#ifndef STREAMLAB_GRADE_INDEX_H
#define STREAMLAB_GRADE_INDEX_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GRADE_MAX_SOURCE_BYTES (1u << 20) /* a lab file larger than this is not graded */

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
 * loose mode by its name, or as any .c file): worth reading. */
bool grade_index_may_want(const char *path, const grade_wanted *wanted, size_t n, bool loose);

/* Frees what a fetch filled in w and empties it. */
void grade_wanted_clear(grade_wanted *w);

/* The one rule for which file is a lab's file, used for every submission (folders,
 * archives, platforms' exports), in Gradescope mode and by //grading:check: whether the
 * file name `name` is the lab file's name `want` ("lab.c"). 2: the same name; 1: the same
 * but for letter case and the mark a browser or file manager adds to a second copy
 * ("Lab.C", "LAB.c", "lab (1).c", "lab(2).c", "lab-1.c", "lab_2.c", "lab copy.c",
 * "lab - Copy.c", "lab copy 2.c"); 0: another name. */
int grade_lab_file_name(const char *name, const char *want);
/* Whether name ends in ".c" or ".C": a C source file. */
bool grade_index_c_file(const char *name);
/* The last component of a path. */
const char *grade_index_base_name(const char *path);
/* path is want below exactly one folder: "top/labs/03/lab.c". */
bool grade_index_below_one_folder(const char *path, const char *want);

#ifdef __cplusplus
}
#endif

#endif
