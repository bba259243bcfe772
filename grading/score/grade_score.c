/* grading/score/grade_score.c: points by the rubric (see grade_score.h). */
#include "grading/score/grade_score.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grading/base/grade_text.h"
#include "labs/harness/result_schema.h"

int grade_speed_thresholds(const grade_speed_rule *rule, double pipeline_bound, double lab_target, double *floor_s,
                           double *target_s, char *why, size_t why_len) {
    bool need_bound = rule->unit == GRADE_UNIT_BOUND_FRACTION &&
                      (!rule->floor_is_baseline || !rule->target_is_lab);
    if (need_bound && !(pipeline_bound > 0)) {
        snprintf(why, why_len, "the lab could not measure its bound, which the rubric's figures are fractions of");
        return -1;
    }
    if (rule->target_is_lab && !(lab_target > 0)) {
        snprintf(why, why_len, "the lab reported no target speedup");
        return -1;
    }
    double scale = rule->unit == GRADE_UNIT_BOUND_FRACTION ? pipeline_bound : 1.0;
    *floor_s = rule->floor_is_baseline ? 1.0 : rule->floor * scale;
    *target_s = rule->target_is_lab ? lab_target : rule->target * scale;
    if (*floor_s >= *target_s) {
        /* The pre-flight check refuses such a rubric; a device whose bound differs could
         * still get here: no points are fair then, so none are given, and the reason says. */
        snprintf(why, why_len,
                 "the rubric's floor (speedup %.3f) is not below its target (speedup %.3f) on this run: fix the rubric "
                 "and grade again",
                 *floor_s, *target_s);
        return -1;
    }
    return 0;
}

double grade_speed_fraction(double speedup, double floor_s, double target_s) {
    if (!(speedup == speedup)) return 0; /* NaN */
    if (speedup >= target_s) return 1.0;
    if (speedup <= floor_s || target_s <= floor_s) return 0.0;
    return (speedup - floor_s) / (target_s - floor_s);
}

bool grade_speed_near_target(double speedup, double target_s, double band) {
    return band > 0 && fabs(speedup - target_s) <= band * target_s;
}

const char *grade_bound_name(const cJSON *result) {
    const char *name = cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(result, LAB_KEY_BOUND), LAB_KEY_BOUND_NAME));
    return name && *name ? name : "pipeline bound";
}

/* A speedup as the lab's metric shows it: "2.50x", or in the metric's unit when k is
 * known: a rate ("52.1 GB/s") is k times the speedup; a latency ("p99 0.145 ms", unit
 * "ms") is k over it, lower being better. */
static void speed_text(double speedup, double k, const char *unit, char *buf, size_t len) {
    if (k > 0 && !strcmp(unit, "ms"))
        snprintf(buf, len, "p99 %.3f ms", speedup > 0 ? k / speedup : 0);
    else if (k > 0)
        snprintf(buf, len, "%.1f %s", speedup * k, unit);
    else
        snprintf(buf, len, "%.2fx", speedup);
}

static int compare_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double grade_median(const double *v, int n) {
    if (n <= 0) return 0;
    double c[GRADE_MAX_ATTEMPTS * 4];
    if (n > (int)(sizeof(c) / sizeof(c[0]))) n = (int)(sizeof(c) / sizeof(c[0]));
    memcpy(c, v, (size_t)n * sizeof(double));
    qsort(c, (size_t)n, sizeof(double), compare_double);
    return n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
}

static const char *str(const cJSON *o, const char *k) {
    const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));
    return v ? v : "";
}

static double num(const cJSON *o, const char *k) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* Every check none; the measurement check (when the lab has it) gives the race check's
 * reason: neither could be looked at. */
static void all_zero(grade_lab *lab, const char *correct, const char *race, const char *speed) {
    grade_check_set(&lab->checks[GRADE_CORRECT], 0, correct);
    grade_check_set(&lab->checks[GRADE_RACE_FREE], 0, race);
    grade_check_set(&lab->checks[GRADE_SPEEDUP], 0, speed);
    grade_check_set(&lab->checks[GRADE_MEASUREMENT], 0, race);
}

static char *correct_reason(const grade_lab *lab, const cJSON *r) {
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, LAB_KEY_CORRECT))) {
        int runs = (int)num(r, LAB_KEY_RUNS), schedules = (int)num(r, LAB_KEY_SCHEDULES);
        grade_buf b;
        grade_buf_init(&b);
        grade_buf_printf(&b, "every output bit matched the CPU oracle in %d timed run%s", runs, runs == 1 ? "" : "s");
        if (schedules > 0) grade_buf_printf(&b, " and %d perturbed schedule%s", schedules, schedules == 1 ? "" : "s");
        if (lab->attempts > 1) grade_buf_printf(&b, " (in each of %d lab runs)", lab->attempts);
        return grade_buf_take(&b);
    }
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(r, LAB_KEY_FIRST_MISMATCH);
    if (!m) return grade_strdup("wrong results");
    return grade_strf("wrong results in %s: batch %d, element %.0f: got 0x%08x, expected 0x%08x (%d wrong batch%s); %s",
                      *str(m, LAB_KEY_MISMATCH_RUN) ? str(m, LAB_KEY_MISMATCH_RUN) : "a run",
                      (int)num(m, LAB_KEY_MISMATCH_BATCH), num(m, LAB_KEY_MISMATCH_INDEX),
                      (unsigned)num(m, LAB_KEY_MISMATCH_GOT), (unsigned)num(m, LAB_KEY_MISMATCH_EXPECTED),
                      (int)num(m, LAB_KEY_MISMATCH_WRONG_BATCHES),
                      (int)num(m, LAB_KEY_MISMATCH_WRONG_BATCHES) == 1 ? "" : "es", str(m, LAB_KEY_MISMATCH_WHY));
}

/* Whether a race report's stream is one the student never named: the harness calls it
 * s<N> (the timeline's lane) when lab_name_stream (or NVTX on a GPU) gave it no name. */
static bool unnamed_stream(const char *name) {
    if (name[0] != 's' || !name[1]) return false;
    for (const char *p = name + 1; *p; p++)
        if (*p < '0' || *p > '9') return false;
    return true;
}

char *grade_race_stream(const char *name) {
    if (!name || !*name) return grade_strdup("its stream");
    if (!strcmp(name, "default")) return grade_strdup("stream 0");
    if (!strcmp(name, "host")) return grade_strdup("the host");
    if (unnamed_stream(name)) return grade_strdup(name);
    return grade_strf("\"%s\"", name);
}

static char *race_reason(const cJSON *r) {
    double races = num(r, LAB_KEY_RACES);
    if (races <= 0) return grade_strdup("the happens-before race checker found no unordered conflicting accesses");
    const cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r, LAB_KEY_RACE_REPORTS), 0);
    if (!first) return grade_strf("%.0f race%s found", races, races == 1 ? "" : "s");
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(first, LAB_KEY_RACE_FIRST_LINE);
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(first, LAB_KEY_RACE_SECOND_LINE);
    /* The streams by the student's own names (the lab's race reports carry them, and the
     * fix is written with them); a stream with none is s<N>, and the reason says how to
     * see names there instead. */
    char *sa = grade_race_stream(str(first, LAB_KEY_RACE_FIRST_STREAM)),
         *sb = grade_race_stream(str(first, LAB_KEY_RACE_SECOND_STREAM));
    bool unnamed =
        unnamed_stream(str(first, LAB_KEY_RACE_FIRST_STREAM)) || unnamed_stream(str(first, LAB_KEY_RACE_SECOND_STREAM));
    char *reason = grade_strf(
        "%.0f race%s found; the first: %s between %s on %s%s%s%s and %s on %s%s%s%s (%.0f bytes); fix: %s%s", races,
        races == 1 ? "" : "s", str(first, LAB_KEY_RACE_KIND), str(first, LAB_KEY_RACE_FIRST), sa,
        cJSON_IsString(a) ? " (" : "", cJSON_IsString(a) ? a->valuestring : "", cJSON_IsString(a) ? ")" : "",
        str(first, LAB_KEY_RACE_SECOND), sb, cJSON_IsString(b) ? " (" : "", cJSON_IsString(b) ? b->valuestring : "",
        cJSON_IsString(b) ? ")" : "", num(first, LAB_KEY_RACE_BYTES), str(first, LAB_KEY_RACE_FIX),
        unnamed ? " (s2, s3, ...: the trace's numbers for streams you did not name, as on the timeline's lanes; "
                  "name them with lab_name_stream(ctx, stream, \"...\") and this feedback uses your names)"
                : "");
    free(sa);
    free(sb);
    return reason;
}

/* "combine: " and the lab's own words on the stage (which carry its figures); the figures
 * when it gave none. */
static void stage_text(grade_buf *b, const cJSON *stage) {
    const char *name = str(stage, LAB_KEY_STAGE_NAME);
    grade_buf_printf(b, "%s: ", *name ? name : "a stage");
    if (*str(stage, LAB_KEY_STAGE_WHY)) {
        grade_buf_puts(b, str(stage, LAB_KEY_STAGE_WHY));
        return;
    }
    const cJSON *reported = cJSON_GetObjectItemCaseSensitive(stage, LAB_KEY_STAGE_REPORTED_MS);
    if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(stage, LAB_KEY_STAGE_REPORTED)) || !cJSON_IsNumber(reported))
        grade_buf_puts(b, "not reported");
    else
        grade_buf_printf(b, "you reported %.3f ms", reported->valuedouble);
    const cJSON *device = cJSON_GetObjectItemCaseSensitive(stage, LAB_KEY_STAGE_DEVICE_MS);
    int ops = (int)num(stage, LAB_KEY_STAGE_OPS);
    if (cJSON_IsNumber(device))
        grade_buf_printf(b, "; the GPU ran %d op%s for %.3f ms", ops, ops == 1 ? "" : "s", device->valuedouble);
}

char *grade_measurement_reason(const cJSON *result, bool *ok) {
    *ok = false;
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(result, LAB_KEY_MEASUREMENT);
    if (!cJSON_IsObject(m)) return grade_strdup("the lab reported no measurement");
    *ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, LAB_KEY_MEASUREMENT_OK));
    const cJSON *stages = cJSON_GetObjectItemCaseSensitive(m, LAB_KEY_MEASUREMENT_STAGES);
    int n = cJSON_IsArray(stages) ? cJSON_GetArraySize(stages) : 0;
    /* When it failed, the stages that failed say why; all of them when none says it failed. */
    int failed = 0;
    const cJSON *stage;
    if (n > 0)
        cJSON_ArrayForEach(stage, stages) failed +=
            cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(stage, LAB_KEY_STAGE_OK));
    grade_buf b;
    grade_buf_init(&b);
    if (*ok && n == 0) {
        grade_buf_puts(&b, "the lab accepted your measurement");
    } else if (*ok) {
        grade_buf_printf(&b, "the lab accepted your timing of %d stage%s", n, n == 1 ? "" : "s");
    } else if (n == 0) {
        grade_buf_puts(&b, "the lab did not accept your measurement (it reported no stage)");
    } else {
        grade_buf_puts(&b, "the lab did not accept your timing");
        if (failed == n || failed == 0)
            grade_buf_printf(&b, " of %d stage%s", n, n == 1 ? "" : "s");
        else
            grade_buf_printf(&b, " of %d of %d stages", failed, n);
    }
    const char *sep = ": ";
    if (n > 0)
        cJSON_ArrayForEach(stage, stages) {
            if (!*ok && failed > 0 && !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(stage, LAB_KEY_STAGE_OK)))
                continue;
            grade_buf_puts(&b, sep);
            stage_text(&b, stage);
            sep = "; ";
        }
    return grade_buf_take(&b);
}

/* The measurement check of a correct, finished lab (see grade_score.h). */
static void score_measurement(const grade_rubric_lab *rule, grade_lab *lab, bool correct) {
    if (!correct) {
        grade_check_set(&lab->checks[GRADE_MEASUREMENT], 0,
                        "not scored: a measurement counts only for correct results");
        return;
    }
    bool ok;
    char *why = grade_measurement_reason(lab->result, &ok);
    grade_check_set(&lab->checks[GRADE_MEASUREMENT], ok ? rule->measurement_points : 0, why);
    free(why);
}

/* A part of the result the lab judged false (o's ok_key), which takes the speed's points:
 * the check says so in the lab's words (o's why_key). False when o says nothing of it. */
static bool speed_refused(grade_lab *lab, const cJSON *o, const char *ok_key, const char *why_key) {
    if (!cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(o, ok_key))) return false;
    char *w = grade_strf("not scored: %s", str(o, why_key));
    grade_check_set(&lab->checks[GRADE_SPEEDUP], 0, w);
    free(w);
    return true;
}

const char *grade_lab_error(const grade_lab *lab) {
    if (!lab->result || strcmp(str(lab->result, LAB_KEY_STATUS), "error") != 0) return NULL;
    const char *e = str(lab->result, LAB_KEY_ERROR);
    return e[0] ? e : "the lab stopped with an error";
}

void grade_score_lab(const grade_rubric_lab *rule, grade_lab *lab) {
    if (!lab->submitted) {
        char *why = grade_strf("not submitted: %s", lab->missing ? lab->missing : "no file");
        all_zero(lab, why, why, why);
        free(why);
        return;
    }
    if (lab->build_error) {
        char *not = grade_strf("not checked: %s", lab->build_error);
        all_zero(lab, lab->build_error, not, not);
        free(not);
        return;
    }
    if (lab->host_problem) {
        /* Not the submission's doing: no check is judged, each says why (grade_host.h). */
        const char *f = lab->failure ? lab->failure : "not graded: the grading host was too slow";
        all_zero(lab, f, f, f);
        return;
    }
    if (lab->failure || !lab->result) {
        const char *f = lab->failure ? lab->failure : "the lab ended without a result";
        char *race = grade_strf("not checked: the lab did not run to the end (%s)", f);
        char *speed = grade_strf("not measured: the lab did not run to the end (%s)", f);
        all_zero(lab, f, race, speed);
        free(race);
        free(speed);
        return;
    }
    const cJSON *r = lab->result;
    if (!strcmp(str(r, LAB_KEY_STATUS), "error")) {
        char *err = grade_strf("error: %s", str(r, LAB_KEY_ERROR));
        char *race = grade_strf("not checked: the lab stopped with an error (%s)", str(r, LAB_KEY_ERROR));
        all_zero(lab, err, race, "not measured: the lab stopped with an error");
        free(err);
        free(race);
        return;
    }
    bool correct = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, LAB_KEY_CORRECT));
    bool race_free = num(r, LAB_KEY_RACES) <= 0;
    char *why = correct_reason(lab, r);
    grade_check_set(&lab->checks[GRADE_CORRECT], correct ? rule->correct_points : 0, why);
    free(why);
    why = race_reason(r);
    double race_points = race_free ? rule->race_free_points : 0;
    /* A lab with planted races (lab 05): the points in proportion to the planted races
     * fixed; races that are none of them count as one more left. */
    const cJSON *planted = cJSON_GetObjectItemCaseSensitive(r, LAB_KEY_PLANTED_RACES);
    if (!race_free && cJSON_IsObject(planted) && num(planted, LAB_KEY_PLANTED_TOTAL) > 0) {
        double total = num(planted, LAB_KEY_PLANTED_TOTAL), fixed = num(planted, LAB_KEY_PLANTED_FIXED),
               other = num(planted, LAB_KEY_PLANTED_OTHER);
        double of = total + (other > 0 ? 1 : 0);
        race_points = rule->race_free_points * (fixed > 0 ? fixed : 0) / of;
        char *more = grade_strf("%.0f of %.0f planted races fixed%s, %.2f of %.0f points; %s", fixed, total,
                                other > 0 ? " and some race reports that are none of them (one more left)" : "",
                                race_points, rule->race_free_points, why);
        free(why);
        why = more;
    }
    /* The rubric's race_free.needs_correct: a lab whose results are wrong (one that never
     * ran its kernels, say) has shown no ordering worth points. */
    if (rule->race_needs_correct && !correct) {
        char *not = grade_strf("not scored: race-freedom counts only for correct results in this rubric "
                               "(race_free.needs_correct); the race checker found: %s",
                               why);
        free(why);
        why = not;
        race_points = 0;
    }
    grade_check_set(&lab->checks[GRADE_RACE_FREE], race_points, why);
    free(why);
    /* Before speed, whose reasons return early: a race does not cost the measurement. */
    score_measurement(rule, lab, correct);

    if (!correct || !race_free) {
        grade_check_set(&lab->checks[GRADE_SPEEDUP], 0,
                        !correct ? "not scored: speed counts only for correct results"
                                 : "not scored: speed counts only for a race-free lab (a race can make a pipeline "
                                   "look faster than it may be)");
        return;
    }
    /* The lab found the run did less work on the device than the lab requires
     * (labs/harness/work.h), or (lab 04) did not do the background as required: all of it,
     * not starved, started with run(). Its words say what was wrong. */
    if (speed_refused(lab, cJSON_GetObjectItemCaseSensitive(r, LAB_KEY_WORK), LAB_KEY_WORK_OK, LAB_KEY_WORK_WHY) ||
        speed_refused(lab, cJSON_GetObjectItemCaseSensitive(r, LAB_KEY_LATENCY), LAB_KEY_LATENCY_BACKGROUND_OK,
                      LAB_KEY_LATENCY_BACKGROUND_WHY))
        return;
    char msg[256];
    if (grade_speed_thresholds(&rule->speed, lab->pipeline_bound, lab->lab_target, &lab->floor_speedup,
                               &lab->target_speedup, msg, sizeof(msg)) != 0) {
        char *w = grade_strf("not scored: %s", msg);
        grade_check_set(&lab->checks[GRADE_SPEEDUP], 0, w);
        free(w);
        return;
    }
    double frac = grade_speed_fraction(lab->speedup, lab->floor_speedup, lab->target_speedup);
    grade_buf b;
    grade_buf_init(&b);
    /* Points go by the speedup; a lab graded on another metric is shown in its own unit.
     * A rate (lab 01: GB/s) is the speedup times one factor (metric.value / speedup); a
     * latency (lab 04: ms) is one factor over it (metric.value * speedup); either way the
     * fraction of the way is the same. */
    const cJSON *metric = cJSON_GetObjectItemCaseSensitive(r, LAB_KEY_METRIC);
    const char *unit = str(metric, LAB_KEY_METRIC_UNIT);
    bool latency = unit && !strcmp(unit, "ms");
    double k = unit && strcmp(unit, "x") && lab->speedup > 0
                   ? (latency ? num(metric, LAB_KEY_METRIC_VALUE) * lab->speedup
                              : num(metric, LAB_KEY_METRIC_VALUE) / lab->speedup)
                   : 0;
    char v[32], bound[32], floor_v[32], target_v[32];
    speed_text(lab->speedup, k, unit, v, sizeof(v));
    speed_text(lab->pipeline_bound, k, unit, bound, sizeof(bound));
    speed_text(lab->floor_speedup, k, unit, floor_v, sizeof(floor_v));
    speed_text(lab->target_speedup, k, unit, target_v, sizeof(target_v));
    grade_buf_printf(&b, k > 0 ? "%s" : "%s over the baseline", v);
    if (lab->pipeline_bound > 0)
        grade_buf_printf(&b, " (%.0f%% of the %s %s)", 100.0 * lab->bound_fraction, grade_bound_name(r), bound);
    int runs = (int)num(r, LAB_KEY_RUNS);
    if (runs == 1)
        grade_buf_printf(&b, ", in 1 timed run");
    else
        grade_buf_printf(&b, ", the median of %d timed runs", runs);
    if (lab->attempts > 1) grade_buf_printf(&b, " (median of %d lab runs' medians)", lab->attempts);
    grade_buf_printf(
        &b, latency ? "; no points at or above %s%s, all at %s%s" : "; no points at or below %s%s, all at %s%s",
        floor_v, rule->speed.floor_is_baseline ? " (the baseline)" : "", target_v,
        rule->speed.target_is_lab ? " (the lab's target)" : "");
    if (frac > 0 && frac < 1) grade_buf_printf(&b, ": %.0f%% of the way", 100.0 * frac);
    char *reason = grade_buf_take(&b);
    grade_check_set(&lab->checks[GRADE_SPEEDUP], frac * rule->speed.points, reason);
    free(reason);
}
