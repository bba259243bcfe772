/* grading/reports/grade_report_gradescope.c: results.json for Gradescope (see
 * grade_report_gradescope.h). */
#include "grading/reports/grade_report_gradescope.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "grading/base/grade_text.h"
#include "grading/reports/grade_report_text.h"

/* Gradescope shows at most about a megabyte of output per test: keep well below. */
#define TEST_OUTPUT_MAX (48u << 10)

static const char *const visibilities[] = {"visible", "hidden", "after_due_date", "after_published"};

void grade_gradescope_settings_init(grade_gradescope_settings *g) {
    memset(g, 0, sizeof(*g));
    g->visibility = "visible";
    g->format = "text";
}

static const char *known_visibility(const char *v, size_t len) {
    for (size_t i = 0; i < sizeof(visibilities) / sizeof(visibilities[0]); i++)
        if (strlen(visibilities[i]) == len && !strncmp(v, visibilities[i], len)) return visibilities[i];
    return NULL;
}

int grade_gradescope_parse_visibility(const char *spec, grade_gradescope_settings *g, char *err, size_t err_len) {
    grade_gradescope_settings next = *g;
    const char *p = spec;
    if (!*spec) {
        snprintf(err, err_len, "--visibility needs a value: visible, hidden, after_due_date or after_published, "
                               "or CHECK=VALUE (speed=hidden)");
        return -1;
    }
    while (*p) {
        size_t len = strcspn(p, ",");
        const char *eq = memchr(p, '=', len);
        const char *v = eq ? eq + 1 : p;
        size_t vlen = eq ? len - (size_t)(eq + 1 - p) : len;
        const char *known = known_visibility(v, vlen);
        if (!known) {
            snprintf(err, err_len,
                     "--visibility: '%.*s' is not a Gradescope visibility (visible, hidden, after_due_date, "
                     "after_published)",
                     (int)vlen, v);
            return -1;
        }
        if (!eq) {
            next.visibility = known;
        } else {
            size_t klen = (size_t)(eq - p);
            int which = -1;
            for (int c = 0; c < GRADE_CHECKS && which < 0; c++)
                if ((strlen(grade_check_titles[c]) == klen && !strncmp(p, grade_check_titles[c], klen)) ||
                    (strlen(grade_check_names[c]) == klen && !strncmp(p, grade_check_names[c], klen)))
                    which = c;
            if (which < 0) {
                snprintf(err, err_len,
                         "--visibility: '%.*s' is not a check (correct, race-free, speed, measurement)", (int)klen, p);
                return -1;
            }
            next.test_visibility[which] = known;
        }
        p += len;
        if (*p == ',') p++;
    }
    *g = next;
    return 0;
}

int grade_gradescope_parse_format(const char *v, grade_gradescope_settings *g, char *err, size_t err_len) {
    if (strcmp(v, "text") && strcmp(v, "md")) {
        snprintf(err, err_len,
                 "--output-format must be text or md (the timeline and race reports keep their columns in either), "
                 "not '%s'",
                 v);
        return -1;
    }
    g->format = !strcmp(v, "md") ? "md" : "text";
    return 0;
}

/* A code block for Markdown around text: its fence longer than any run of backticks in it. */
static char *fenced(const char *text) {
    size_t run = 0, longest = 0;
    for (const char *p = text; *p; p++) {
        run = *p == '`' ? run + 1 : 0;
        if (run > longest) longest = run;
    }
    size_t n = longest < 3 ? 3 : longest + 1;
    char fence[64];
    if (n >= sizeof(fence)) n = sizeof(fence) - 1;
    memset(fence, '`', n);
    fence[n] = '\0';
    size_t len = strlen(text);
    return grade_strf("%s\n%s%s%s\n", fence, text, len && text[len - 1] == '\n' ? "" : "\n", fence);
}

/* Adds a string member, cleaned: Gradescope reads the file as UTF-8 JSON. */
static void add_text(cJSON *o, const char *key, const char *text) {
    char *clean = grade_text_clean(text ? text : "", text ? strlen(text) : 0, TEST_OUTPUT_MAX);
    cJSON_AddStringToObject(o, key, clean);
    free(clean);
}

char *grade_report_gradescope(const grade_student *s, const grade_report_context *ctx) {
    grade_gradescope_settings defaults;
    grade_gradescope_settings_init(&defaults);
    const grade_gradescope_settings *g = ctx->gradescope ? ctx->gradescope : &defaults;
    bool md = !strcmp(g->format, "md");
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "score", s->score);
    cJSON_AddNumberToObject(root, "execution_time", (double)(long)(s->seconds + 0.5));
    grade_buf out;
    grade_buf_init(&out);
    grade_buf_printf(&out, "streamlab: %.2f / %.2f\n", s->score, s->max_score);
    if (ctx->backend) grade_buf_printf(&out, "Graded on %s.\n", ctx->backend);
    if (ctx->settings) grade_buf_printf(&out, "%s\n", ctx->settings);
    if (s->problem) grade_buf_printf(&out, "Problem with the submission: %s\n", s->problem);
    for (size_t i = 0; i < s->n_labs; i++)
        if (s->labs[i].backend_note) grade_buf_printf(&out, "%s.\n", s->labs[i].backend_note);
    char *text = grade_buf_take(&out);
    add_text(root, "output", text);
    free(text);
    /* Aligned text (the timeline, race reports, the compiler's carets) keeps its columns. */
    cJSON_AddStringToObject(root, "output_format", g->format);
    cJSON_AddStringToObject(root, "test_output_format", g->format);
    cJSON_AddStringToObject(root, "test_name_format", "text");
    cJSON_AddStringToObject(root, "visibility", g->visibility);
    cJSON_AddStringToObject(root, "stdout_visibility", "hidden");
    cJSON *tests = cJSON_AddArrayToObject(root, "tests");
    for (size_t i = 0; i < s->n_labs; i++) {
        const grade_lab *lab = &s->labs[i];
        char *details = grade_report_text_lab(lab);
        char *clipped = grade_text_clean(details, strlen(details), TEST_OUTPUT_MAX);
        if (md) {
            char *block = fenced(clipped);
            free(clipped);
            clipped = block;
        }
        for (int c = 0; c < GRADE_CHECKS; c++) {
            if (!grade_lab_has_check(lab, (grade_check_id)c)) continue; /* a test per check the lab has */
            const grade_check *k = &lab->checks[c];
            cJSON *t = cJSON_CreateObject();
            char *name = grade_strf("%s: %s", lab->lab, grade_check_titles[c]);
            add_text(t, "name", name);
            free(name);
            cJSON_AddNumberToObject(t, "score", k->points);
            cJSON_AddNumberToObject(t, "max_score", k->max);
            cJSON_AddStringToObject(t, "status", k->passed ? "passed" : "failed");
            /* The reason, then (on the lab's first test) the whole lab's details. */
            char *o = c == 0 ? grade_strf("%s\n\n%s", k->reason, clipped) : grade_strdup(k->reason);
            add_text(t, "output", o);
            free(o);
            cJSON_AddStringToObject(t, "visibility", g->test_visibility[c] ? g->test_visibility[c] : g->visibility);
            cJSON_AddItemToArray(tests, t);
        }
        /* A late penalty and the instructor's adjustment, as tests of no points of their own
         * that take or give points (the total is the top-level score). */
        if (lab->late_penalty > 0 || lab->adjusted) {
            bool late = lab->late_penalty > 0;
            for (int k = 0; k < 2; k++) {
                if (k == 0 ? !late : !lab->adjusted) continue;
                cJSON *t = cJSON_CreateObject();
                char *name = grade_strf("%s: %s", lab->lab, k == 0 ? "late" : "adjustment");
                add_text(t, "name", name);
                free(name);
                cJSON_AddNumberToObject(t, "score", k == 0 ? -lab->late_penalty : lab->adjustment);
                cJSON_AddNumberToObject(t, "max_score", 0);
                cJSON_AddStringToObject(t, "status", k == 0 ? "failed" : "passed");
                char *o = k == 0 ? grade_strdup(lab->late_reason ? lab->late_reason : "")
                                 : grade_strf("adjustment by the instructor: %+.2f%s%s", lab->adjustment,
                                              lab->adjustment_note ? ": " : "",
                                              lab->adjustment_note ? lab->adjustment_note : "");
                add_text(t, "output", o);
                free(o);
                cJSON_AddStringToObject(t, "visibility", g->visibility);
                cJSON_AddItemToArray(tests, t);
            }
        }
        free(details);
        free(clipped);
    }
    /* The leaderboard: each lab's speedup, highest first; a lab that is not correct (or
     * was not run) shows 0, so that only working submissions rank. */
    if (g->leaderboard) {
        cJSON *board = cJSON_AddArrayToObject(root, "leaderboard");
        for (size_t i = 0; i < s->n_labs; i++) {
            const grade_lab *lab = &s->labs[i];
            bool counts = lab->checks[GRADE_CORRECT].passed && lab->speedup > 0;
            cJSON *e = cJSON_CreateObject();
            char *name = grade_strf("%s speedup", lab->lab);
            add_text(e, "name", name);
            free(name);
            cJSON_AddNumberToObject(e, "value", counts ? (double)(long)(lab->speedup * 100 + 0.5) / 100 : 0);
            cJSON_AddStringToObject(e, "order", "desc");
            cJSON_AddItemToArray(board, e);
        }
    }
    char *json = cJSON_Print(root);
    cJSON_Delete(root);
    char *res = grade_strf("%s\n", json ? json : "{}");
    cJSON_free(json);
    return res;
}
