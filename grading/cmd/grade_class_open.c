/* grading/cmd/grade_class_open.c: a class opened before anyone is graded: the roster, the
 * submissions folder read by its layout (grade_layout.h), the times a late policy needs,
 * a folder that is one student's rather than the class's refused, the --out folder opened
 * and locked (grade_outdir.h; for --merge, the Slurm run's plan checked against the
 * class), --shard's share, and the instructor's adjustments read back. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "grading/base/grade_fs.h"
#include "grading/base/grade_text.h"
#include "grading/cmd/grade_class.h"
#include "grading/score/grade_late.h"
#include "grading/submissions/grade_layout.h"

/* Whether the submissions folder looks like one student's (it holds labs/ or a lab's
 * file itself) rather than one entry per student. */
static const char *one_students_folder(const grade_app *a) {
    for (size_t l = 0; l < a->n_labs; l++) {
        char *p = grade_path_join(a->opt.submissions, a->kits[l].student_file);
        bool there = grade_is_file(p);
        free(p);
        if (there) return a->kits[l].student_file;
    }
    for (size_t i = 0; i < a->subs.n; i++)
        if (!strcmp(a->subs.items[i].name, "labs") && a->subs.items[i].kind == GRADE_SUB_FOLDER) return "labs/";
    return NULL;
}

/* The submissions and --out folders, checked before the pre-flight run. */
int grade_class_open(grade_app *a) {
    char err[4096];
    if (a->opt.roster && grade_roster_load(a->opt.roster, &a->roster, err, sizeof(err)) != 0)
        return grade_cannot_run("%s", err);
    grade_layout used;
    char *how = NULL;
    if (grade_layout_read(a->opt.submissions, (grade_layout)a->opt.layout, a->opt.roster ? &a->roster : NULL,
                          &a->subs, &used, &how, err, sizeof(err)) != 0)
        return grade_cannot_run("%s", err);
    fprintf(stderr, "grade: %s\n", how);
    free(how);
    if (*a->subs.warnings) fprintf(stderr, "%s", a->subs.warnings);
    /* When each student handed in, for a late policy: the platform's time, the files'
     * modification time, or --submitted-at (grade_late.h). */
    if (a->opt.submitted_at && grade_late_read_overrides(a->opt.submitted_at, &a->subs, err, sizeof(err)) != 0)
        return grade_cannot_run("%s: nothing was graded", err);
    if (a->opt.file_times && grade_late_fill_times(&a->subs, (long long)time(NULL), err, sizeof(err)) != 0)
        return grade_cannot_run("%s", err);
    /* A late policy that cannot judge some students says so, loudly (grade_late.h). */
    grade_buf policy;
    grade_buf_init(&policy);
    for (size_t l = 0; l < a->n_labs; l++)
        if (a->rules[l]->late.on) grade_buf_printf(&policy, "%s%s", policy.len ? ", " : "", a->rules[l]->id);
    char *late_warning = policy.len ? grade_late_warning(&a->subs, policy.data, a->opt.file_times) : NULL;
    if (late_warning) fputs(late_warning, stderr);
    free(late_warning);
    grade_buf_free(&policy);
    const char *own = one_students_folder(a);
    if (own) {
        fprintf(stderr,
                "grade: --submissions %s looks like one student's folder (it holds %s): give the folder that holds "
                "one folder or archive per student (alice/labs/..., bob.zip, ...)\n",
                a->opt.submissions, own);
        return GRADE_EXIT_CANNOT_RUN;
    }
    if (a->subs.n == 0) {
        fprintf(stderr,
                "grade: --submissions %s holds no submissions: it should hold one folder or archive (.zip, .tar.gz, "
                ".tgz, .tar) per student, each with the lab files at their repository paths "
                "(alice/labs/03_double_buffer/lab.c); is it the right folder?\n",
                a->opt.submissions);
        return GRADE_EXIT_CANNOT_RUN;
    }
    grade_out_mode mode = a->opt.force                      ? GRADE_OUT_FORCE
                          : a->opt.regrade || a->opt.rescore ? GRADE_OUT_REGRADE
                          : a->opt.resume ? GRADE_OUT_RESUME
                                          : GRADE_OUT_NEW;
    if (a->opt.merge) {
        /* The Slurm run's plan: the class must be the one its tasks graded. */
        if (grade_slurm_read(a->opt.out, &a->plan, err, sizeof(err)) != 0) return grade_cannot_run("--merge: %s", err);
        bool same = a->plan.n_students == a->subs.n;
        for (size_t i = 0; same && i < a->subs.n; i++) same = !strcmp(a->plan.students[i], a->subs.items[i].name);
        if (!same)
            return grade_cannot_run("--merge: --submissions is not the class grade --slurm split among its tasks (students "
                                    "were added, removed or renamed since): nothing was merged; write and submit the "
                                    "scripts again with grade --slurm%s",
                                    "");
        /* The first merge writes a new class folder; a later one (after --only-failed)
         * replaces its rows, keeping the instructor's adjustments. */
        char *state = grade_path_join(a->opt.out, ".streamlab-grade");
        mode = grade_is_dir(state) ? GRADE_OUT_REGRADE : GRADE_OUT_NEW;
        free(state);
    }
    if (grade_outdir_open(a->opt.out, a->opt.submissions, mode, a->usage, &a->outdir, err, sizeof(err)) != 0)
        return grade_cannot_run("%s", err);
    if (a->opt.rescore && !a->outdir.used)
        return grade_cannot_run("--rescore: %s holds no results of an earlier run to score again: grade the class into it "
                                "first",
                                a->opt.out);
    /* --shard K/N: this task's share of the class, after the class's own checks. */
    if (a->opt.shard_n > 0) grade_shard_filter(&a->subs, a->opt.shard_k, a->opt.shard_n);
    /* --regrade, --resume: the instructor's adjustments in the gradebook are kept; one that
     * is not a number stops the grader here, with the gradebook as it was. */
    if (a->outdir.used) {
        char *csv = grade_path_join(a->opt.out, "gradebook.csv");
        int bad = grade_adjustments_load(csv, &a->adjust, err, sizeof(err));
        free(csv);
        if (bad)
            return grade_cannot_run("%s\ngrade: nobody was graded and the gradebook is as it was: correct the cell, then run "
                                    "again",
                                    err);
    }
    return 0;
}
