/* grading/reports/grade_report_text.c: report.txt (see grade_report_text.h). */
#include "grading/reports/grade_report_text.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grading/base/grade_text.h"
#include "grading/score/grade_score.h"
#include "labs/harness/result_schema.h"

static const char *str(const cJSON *o, const char *k) {
    const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));
    return v ? v : "";
}

static double num(const cJSON *o, const char *k) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* Text indented by `pad` on every line. */
static void indented(grade_buf *b, const char *text, const char *pad) {
    const char *p = text;
    while (*p) {
        size_t n = strcspn(p, "\n");
        grade_buf_puts(b, pad);
        grade_buf_append(b, p, n);
        grade_buf_append(b, "\n", 1);
        p += n;
        if (*p == '\n') p++;
    }
}

/* "first:  H2D batch 0 on "buf A", labs/03_double_buffer/lab.c:41" (the line when known). */
static void side(grade_buf *b, const cJSON *race, bool first) {
    const cJSON *at =
        cJSON_GetObjectItemCaseSensitive(race, first ? LAB_KEY_RACE_FIRST_LINE : LAB_KEY_RACE_SECOND_LINE);
    char *on = grade_race_stream(str(race, first ? LAB_KEY_RACE_FIRST_STREAM : LAB_KEY_RACE_SECOND_STREAM));
    grade_buf_printf(b, "       %-7s %s on %s%s%s\n", first ? "first:" : "second:",
                     str(race, first ? LAB_KEY_RACE_FIRST : LAB_KEY_RACE_SECOND), on, cJSON_IsString(at) ? ", " : "",
                     cJSON_IsString(at) ? at->valuestring : "");
    free(on);
}

/* The lines of the wait and the record a race's fix names, when it blames a wait and they
 * are known: "wait:   labs/05_cross_stream_races/lab.c:44" (where the fix's wait is). */
static void blamed(grade_buf *b, const cJSON *race) {
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(race, LAB_KEY_RACE_BLAMED_WAIT);
    if (!cJSON_IsObject(w)) return;
    const cJSON *at = cJSON_GetObjectItemCaseSensitive(w, LAB_KEY_BLAMED_WAIT_LINE);
    if (cJSON_IsString(at)) grade_buf_printf(b, "       wait:   %s\n", at->valuestring);
    at = cJSON_GetObjectItemCaseSensitive(w, LAB_KEY_BLAMED_RECORD_LINE);
    if (cJSON_IsString(at)) grade_buf_printf(b, "       record: %s\n", at->valuestring);
}

static void races(grade_buf *b, const cJSON *r) {
    const cJSON *reports = cJSON_GetObjectItemCaseSensitive(r, LAB_KEY_RACE_REPORTS);
    if (cJSON_GetArraySize(reports) == 0) return;
    grade_buf_printf(b, "\n  Races (%.0f found; %d shown, each of a different kind where there are several):\n",
                     num(r, LAB_KEY_RACES), cJSON_GetArraySize(reports));
    const cJSON *race;
    int i = 0;
    cJSON_ArrayForEach(race, reports) {
        grade_buf_printf(b, "    %d. %s, %.0f bytes\n", ++i, str(race, LAB_KEY_RACE_KIND), num(race, LAB_KEY_RACE_BYTES));
        side(b, race, true);
        side(b, race, false);
        blamed(b, race);
        grade_buf_printf(b, "       fix:    %s\n", str(race, LAB_KEY_RACE_FIX));
    }
}

static void speed(grade_buf *b, const grade_lab *lab, const cJSON *r) {
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(r, LAB_KEY_TIMINGS);
    if (!t) return;
    grade_buf_printf(b, "\n  Timing: %s\n", str(r, LAB_KEY_TIMING_SOURCE));
    const char *names[2] = {LAB_KEY_TIMINGS_BASELINE_MS, LAB_KEY_TIMINGS_YOURS_MS};
    const char *titles[2] = {"baseline", "yours"};
    for (int k = 0; k < 2; k++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(t, names[k]);
        grade_buf_printf(b, "    %-9s", titles[k]);
        const cJSON *x;
        cJSON_ArrayForEach(x, v) grade_buf_printf(b, " %.3f", x->valuedouble);
        grade_buf_printf(b, " ms (interleaved runs)\n");
    }
    grade_buf_printf(b, "    speedup   %.2fx median, %.2fx best; %s %.2fx; the lab's target %.2fx\n",
                     num(r, LAB_KEY_SPEEDUP), num(r, LAB_KEY_SPEEDUP_BEST), grade_bound_name(r), num(r, LAB_KEY_PIPELINE_BOUND),
                     num(r, LAB_KEY_TARGET));
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(r, LAB_KEY_METRICS);
    if (m)
        grade_buf_printf(b, "    engines   H2D %.0f%%, compute %.0f%%, D2H %.0f%% busy; overlap %.0f%%\n",
                         100 * num(m, LAB_KEY_METRICS_UTIL_H2D), 100 * num(m, LAB_KEY_METRICS_UTIL_COMPUTE), 100 * num(m, LAB_KEY_METRICS_UTIL_D2H),
                         100 * num(m, LAB_KEY_METRICS_OVERLAP));
    if (lab->attempts > 1) {
        grade_buf_printf(b, "    re-runs   medians of %d lab runs:", lab->attempts);
        for (int i = 0; i < lab->attempts; i++) grade_buf_printf(b, " %.3fx", lab->speedups[i]);
        grade_buf_printf(b, " -> %.3fx counts\n", lab->speedup);
    }
}

char *grade_report_text_lab(const grade_lab *lab) {
    grade_buf b;
    grade_buf_init(&b);
    double pts = 0, max = 0;
    /* The titles' column: "measurement" is wider than the others, and only labs that have
     * it make the column wider. */
    int title_w = 9;
    for (int c = 0; c < GRADE_CHECKS; c++) {
        if (!grade_lab_has_check(lab, (grade_check_id)c)) continue;
        if ((int)strlen(grade_check_titles[c]) > title_w) title_w = (int)strlen(grade_check_titles[c]);
        pts += lab->checks[c].points;
        max += lab->checks[c].max;
    }
    if (lab->host_problem)
        /* The host's problem, not the submission's: no points are shown as lost. */
        grade_buf_printf(&b, "== %s (%s): NOT GRADED (out of %.2f)\n  %s\n", lab->lab, lab->student_file,
                         grade_round_points(max), lab->failure ? lab->failure : "not graded");
    else
        grade_buf_printf(&b, "== %s (%s): %.2f / %.2f\n", lab->lab, lab->student_file, grade_round_points(pts),
                         grade_round_points(max));
    if (lab->submitted && lab->seed)
        grade_buf_printf(&b, "  seed %llu (%s; rerun the lab with --seed %llu to see the same inputs)\n",
                         (unsigned long long)lab->seed,
                         lab->seed_fixed ? "the instructor chose this one workload for every student"
                                                : "the workload is new for every student",
                         (unsigned long long)lab->seed);
    if (lab->backend_note) grade_buf_printf(&b, "  %s\n", lab->backend_note);
    for (int c = 0; c < GRADE_CHECKS && !lab->host_problem; c++) {
        if (!grade_lab_has_check(lab, (grade_check_id)c)) continue;
        const grade_check *k = &lab->checks[c];
        grade_buf_printf(&b, "  [%s] %-*s %6.2f / %-6.2f ", k->passed ? "PASS" : k->points > 0 ? "PART" : "FAIL",
                         title_w, grade_check_titles[c], k->points, k->max);
        /* The reason may be long: wrap it under the check. */
        grade_buf_printf(&b, "%s\n", k->reason);
    }
    /* The late policy and the instructor's adjustment, when the lab has them. */
    if (lab->late_policy && lab->late_reason)
        grade_buf_printf(&b, "  late: %s\n", lab->late_reason);
    if (lab->adjusted || lab->adjustment_note)
        grade_buf_printf(&b, "  adjustment by the instructor: %+.2f%s%s\n", lab->adjusted ? lab->adjustment : 0.0,
                         lab->adjustment_note ? ": " : "", lab->adjustment_note ? lab->adjustment_note : "");
    if (lab->late_penalty > 0 || lab->adjusted)
        grade_buf_printf(&b, "  lab total: %.2f / %.2f\n", grade_lab_score(lab), grade_round_points(max));
    if (lab->notes && *lab->notes) {
        grade_buf_puts(&b, "\n  Notes:\n");
        indented(&b, lab->notes, "    ");
    }
    if (lab->diagnostics && *lab->diagnostics) {
        grade_buf_printf(&b, "\n  Compiler and linker said:\n");
        indented(&b, lab->diagnostics, "    ");
    }
    if (lab->result) {
        races(&b, lab->result);
        speed(&b, lab, lab->result);
    }
    if (lab->timeline && *lab->timeline) {
        grade_buf_puts(&b, "\n  Your last run (what each engine and stream did):\n");
        indented(&b, lab->timeline, "    ");
    }
    if (lab->output && *lab->output) {
        grade_buf_puts(&b, "\n  The program's output (shown, never used for grading):\n");
        indented(&b, lab->output, "    ");
    }
    char *text = grade_buf_take(&b);
    char *clean = grade_text_clean(text, strlen(text), strlen(text));
    free(text);
    return clean;
}

char *grade_report_text(const grade_student *s, const grade_report_context *ctx) {
    grade_buf b;
    grade_buf_init(&b);
    grade_buf_printf(&b, "streamlab grade report: %s\n", s->name);
    if (s->not_graded)
        grade_buf_printf(&b, "score NOT GRADED (out of %.2f)\n\n", s->max_score);
    else
        grade_buf_printf(&b, "score %.2f / %.2f\n\n", s->score, s->max_score);
    grade_buf_printf(&b, "submission  %s\n", s->source ? s->source : s->name);
    if (ctx->when) grade_buf_printf(&b, "graded      %s\n", ctx->when);
    if (ctx->backend) grade_buf_printf(&b, "on          %s\n", ctx->backend);
    if (ctx->settings) grade_buf_printf(&b, "runs        %s\n", ctx->settings);
    if (ctx->sandbox) grade_buf_printf(&b, "sandbox     %s\n", ctx->sandbox);
    if (s->problem && s->not_graded)
        grade_buf_printf(&b, "\n%s\n", s->problem);
    else if (s->problem)
        grade_buf_printf(&b, "\nPROBLEM WITH THE SUBMISSION: %s\n", s->problem);
    for (size_t i = 0; i < s->n_labs; i++) {
        char *lab = grade_report_text_lab(&s->labs[i]);
        grade_buf_printf(&b, "\n%s", lab);
        free(lab);
    }
    char *text = grade_buf_take(&b);
    /* Whatever a submission managed to put into a message, the file stays plain text. */
    char *clean = grade_text_clean(text, strlen(text), strlen(text));
    free(text);
    return clean;
}
