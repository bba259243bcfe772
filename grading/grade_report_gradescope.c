/* grading/grade_report_gradescope.c: results.json for Gradescope (see
 * grade_report_gradescope.h). */
#include "grading/grade_report_gradescope.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "grading/grade_report_text.h"
#include "grading/grade_text.h"

/* Gradescope shows at most about a megabyte of output per test: keep well below. */
#define TEST_OUTPUT_MAX (48u << 10)

/* Adds a string member, cleaned: Gradescope reads the file as UTF-8 JSON. */
static void add_text(cJSON *o, const char *key, const char *text) {
    char *clean = grade_text_clean(text ? text : "", text ? strlen(text) : 0, TEST_OUTPUT_MAX);
    cJSON_AddStringToObject(o, key, clean);
    free(clean);
}

char *grade_report_gradescope(const grade_student *s, const grade_report_context *ctx) {
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
    cJSON_AddStringToObject(root, "visibility", "visible");
    cJSON_AddStringToObject(root, "stdout_visibility", "hidden");
    cJSON *tests = cJSON_AddArrayToObject(root, "tests");
    for (size_t i = 0; i < s->n_labs; i++) {
        const grade_lab *lab = &s->labs[i];
        char *details = grade_report_text_lab(lab);
        char *clipped = grade_text_clean(details, strlen(details), TEST_OUTPUT_MAX);
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
            cJSON_AddStringToObject(t, "visibility", "visible");
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
                cJSON_AddStringToObject(t, "visibility", "visible");
                cJSON_AddItemToArray(tests, t);
            }
        }
        free(details);
        free(clipped);
    }
    char *json = cJSON_Print(root);
    cJSON_Delete(root);
    char *res = grade_strf("%s\n", json ? json : "{}");
    cJSON_free(json);
    return res;
}
