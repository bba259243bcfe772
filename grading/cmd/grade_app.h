/* grading/cmd/grade_app.h: one run of the `grade` command, as its modes share it: the options,
 * the rubric and kits, the sandbox, the scratch folder, the class and its --out folder, and
 * what each submission's grading left. main() (grade_main.c) fills it in the order below
 * and hands it to one mode:
 *
 *   grade_mode_class       a class: every student graded in worker processes, then the
 *                          gradebook, JUnit file and summary (grade_mode_class.c); with
 *                          --rescore (grade_mode_rescore.c) or --merge (grade_mode_merge.c)
 *                          the results come from --out or the Slurm tasks instead;
 *   grade_mode_gradescope  the one Gradescope submission (grade_mode_gradescope.c);
 *   grade_mode_install     --install DIR (grade_mode_install.c);
 *   grade_mode_slurm       --slurm, and --slurm --only-failed (grade_mode_slurm.c).
 *
 * SIGINT and SIGTERM set grade_stop; every mode looks at it. See docs/grading.md. */
#ifndef STREAMLAB_GRADING_GRADE_APP_H
#define STREAMLAB_GRADING_GRADE_APP_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "grading/build/grade_kit.h"
#include "grading/cmd/grade_options.h"
#include "grading/out/grade_outdir.h"
#include "grading/reports/grade_reports.h"
#include "grading/run/grade_grader.h"
#include "grading/sandbox/grade_sandbox.h"
#include "grading/score/grade_rubric.h"
#include "grading/slurm/grade_slurm.h"
#include "grading/submissions/grade_submissions.h"

typedef struct grade_app {
    grade_options opt;
    grade_sandbox_config sandbox;
    grade_rubric rubric;
    grade_kit_set all_kits;
    grade_kit *kits; /* installed in the scratch folder */
    const grade_rubric_lab **rules;
    size_t n_labs;
    char *scratch;
    char *gpu_lock;
    grade_env env;
    grade_submission_list subs;
    grade_roster roster;
    grade_student *students;
    grade_progress progress;
    char *sandbox_desc, *backend_desc, *settings_desc;
    char when[64];
    const char *usage;    /* how the instructor runs the grader */
    int argc;
    char **argv;
    grade_outdir outdir;
    uint64_t settings_hash; /* kits, rubric and settings: part of every student's key */
    char (*keys)[17];       /* per submission: what its result depends on */
    size_t *order;          /* the submissions this run grades */
    size_t n_order;
    bool *graded;           /* per submission: graded in this run */
    bool report_failed;     /* a report could not be written */
    grade_adjustments adjust; /* the instructor's, from the gradebook --regrade/--resume found */
    char **backend_notes;     /* per lab: graded on the simulator instead of the GPU, and why (or NULL) */
    double *targets;          /* per lab: the spec's target, a fraction of the bound, from the pre-flight run */
    char *rubric_path, *kits_dir; /* where they were found, for the Slurm scripts */
    grade_slurm_state plan;   /* --merge: the Slurm run's plan */
    char **why_not;           /* per submission: why it has no grade (a Slurm task that did not finish) */
    char **dirs;              /* per submission: its report folder in OUT (grade_student_dir.h) */
    grade_stored *stored;     /* the earlier runs' results in --out (--regrade, --resume, --rescore) */
    size_t n_stored;
} grade_app;

/* The signal that stopped the run (SIGINT, SIGTERM), or 0. */
extern volatile sig_atomic_t grade_stop;

/* "grade: " and fmt with detail on stderr; returns GRADE_EXIT_CANNOT_RUN. */
int grade_cannot_run(const char *fmt, const char *detail);
/* path absolute, symbolic links resolved where it exists (malloc'd). */
char *grade_absolute(const char *path);

/* The setting up, in main()'s order. Each returns 0, or the exit status with what went
 * wrong said on stderr. */
/* The paths of the options as the user typed them (relative to where they ran `bazel run`);
 * rubric_shown: the rubric as messages name it. */
int grade_app_paths(grade_app *a, const char **rubric_shown);
/* The rubric, the kits, and the rubric's labs checked against the lab catalog. */
int grade_app_load(grade_app *a, const char *rubric_shown);
/* The sandbox, the scratch folder, the labs and their kits, the class (open_class, the
 * mode's: grade_class_open, or NULL in Gradescope mode) and the pre-flight run, then how
 * the students are graded (a->env). On an error or an interruption the scratch folder is
 * removed and --out let go. */
int grade_app_start(grade_app *a, int (*open_class)(grade_app *a));
/* The labs to grade (from --labs or the rubric), their rules and their kits installed in
 * the scratch folder; backend: "gpu" when any lab is graded on the GPU. */
int grade_app_choose_labs(grade_app *a, const char **backend, char *err, size_t err_len);
/* Each lab's skeleton built and run once with the instructor's settings. */
int grade_app_preflight(grade_app *a);
/* The scratch folder removed (or kept, with --keep-scratch), --out let go, and a freed. */
void grade_app_finish(grade_app *a);

/* The modes. Each returns the exit status. */
int grade_mode_class(grade_app *a);
int grade_mode_gradescope(grade_app *a);
int grade_mode_install(grade_app *a);
int grade_mode_slurm(grade_app *a);
int grade_mode_only_failed(grade_app *a);
/* --slurm from the plan's own copy of the grader (OUT/slurm/grader): refused, since the
 * new plan would remove it while it runs. Returns 0 when it is not. */
int grade_slurm_refuse_own_copy(const grade_app *a);

#endif
