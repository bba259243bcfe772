/* grading/run/grade_preflight.c: the run before anyone is graded (see grade_preflight.h). */
#define _GNU_SOURCE
#include "grading/run/grade_preflight.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grading/base/grade_fs.h"
#include "grading/base/grade_text.h"
#include "grading/build/grade_build.h"
#include "grading/score/grade_result_version.h"
#include "labs/harness/result_schema.h"

static double num(const cJSON *o, const char *k) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* The first line of the program's output that is its own (not the grader's "--- stderr"
 * headings). */
static char *said_line(const char *output) {
    for (const char *p = output; p && *p;) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len > 0 && strncmp(p, "---", 3) != 0) {
            char *line = grade_strdup(p);
            line[len] = '\0';
            char *first = grade_text_first_line(line, 400);
            free(line);
            return first;
        }
        p = end ? end + 1 : p + len;
    }
    return grade_strdup("");
}

int grade_preflight_lab(const grade_sandbox_config *cfg, const grade_kit *kit, const grade_run_settings *run,
                        const char *work_dir, grade_lab_facts *facts, char *err, size_t err_len) {
    memset(facts, 0, sizeof(*facts));
    if (!kit->skeleton) return 0;
    char *text = NULL;
    size_t len = 0;
    if (grade_read_file(kit->skeleton, 16u << 20, &text, &len, NULL, err, err_len) != 0) return -1;
    char *build_dir = grade_path_join(work_dir, "build");
    char *run_dir = grade_path_join(work_dir, "run");
    char *log_dir = grade_path_join(work_dir, "logs");
    int rc = -1;
    grade_build_result built = {0};
    grade_attempt a = {0};
    if (grade_mkdir_p(work_dir, 0711, err, err_len) != 0) goto out;
    grade_build_lab(cfg, kit, build_dir, log_dir, text, len, &built);
    if (!built.built) {
        char *first = grade_text_first_line(built.error ? built.error : "does not build", 400);
        snprintf(err, err_len, "the lab's own skeleton %s %s with the %s kit: the kit is broken (rebuild the grader)",
                 kit->student_file, first, kit->backend);
        free(first);
        goto out;
    }
    grade_run_settings once = *run;
    once.runs = 1;
    once.schedules = 0;
    grade_run_lab(cfg, kit, built.binary, build_dir, run_dir, log_dir, &once, grade_random_u64() & ((1ull << 53) - 1),
                  &a);
    if (a.failure || !a.result) {
        /* The lab binary's own words say which option it refused. */
        char *said = said_line(a.output);
        bool options = a.outcome.end == GRADE_END_EXIT && a.outcome.code == 64;
        snprintf(err, err_len, "%s, run once with these settings before grading anyone, %s%s%s%s", kit->lab,
                 options ? "refused them" : "failed: ", options ? "" : (a.failure ? a.failure : "no result"),
                 *said ? ": " : "", said);
        free(said);
        goto out;
    }
    char why[400];
    if (grade_result_version_check(a.result, true, why, sizeof(why)) != 0) {
        snprintf(err, err_len, "%s, run once before grading anyone: %s", kit->lab, why);
        goto out;
    }
    facts->target_bound_fraction = num(a.result, LAB_KEY_TARGET_BOUND_FRACTION);
    facts->target_speedup = num(a.result, LAB_KEY_TARGET);
    facts->pipeline_bound = num(a.result, LAB_KEY_PIPELINE_BOUND);
    rc = 0;
out:
    grade_attempt_free(&a);
    grade_build_result_free(&built);
    free(text);
    free(build_dir);
    free(run_dir);
    free(log_dir);
    return rc;
}

int grade_preflight_check_rule(const char *rubric_path, const grade_rubric_lab *rule, const grade_lab_facts *facts,
                               char *err, size_t err_len) {
    const grade_speed_rule *s = &rule->speed;
    if (!s->target_is_lab) return 0;
    char what[400] = "";
    if (s->unit == GRADE_UNIT_BOUND_FRACTION && facts->target_bound_fraction > 0) {
        double floor = s->floor_is_baseline
                           ? (facts->pipeline_bound > 0 ? 1.0 / facts->pipeline_bound : 0)
                           : s->floor;
        if (floor >= facts->target_bound_fraction)
            snprintf(what, sizeof(what),
                     "floor (%g%s of the bound) must be below the lab's own target (%g of the bound, which \"target\": "
                     "\"lab\" means): speeds between them would get full marks and speeds above the floor none",
                     floor, s->floor_is_baseline ? ", the baseline" : "", facts->target_bound_fraction);
    } else if (facts->target_speedup > 0) {
        double floor = s->floor_is_baseline ? 1.0 : s->floor;
        if (s->unit == GRADE_UNIT_BOUND_FRACTION) floor = s->floor * facts->pipeline_bound;
        if (floor >= facts->target_speedup)
            snprintf(what, sizeof(what),
                     "floor (speedup %g%s) must be below the lab's own target (speedup %g on this device, which "
                     "\"target\": \"lab\" means)",
                     floor, s->floor_is_baseline ? ", the baseline" : "", facts->target_speedup);
    }
    if (!what[0]) return 0;
    snprintf(err, err_len, "%s: labs.%s.speedup: %s", rubric_path, rule->id, what);
    return -1;
}
