/* grading/cmd/grade_mode_class.c: grading a class: each student's key (what their result
 * depends on), the students --resume finds done, every other one graded in a worker
 * process (grade_class_workers.c) or their results taken from --out (--rescore) or the
 * Slurm tasks (--merge); then the gradebook, the JUnit file, every student's reports
 * again, the similarity report, the summary, and what an interrupted or incomplete run
 * says to finish it. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grading/base/grade_fs.h"
#include "grading/base/grade_hash.h"
#include "grading/base/grade_text.h"
#include "grading/cmd/grade_class.h"
#include "grading/cmd/grade_pool.h"
#include "grading/out/grade_student_dir.h"
#include "grading/reports/grade_gradebook.h"
#include "grading/reports/grade_report_junit.h"
#include "grading/score/grade_host.h"
#include "grading/score/grade_result_version.h"
#include "grading/similarity/grade_similarity.h"

/* A student the run did not get to: no score, the note says why. */
static void placeholder(grade_app *a, const char *name, const char *why, grade_student *s) {
    memset(s, 0, sizeof(*s));
    s->name = grade_strdup(name);
    s->problem = grade_strdup(why);
    s->not_graded = true;
    s->labs = calloc(a->n_labs ? a->n_labs : 1, sizeof(grade_lab));
    s->n_labs = a->n_labs;
    for (size_t l = 0; l < a->n_labs; l++) {
        const grade_rubric_lab *r = a->rules[l];
        double max[GRADE_CHECKS] = {r->correct_points, r->race_free_points, r->speed.points, r->measurement_points};
        grade_lab_init(&s->labs[l], a->kits[l].lab, a->kits[l].student_file, max);
        s->labs[l].late_policy = r->late.on;
    }
}

static int by_name(const void *x, const void *y) {
    return strcmp((*(grade_student *const *)x)->name, (*(grade_student *const *)y)->name);
}

/* The settings every student's result depends on besides their submission. */
static uint64_t settings_hash(const grade_app *a) {
    uint64_t h = GRADE_HASH_START;
    char err[512];
    for (size_t l = 0; l < a->n_labs; l++) {
        const grade_kit *k = grade_kit_set_find(&a->all_kits, a->kits[l].lab, a->kits[l].backend);
        h = grade_hash_str(h, a->kits[l].lab);
        if (k && grade_hash_path(&h, k->dir, err, sizeof(err)) != 0) h = grade_hash_str(h, err);
    }
    if (grade_hash_path(&h, a->rubric.path, err, sizeof(err)) != 0) h = grade_hash_str(h, err);
    char *opts = grade_strf("runs %d schedules %d timeout %d profile %s mem %ld out %ld seed %d %llu backend %s "
                            "compile %d scratch %ld",
                            a->opt.runs, a->opt.schedules, a->opt.timeout_s, a->opt.profile ? a->opt.profile : "",
                            a->opt.mem_mb, a->opt.output_mb, a->opt.seed_given, (unsigned long long)a->opt.seed,
                            a->n_labs ? a->kits[0].backend : "", a->opt.compile_s, a->opt.scratch_mb);
    h = grade_hash_str(h, opts);
    free(opts);
    return h;
}

/* Each lab's backend note (grade_devices.h) found in the rows, once. */
static void print_backend_notes(const grade_student *const *list, size_t n) {
    const char *said[64];
    size_t n_said = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t l = 0; l < list[i]->n_labs; l++) {
            const char *note = list[i]->labs[l].backend_note;
            bool seen = !note;
            for (size_t k = 0; k < n_said && !seen; k++) seen = !strcmp(said[k], note);
            if (seen) continue;
            printf("%s\n", note);
            if (n_said < 64) said[n_said++] = note;
        }
}

/* One word for sh: as it is when nothing in it is special to the shell, else quoted. */
static void shell_word(grade_buf *b, const char *arg) {
    bool plain = *arg && strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=./,:@+%") ==
                             strlen(arg);
    if (plain) {
        grade_buf_puts(b, arg);
    } else {
        char *q = grade_shell_quote(arg);
        grade_buf_puts(b, q);
        free(q);
    }
}

/* The command that finishes an interrupted run: this one with --resume, runnable as typed
 * in the folder it was run from: the program as it was started (`bazel run ... --`, a
 * launcher's name, or argv[0] itself: a path, or a name on PATH), every argument quoted
 * for sh. A --regrade, --force or --resume (or its abbreviation) is left out. */
static char *resume_command(const grade_app *a) {
    grade_buf b;
    grade_buf_init(&b);
    const char *set = getenv("STREAMLAB_USAGE_NAME");
    if ((set && *set) || getenv("BUILD_WORKSPACE_DIRECTORY"))
        grade_buf_puts(&b, a->usage); /* a command prefix of words, as the launcher wrote it */
    else
        shell_word(&b, a->argv[0] && *a->argv[0] ? a->argv[0] : "grade");
    static const char *const dropped[] = {"--regrade", "--force", "--resume"};
    for (int i = 1; i < a->argc; i++) {
        const char *arg = a->argv[i];
        bool drop = false;
        /* getopt_long took an unambiguous start of a long option ("--resu", "--forc"). */
        size_t len = strlen(arg);
        for (size_t k = 0; k < 3 && !drop; k++) drop = len > 2 && !strncmp(dropped[k], arg, len);
        if (drop) continue;
        grade_buf_puts(&b, " ");
        shell_word(&b, arg);
    }
    grade_buf_puts(&b, " --resume");
    return grade_buf_take(&b);
}

int grade_mode_class(grade_app *a) {
    char err[1024];
    a->students = calloc(a->subs.n, sizeof(grade_student));
    a->keys = calloc(a->subs.n, sizeof(*a->keys));
    a->order = calloc(a->subs.n, sizeof(size_t));
    a->graded = calloc(a->subs.n, sizeof(bool));
    /* Each student's report folder, distinct in the class and the same on every run. */
    const char **names = calloc(a->subs.n ? a->subs.n : 1, sizeof(char *));
    for (size_t i = 0; i < a->subs.n; i++) names[i] = a->subs.items[i].name;
    a->dirs = grade_student_dirnames(names, a->subs.n);
    free(names);
    a->settings_hash = settings_hash(a);
    for (size_t i = 0; i < a->subs.n; i++) {
        uint64_t h = a->settings_hash;
        const grade_submission *sub = &a->subs.items[i];
        if (sub->kind != GRADE_SUB_FILES && grade_hash_path(&h, sub->path, err, sizeof(err)) != 0)
            h = grade_hash_str(h, err);
        for (size_t k = 0; k < sub->n_parts; k++) {
            h = grade_hash_str(h, sub->parts[k].name);
            if (grade_hash_path(&h, sub->parts[k].path, err, sizeof(err)) != 0) h = grade_hash_str(h, err);
        }
        if (sub->problem) h = grade_hash_str(h, sub->problem);
        /* With a late policy, when the student handed in counts too. */
        bool late = false;
        for (size_t l = 0; l < a->n_labs; l++) late |= a->rules[l]->late.on;
        if (late && sub->has_time) {
            char t[64];
            snprintf(t, sizeof(t), "submitted %lld %d", sub->submitted_at, sub->canvas_late);
            h = grade_hash_str(h, t);
        }
        grade_hash_hex(h, a->keys[i]);
    }
    grade_stored *stored = NULL;
    size_t n_stored = 0;
    if (a->outdir.used && grade_outdir_load(&a->outdir, &stored, &n_stored, err, sizeof(err)) != 0)
        return grade_cannot_run("--out: %s", err);
    a->stored = stored;
    a->n_stored = n_stored;
    /* A result stored by a grader of a newer result version is not this grader's to read
     * (grade_result_version.h), before anything in --out is touched. */
    for (size_t k = 0; k < n_stored; k++) {
        grade_student one;
        if (grade_student_from_json(stored[k].student, &one) != 0) continue;
        char why[600];
        int bad = grade_student_version_check(&one, why, sizeof(why));
        grade_student_free(&one);
        if (bad) {
            grade_stored_free(stored, n_stored);
            a->stored = NULL;
            a->n_stored = 0;
            return grade_cannot_run("--out: %s; nothing in --out was changed", why);
        }
    }
    if (grade_outdir_clean(&a->outdir, err, sizeof(err)) != 0) {
        grade_stored_free(stored, n_stored);
        return grade_cannot_run("--out: %s", err);
    }
    /* --resume: a student whose stored result has the same key is done. */
    bool *kept = calloc(n_stored ? n_stored : 1, sizeof(bool));
    bool *reuse = calloc(a->subs.n, sizeof(bool));
    size_t skipped = 0;
    for (size_t i = 0; i < a->subs.n; i++) {
        for (size_t k = 0; k < n_stored; k++) {
            if (strcmp(stored[k].name, a->subs.items[i].name)) continue;
            if (a->opt.resume && !strcmp(stored[k].key, a->keys[i]) &&
                grade_student_from_json(stored[k].student, &a->students[i]) == 0) {
                /* Not graded (the host was too slow for a lab run: grade_host.h): graded again. */
                if (a->students[i].not_graded) {
                    grade_student_free(&a->students[i]);
                } else {
                    reuse[i] = true;
                    skipped++;
                }
            }
            kept[k] = true; /* this run's row, either way */
        }
        if (!reuse[i]) a->order[a->n_order++] = i;
    }
    if (skipped)
        fprintf(stderr, "grade: --resume: %zu student%s already graded with the same submission, kits and settings; "
                        "grading the other %zu\n",
                skipped, skipped == 1 ? "" : "s", a->n_order);

    a->env.report.when = a->when;
    /* --shard: how this task grades, for the reports the merge writes from its results. */
    if (a->opt.shard_n > 0) {
        cJSON *ctx = cJSON_CreateObject();
        cJSON_AddStringToObject(ctx, "backend", a->env.report.backend ? a->env.report.backend : "");
        cJSON_AddStringToObject(ctx, "sandbox", a->env.report.sandbox ? a->env.report.sandbox : "");
        cJSON_AddStringToObject(ctx, "settings", a->env.report.settings ? a->env.report.settings : "");
        cJSON_AddStringToObject(ctx, "when", a->when);
        char *text = cJSON_PrintUnformatted(ctx);
        if (!text || grade_outdir_write(&a->outdir, ".streamlab-grade/context.json", text, strlen(text), err,
                                        sizeof(err)) != 0) {
            fprintf(stderr, "grade: %s\n", err);
            a->report_failed = true;
        }
        cJSON_free(text);
        cJSON_Delete(ctx);
    }
    /* A bar on a terminal, a line per student in a log (grade_progress.h). */
    grade_progress_start(&a->progress, a->n_order, a->opt.progress != 0);
    int jobs = a->opt.jobs;
    if ((size_t)jobs > a->n_order && a->n_order > 0) jobs = (int)a->n_order;
    /* --merge grades nobody: the Slurm tasks' results are taken as they are (names the
     * tasks that did not finish, or NULL). */
    char *unfinished = NULL;
    int stopped = grade_stop         ? 1
                  : a->opt.merge   ? (unfinished = grade_merge_tasks(a), 0)
                  : a->opt.rescore ? (unfinished = grade_rescore_class(a), 0)
                                   : grade_pool_run(a->n_order, jobs, grade_class_job, grade_class_done, a, &grade_stop);
    grade_progress_finish(&a->progress);
    bool interrupted = stopped == 1 || grade_stop;

    /* The gradebook: this run's students, and the earlier run's others (a merge). */
    size_t n_rows = a->subs.n + n_stored;
    grade_student *extra = calloc(n_rows, sizeof(grade_student));
    const grade_student **list = calloc(n_rows, sizeof(grade_student *));
    size_t n = 0, n_extra = 0, finished = 0;
    for (size_t i = 0; i < a->subs.n; i++) {
        if (a->graded[i] || reuse[i]) {
            list[n++] = &a->students[i];
            finished++;
        } else {
            placeholder(a, a->subs.items[i].name,
                        a->why_not && a->why_not[i]
                            ? a->why_not[i]
                            : "NOT GRADED: the grader was interrupted before it got to this student; finish with --resume",
                        &extra[n_extra]);
            list[n++] = &extra[n_extra++];
        }
    }
    size_t n_sub_rows = n;
    for (size_t k = 0; k < n_stored; k++) {
        if (kept[k] || grade_student_from_json(stored[k].student, &extra[n_extra]) != 0) continue;
        list[n++] = &extra[n_extra++];
    }
    /* Every row keeps the instructor's adjustments (grade_adjust.h). */
    for (size_t i = 0; i < n; i++) grade_adjustments_apply(&a->adjust, (grade_student *)list[i]);
    /* Each student's report.txt, results.json and junit.xml say what their row says: the
     * rows this run did not grade (--resume, the earlier run's others) and those it did
     * (which now hold the earlier labs and the adjustments typed since) are written again.
     * The merge of a Slurm run wrote its rows' reports with the tasks' own context. */
    if (!interrupted) {
        const char **all_names = calloc(n ? n : 1, sizeof(char *));
        for (size_t r = 0; r < n; r++) all_names[r] = list[r]->name;
        char **all_dirs = grade_student_dirnames(all_names, n);
        for (size_t r = 0; r < n; r++) {
            const grade_student *st = list[r];
            if (st->not_graded || (a->opt.merge && r < n_sub_rows)) continue;
            const char *dir = all_dirs[r];
            for (size_t i = 0; i < a->subs.n; i++)
                if (st == &a->students[i]) dir = a->dirs[i];
            if (grade_student_write(st, &a->env.report, a->outdir.fd, a->opt.out, dir, err, sizeof(err)) != 0) {
                fprintf(stderr, "grade: %s\n", err);
                a->report_failed = true;
            }
        }
        grade_student_dirnames_free(all_dirs, n);
        free(all_names);
    }
    qsort(list, n, sizeof(*list), by_name);

    char *rows = grade_gradebook_csv(list, n);
    char *csv = grade_strf("%s%s", a->opt.csv_bom ? GRADE_CSV_BOM : "", rows);
    free(rows);
    const grade_student **done_list = calloc(n ? n : 1, sizeof(grade_student *));
    size_t n_done = 0;
    for (size_t i = 0; i < n; i++)
        if (!list[i]->not_graded) done_list[n_done++] = list[i];
    char *junit = grade_report_junit_class(done_list, n_done);
    char *csv_path = grade_path_join(a->opt.out, "gradebook.csv");
    int rc = GRADE_EXIT_OK;
    char *resume = resume_command(a);
    char *how = grade_strf("This gradebook is INCOMPLETE: the grader was interrupted with %zu of %zu students graded.\n"
                           "Students not graded have empty scores and a NOT GRADED note. To finish, run:\n  %s\n",
                           finished, a->subs.n, resume);
    /* Students the host was too slow for (grade_host.h): not graded, to be graded again;
     * the Slurm tasks that had them did not finish, and --only-failed runs them again. */
    grade_buf slow_names;
    grade_buf_init(&slow_names);
    size_t n_slow = 0;
    for (size_t i = 0; i < n; i++)
        if (list[i]->not_graded && grade_student_host_problem(list[i]))
            grade_buf_printf(&slow_names, "%s%s", n_slow++ ? ", " : "", list[i]->name);
    char *slow = n_slow ? grade_host_incomplete(n_slow, a->subs.n, slow_names.data,
                                                a->opt.merge ? a->plan.rerun : resume)
                        : NULL;
    grade_buf_free(&slow_names);
    if (grade_outdir_write(&a->outdir, "gradebook.csv", csv, strlen(csv), err, sizeof(err)) != 0 ||
        grade_outdir_write(&a->outdir, "junit.xml", junit, strlen(junit), err, sizeof(err)) != 0 ||
        grade_outdir_mark(&a->outdir, !interrupted && !unfinished && !slow,
                          unfinished ? unfinished : interrupted || !slow ? how : slow, err, sizeof(err)) != 0) {
        fprintf(stderr, "grade: %s\n", err);
        a->report_failed = true;
    }
    /* --similarity: after grading, a report for the instructor to read; a missing sim_c
     * is said in one line and changes nothing else (grade_similarity.h). */
    char *similar = NULL;
    if (a->opt.similarity && !interrupted) {
        grade_similarity_class sc = {.tool = a->opt.similarity_tool, .usage = a->usage, .kits = a->kits,
                                     .n_labs = a->n_labs, .subs = &a->subs, .scratch = a->scratch,
                                     .out = a->opt.out, .when = a->when};
        int s_rc = grade_similarity_report(&sc, &similar, err, sizeof(err));
        if (s_rc < 0) {
            fprintf(stderr, "grade: --similarity: %s\n", err);
            a->report_failed = true;
        } else if (s_rc > 0) {
            fprintf(stderr, "%s", similar);
            free(similar);
            similar = NULL;
        }
    }
    if (interrupted) {
        fprintf(stderr,
                "\ngrade: interrupted (%s): %zu of %zu students graded; %s lists them and marks the others NOT "
                "GRADED (INCOMPLETE.txt says so). To finish, run:\n  %s\n",
                grade_stop == SIGTERM ? "SIGTERM" : "SIGINT", finished, a->subs.n, csv_path, resume);
        rc = grade_stop == SIGTERM ? GRADE_EXIT_INTERRUPTED_TERM : GRADE_EXIT_INTERRUPTED_INT;
    } else if (!a->opt.quiet && n) {
        char *table = grade_summary_table(list, n);
        printf("%s", table);
        /* A lab graded on the simulator instead of the GPU, once per lab (from the rows, so
         * that a merged run says it too). */
        print_backend_notes(list, n);
        if (similar) printf("%s", similar);
        printf("reports in %s (gradebook.csv, junit.xml,%s and a folder per student)\n", a->opt.out,
               similar ? " similarity.txt" : "");
        free(table);
    }
    free(similar);
    if (unfinished) {
        fprintf(stderr, "grade: %s%s", a->opt.merge ? "--merge: " : "", unfinished);
        if (rc == GRADE_EXIT_OK) rc = GRADE_EXIT_CANNOT_RUN;
        free(unfinished);
    }
    if (slow && !interrupted) {
        fprintf(stderr, "grade: %s", slow);
        if (rc == GRADE_EXIT_OK) rc = GRADE_EXIT_CANNOT_RUN;
    }
    free(slow);
    if (a->report_failed && rc == GRADE_EXIT_OK) {
        fprintf(stderr, "grade: some reports could not be written (see above): the gradebook may not be whole\n");
        rc = GRADE_EXIT_CANNOT_RUN;
    }
    free(how);
    free(resume);
    free(csv);
    free(junit);
    free(csv_path);
    free(done_list);
    free(list);
    for (size_t i = 0; i < n_extra; i++) grade_student_free(&extra[i]);
    free(extra);
    free(kept);
    free(reuse);
    grade_stored_free(stored, n_stored);
    return rc;
}
