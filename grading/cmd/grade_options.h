/* grading/cmd/grade_options.h: the grader's command line (getopt_long).
 *
 *   grade --submissions DIR --out OUT [--labs a,b] [--jobs N] [--backend auto|sim|gpu]
 *         [--runs K] [--schedules N] [--timeout S] [--rubric FILE] ...
 *   grade --gradescope [--submission-dir /autograder/submission]
 *         [--results /autograder/results/results.json]
 *   grade --install DIR [--rubric FILE] [--kits DIR] */
#ifndef STREAMLAB_GRADE_OPTIONS_H
#define STREAMLAB_GRADE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "grading/reports/grade_report_gradescope.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GRADE_EXIT_OK 0
#define GRADE_EXIT_CANNOT_RUN 1
#define GRADE_EXIT_USAGE 64
/* Grading stopped by SIGINT (Ctrl-C) or SIGTERM: 128 + the signal, as a shell reports it. */
#define GRADE_EXIT_INTERRUPTED_INT 130
#define GRADE_EXIT_INTERRUPTED_TERM 143

typedef struct grade_options {
    const char *submissions;    /* class mode: one entry per student */
    const char *out;            /* class mode: where reports go */
    const char *labs;           /* comma-separated lab ids, NULL: every lab of the rubric */
    int jobs;                   /* students graded at once */
    const char *backend;        /* "auto", "sim" or "gpu" */
    int runs;                   /* timed runs per lab run */
    int schedules;              /* perturbed schedules (simulator) */
    int timeout_s;              /* per lab run */
    const char *rubric;         /* NULL: the one built in */
    const char *kits;           /* NULL: the ones built in */
    const char *scratch;        /* where scratch folders go, NULL: $TMPDIR or /tmp */
    bool keep_scratch;
    const char *profile;        /* simulator profile */
    long mem_mb;
    long output_mb;
    int compile_s;              /* --compile-timeout: CPU seconds of a compile or link */
    long scratch_mb;            /* --scratch-mb: what a lab run may keep in its scratch folder */
    bool seed_given;
    uint64_t seed;
    const char *submitted_at;   /* --submitted-at FILE.csv: when students handed in, or NULL */
    bool file_times;            /* --file-times: where the platform gives no time, the files' modification times */
    bool rescore;               /* --rescore: score the stored results of --out by the rubric again; no lab runs */
    bool gradescope;
    const char *submission_dir; /* Gradescope mode */
    const char *results;        /* Gradescope mode */
    grade_gradescope_settings gs; /* results.json: --visibility, --output-format, --leaderboard */
    int progress;               /* -1 default (on: a bar on a terminal, lines otherwise), 0 off, 1 on */
    bool quiet;                 /* no summary table */
    bool regrade;               /* a used --out: grade again and merge the gradebook */
    bool force;                 /* a used --out: start clean */
    bool resume;                /* a used --out: skip students whose result is up to date */
    bool csv_bom;               /* gradebook.csv starts with a UTF-8 byte order mark */
    int layout;                 /* grade_layout: GRADE_LAYOUT_AUTO unless --layout */
    const char *roster;         /* --roster FILE.csv: ids to names and student ids, or NULL */
    bool similarity;            /* --similarity: OUT/similarity.txt (grade_similarity.h) */
    const char *similarity_tool; /* --similarity-tool PATH: sim_c to use, or NULL: sim_c on PATH */
    bool jobs_given;            /* --jobs was given */
    /* Grading on a Slurm cluster (grade_slurm.h). */
    bool slurm;                 /* --slurm: write (and with --submit, submit) a job array */
    bool submit;                /* --submit: run sbatch for the array and the merge */
    bool only_failed;           /* --only-failed: the array's tasks that did not finish, again */
    const char *partition;      /* --partition P, or NULL: the cluster's default */
    int gpus_per_task;          /* --gpus-per-task G; -1: 1 with --backend gpu, else none */
    const char *time_limit;     /* --time T (Slurm's format), or NULL: the partition's */
    int array_size;             /* --array-size N; 0: one task per 10 students */
    int shard_k, shard_n;       /* --shard K/N: grade submissions i with i % N == K; n 0: all */
    bool merge;                 /* --merge: grade nobody, merge a Slurm run's tasks into --out */
    const char *task_mem;       /* --task-mem SIZE (Slurm's --mem: 8G, 8192M), or NULL: from --jobs, --memory-mb */
    int array_throttle;         /* --array-throttle N: at most N tasks at once (%N); 0: no limit */
    const char *prologue;       /* --prologue FILE: shell lines run before the grader (module load ...) */
    const char *gres;           /* --gres SPEC (gpu:1): GPUs through --gres instead of --gpus-per-task */
    const char *sbatch_options[16]; /* --sbatch-option OPT: more #SBATCH lines (--account=..., --qos=...) */
    int n_sbatch_options;
    const char *install;        /* --install DIR: copy the grader, kits, rubric and catalog there */
    bool help;
} grade_options;

/* Returns 0, or GRADE_EXIT_USAGE with what is wrong in err. */
int grade_parse_options(int argc, char **argv, grade_options *o, char *err, size_t err_len);
void grade_print_usage(const char *prog, FILE *out);
/* How the instructor runs the grader, for messages: "bazel run //grading:grade --" under
 * `bazel run`, STREAMLAB_USAGE_NAME when a launcher set it, else argv0's last part. */
const char *grade_usage_name(const char *argv0);

#ifdef __cplusplus
}
#endif

#endif
