/* grading/grade_main.c: the grader's main(): options, rubric and kits, the sandbox probe,
 * a scratch folder with the kits installed, then every student graded in worker processes
 * (or the one Gradescope submission), and the class's gradebook, JUnit file and summary.
 * Before anyone is graded: the submissions and --out folders are checked and --out locked,
 * and each lab's skeleton is run once with the instructor's settings (grade_preflight.h).
 * SIGINT and SIGTERM stop the workers, remove the scratch folder and write the gradebook of
 * the students finished so far, marked incomplete (--resume finishes it). See
 * docs/grading.md. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "grading/grade_adjust.h"
#include "grading/grade_devices.h"
#include "grading/grade_fs.h"
#include "grading/grade_gradebook.h"
#include "grading/grade_grader.h"
#include "grading/grade_hash.h"
#include "grading/grade_host.h"
#include "grading/grade_install.h"
#include "grading/grade_kit.h"
#include "grading/grade_late.h"
#include "grading/grade_layout.h"
#include "grading/grade_options.h"
#include "grading/grade_outdir.h"
#include "grading/grade_pool.h"
#include "grading/grade_preflight.h"
#include "grading/grade_progress.h"
#include "grading/grade_report_gradescope.h"
#include "grading/grade_report_junit.h"
#include "grading/grade_report_text.h"
#include "grading/grade_rubric.h"
#include "grading/grade_sandbox.h"
#include "grading/grade_score.h"
#include "grading/grade_similarity.h"
#include "grading/grade_slurm.h"
#include "grading/grade_student_dir.h"
#include "grading/grade_submission.h"
#include "grading/grade_text.h"

typedef struct app {
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
} app;

static volatile sig_atomic_t g_stop;

static void on_stop(int sig) { g_stop = sig; }

static int cannot_run(const char *fmt, const char *detail) {
    fprintf(stderr, "grade: ");
    fprintf(stderr, fmt, detail);
    fputc('\n', stderr);
    return GRADE_EXIT_CANNOT_RUN;
}

/* The labs to grade (from --labs or the rubric), their rules and their kits. */
static int choose_labs(app *a, const char **backend, char *err, size_t err_len) {
    const char *ids[64];
    char *copy = NULL;
    size_t n = 0;
    if (a->opt.labs) {
        copy = grade_strdup(a->opt.labs);
        for (char *save = NULL, *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            if (!*t) continue;
            if (n == 64) break;
            const grade_rubric_lab *named = grade_rubric_lookup(&a->rubric, t);
            if (!named) {
                grade_buf b;
                grade_buf_init(&b);
                for (size_t i = 0; i < a->rubric.n_labs; i++)
                    grade_buf_printf(&b, "%s%s", i ? ", " : "", a->rubric.labs[i].id);
                char *list = grade_buf_take(&b);
                snprintf(err, err_len, "--labs: %s names no lab of the rubric %s, or more than one (it has: %s)", t,
                         a->rubric.shown, list);
                free(list);
                free(copy);
                return GRADE_EXIT_USAGE;
            }
            for (size_t i = 0; i < n; i++)
                if (!strcmp(ids[i], named->id)) {
                    snprintf(err, err_len, "--labs names %s twice%s%s%s: name each lab once", named->id,
                             strcmp(t, named->id) ? " (once as " : "", strcmp(t, named->id) ? t : "",
                             strcmp(t, named->id) ? ")" : "");
                    free(copy);
                    return GRADE_EXIT_USAGE;
                }
            ids[n++] = named->id;
        }
        if (n == 0) {
            snprintf(err, err_len, "--labs names no lab");
            free(copy);
            return GRADE_EXIT_USAGE;
        }
    } else {
        for (size_t i = 0; i < a->rubric.n_labs && n < 64; i++) ids[n++] = a->rubric.labs[i].id;
    }

    const char *want = a->opt.backend;
    int have = grade_gpu_count();
    if (!strcmp(want, "auto")) {
        bool all_gpu = true;
        for (size_t i = 0; i < n; i++) all_gpu &= grade_kit_set_find(&a->all_kits, ids[i], "gpu") != NULL;
        want = all_gpu && have > 0 ? "gpu" : "sim";
    } else if (!strcmp(want, "gpu") && have == 0 && !a->opt.merge && !a->opt.slurm) {
        snprintf(err, err_len, "--backend gpu: no NVIDIA GPU on this machine (no /dev/nvidia0)");
        free(copy);
        return GRADE_EXIT_CANNOT_RUN;
    }
    /* The GPUs each lab needs (labs/catalog.json's "devices"): a lab that needs more than
     * the machine has is graded on the simulator, and every report says so. The merge of a
     * Slurm run grades nobody: it takes the kits the tasks were asked for. */
    char *catalog_path = grade_workspace_runfile("labs/catalog.json");
    char *catalog = NULL;
    size_t catalog_len = 0;
    if (catalog_path && grade_read_file(catalog_path, 1u << 20, &catalog, &catalog_len, NULL, err, err_len) != 0) {
        free(catalog_path);
        free(copy);
        return GRADE_EXIT_CANNOT_RUN;
    }
    free(catalog_path);
    bool any_gpu = false;
    a->kits = calloc(n, sizeof(grade_kit));
    a->rules = calloc(n, sizeof(grade_rubric_lab *));
    a->backend_notes = calloc(n, sizeof(char *));
    a->targets = calloc(n, sizeof(double));
    for (size_t i = 0; i < n; i++) {
        int need = 1;
        if (catalog && (need = grade_catalog_devices(catalog, ids[i], err, err_len)) < 0) need = 1;
        char why[256];
        bool here = !a->opt.merge && !a->opt.slurm; /* graded on this machine */
        why[0] = '\0';
        const char *use = here ? grade_backend_for_lab(want, ids[i], need, have, why, sizeof(why)) : want;
        if (*why) a->backend_notes[i] = grade_strdup(why);
        any_gpu |= !strcmp(use, "gpu");
        const grade_kit *kit = grade_kit_set_find(&a->all_kits, ids[i], use);
        if (!kit && !here) kit = grade_kit_set_find(&a->all_kits, ids[i], "sim");
        if (!kit) {
            snprintf(err, err_len,
                     "no %s kit for lab %s: the grader was built without it%s (kits are built by //grading:grade)",
                     use, ids[i], !strcmp(use, "gpu") ? " (no CUDA toolkit when it was built?)" : "");
            free(copy);
            free(catalog);
            return GRADE_EXIT_CANNOT_RUN;
        }
        a->rules[i] = grade_rubric_find(&a->rubric, ids[i]);
        char *dest = grade_strf("%s/kits/%s_%s", a->scratch, kit->lab, kit->backend);
        int rc = grade_kit_install(kit, dest, &a->kits[a->n_labs], err, err_len);
        free(dest);
        if (rc != 0) {
            free(copy);
            free(catalog);
            return GRADE_EXIT_CANNOT_RUN;
        }
        a->n_labs++;
    }
    *backend = any_gpu ? "gpu" : "sim";
    free(copy);
    free(catalog);
    return 0;
}

static char *state_path(const app *a, size_t i) { return grade_strf("%s/s%zu.json", a->scratch, i); }
static char *work_path(const app *a, size_t i) { return grade_strf("%s/s%zu", a->scratch, i); }

/* Submission i's reports into its folder of OUT (a->dirs, from grade_student_dir.h: the
 * name is a display string, never a path), written inside OUT and through no link. A
 * refusal is said, naming the path, and in the student's note; the class goes on. */
static int write_reports(const app *a, size_t i, grade_student *s, const grade_report_context *ctx) {
    char err[1024];
    if (grade_student_write(s, ctx, a->outdir.fd, a->opt.out, a->dirs[i], err, sizeof(err)) == 0) return 0;
    fprintf(stderr, "grade: %s\n", err);
    char *why = grade_strf("grader problem: this student's reports could not be written (%s); the score stands%s%s",
                           err, s->problem ? "; " : "", s->problem ? s->problem : "");
    free(s->problem);
    s->problem = why;
    return -1;
}

static int job(void *ctx, size_t k) {
    app *a = ctx;
    size_t i = a->order[k];
    grade_student s;
    char *work = work_path(a, i);
    char err[768];
    if (grade_mkdir_p(work, 0711, err, sizeof(err)) != 0) {
        fprintf(stderr, "grade: %s\n", err);
        free(work);
        return 3;
    }
    grade_student_grade(&a->env, &a->subs.items[i], work, &s);
    /* The instructor's adjustments from the earlier gradebook count in the reports too. */
    grade_adjustments_apply(&a->adjust, &s);
    int rc = write_reports(a, i, &s, &a->env.report) != 0 ? 4 : 0;
    cJSON *j = grade_student_to_json(&s);
    char *text = cJSON_PrintUnformatted(j);
    char *state = state_path(a, i);
    if (!text || grade_write_file(state, text, strlen(text), err, sizeof(err)) != 0) rc = 5;
    cJSON_free(text);
    cJSON_Delete(j);
    if (!a->opt.keep_scratch) grade_rm_rf(work, err, sizeof(err));
    free(state);
    free(work);
    grade_student_free(&s);
    return rc;
}

/* A student whose worker died: every check zero, saying so. */
static void lost_student(app *a, size_t i, int status, grade_student *s) {
    memset(s, 0, sizeof(*s));
    s->name = grade_strdup(a->subs.items[i].name);
    s->source = grade_strdup(a->subs.items[i].path);
    if (status == -1)
        s->problem = grade_strdup("grader problem: no worker process could be started for this submission");
    else if (WIFSIGNALED(status))
        s->problem = grade_strf("grader problem: grading this submission stopped (the worker was killed by %s); "
                                "grade it again",
                                grade_signal_name(WTERMSIG(status)));
    else
        s->problem = grade_strf("grader problem: grading this submission stopped (worker exit status %d); grade it "
                                "again",
                                WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    s->labs = calloc(a->n_labs ? a->n_labs : 1, sizeof(grade_lab));
    s->n_labs = a->n_labs;
    for (size_t l = 0; l < a->n_labs; l++) {
        const grade_rubric_lab *r = a->rules[l];
        double max[GRADE_CHECKS] = {r->correct_points, r->race_free_points, r->speed.points,
                                    r->measurement_points};
        grade_lab_init(&s->labs[l], a->kits[l].lab, a->kits[l].student_file, max);
        s->labs[l].late_policy = r->late.on;
        for (int c = 0; c < GRADE_CHECKS; c++) grade_check_set(&s->labs[l].checks[c], 0, s->problem);
    }
    grade_student_total(s);
    if (write_reports(a, i, s, &a->env.report) != 0) a->report_failed = true;
}

/* Gives s the labs its stored result from an earlier run has and this run did not grade.
 * Returns whether it took any. */
static bool keep_earlier_labs(const app *a, grade_student *s) {
    for (size_t k = 0; k < a->n_stored; k++) {
        if (strcmp(a->stored[k].name, s->name)) continue;
        grade_student earlier;
        if (grade_student_from_json(a->stored[k].student, &earlier) != 0) return false;
        size_t taken = grade_student_keep_labs(s, &earlier);
        grade_student_free(&earlier);
        return taken > 0;
    }
    return false;
}

static void done(void *ctx, size_t k, int status) {
    app *a = ctx;
    size_t i = a->order[k];
    if (g_stop) return; /* interrupted: the student is not graded (a worker killed by Ctrl-C) */
    char *state = state_path(a, i);
    char *text = NULL;
    size_t len = 0;
    char err[512];
    bool ok = false;
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    /* 4: the student's reports could not be written (the worker said why), but the result
     * is good; 5: not even the result. */
    if (code == 4 || code == 5) a->report_failed = true;
    if ((code == 0 || code == 4) && grade_read_file(state, 64u << 20, &text, &len, NULL, err, sizeof(err)) == 0) {
        cJSON *j = cJSON_ParseWithLength(text, len);
        ok = j && grade_student_from_json(j, &a->students[i]) == 0;
        /* The labs an earlier run graded and this one did not are kept (a course folder
         * graded one lab at a time), in the row and the stored result. */
        if (ok && keep_earlier_labs(a, &a->students[i])) {
            cJSON_Delete(j);
            j = grade_student_to_json(&a->students[i]);
        }
        /* Kept in --out for --regrade and --resume; not when its reports could not be
         * written (code 4), so that --resume grades it again. */
        if (ok && code == 0 &&
            grade_outdir_store(&a->outdir, a->students[i].name, a->keys[i], j, err, sizeof(err)) != 0) {
            fprintf(stderr, "grade: %s\n", err);
            a->report_failed = true;
        }
        cJSON_Delete(j);
        free(text);
    }
    if (!ok) {
        if (a->students[i].name) grade_student_free(&a->students[i]);
        lost_student(a, i, status, &a->students[i]);
    }
    a->graded[i] = true;
    unlink(state);
    free(state);
    grade_progress_step(&a->progress, &a->students[i]);
}

/* --rescore: each student's stored result scored by the rubric again, with this run's late
 * times; no lab runs. Returns NULL, or what INCOMPLETE.txt says when students had no stored
 * result. */
static char *rescore_class(app *a) {
    char err[512];
    grade_buf names;
    grade_buf_init(&names);
    size_t missing = 0;
    a->why_not = calloc(a->subs.n ? a->subs.n : 1, sizeof(char *));
    for (size_t j = 0; j < a->n_order && !g_stop; j++) {
        size_t i = a->order[j];
        const grade_submission *sub = &a->subs.items[i];
        const grade_stored *found = NULL;
        for (size_t k = 0; k < a->n_stored && !found; k++)
            if (!strcmp(a->stored[k].name, sub->name)) found = &a->stored[k];
        grade_student *st = &a->students[i];
        if (!found || grade_student_from_json(found->student, st) != 0 || st->not_graded) {
            if (found) grade_student_free(st);
            memset(st, 0, sizeof(*st));
            a->why_not[i] = grade_strf("NOT GRADED: --rescore found no result of this student in %s to score again: "
                                       "grade them with --resume",
                                       a->opt.out);
            grade_buf_printf(&names, "%s%s", missing++ ? ", " : "", sub->name);
            continue;
        }
        for (size_t l = 0; l < st->n_labs; l++) {
            grade_lab *lab = &st->labs[l];
            const grade_rubric_lab *rule = grade_rubric_find(&a->rubric, lab->lab);
            if (!rule) continue; /* a lab the rubric no longer has keeps its points */
            double max[GRADE_CHECKS] = {rule->correct_points, rule->race_free_points, rule->speed.points,
                                        rule->measurement_points};
            for (int c = 0; c < GRADE_CHECKS; c++) lab->checks[c].max = max[c];
            grade_score_lab(rule, lab);
            /* The times of --submissions are this run's labs' (--labs); another lab keeps the
             * days late its own run found. */
            bool this_run = false;
            for (size_t k = 0; k < a->n_labs && !this_run; k++) this_run = !strcmp(a->kits[k].lab, lab->lab);
            if (this_run) {
                lab->late_policy = false;
                lab->late_days = 0;
                lab->late_penalty = 0;
                free(lab->late_reason);
                lab->late_reason = NULL;
                grade_late_apply(&rule->late, sub, lab);
            } else {
                grade_late_rescore(&rule->late, lab);
            }
        }
        grade_student_total(st);
        cJSON *j2 = grade_student_to_json(st);
        if (grade_outdir_store(&a->outdir, st->name, a->keys[i], j2, err, sizeof(err)) != 0) {
            fprintf(stderr, "grade: %s\n", err);
            a->report_failed = true;
        }
        cJSON_Delete(j2);
        a->graded[i] = true;
        grade_progress_step(&a->progress, st);
    }
    if (!missing) {
        grade_buf_free(&names);
        return NULL;
    }
    char *text = grade_strf("This gradebook is INCOMPLETE: --rescore found no stored result for %zu of %zu students "
                            "(%s), who have empty scores and a NOT GRADED note. Grade them with:\n  %s --submissions "
                            "... --out %s --resume\n",
                            missing, a->subs.n, names.data, a->usage, a->opt.out);
    grade_buf_free(&names);
    return text;
}

/* Whether the submissions folder looks like one student's (it holds labs/ or a lab's
 * file itself) rather than one entry per student. */
static const char *one_students_folder(const app *a) {
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

/* A student the run did not get to: no score, the note says why. */
static void placeholder(app *a, const char *name, const char *why, grade_student *s) {
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
static uint64_t settings_hash(const app *a) {
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

/* The submissions and --out folders, checked before the pre-flight run. */
static int open_class(app *a) {
    char err[4096];
    if (a->opt.roster && grade_roster_load(a->opt.roster, &a->roster, err, sizeof(err)) != 0)
        return cannot_run("%s", err);
    grade_layout used;
    char *how = NULL;
    if (grade_layout_read(a->opt.submissions, (grade_layout)a->opt.layout, a->opt.roster ? &a->roster : NULL,
                          &a->subs, &used, &how, err, sizeof(err)) != 0)
        return cannot_run("%s", err);
    fprintf(stderr, "grade: %s\n", how);
    free(how);
    if (*a->subs.warnings) fprintf(stderr, "%s", a->subs.warnings);
    /* When each student handed in, for a late policy: the platform's time, the files'
     * modification time, or --submitted-at (grade_late.h). */
    if (a->opt.submitted_at && grade_late_read_overrides(a->opt.submitted_at, &a->subs, err, sizeof(err)) != 0)
        return cannot_run("%s: nothing was graded", err);
    if (a->opt.file_times && grade_late_fill_times(&a->subs, (long long)time(NULL), err, sizeof(err)) != 0)
        return cannot_run("%s", err);
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
        if (grade_slurm_read(a->opt.out, &a->plan, err, sizeof(err)) != 0) return cannot_run("--merge: %s", err);
        bool same = a->plan.n_students == a->subs.n;
        for (size_t i = 0; same && i < a->subs.n; i++) same = !strcmp(a->plan.students[i], a->subs.items[i].name);
        if (!same)
            return cannot_run("--merge: --submissions is not the class grade --slurm split among its tasks (students "
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
        return cannot_run("%s", err);
    if (a->opt.rescore && !a->outdir.used)
        return cannot_run("--rescore: %s holds no results of an earlier run to score again: grade the class into it "
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
            return cannot_run("%s\ngrade: nobody was graded and the gradebook is as it was: correct the cell, then run "
                              "again",
                              err);
    }
    return 0;
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
static char *resume_command(const app *a) {
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

/* --merge: each Slurm task's stored results (OUT/slurm/shards/K) taken for its share of
 * the class, their reports written into OUT as a worker's are. Returns NULL when every
 * student was graded, else what INCOMPLETE.txt says: the tasks that did not finish, their
 * students without a grade, and the command that grades them again. */
static char *merge_tasks(app *a) {
    int tasks = a->plan.tasks;
    char err[1024];
    grade_buf b;
    grade_buf_init(&b);
    size_t missing_all = 0;
    a->why_not = calloc(a->subs.n ? a->subs.n : 1, sizeof(char *));
    for (int k = 0; k < tasks && !g_stop; k++) {
        char why[256];
        bool done_ok = grade_slurm_task_done(a->opt.out, k, why, sizeof(why));
        grade_outdir shard = {.lock_fd = -1};
        shard.state_dir = grade_strf("%s/slurm/shards/%d/.streamlab-grade", a->opt.out, k);
        grade_stored *stored = NULL;
        size_t n_stored = 0;
        if (grade_outdir_load(&shard, &stored, &n_stored, err, sizeof(err)) != 0)
            fprintf(stderr, "grade: --merge: task %d: %s\n", k, err);
        /* The reports say how the task graded (its node's GPU or simulator, sandbox, time),
         * not how the merge's node would have. */
        char *ctx_path = grade_path_join(shard.state_dir, "context.json");
        free(shard.state_dir);
        grade_report_context ctx = a->env.report;
        cJSON *ctx_json = NULL;
        char *ctx_text = NULL;
        size_t ctx_len = 0;
        if (grade_is_file(ctx_path) && grade_read_file(ctx_path, 1u << 20, &ctx_text, &ctx_len, NULL, err, sizeof(err)) == 0) {
            ctx_json = cJSON_ParseWithLength(ctx_text, ctx_len);
            const char *v;
            if ((v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ctx_json, "backend")))) ctx.backend = v;
            if ((v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ctx_json, "sandbox")))) ctx.sandbox = v;
            if ((v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ctx_json, "settings")))) ctx.settings = v;
            if ((v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ctx_json, "when")))) ctx.when = v;
        }
        free(ctx_text);
        free(ctx_path);
        grade_buf names;
        grade_buf_init(&names);
        size_t missing = 0, share = 0;
        for (size_t j = 0; j < a->n_order; j++) {
            size_t i = a->order[j];
            if ((int)(i % (size_t)tasks) != k) continue;
            share++;
            const grade_stored *found = NULL;
            for (size_t s = 0; s < n_stored && !found; s++)
                if (!strcmp(stored[s].name, a->subs.items[i].name)) found = &stored[s];
            grade_student *st = &a->students[i];
            if (found && grade_student_from_json(found->student, st) == 0) {
                grade_adjustments_apply(&a->adjust, st);
                if (write_reports(a, i, st, &ctx) != 0) {
                    a->report_failed = true;
                } else if (grade_outdir_store(&a->outdir, st->name, a->keys[i], found->student, err, sizeof(err)) !=
                           0) {
                    fprintf(stderr, "grade: %s\n", err);
                    a->report_failed = true;
                }
                a->graded[i] = true;
                grade_progress_step(&a->progress, st);
                continue;
            }
            if (found) grade_student_free(st);
            a->why_not[i] = grade_strf("NOT GRADED: Slurm array task %d, which had this student, did not finish (%s); "
                                       "grade it again with: %s",
                                       k, why, a->plan.rerun);
            grade_buf_printf(&names, "%s%s", missing ? ", " : "", a->subs.items[i].name);
            missing++;
        }
        grade_stored_free(stored, n_stored);
        cJSON_Delete(ctx_json);
        if (!done_ok || missing) {
            grade_buf_printf(&b, "  task %d (%s; its log: %s/slurm/logs/task_%d.log): ", k, why, a->opt.out, k);
            if (missing)
                grade_buf_printf(&b, "%zu of its %zu students not graded: %s\n", missing, share, names.data);
            else
                grade_buf_printf(&b, "all of its %zu students were graded before it stopped\n", share);
        }
        missing_all += missing;
        grade_buf_free(&names);
    }
    if (!b.len) {
        grade_buf_free(&b);
        return NULL;
    }
    char *list = grade_buf_take(&b);
    char *text = grade_strf("This gradebook is INCOMPLETE: Slurm array tasks did not finish, and %zu of %zu students "
                            "have no grade (empty scores and a NOT GRADED note naming the task):\n%s"
                            "The other students' results are whole. To grade the rest, run:\n  %s\n",
                            missing_all, a->subs.n, list, a->plan.rerun);
    free(list);
    return text;
}

static int class_mode(app *a) {
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
        return cannot_run("--out: %s", err);
    a->stored = stored;
    a->n_stored = n_stored;
    if (grade_outdir_clean(&a->outdir, err, sizeof(err)) != 0) {
        grade_stored_free(stored, n_stored);
        return cannot_run("--out: %s", err);
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
    int stopped = g_stop         ? 1
                  : a->opt.merge   ? (unfinished = merge_tasks(a), 0)
                  : a->opt.rescore ? (unfinished = rescore_class(a), 0)
                                   : grade_pool_run(a->n_order, jobs, job, done, a, &g_stop);
    grade_progress_finish(&a->progress);
    bool interrupted = stopped == 1 || g_stop;

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
                g_stop == SIGTERM ? "SIGTERM" : "SIGINT", finished, a->subs.n, csv_path, resume);
        rc = g_stop == SIGTERM ? GRADE_EXIT_INTERRUPTED_TERM : GRADE_EXIT_INTERRUPTED_INT;
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

static int gradescope_mode(app *a) {
    /* What the student uploaded: a lone lab file counts (one lab graded), and an archive
     * among the files is opened. */
    grade_submission sub = {
        .name = "submission", .path = (char *)a->opt.submission_dir, .kind = GRADE_SUB_FOLDER, .loose = true};
    char *work = grade_path_join(a->scratch, "s0");
    char err[1024];
    if (grade_mkdir_p(work, 0711, err, sizeof(err)) != 0) {
        free(work);
        return cannot_run("%s", err);
    }
    grade_student s;
    grade_student_grade(&a->env, &sub, work, &s);
    if (!grade_is_dir(a->opt.submission_dir)) {
        free(s.problem);
        s.problem = grade_strf("the submission folder %s does not exist or is not a folder", a->opt.submission_dir);
    }
    char *json = grade_report_gradescope(&s, &a->env.report);
    char *dir = grade_strdup(a->opt.results);
    char *slash = strrchr(dir, '/');
    int rc = GRADE_EXIT_OK;
    if (slash && slash != dir) {
        *slash = '\0';
        if (grade_mkdir_p(dir, 0755, err, sizeof(err)) != 0) rc = cannot_run("--results: %s", err);
    }
    /* The host was too slow for a lab run (grade_host.h): no results.json, so that Gradescope
     * shows the autograder as failed (regrade needed) instead of a score of 0. */
    bool host = rc == GRADE_EXIT_OK && grade_student_host_problem(&s);
    if (host) {
        fprintf(stderr, "grade: %s\ngrade: no results were written: regrade this submission when the host is less busy\n",
                s.problem ? s.problem : "NOT GRADED");
        rc = GRADE_EXIT_CANNOT_RUN;
    }
    if (rc == GRADE_EXIT_OK && grade_write_file(a->opt.results, json, strlen(json), err, sizeof(err)) != 0)
        rc = cannot_run("--results: %s", err);
    /* Gradescope shows the autograder's stdout to instructors. */
    char *report = grade_report_text(&s, &a->env.report);
    printf("%s", report);
    free(report);
    free(json);
    free(dir);
    free(work);
    grade_student_free(&s);
    return rc;
}

/* path absolute, symbolic links resolved where it exists (malloc'd). */
static char *absolute(const char *path) {
    char buf[PATH_MAX];
    if (realpath(path, buf)) return grade_strdup(buf);
    if (path[0] == '/' || !getcwd(buf, sizeof(buf))) return grade_strdup(path);
    return grade_strf("%s/%s", buf, path);
}

/* --install DIR: the grader, every kit, the rubric and the catalog, to run from there. */
static int install_mode(app *a) {
    char err[2048];
    char *grade = absolute("/proc/self/exe");
    char *catalog = grade_workspace_runfile("labs/catalog.json");
    char *dir = absolute(a->opt.install);
    grade_install_what w = {.grade = grade, .kits_dir = a->kits_dir, .rubric = a->rubric_path, .catalog = catalog,
                            .usage = a->usage};
    int rc = GRADE_EXIT_OK;
    if (grade_install(&w, dir, err, sizeof(err)) != 0)
        rc = cannot_run("%s", err);
    else
        printf("grade: installed the grader, %zu kits, the rubric and the lab catalog in %s (%s/INSTALLED.txt).\n"
               "Run it from there, on any machine that sees the folder: %s/grade --help\n",
               a->all_kits.n, dir, dir, dir);
    free(dir);
    free(catalog);
    free(grade);
    return rc;
}

/* --slurm: the job array's and the merge's scripts in OUT/slurm, submitted with --submit.
 * Nobody is graded here (a login node may have no GPU); each task runs the pre-flight
 * checks on its node. */
static int slurm_mode(app *a) {
    char err[2048];
    if (grade_outdir_clean(&a->outdir, err, sizeof(err)) != 0) return cannot_run("--out: %s", err);
    int n = (int)a->subs.n;
    int tasks = a->opt.array_size ? a->opt.array_size : (n + 9) / 10;
    if (tasks > n) tasks = n;
    if (tasks < 1) tasks = 1;
    char *grade = absolute("/proc/self/exe");
    char *out = absolute(a->opt.out);
    /* The jobs run a copy of this grader, its kits of these labs, the rubric and the lab
     * catalog installed in OUT/slurm/grader (grade_install.h), never Bazel's cache or the
     * live rubric. */
    char *plan_dir = grade_slurm_dir(out);
    char *inst = grade_path_join(plan_dir, "grader");
    char *inst_grade = grade_path_join(inst, "grade"), *inst_rubric = grade_path_join(inst, "rubric.json"),
         *inst_kits = grade_path_join(inst, "kits");
    /* What stops the plan before anything is written (perr). */
    char perr[2560] = "";
    /* Every node grades the same way: auto is decided here, by the GPUs the tasks ask for. */
    bool want_gpus = a->opt.gres || a->opt.gpus_per_task > 0;
    const char *backend = strcmp(a->opt.backend, "auto") ? a->opt.backend : want_gpus ? "gpu" : "sim";
    /* The instructor's shell lines, read now: the scripts hold them, not the file. */
    char *prologue_text = NULL;
    if (a->opt.prologue) {
        size_t len = 0;
        bool cut = false;
        if (grade_read_file(a->opt.prologue, 64u << 10, &prologue_text, &len, &cut, err, sizeof(err)) != 0)
            snprintf(perr, sizeof(perr), "--prologue: %s", err);
        else if (cut || memchr(prologue_text, '\0', len))
            snprintf(perr, sizeof(perr), "--prologue %s: not a file of shell lines (larger than 64 KiB, or binary)",
                     a->opt.prologue);
        /* sbatch reads #SBATCH lines only before the first command: here they would be
         * silently ignored. */
        bool sbatch_line = prologue_text && !strncmp(prologue_text, "#SBATCH", 7);
        for (const char *p = prologue_text ? strchr(prologue_text, '\n') : NULL; p && !sbatch_line;
             p = strchr(p + 1, '\n'))
            sbatch_line = !strncmp(p + 1 + strspn(p + 1, " \t"), "#SBATCH", 7);
        if (!*perr && sbatch_line)
            snprintf(perr, sizeof(perr),
                     "--prologue %s: it holds #SBATCH lines, which sbatch ignores after the first command: give each "
                     "as --sbatch-option (--sbatch-option=--account=cs101)",
                     a->opt.prologue);
    }
    if (*perr) {
        free(prologue_text);
        free(inst_grade);
        free(inst_rubric);
        free(inst_kits);
        free(inst);
        free(plan_dir);
        free(out);
        free(grade);
        return cannot_run("%s", perr);
    }
    if (!strcmp(a->opt.backend, "auto"))
        fprintf(stderr, "grade: --slurm: --backend auto is written as --backend %s (%s)\n", backend,
                want_gpus ? "the tasks ask for GPUs"
                          : "the tasks ask for no GPU: --gpus-per-task or --gres gives them GPUs to grade on");
    char mem[32];
    if (a->opt.task_mem)
        snprintf(mem, sizeof(mem), "%s", a->opt.task_mem);
    else /* each student graded at once: a lab program and its compile, at --memory-mb each */
        snprintf(mem, sizeof(mem), "%ldM", (long)(a->opt.jobs_given ? a->opt.jobs : 2) * 2 * a->opt.mem_mb);
    char *held[16] = {0};
    size_t n_held = 0;
    const char *args[64], *merge_args[8];
    size_t n_args = 0, n_merge = 0;
#define ARG(x) (args[n_args++] = (x))
#define OWN(x) (held[n_held++] = (x))
    char num[8][32];
    ARG("--submissions");
    ARG(OWN(absolute(a->opt.submissions)));
    if (a->opt.layout) {
        ARG("--layout");
        ARG(grade_layout_name((grade_layout)a->opt.layout));
    }
    if (a->opt.roster) {
        ARG("--roster");
        ARG(OWN(absolute(a->opt.roster)));
    }
    if (a->opt.submitted_at) {
        ARG("--submitted-at");
        ARG(OWN(absolute(a->opt.submitted_at)));
    }
    if (a->opt.file_times) {
        ARG("--file-times");
        ARG("--file-times"); /* (options go in pairs in the scripts' layout) */
    }
    if (a->opt.labs) {
        ARG("--labs");
        ARG(a->opt.labs);
    }
    ARG("--backend");
    ARG(backend);
    snprintf(num[0], sizeof(num[0]), "%d", a->opt.runs);
    snprintf(num[1], sizeof(num[1]), "%d", a->opt.schedules);
    snprintf(num[2], sizeof(num[2]), "%d", a->opt.timeout_s);
    snprintf(num[3], sizeof(num[3]), "%ld", a->opt.mem_mb);
    snprintf(num[4], sizeof(num[4]), "%ld", a->opt.output_mb);
    snprintf(num[5], sizeof(num[5]), "%llu", (unsigned long long)a->opt.seed);
    ARG("--runs");
    ARG(num[0]);
    ARG("--schedules");
    ARG(num[1]);
    ARG("--timeout");
    ARG(num[2]);
    ARG("--memory-mb");
    ARG(num[3]);
    ARG("--output-mb");
    ARG(num[4]);
    snprintf(num[6], sizeof(num[6]), "%d", a->opt.compile_s);
    snprintf(num[7], sizeof(num[7]), "%ld", a->opt.scratch_mb);
    ARG("--compile-timeout");
    ARG(num[6]);
    ARG("--scratch-mb");
    ARG(num[7]);
    if (a->opt.seed_given) {
        ARG("--seed");
        ARG(num[5]);
    }
    if (a->opt.profile) {
        ARG("--profile");
        ARG(a->opt.profile);
    }
    ARG("--rubric");
    ARG(inst_rubric);
    ARG("--kits");
    ARG(inst_kits);
    /* results.json's settings (grade_report_gradescope.h), for the tasks and the merge. */
    ARG("--output-format");
    ARG(a->opt.gs.format);
    grade_buf vis;
    grade_buf_init(&vis);
    grade_buf_puts(&vis, a->opt.gs.visibility);
    for (int c = 0; c < GRADE_CHECKS; c++)
        if (a->opt.gs.test_visibility[c])
            grade_buf_printf(&vis, ",%s=%s", grade_check_titles[c], a->opt.gs.test_visibility[c]);
    ARG("--visibility");
    ARG(OWN(grade_buf_take(&vis)));
    if (a->opt.gs.leaderboard) {
        ARG("--leaderboard");
        ARG("--leaderboard"); /* (pairs, as above) */
    }
    if (a->opt.scratch) {
        ARG("--scratch");
        ARG(OWN(absolute(a->opt.scratch)));
    }
    if (a->opt.keep_scratch) {
        ARG("--keep-scratch");
        ARG("--keep-scratch"); /* (options go in pairs in the scripts' layout) */
    }
    if (a->opt.csv_bom) merge_args[n_merge++] = "--csv-bom";
    if (a->opt.quiet) merge_args[n_merge++] = "--quiet";
    if (a->opt.similarity_tool) {
        merge_args[n_merge++] = "--similarity-tool";
        merge_args[n_merge++] = OWN(absolute(a->opt.similarity_tool));
    } else if (a->opt.similarity)
        merge_args[n_merge++] = "--similarity";
#undef ARG
#undef OWN
    const char **students = calloc(a->subs.n + 1, sizeof(char *));
    for (size_t i = 0; i < a->subs.n; i++) students[i] = a->subs.items[i].name;
    bool gpu = !strcmp(backend, "gpu");
    grade_slurm_plan plan = {
        .out = out,
        .grade = inst_grade,
        .args = args,
        .n_args = n_args,
        .merge_args = merge_args,
        .n_merge_args = n_merge,
        .partition = a->opt.partition,
        .time_limit = a->opt.time_limit,
        .gpus_per_task = a->opt.gres ? 1 : a->opt.gpus_per_task >= 0 ? a->opt.gpus_per_task : gpu ? 1 : 0,
        .cpus_per_task = a->opt.jobs_given ? a->opt.jobs : 2,
        .gres = a->opt.gres,
        .mem = mem,
        .array_throttle = a->opt.array_throttle,
        .prologue = prologue_text,
        .sbatch_options = a->opt.sbatch_options,
        .n_sbatch_options = (size_t)a->opt.n_sbatch_options,
        .tasks = tasks,
        .students = students,
        .n_students = a->subs.n,
        .usage = a->usage,
    };
    int rc = grade_slurm_write(&plan, err, sizeof(err));
    if (rc == 0) {
        const char **labs = calloc(a->n_labs + 1, sizeof(char *));
        for (size_t l = 0; l < a->n_labs; l++) labs[l] = a->kits[l].lab;
        char *catalog = grade_workspace_runfile("labs/catalog.json");
        grade_install_what w = {.grade = grade, .kits_dir = a->kits_dir, .labs = labs, .n_labs = a->n_labs,
                                .rubric = a->rubric_path, .catalog = catalog, .usage = a->usage};
        rc = grade_install(&w, inst, err, sizeof(err));
        free(catalog);
        free(labs);
    }
    char *dir = grade_slurm_dir(out);
    if (rc != 0) {
        rc = cannot_run("--slurm: %s", err);
    } else {
        printf("grade: --slurm: %zu students in %d array task%s of about %zu each; the scripts are in %s:\n"
               "  grade_array.sbatch  the tasks (each grades its share into shards/K)\n"
               "  merge.sbatch        the merge into %s, after the tasks\n"
               "  submit.sh           submits both\n"
               "  grader/             the grader, kits and rubric the jobs run (a copy: rebuilding or\n"
               "                      editing the rubric changes nothing for them)\n",
               a->subs.n, tasks, tasks == 1 ? "" : "s", (a->subs.n + (size_t)tasks - 1) / (size_t)tasks, dir, out);
        char range[32];
        snprintf(range, sizeof(range), "0-%d", tasks - 1);
        if (a->opt.submit) {
            fflush(stdout);
            if (grade_slurm_submit(out, range, err, sizeof(err)) != 0) rc = cannot_run("%s", err);
        } else {
            char *script = grade_path_join(dir, "submit.sh");
            char *q = grade_shell_quote(script);
            printf("Submit them with:  sh %s\n", q);
            free(q);
            free(script);
        }
    }
    free(dir);
    free(students);
    for (size_t i = 0; i < n_held; i++) free(held[i]);
    free(out);
    free(prologue_text);
    free(inst_grade);
    free(inst_rubric);
    free(inst_kits);
    free(inst);
    free(plan_dir);
    free(grade);
    return rc;
}

/* --slurm --only-failed: the tasks of OUT's array that did not finish, submitted again
 * (with --submit), then the merge. */
static int only_failed_mode(app *a) {
    char err[2048];
    grade_slurm_state st;
    if (grade_slurm_read(a->opt.out, &st, err, sizeof(err)) != 0) return cannot_run("--only-failed: %s", err);
    char *dir = grade_slurm_dir(a->opt.out);
    char *merge_status = grade_path_join(dir, "status/merge");
    if (!grade_is_file(merge_status))
        fprintf(stderr, "grade: --only-failed: the merge job has not run yet: if the array is still running (squeue), "
                        "its tasks have no status yet and would be submitted twice; wait for it\n");
    free(merge_status);
    char *failed = grade_slurm_failed_list(a->opt.out, &st);
    int rc = GRADE_EXIT_OK;
    if (!*failed) {
        printf("grade: --only-failed: every one of the %d tasks of the array in %s finished: nothing to grade again\n",
               st.tasks, dir);
    } else {
        printf("grade: --only-failed: task%s %s of %d did not finish: graded again, each keeping the students it had "
               "finished, then merged\n",
               strchr(failed, ',') ? "s" : "", failed, st.tasks);
        if (a->opt.submit) {
            fflush(stdout);
            if (grade_slurm_submit(a->opt.out, failed, err, sizeof(err)) != 0) rc = cannot_run("%s", err);
        } else {
            char *script = grade_path_join(dir, "submit.sh");
            char *q = grade_shell_quote(script);
            printf("Submit them with:  sh %s %s\n", q, failed);
            free(q);
            free(script);
        }
    }
    free(failed);
    free(dir);
    grade_slurm_state_free(&st);
    return rc;
}

/* Each lab's skeleton built and run once with the instructor's settings: options the lab
 * refuses and a rubric that does not fit the lab's target stop the grader here. */
static int preflight(app *a) {
    grade_run_settings run = {
        .runs = 1,
        .schedules = 0,
        .timeout_s = a->opt.timeout_s,
        .profile = a->opt.profile,
        .mem_mb = a->opt.mem_mb,
        .output_mb = a->opt.output_mb,
        .width = 100,
        .gpu_lock = a->gpu_lock,
    };
    char err[2048];
    for (size_t l = 0; l < a->n_labs && !g_stop; l++) {
        char *dir = grade_strf("%s/preflight_%s", a->scratch, a->kits[l].lab);
        grade_lab_facts facts;
        int rc = grade_preflight_lab(&a->sandbox, &a->kits[l], &run, dir, &facts, err, sizeof(err));
        if (!a->opt.keep_scratch) {
            char e2[256];
            grade_rm_rf(dir, e2, sizeof(e2));
        }
        free(dir);
        if (rc == 0) rc = grade_preflight_check_rule(a->rubric.shown, a->rules[l], &facts, err, sizeof(err));
        if (rc == 0) a->targets[l] = facts.target_bound_fraction;
        if (rc != 0) {
            fprintf(stderr, "grade: %s\ngrade: nobody was graded\n", err);
            return GRADE_EXIT_CANNOT_RUN;
        }
    }
    return 0;
}

/* Under `bazel run` the program starts in its runfiles: relative paths are the user's,
 * relative to where they typed the command. */
static const char *from_user(const char *path) {
    char buf[4096];
    const char *p = cli_user_path(path, buf, sizeof(buf));
    return p == buf ? grade_strdup(buf) : p;
}

int main(int argc, char **argv) {
    static app A;
    app *a = &A;
    char err[1024];
    signal(SIGPIPE, SIG_IGN);
    umask(022);
    a->usage = grade_usage_name(argv[0]);
    a->argc = argc;
    a->argv = argv;
    int rc = grade_parse_options(argc, argv, &a->opt, err, sizeof(err));
    if (rc) {
        fprintf(stderr, "grade: %s\nTry '%s --help'.\n", err, a->usage);
        return rc;
    }
    if (a->opt.help) {
        grade_print_usage(a->usage, stdout);
        return GRADE_EXIT_OK;
    }
    /* Ctrl-C and SIGTERM: stop grading, clean up, and write what is done (no SA_RESTART,
     * so that the pool's wait returns to see it). */
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    /* (These few strings live as long as the program.) */
    a->opt.submissions = from_user(a->opt.submissions);
    a->opt.out = from_user(a->opt.out);
    /* Messages name the rubric as the instructor gave it (grading/rubric.json when built in). */
    const char *rubric_shown = a->opt.rubric ? a->opt.rubric : "grading/rubric.json";
    a->opt.rubric = from_user(a->opt.rubric);
    a->opt.kits = from_user(a->opt.kits);
    a->opt.scratch = from_user(a->opt.scratch);
    a->opt.submission_dir = from_user(a->opt.submission_dir);
    a->opt.results = from_user(a->opt.results);
    if (a->opt.submitted_at) {
        if (a->opt.gradescope) {
            fprintf(stderr, "grade: --submitted-at is for class mode (--submissions), not --gradescope\nTry '%s --help'.\n",
                    a->usage);
            return GRADE_EXIT_USAGE;
        }
        a->opt.submitted_at = from_user(a->opt.submitted_at);
    }

    /* --slurm --only-failed: the plan in --out has everything else. */
    if (a->opt.slurm && a->opt.only_failed) return only_failed_mode(a);
    char *rubric_path = a->opt.rubric ? grade_strdup(a->opt.rubric) : grade_runfile("rubric.json");
    if (!rubric_path) return cannot_run("%s", "no rubric: give one with --rubric FILE (the built-in grading/rubric.json was not found beside the program)");
    if (grade_rubric_load_as(rubric_path, rubric_shown, &a->rubric, err, sizeof(err)) != 0) {
        free(rubric_path);
        return cannot_run("%s", err);
    }
    char *rubric_notes = grade_rubric_warnings(&a->rubric);
    if (rubric_notes) fprintf(stderr, "grade: WARNING: %s", rubric_notes);
    free(rubric_notes);
    a->rubric_path = absolute(rubric_path);
    free(rubric_path);
    char *kits_dir = a->opt.kits ? grade_strdup(a->opt.kits) : grade_kit_default_dir();
    if (!kits_dir) return cannot_run("%s", "no lab kits: give their folder with --kits DIR (they are built with //grading:grade)");
    a->kits_dir = absolute(kits_dir);
    if (grade_kit_set_load(kits_dir, &a->all_kits, err, sizeof(err)) != 0) {
        free(kits_dir);
        return cannot_run("%s", err);
    }
    if (a->all_kits.n == 0) {
        rc = cannot_run("no lab kits in %s", kits_dir);
        free(kits_dir);
        return rc;
    }
    /* Every lab of the rubric is a lab of the course (labs/catalog.json, where the grader
     * has it): a typo in a key is the rubric's to correct, said with the nearest lab. */
    char *catalog_path = grade_workspace_runfile("labs/catalog.json");
    char *catalog = NULL;
    size_t catalog_len = 0;
    cJSON *cat = catalog_path && grade_read_file(catalog_path, 1u << 20, &catalog, &catalog_len, NULL, err,
                                                 sizeof(err)) == 0
                     ? cJSON_ParseWithLength(catalog, catalog_len)
                     : NULL;
    const cJSON *cat_labs = cJSON_GetObjectItemCaseSensitive(cat, "labs"), *e;
    const char *known[128];
    size_t n_known = 0;
    cJSON_ArrayForEach(e, cat_labs) {
        const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "id"));
        if (id && n_known < 128) known[n_known++] = id;
    }
    rc = n_known ? grade_rubric_check_labs(&a->rubric, known, n_known, err, sizeof(err)) : 0;
    cJSON_Delete(cat);
    free(catalog);
    free(catalog_path);
    if (rc != 0) {
        free(kits_dir);
        return cannot_run("%s: nothing was graded", err);
    }
    free(kits_dir);
    if (a->opt.install) return install_mode(a);
    /* A Slurm plan's own copy (OUT/slurm/grader) cannot write that plan again: --force and
     * the new plan would remove it while it runs. */
    if (a->opt.slurm) {
        char *plan = grade_slurm_dir(a->opt.out);
        bool own = grade_install_inside(a->kits_dir, plan);
        free(plan);
        if (own)
            return cannot_run("--slurm: this grader's kits are in %s, which a new plan replaces: run the grader you "
                              "installed or built, not the plan's copy",
                              a->kits_dir);
    }

    grade_sandbox_probe(&a->sandbox);
    a->sandbox.compile_s = a->opt.compile_s;
    a->sandbox.compile_mem_mb = a->opt.mem_mb;
    a->sandbox.scratch_mb = a->opt.scratch_mb;
    const char *base = a->opt.scratch ? a->opt.scratch : getenv("TMPDIR");
    if (!base || !*base) base = "/tmp";
    if (grade_mkdir_p(base, 0755, err, sizeof(err)) != 0) return cannot_run("--scratch: %s", err);
    if (!grade_sandbox_can_reach(&a->sandbox, base)) {
        if (a->opt.scratch) {
            fprintf(stderr,
                    "grade: --scratch %s: the user the submissions run as (uid %u) cannot reach it (a folder on "
                    "the way is not searchable by others, like /root): choose another, such as /tmp\n",
                    base, (unsigned)a->sandbox.uid);
            return GRADE_EXIT_CANNOT_RUN;
        }
        base = "/tmp";
    }
    a->scratch = grade_strf("%s/streamlab-grade.XXXXXX", base);
    if (!mkdtemp(a->scratch)) return cannot_run("cannot make a scratch folder in %s", base);
    /* Searchable by the sandbox user, not listable. */
    chmod(a->scratch, 0711);

    const char *backend = "sim";
    rc = choose_labs(a, &backend, err, sizeof(err));
    if (rc) {
        fprintf(stderr, "grade: %s\n", err);
        grade_rm_rf(a->scratch, err, sizeof(err));
        return rc;
    }
    bool gpu = !strcmp(backend, "gpu");
    if (gpu) a->gpu_lock = grade_path_join(a->scratch, "gpu.lock");
    if (!a->opt.gradescope) rc = open_class(a);
    /* --rescore runs no lab, not even the skeleton's. */
    if (!rc && !a->opt.merge && !a->opt.slurm && !a->opt.rescore) rc = preflight(a);
    if (rc || g_stop) {
        if (!rc) {
            fprintf(stderr, "grade: interrupted before anyone was graded: nothing was written\n");
            rc = g_stop == SIGTERM ? GRADE_EXIT_INTERRUPTED_TERM : GRADE_EXIT_INTERRUPTED_INT;
        }
        grade_rm_rf(a->scratch, err, sizeof(err));
        grade_outdir_close(&a->outdir);
        return rc;
    }

    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(a->when, sizeof(a->when), "%Y-%m-%d %H:%M:%S %Z", &tm);
    a->sandbox_desc = grade_sandbox_describe(&a->sandbox);
    a->backend_desc = gpu ? grade_strdup("a real GPU (timed runs one at a time)")
                          : grade_strf("the SIMULATED GPU (%s profile; simulated time is exact, so a re-run gives "
                                       "the same figures)",
                                       a->opt.profile ? a->opt.profile : "the lab's default");
    a->settings_desc = grade_strf("%d timed run%s of the baseline and the submission, interleaved, and their medians; "
                                  "%d perturbed schedule%s%s; %d s of the submission's own time (setup, run and teardown; "
                                  "the harness's own is not counted), %ld MiB of memory and %ld MiB of output per lab "
                                  "run",
                                  a->opt.runs, a->opt.runs == 1 ? "" : "s", a->opt.schedules,
                                  a->opt.schedules == 1 ? "" : "s",
                                  gpu ? " (for labs graded on the simulator: a real GPU runs as it runs)" : "",
                                  a->opt.timeout_s, a->opt.mem_mb, a->opt.output_mb);
    a->env = (grade_env){
        .sandbox = &a->sandbox,
        .rubric = &a->rubric,
        .kits = a->kits,
        .rules = a->rules,
        .n_labs = a->n_labs,
        .run =
            {
                .runs = a->opt.runs,
                .schedules = a->opt.schedules,
                .timeout_s = a->opt.timeout_s,
                .profile = a->opt.profile,
                .mem_mb = a->opt.mem_mb,
                .output_mb = a->opt.output_mb,
                .width = 100,
                .gpu_lock = a->gpu_lock,
            },
        .loose = a->opt.gradescope && a->n_labs == 1,
        .fixed_seed = a->opt.seed_given,
        .seed = a->opt.seed,
        .report = {.backend = a->backend_desc, .sandbox = a->sandbox_desc, .settings = a->settings_desc, .when = a->when,
                   .gradescope = &a->opt.gs},
        .backend_notes = (const char *const *)a->backend_notes,
        .targets = a->targets,
    };

    rc = a->opt.gradescope ? gradescope_mode(a) : a->opt.slurm ? slurm_mode(a) : class_mode(a);

    if (a->opt.keep_scratch && !g_stop)
        fprintf(stderr, "grade: scratch folders kept in %s\n", a->scratch);
    else if (grade_rm_rf(a->scratch, err, sizeof(err)) != 0) {
        /* A lab program killed with its worker may still be going away: once more. */
        usleep(200 * 1000);
        if (grade_rm_rf(a->scratch, err, sizeof(err)) != 0) fprintf(stderr, "grade: %s\n", err);
    }
    grade_outdir_close(&a->outdir);
    free(a->keys);
    free(a->order);
    free(a->graded);
    for (size_t i = 0; i < a->subs.n && a->students; i++) grade_student_free(&a->students[i]);
    free(a->students);
    for (size_t i = 0; a->why_not && i < a->subs.n; i++) free(a->why_not[i]);
    free(a->why_not);
    grade_student_dirnames_free(a->dirs, a->subs.n);
    grade_submission_list_free(&a->subs);
    grade_roster_free(&a->roster);
    grade_adjustments_free(&a->adjust);
    grade_slurm_state_free(&a->plan);
    free(a->rubric_path);
    free(a->kits_dir);
    for (size_t i = 0; i < a->n_labs; i++) {
        grade_kit_free(&a->kits[i]);
        free(a->backend_notes ? a->backend_notes[i] : NULL);
    }
    free(a->backend_notes);
    free(a->targets);
    free(a->kits);
    free(a->rules);
    grade_kit_set_free(&a->all_kits);
    grade_rubric_free(&a->rubric);
    free(a->scratch);
    free(a->gpu_lock);
    free(a->sandbox_desc);
    free(a->backend_desc);
    free(a->settings_desc);
    return rc;
}
