/* grading/slurm/grade_slurm.h: grading a class on a Slurm cluster. `grade --slurm`
 * writes OUT/slurm/:
 *
 *   grade_array.sbatch  a job array: task K runs `grade --shard K/N` on its node, which
 *                       grades submissions K, K+N, K+2N, ... (in the name order every run
 *                       uses) into OUT/slurm/shards/K with the same sandbox and the same
 *                       prebuilt kits, then writes its exit status to OUT/slurm/status/K
 *   merge.sbatch        `grade --merge`: takes every task's stored results into OUT and
 *                       writes the gradebook, JUnit file, summary and per-student reports
 *                       as a local run does; a task that did not finish is named, and its
 *                       students not graded get a NOT GRADED row saying so
 *   submit.sh [TASKS]   sbatch of the array (tasks 0-(N-1), or the list given) and of the
 *                       merge, afterany the array
 *   plan.json           the number of tasks, the class's students in order, the grader
 *   grader/             the grader, the kits of the labs graded, the rubric and the lab
 *                       catalog, installed for this plan (grade_install.h): the jobs run
 *                       this copy, so a rebuild, `bazel clean` or an edit of the rubric
 *                       while they run changes nothing
 *
 * Every site-specific line is the instructor's to set: partition, time, memory, GPUs
 * (--gpus-per-task or --gres), how many tasks run at once, shell lines run first (module
 * load ...) and any other #SBATCH line (docs/grading.md).
 *
 * `--submit` runs submit.sh; `--slurm --only-failed --out OUT` submits again only the
 * tasks with no status or a status other than 0 (a task keeps the results of students it
 * finished before it died: its shard folder is graded with --resume), then the merge. */
#ifndef STREAMLAB_GRADE_SLURM_H
#define STREAMLAB_GRADE_SLURM_H

#include <stdbool.h>
#include <stddef.h>

#include "grading/submissions/grade_submission.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the scripts are written from. Paths are absolute. */
typedef struct grade_slurm_plan {
    const char *out;              /* the class's --out */
    const char *grade;            /* the grader program every task and the merge run: the
                                     plan's own installed copy (grade_install.h) */
    const char *const *args;      /* the grading options every task and the merge share */
    size_t n_args;
    const char *const *merge_args; /* options for the merge only (--csv-bom, --similarity, ...) */
    size_t n_merge_args;
    const char *partition;        /* or NULL */
    const char *time_limit;       /* or NULL */
    int gpus_per_task;            /* 0: none asked for */
    const char *gres;             /* GPUs as --gres=SPEC instead, or NULL */
    const char *mem;              /* each job's --mem (8192M), or NULL: the partition's default */
    int array_throttle;           /* at most this many tasks at once (--array=...%N); 0: no limit */
    const char *prologue;         /* shell lines each job runs before the grader, or NULL */
    const char *const *sbatch_options; /* more #SBATCH lines ("--account=cs101") */
    size_t n_sbatch_options;
    int cpus_per_task;            /* the --jobs of each task */
    int tasks;                    /* N */
    const char *const *students;  /* the class, in order */
    size_t n_students;
    const char *usage;            /* how the instructor runs the grader, for messages */
} grade_slurm_plan;

/* The folder the plan lives in: OUT/slurm (malloc'd). */
char *grade_slurm_dir(const char *out);

/* Writes OUT/slurm/ afresh (an earlier plan's shards, statuses and logs removed). Returns
 * 0, or -1 with err. */
int grade_slurm_write(const grade_slurm_plan *p, char *err, size_t err_len);

/* Runs OUT/slurm/submit.sh with `tasks` ("0-7", "2,5"): its output is the job ids.
 * Refuses, saying so, when sbatch is not on PATH. Returns 0, or -1 with err. */
int grade_slurm_submit(const char *out, const char *tasks, char *err, size_t err_len);

/* A plan as read back: the number of tasks and the class's students. */
typedef struct grade_slurm_state {
    int tasks;
    char **students;
    size_t n_students;
    char *rerun; /* the command that submits the tasks that did not finish again */
} grade_slurm_state;

/* Reads OUT/slurm/plan.json. Returns 0, or -1 with err (no plan: not a --slurm --out). */
int grade_slurm_read(const char *out, grade_slurm_state *st, char *err, size_t err_len);
void grade_slurm_state_free(grade_slurm_state *st);

/* Whether task k finished (its status file holds exit status 0); when not, why (in words:
 * "exit status 1" or "no exit status: it was killed, ran out of time or its node
 * failed") in why. */
bool grade_slurm_task_done(const char *out, int k, char *why, size_t why_len);

/* The tasks that did not finish, as Slurm's --array list ("1,4"), or "" when every one
 * did (malloc'd). */
char *grade_slurm_failed_list(const char *out, const grade_slurm_state *st);

/* Keeps only submissions i with i % n == k of l (in its order), freeing the others. */
void grade_shard_filter(grade_submission_list *l, int k, int n);

/* s quoted for sh (malloc'd): 'it'\''s'. */
char *grade_shell_quote(const char *s);

#ifdef __cplusplus
}
#endif

#endif
