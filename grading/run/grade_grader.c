/* grading/run/grade_grader.c: one student, all labs (see grade_grader.h). */
#define _GNU_SOURCE
#include "grading/run/grade_grader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "grading/base/grade_fs.h"
#include "grading/base/grade_text.h"
#include "grading/build/grade_build.h"
#include "grading/out/grade_beneath.h"
#include "grading/reports/grade_report_gradescope.h"
#include "grading/reports/grade_report_junit.h"
#include "grading/reports/grade_report_text.h"
#include "grading/run/grade_trust.h"
#include "grading/score/grade_host.h"
#include "grading/score/grade_late.h"
#include "grading/score/grade_result_version.h"
#include "grading/score/grade_score.h"
#include "labs/harness/result_schema.h"

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void add_note(grade_lab *lab, const char *line) {
    char *n = grade_strf("%s%s\n", lab->notes, line);
    free(lab->notes);
    lab->notes = n;
}

static double num(const cJSON *o, const char *k) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* Strings in the result come from the lab program (stream names, ...): clean them. */
static void clean_strings(cJSON *j) {
    for (cJSON *c = j ? j->child : NULL; c; c = c->next) {
        if (cJSON_IsString(c)) {
            char *clean = grade_text_clean(c->valuestring, strlen(c->valuestring), 4096);
            cJSON_SetValuestring(c, clean);
            free(clean);
        } else {
            clean_strings(c);
        }
    }
}

/* Makes attempt a's findings the lab's (its result, timeline and output). */
static void adopt(grade_lab *lab, grade_attempt *a) {
    cJSON_Delete(lab->result);
    lab->result = a->result;
    a->result = NULL;
    clean_strings(lab->result);
    free(lab->timeline);
    lab->timeline = a->timeline;
    a->timeline = NULL;
    free(lab->output);
    lab->output = a->output;
    a->output = NULL;
}

static void note_foreign(grade_lab *lab, const grade_attempt *a) {
    if (a->foreign_lines == 0) return;
    char *n = grade_strf("%llu line%s on the event stream did not carry this run's secret nonce and %s ignored: "
                         "only the harness's own lines count (%s)",
                         (unsigned long long)a->foreign_lines, a->foreign_lines == 1 ? "" : "s",
                         a->foreign_lines == 1 ? "was" : "were", a->first_foreign);
    add_note(lab, n);
    free(n);
}

static bool usable(const cJSON *r) {
    const char *status = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, LAB_KEY_STATUS));
    return r && status && strcmp(status, "error") != 0;
}

static void run_lab(const grade_env *env, const grade_kit *kit, const grade_rubric_lab *rule, double target,
                    const char *lab_dir, const grade_wanted *file, grade_lab *lab) {
    char *build_dir = grade_path_join(lab_dir, "build");
    char *run_dir = grade_path_join(lab_dir, "run");
    char *log_dir = grade_path_join(lab_dir, "logs");
    grade_build_result built;
    grade_build_lab(env->sandbox, kit, build_dir, log_dir, file->data, file->len, &built);
    free(lab->diagnostics);
    lab->diagnostics = grade_strdup(built.diagnostics);
    if (!built.built) {
        lab->build_error = grade_strdup(built.error ? built.error : "does not build");
        goto out;
    }

    lab->seed = env->fixed_seed ? env->seed : (grade_random_u64() & ((1ull << 53) - 1));
    lab->seed_fixed = env->fixed_seed;
    /* The rubric's "output": "cut": output past the limit is cut, the run goes on. */
    grade_run_settings run = env->run;
    run.cut_output = rule->output_cut;
    grade_attempt a;
    grade_run_lab(env->sandbox, kit, built.binary, build_dir, run_dir, log_dir, &run, lab->seed, &a);
    if (a.output_cut) {
        char *n = grade_strf("the program wrote more than %ld MiB to stdout or stderr: the rest was cut (the rubric's "
                             "\"output\": \"cut\"), and the run went on",
                             run.output_mb);
        add_note(lab, n);
        free(n);
    }
    lab->attempts = 1;
    note_foreign(lab, &a);
    if (a.failure) {
        lab->failure = grade_strdup(a.failure);
        lab->host_problem = a.host_problem;
        adopt(lab, &a);
        grade_attempt_free(&a);
        goto out;
    }
    unsigned results = a.results;
    adopt(lab, &a);
    grade_attempt_free(&a);
    const cJSON *r = lab->result;
    char why[300];
    /* A result this grader cannot read is refused, not scored by keys it may misread. */
    if (grade_result_version_check(r, true, why, sizeof(why)) != 0) {
        lab->failure = grade_strdup(why);
        goto out;
    }
    grade_trust trust = grade_result_trust(r, lab->seed, results, target, why, sizeof(why));
    if (trust == GRADE_TRUST_NONE) {
        lab->failure = grade_strdup(why);
        goto out;
    }
    if (trust == GRADE_TRUST_NO_SPEED) {
        /* Correctness and races stand; the speed is not believed. */
        add_note(lab, why);
        cJSON_ReplaceItemInObjectCaseSensitive(lab->result, LAB_KEY_SPEEDUP, cJSON_CreateNumber(0));
        cJSON_ReplaceItemInObjectCaseSensitive(lab->result, LAB_KEY_BOUND_FRACTION, cJSON_CreateNumber(0));
    }
    lab->speedups[0] = num(r, LAB_KEY_SPEEDUP);
    lab->bound_fractions[0] = num(r, LAB_KEY_BOUND_FRACTION);
    lab->pipeline_bound = num(r, LAB_KEY_PIPELINE_BOUND);
    lab->lab_target = num(r, LAB_KEY_TARGET);
    lab->speedup = lab->speedups[0];
    lab->bound_fraction = lab->bound_fractions[0];

    /* Near a threshold, timing noise could move the speed across it: run again and take
     * the median of the medians. */
    bool clean = usable(r) && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, LAB_KEY_CORRECT)) && num(r, LAB_KEY_RACES) <= 0;
    double floor_s, target_s;
    if (clean && env->rubric->max_reruns > 0 &&
        grade_speed_thresholds(&rule->speed, lab->pipeline_bound, lab->lab_target, &floor_s, &target_s, why,
                               sizeof(why)) == 0 &&
        grade_speed_near_target(lab->speedup, target_s, env->rubric->noise_band)) {
        for (int k = 0; k < env->rubric->max_reruns && lab->attempts < GRADE_MAX_ATTEMPTS; k++) {
            grade_attempt again;
            grade_run_lab(env->sandbox, kit, built.binary, build_dir, run_dir, log_dir, &run, lab->seed, &again);
            note_foreign(lab, &again);
            if (again.failure) {
                lab->failure = grade_strf("in a re-run: %s", again.failure);
                lab->host_problem = again.host_problem;
                adopt(lab, &again);
                grade_attempt_free(&again);
                break;
            }
            const cJSON *r2 = again.result;
            char why2[300];
            grade_trust trust2 = grade_result_trust(r2, lab->seed, again.results, target, why2, sizeof(why2));
            if (trust2 != GRADE_TRUST_OK) {
                /* A re-run whose result is not believed: the lab is judged by it. */
                lab->failure = grade_strf("in a re-run: %s", why2);
                adopt(lab, &again);
                grade_attempt_free(&again);
                break;
            }
            bool clean2 = usable(r2) && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r2, LAB_KEY_CORRECT)) &&
                          num(r2, LAB_KEY_RACES) <= 0;
            if (!clean2) {
                /* A re-run that is wrong or racy counts: the lab is judged by it. */
                add_note(lab, "a re-run found what the first run did not (see the checks)");
                adopt(lab, &again);
                grade_attempt_free(&again);
                break;
            }
            lab->speedups[lab->attempts] = num(r2, LAB_KEY_SPEEDUP);
            lab->bound_fractions[lab->attempts] = num(r2, LAB_KEY_BOUND_FRACTION);
            lab->attempts++;
            grade_attempt_free(&again);
        }
        lab->speedup = grade_median(lab->speedups, lab->attempts);
        lab->bound_fraction = grade_median(lab->bound_fractions, lab->attempts);
        grade_buf b;
        grade_buf_init(&b);
        grade_buf_printf(&b, "the speedup %.3fx was within %.0f%% of the target %.3fx, where timing noise could move it "
                             "across; the lab ran %d time%s in all, with medians",
                         lab->speedups[0], 100 * env->rubric->noise_band, target_s, lab->attempts,
                         lab->attempts == 1 ? "" : "s");
        for (int i = 0; i < lab->attempts; i++) grade_buf_printf(&b, " %.3fx", lab->speedups[i]);
        grade_buf_printf(&b, "; their median, %.3fx, counts", lab->speedup);
        char *n = grade_buf_take(&b);
        add_note(lab, n);
        free(n);
    }
out:
    grade_build_result_free(&built);
    free(build_dir);
    free(run_dir);
    free(log_dir);
}

void grade_student_grade(const grade_env *env, const grade_submission *sub, const char *work_dir, grade_student *out) {
    double t0 = now_s();
    memset(out, 0, sizeof(*out));
    out->name = grade_strdup(sub->name);
    const char *base = strrchr(sub->path, '/');
    char *shown = grade_text_clean(base ? base + 1 : sub->path, strlen(base ? base + 1 : sub->path), 200);
    if (sub->kind == GRADE_SUB_FILES && sub->n_parts > 1)
        out->source = grade_strf("%s and %zu more file%s", shown, sub->n_parts - 1, sub->n_parts == 2 ? "" : "s");
    else if (sub->kind == GRADE_SUB_FILES)
        out->source = grade_strf("%s (a file)", shown);
    else
        out->source = sub->kind == GRADE_SUB_FOLDER ? grade_strf("%s/ (a folder)", shown)
                                                    : grade_strf("%s (an archive)", shown);
    free(shown);
    if (sub->absent) {
        free(out->source);
        out->source = grade_strdup("nothing handed in");
    } else if (sub->group) {
        char *with = grade_strf("%s; %s", out->source, sub->group);
        free(out->source);
        out->source = with;
    }
    out->sid = sub->sid ? grade_strdup(sub->sid) : NULL;
    out->email = sub->email ? grade_strdup(sub->email) : NULL;
    out->platform_id = sub->platform_id ? grade_strdup(sub->platform_id) : NULL;
    out->labs = calloc(env->n_labs ? env->n_labs : 1, sizeof(grade_lab));
    out->n_labs = env->n_labs;

    grade_wanted *wanted = calloc(env->n_labs ? env->n_labs : 1, sizeof(grade_wanted));
    for (size_t i = 0; i < env->n_labs; i++) wanted[i].path = env->kits[i].student_file;
    char err[768];
    /* What a student uploaded to a platform is matched as in Gradescope mode: loosely, when
     * one lab is graded. */
    bool loose = env->loose || (sub->loose && env->n_labs == 1);
    if (sub->problem)
        out->problem = grade_strdup(sub->problem);
    else if (sub->absent)
        ; /* every lab: not submitted, saying why */
    else if (grade_submission_fetch(sub, wanted, env->n_labs, loose, err, sizeof(err)) != 0)
        out->problem = grade_strdup(err);

    for (size_t i = 0; i < env->n_labs; i++) {
        const grade_kit *kit = &env->kits[i];
        const grade_rubric_lab *rule = env->rules[i];
        grade_lab *lab = &out->labs[i];
        double max[GRADE_CHECKS] = {rule->correct_points, rule->race_free_points, rule->speed.points,
                                    rule->measurement_points};
        grade_lab_init(lab, kit->lab, kit->student_file, max);
        if (env->backend_notes && env->backend_notes[i]) lab->backend_note = grade_strdup(env->backend_notes[i]);
        double l0 = now_s();
        if (out->problem) {
            lab->missing = grade_strdup(out->problem);
        } else if (sub->absent) {
            lab->missing = grade_strdup(sub->absent);
        } else if (!wanted[i].data) {
            lab->missing = grade_strdup(wanted[i].missing ? wanted[i].missing : "not found");
        } else {
            lab->submitted = true;
            if (wanted[i].note) {
                char *n = grade_strf("%s %s", kit->student_file, wanted[i].note);
                add_note(lab, n);
                free(n);
            }
            char *lab_dir = grade_path_join(work_dir, kit->lab);
            if (grade_mkdir_p(lab_dir, 0711, err, sizeof(err)) != 0)
                lab->failure = grade_strf("grader problem: %s", err);
            else
                run_lab(env, kit, rule, env->targets ? env->targets[i] : 0, lab_dir, &wanted[i], lab);
            free(lab_dir);
        }
        grade_score_lab(rule, lab);
        grade_late_apply(&rule->late, sub, lab);
        lab->seconds = now_s() - l0;
        grade_wanted_clear(&wanted[i]);
    }
    free(wanted);
    grade_student_total(out);
    /* A lab the host was too slow for: the student is not graded, and graded again later. */
    grade_student_mark_host_problem(out);
    out->seconds = now_s() - t0;
}

int grade_student_write(const grade_student *s, const grade_report_context *ctx, int out_fd, const char *out_shown,
                        const char *folder, char *err, size_t err_len) {
    char *texts[3] = {grade_report_text(s, ctx), grade_report_gradescope(s, ctx), grade_report_junit_student(s)};
    const char *names[3] = {"report.txt", "results.json", "junit.xml"};
    int rc = 0;
    for (int i = 0; i < 3; i++) {
        /* Inside --out, through no link (grade_beneath.h); folder is grade_student_dir.h's. */
        char *rel = grade_path_join(folder, names[i]);
        if (rc == 0 && grade_beneath_write(out_fd, out_shown, rel, texts[i], strlen(texts[i]), err, err_len) != 0)
            rc = -1;
        free(rel);
        free(texts[i]);
    }
    return rc;
}
