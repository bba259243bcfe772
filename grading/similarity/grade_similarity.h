/* grading/similarity/grade_similarity.h: the class's similarity report (--similarity), for the
 * instructor to read: Debian's similarity-tester (sim_c) compares the students' files of
 * each graded lab, with the lab's skeleton taken out as boilerplate, and the grader writes
 * what it found to OUT/similarity.txt with a short summary per lab. A reading aid, never a
 * verdict: it changes no grade and no exit status.
 *
 * The skeleton: sim_c's "old" files (after a `/` separator) are not compared among
 * themselves, but a new file's match with another new file is still reported when the
 * text is also the skeleton's, so giving the skeleton as old text alone does not keep two
 * students who kept the same skeleton code apart. So each student's file is first compared
 * with the skeleton alone (`sim_c -S -n FILES / skeleton.c`: new files against old files
 * only), the lines of every run sim_c finds there are blanked (line numbers kept), and the
 * blanked files are then compared with each other (`sim_c -p -a -e -s`: each pair in
 * isolation, both ways) and for where the runs are (`sim_c -n -e -s`). Files are handed to
 * sim_c as s000.c, s001.c, ... in a scratch folder, so that no student's name reaches its
 * command line or has to be parsed back out of its output. */
#ifndef STREAMLAB_GRADE_SIMILARITY_H
#define STREAMLAB_GRADE_SIMILARITY_H

#include <stdbool.h>
#include <stddef.h>

#include "grading/build/grade_kit.h"
#include "grading/submissions/grade_submission.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A pair reported in the summary when either way is at least this (percent). */
#define GRADE_SIMILARITY_THRESHOLD 30
/* Pairs below this are not listed at all (sim_c -t). */
#define GRADE_SIMILARITY_FLOOR 10

/* The program to run: `tool` when it has a '/' (NULL when that is not an executable
 * file), else `tool` (NULL: "sim_c") looked up in PATH. malloc'd, or NULL when missing. */
char *grade_similarity_find_tool(const char *tool);

/* One pair of students: how much of a's own code (what is not the skeleton) sim_c finds
 * in b's file, and the other way round. */
typedef struct grade_similarity_pair {
    size_t a, b; /* indexes into the lab's students, a < b */
    int a_in_b, b_in_a;
} grade_similarity_pair;

/* One run of matching tokens: lines of a's file and of b's. */
typedef struct grade_similarity_run {
    size_t a, b;
    int a_from, a_to, b_from, b_to, tokens;
} grade_similarity_run;

typedef struct grade_similarity_lab {
    size_t n;             /* students compared */
    int *own_tokens;      /* per student: tokens left once the skeleton is taken out */
    grade_similarity_pair *pairs; /* at least GRADE_SIMILARITY_FLOOR either way, most similar first */
    size_t n_pairs;
    grade_similarity_run *runs;   /* in pair order, then by a's lines */
    size_t n_runs;
} grade_similarity_lab;

/* Compares n files (texts[i], lens[i] bytes) with sim_c at `tool`, taking out what they
 * share with the skeleton file (NULL: nothing is taken out); work is a scratch folder
 * (created). Returns 0 with *out filled, or -1 with why in err (sim_c failed, or its
 * output was not understood). */
int grade_similarity_compare(const char *tool, const char *skeleton, const char *const *texts, const size_t *lens,
                             size_t n, const char *work, grade_similarity_lab *out, char *err, size_t err_len);
void grade_similarity_lab_free(grade_similarity_lab *lab);

/* The whole class: each lab's files fetched from the submissions as the grader fetches
 * them, compared, and written to out/similarity.txt. */
typedef struct grade_similarity_class {
    const char *tool;     /* --similarity-tool, or NULL: sim_c on PATH */
    const char *usage;    /* how the grader is run, for the hint */
    const grade_kit *kits; /* the graded labs (their skeletons) */
    size_t n_labs;
    const grade_submission_list *subs;
    const char *scratch;  /* a folder for sim_c's files (created, removed afterwards) */
    const char *out;      /* where similarity.txt goes */
    const char *when;
} grade_similarity_class;

/* Returns 0 with what to print after the summary table in *summary (malloc'd);
 * 1 when no report could be made (no sim_c, or it failed), with the one line that says
 * why and what to do in *summary; -1 when similarity.txt could not be written (err). */
int grade_similarity_report(const grade_similarity_class *c, char **summary, char *err, size_t err_len);

#ifdef __cplusplus
}
#endif

#endif
