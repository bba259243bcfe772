/* grading/score/grade_rubric.c: loading and validating the rubric (see grade_rubric.h). */
#define _GNU_SOURCE
#include "grading/score/grade_rubric.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "grading/base/grade_fs.h"
#include "grading/base/grade_text.h"

#define RUBRIC_MAX_BYTES (1u << 20)

typedef struct ctx {
    const char *name;
    char *err;
    size_t err_len;
} ctx;

static int fail(ctx *c, const char *where, const char *fmt, const char *detail) {
    char what[256];
    snprintf(what, sizeof(what), fmt, detail ? detail : "");
    if (where && *where)
        snprintf(c->err, c->err_len, "%s: %s: %s", c->name, where, what);
    else
        snprintf(c->err, c->err_len, "%s: %s", c->name, what);
    return -1;
}

/* Every key of obj must be in `allowed` (NULL-terminated) or be "comment" (a string). */
static int check_keys(ctx *c, const cJSON *obj, const char *where, const char *const *allowed) {
    const cJSON *item;
    cJSON_ArrayForEach(item, obj) {
        const char *k = item->string;
        bool ok = false;
        if (!strcmp(k, "comment")) {
            if (!cJSON_IsString(item)) {
                char w[400];
                snprintf(w, sizeof(w), "%.300s%scomment", where, *where ? "." : "");
                return fail(c, w, "must be a string%s", NULL);
            }
            continue;
        }
        for (const char *const *a = allowed; *a; a++) ok |= !strcmp(k, *a);
        if (!ok) {
            char list[256] = "";
            for (const char *const *a = allowed; *a; a++) {
                size_t n = strlen(list);
                snprintf(list + n, sizeof(list) - n, "%s%s", n ? ", " : "", *a);
            }
            char w[512];
            snprintf(w, sizeof(w), "%s%s%s", where, *where ? "." : "", k);
            char msg[320];
            snprintf(msg, sizeof(msg), "unknown key (expected %s, or comment)", list);
            return fail(c, w, "%s", msg);
        }
    }
    return 0;
}

static const cJSON *need_object(ctx *c, const cJSON *parent, const char *key, const char *where) {
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(parent, key);
    char w[400];
    snprintf(w, sizeof(w), "%.200s%s%.100s", where, *where ? "." : "", key);
    if (!o) {
        fail(c, w, "missing%s", NULL);
        return NULL;
    }
    if (!cJSON_IsObject(o)) {
        fail(c, w, "must be an object {...}%s", NULL);
        return NULL;
    }
    return o;
}

static int need_points(ctx *c, const cJSON *obj, const char *where, double *out) {
    char w[400];
    snprintf(w, sizeof(w), "%.300s.points", where);
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(obj, "points");
    if (!p) return fail(c, w, "missing%s", NULL);
    if (!cJSON_IsNumber(p) || !isfinite(p->valuedouble)) return fail(c, w, "must be a number%s", NULL);
    if (p->valuedouble < 0) {
        char v[64];
        snprintf(v, sizeof(v), "%g", p->valuedouble);
        return fail(c, w, "must not be negative (it is %s)", v);
    }
    if (p->valuedouble > 1e6) return fail(c, w, "is implausibly large (over a million points)%s", NULL);
    *out = p->valuedouble;
    return 0;
}

/* A number, or one keyword. */
static int number_or_word(ctx *c, const cJSON *obj, const char *key, const char *where, const char *word,
                          bool *is_word, double *value) {
    char w[400];
    snprintf(w, sizeof(w), "%.200s.%.100s", where, key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) return fail(c, w, "missing%s", NULL);
    if (cJSON_IsString(v) && !strcmp(v->valuestring, word)) {
        *is_word = true;
        *value = 0;
        return 0;
    }
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) {
        char msg[128];
        snprintf(msg, sizeof(msg), "must be a number or \"%s\"", word);
        return fail(c, w, "%s", msg);
    }
    if (v->valuedouble < 0) return fail(c, w, "must not be negative%s", NULL);
    *is_word = false;
    *value = v->valuedouble;
    return 0;
}

static int parse_speed(ctx *c, const cJSON *o, const char *where, grade_speed_rule *s) {
    static const char *const keys[] = {"points", "unit", "floor", "target", NULL};
    if (check_keys(c, o, where, keys)) return -1;
    if (need_points(c, o, where, &s->points)) return -1;
    char w[400];
    snprintf(w, sizeof(w), "%.300s.unit", where);
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(o, "unit");
    if (!u) return fail(c, w, "missing (\"bound_fraction\" or \"speedup\")%s", NULL);
    if (cJSON_IsString(u) && !strcmp(u->valuestring, "bound_fraction"))
        s->unit = GRADE_UNIT_BOUND_FRACTION;
    else if (cJSON_IsString(u) && !strcmp(u->valuestring, "speedup"))
        s->unit = GRADE_UNIT_SPEEDUP;
    else
        return fail(c, w, "must be \"bound_fraction\" or \"speedup\"%s", NULL);
    if (number_or_word(c, o, "floor", where, "baseline", &s->floor_is_baseline, &s->floor)) return -1;
    if (number_or_word(c, o, "target", where, "lab", &s->target_is_lab, &s->target)) return -1;
    if (!s->floor_is_baseline && !s->target_is_lab && s->floor >= s->target) {
        char msg[160];
        snprintf(msg, sizeof(msg), "floor (%g) must be below target (%g)", s->floor, s->target);
        return fail(c, where, "%s", msg);
    }
    if (s->floor_is_baseline && !s->target_is_lab && s->unit == GRADE_UNIT_SPEEDUP && s->target <= 1.0) {
        char msg[160];
        snprintf(msg, sizeof(msg), "target (%g) must be above the baseline's speedup 1 when floor is \"baseline\"",
                 s->target);
        return fail(c, where, "%s", msg);
    }
    if (s->unit == GRADE_UNIT_BOUND_FRACTION && !s->target_is_lab && s->target > 1.0) {
        char msg[160];
        snprintf(msg, sizeof(msg), "target (%g) is a fraction of the pipeline bound, which no run exceeds: use 1 or less",
                 s->target);
        return fail(c, where, "%s", msg);
    }
    return 0;
}

/* "late": {"due": ..., "per_day": N, "max_days": N, "grace_minutes": N} (grade_rubric.h). */
static int parse_late(ctx *c, const cJSON *o, const char *where, grade_late_rule *l) {
    static const char *const keys[] = {"due", "per_day", "max_days", "grace_minutes", NULL};
    if (check_keys(c, o, where, keys)) return -1;
    char w[400];
    snprintf(w, sizeof(w), "%.300s.due", where);
    const cJSON *due = cJSON_GetObjectItemCaseSensitive(o, "due");
    if (!due) return fail(c, w, "missing (the due time, like \"2026-12-01T23:59:00Z\")%s", NULL);
    if (!cJSON_IsString(due) || strlen(due->valuestring) >= sizeof(l->due_text) ||
        grade_time_parse(due->valuestring, false, &l->due) != 0)
        return fail(c, w,
                    "must be a date and time with its time zone, like \"2026-12-01T23:59:00Z\" (UTC) or "
                    "\"2026-12-01T23:59:00-05:00\"%s",
                    NULL);
    snprintf(l->due_text, sizeof(l->due_text), "%s", due->valuestring);
    snprintf(w, sizeof(w), "%.300s.per_day", where);
    const cJSON *pd = cJSON_GetObjectItemCaseSensitive(o, "per_day");
    if (!pd) return fail(c, w, "missing (the points taken per day late)%s", NULL);
    if (!cJSON_IsNumber(pd) || !isfinite(pd->valuedouble) || pd->valuedouble < 0 || pd->valuedouble > 1e6)
        return fail(c, w, "must be a number of points, 0 or more (points taken per day late)%s", NULL);
    l->per_day = pd->valuedouble;
    static const char *const ints[] = {"max_days", "grace_minutes"};
    int *dest[] = {&l->max_days, &l->grace_minutes};
    const int limit[] = {366, 7 * 24 * 60};
    for (int i = 0; i < 2; i++) {
        snprintf(w, sizeof(w), "%.300s.%s", where, ints[i]);
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, ints[i]);
        if (!v) {
            if (i == 0) return fail(c, w, "missing (how many days late are accepted; later gets no points)%s", NULL);
            *dest[i] = 0;
            continue;
        }
        if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) || v->valuedouble < 0 ||
            v->valuedouble > limit[i]) {
            char msg[96];
            snprintf(msg, sizeof(msg), "must be a whole number from 0 to %d", limit[i]);
            return fail(c, w, "%s", msg);
        }
        *dest[i] = (int)v->valuedouble;
    }
    l->on = true;
    return 0;
}

static int parse_lab(ctx *c, const cJSON *lab, grade_rubric_lab *out) {
    char where[160];
    snprintf(where, sizeof(where), "labs.%.100s", lab->string);
    if (!cJSON_IsObject(lab)) return fail(c, where, "must be an object {...}%s", NULL);
    if (strlen(lab->string) >= sizeof(out->id) || !*lab->string)
        return fail(c, where, "is not a lab id (like 03_double_buffer)%s", NULL);
    for (const char *p = lab->string; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
            return fail(c, where, "is not a lab id (lower-case letters, digits and _, like 03_double_buffer)%s", NULL);
    snprintf(out->id, sizeof(out->id), "%s", lab->string);
    static const char *const keys[] = {"correct", "race_free", "speedup", "measurement", "late", "output", NULL};
    if (check_keys(c, lab, where, keys)) return -1;
    static const char *const point_keys[] = {"points", NULL};
    const cJSON *o;
    char w[400];
    if (!(o = need_object(c, lab, "correct", where))) return -1;
    snprintf(w, sizeof(w), "%.300s.correct", where);
    if (check_keys(c, o, w, point_keys) || need_points(c, o, w, &out->correct_points)) return -1;
    if (!(o = need_object(c, lab, "race_free", where))) return -1;
    snprintf(w, sizeof(w), "%.300s.race_free", where);
    static const char *const race_keys[] = {"points", "needs_correct", NULL};
    if (check_keys(c, o, w, race_keys) || need_points(c, o, w, &out->race_free_points)) return -1;
    /* Optional (false): race-freedom's points only for correct results. */
    const cJSON *nc = cJSON_GetObjectItemCaseSensitive(o, "needs_correct");
    snprintf(w, sizeof(w), "%.300s.race_free.needs_correct", where);
    if (nc && !cJSON_IsBool(nc)) return fail(c, w, "must be true or false%s", NULL);
    out->race_needs_correct = cJSON_IsTrue(nc);
    if (!(o = need_object(c, lab, "speedup", where))) return -1;
    snprintf(w, sizeof(w), "%.300s.speedup", where);
    if (parse_speed(c, o, w, &out->speed)) return -1;
    /* Optional: a lab without it has no measurement check. */
    out->measurement_points = 0;
    if (cJSON_GetObjectItemCaseSensitive(lab, "measurement")) {
        if (!(o = need_object(c, lab, "measurement", where))) return -1;
        snprintf(w, sizeof(w), "%.300s.measurement", where);
        if (check_keys(c, o, w, point_keys) || need_points(c, o, w, &out->measurement_points)) return -1;
    }
    /* Optional ("fail"): output past --output-mb ends the run ("fail") or is cut ("cut"). */
    const cJSON *output = cJSON_GetObjectItemCaseSensitive(lab, "output");
    snprintf(w, sizeof(w), "%.300s.output", where);
    if (output && (!cJSON_IsString(output) || (strcmp(output->valuestring, "fail") && strcmp(output->valuestring, "cut"))))
        return fail(c, w,
                    "must be \"fail\" (output past --output-mb ends the run, which fails) or \"cut\" (what comes "
                    "after it is cut and the run goes on)%s",
                    NULL);
    out->output_cut = output && !strcmp(output->valuestring, "cut");
    /* Optional: a lab without it has no late policy. */
    memset(&out->late, 0, sizeof(out->late));
    if (cJSON_GetObjectItemCaseSensitive(lab, "late")) {
        if (!(o = need_object(c, lab, "late", where))) return -1;
        snprintf(w, sizeof(w), "%.300s.late", where);
        if (parse_late(c, o, w, &out->late)) return -1;
    }
    return 0;
}

static void line_col(const char *text, size_t len, const char *at, int *line, int *col) {
    *line = 1;
    *col = 1;
    for (const char *p = text; p < at && p < text + len; p++) {
        if (*p == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

int grade_rubric_parse(const char *text, size_t len, const char *name, grade_rubric *out, char *err, size_t err_len) {
    memset(out, 0, sizeof(*out));
    snprintf(out->path, sizeof(out->path), "%s", name);
    snprintf(out->shown, sizeof(out->shown), "%s", name);
    ctx c = {name, err, err_len};
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!root) {
        const char *at = cJSON_GetErrorPtr();
        if (!at || at < text || at > text + len) at = text + len;
        int line, col;
        line_col(text, len, at, &line, &col);
        snprintf(err, err_len, "%s: line %d, column %d: not valid JSON", name, line, col);
        return -1;
    }
    int rc = -1;
    if (!cJSON_IsObject(root)) {
        fail(&c, "", "must hold one JSON object {...}%s", NULL);
        goto out;
    }
    static const char *const keys[] = {"labs", "noise", NULL};
    if (check_keys(&c, root, "", keys)) goto out;

    out->noise_band = 0.05;
    out->max_reruns = 2;
    const cJSON *noise = cJSON_GetObjectItemCaseSensitive(root, "noise");
    if (noise) {
        if (!cJSON_IsObject(noise)) {
            fail(&c, "noise", "must be an object {...}%s", NULL);
            goto out;
        }
        static const char *const nkeys[] = {"band", "max_reruns", NULL};
        if (check_keys(&c, noise, "noise", nkeys)) goto out;
        const cJSON *band = cJSON_GetObjectItemCaseSensitive(noise, "band");
        if (band) {
            if (!cJSON_IsNumber(band) || !(band->valuedouble >= 0 && band->valuedouble < 0.5)) {
                fail(&c, "noise.band", "must be a fraction from 0 to below 0.5 (0.05 is 5%%)%s", NULL);
                goto out;
            }
            out->noise_band = band->valuedouble;
        }
        const cJSON *reruns = cJSON_GetObjectItemCaseSensitive(noise, "max_reruns");
        if (reruns) {
            if (!cJSON_IsNumber(reruns) || reruns->valuedouble != floor(reruns->valuedouble) ||
                reruns->valuedouble < 0 || reruns->valuedouble > 10) {
                fail(&c, "noise.max_reruns", "must be a whole number from 0 to 10%s", NULL);
                goto out;
            }
            out->max_reruns = (int)reruns->valuedouble;
        }
    }

    const cJSON *labs = cJSON_GetObjectItemCaseSensitive(root, "labs");
    if (!labs) {
        fail(&c, "labs", "missing (the labs to grade and their points)%s", NULL);
        goto out;
    }
    if (!cJSON_IsObject(labs) || cJSON_GetArraySize(labs) == 0) {
        fail(&c, "labs", "must be an object with at least one lab%s", NULL);
        goto out;
    }
    int n = cJSON_GetArraySize(labs);
    out->labs = calloc((size_t)n, sizeof(grade_rubric_lab));
    if (!out->labs) {
        fail(&c, "", "out of memory%s", NULL);
        goto out;
    }
    const cJSON *lab;
    cJSON_ArrayForEach(lab, labs) {
        if (!strcmp(lab->string, "comment")) {
            if (!cJSON_IsString(lab)) {
                fail(&c, "labs.comment", "must be a string%s", NULL);
                goto out;
            }
            continue;
        }
        for (size_t i = 0; i < out->n_labs; i++)
            if (!strcmp(out->labs[i].id, lab->string)) {
                char w[160];
                snprintf(w, sizeof(w), "labs.%s", lab->string);
                fail(&c, w, "appears twice%s", NULL);
                goto out;
            }
        if (parse_lab(&c, lab, &out->labs[out->n_labs])) goto out;
        out->n_labs++;
    }
    if (out->n_labs == 0) {
        fail(&c, "labs", "must name at least one lab%s", NULL);
        goto out;
    }
    rc = 0;
out:
    cJSON_Delete(root);
    if (rc) grade_rubric_free(out);
    return rc;
}

int grade_rubric_load(const char *path, grade_rubric *out, char *err, size_t err_len) {
    return grade_rubric_load_as(path, path, out, err, err_len);
}

int grade_rubric_load_as(const char *path, const char *shown, grade_rubric *out, char *err, size_t err_len) {
    memset(out, 0, sizeof(*out));
    char *text = NULL;
    size_t len = 0;
    bool truncated = false;
    char why[512];
    if (grade_read_file(path, RUBRIC_MAX_BYTES, &text, &len, &truncated, why, sizeof(why)) != 0) {
        /* why names the file read; say it as the instructor gave it. */
        size_t n = strlen(path);
        const char *rest = !strncmp(why, path, n) && !strncmp(why + n, ": ", 2) ? why + n + 2 : NULL;
        if (rest)
            snprintf(err, err_len, "rubric %s: %s", shown, rest);
        else
            snprintf(err, err_len, "rubric %s", why);
        return -1;
    }
    if (truncated) {
        snprintf(err, err_len, "%s: larger than %u bytes: not a rubric", shown, RUBRIC_MAX_BYTES);
        free(text);
        return -1;
    }
    int rc = grade_rubric_parse(text, len, shown, out, err, err_len);
    free(text);
    if (rc == 0) snprintf(out->path, sizeof(out->path), "%s", path);
    return rc;
}

char *grade_rubric_warnings(const grade_rubric *r) {
    grade_buf b;
    grade_buf_init(&b);
    for (size_t i = 0; i < r->n_labs; i++) {
        double total = grade_rubric_lab_points(&r->labs[i]);
        if (fabs(total - 100) < 1e-9) continue;
        char measurement[48] = "";
        if (r->labs[i].measurement_points > 0)
            snprintf(measurement, sizeof(measurement), ", measurement %g", r->labs[i].measurement_points);
        grade_buf_printf(&b,
                         "%s: labs.%s: its checks give %g points in all, not 100 (correct %g, race_free %g, speedup "
                         "%g%s): a lab's points usually add up to 100; if %g is what you mean, nothing is wrong\n",
                         r->shown, r->labs[i].id, total, r->labs[i].correct_points, r->labs[i].race_free_points,
                         r->labs[i].speed.points, measurement, total);
    }
    if (b.len) return grade_buf_take(&b);
    grade_buf_free(&b);
    return NULL;
}

/* Edits (insertions, deletions, substitutions) between a and b, at most 63 characters each. */
static size_t edit_distance(const char *a, const char *b) {
    size_t n = strlen(a), m = strlen(b);
    if (n > 63 || m > 63) return (size_t)-1;
    size_t row[64];
    for (size_t j = 0; j <= m; j++) row[j] = j;
    for (size_t i = 1; i <= n; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= m; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[m];
}

int grade_rubric_check_labs(const grade_rubric *r, const char *const *known, size_t n_known, char *err,
                            size_t err_len) {
    for (size_t i = 0; i < r->n_labs; i++) {
        const char *id = r->labs[i].id;
        const char *nearest = NULL;
        size_t best = (size_t)-1;
        bool there = false;
        for (size_t k = 0; k < n_known && !there; k++) {
            there = !strcmp(known[k], id);
            size_t d = edit_distance(id, known[k]);
            if (d < best) best = d, nearest = known[k];
        }
        if (there) continue;
        grade_buf list;
        grade_buf_init(&list);
        for (size_t k = 0; k < n_known; k++) grade_buf_printf(&list, "%s%s", k ? ", " : "", known[k]);
        char *labs = grade_buf_take(&list);
        if (nearest && best <= 3)
            snprintf(err, err_len,
                     "%s: labs.%s: no such lab: did you mean %s? Correct the key in the rubric (the labs are: %s)",
                     r->shown, id, nearest, labs ? labs : "");
        else
            snprintf(err, err_len, "%s: labs.%s: no such lab: correct the key in the rubric (the labs are: %s)",
                     r->shown, id, labs ? labs : "");
        free(labs);
        return -1;
    }
    return 0;
}

void grade_rubric_free(grade_rubric *r) {
    free(r->labs);
    r->labs = NULL;
    r->n_labs = 0;
}

const grade_rubric_lab *grade_rubric_find(const grade_rubric *r, const char *lab) {
    for (size_t i = 0; i < r->n_labs; i++)
        if (!strcmp(r->labs[i].id, lab)) return &r->labs[i];
    return NULL;
}

double grade_rubric_lab_points(const grade_rubric_lab *lab) {
    return lab->correct_points + lab->race_free_points + lab->speed.points + lab->measurement_points;
}

const grade_rubric_lab *grade_rubric_lookup(const grade_rubric *r, const char *name) {
    if (!name || !*name) return NULL;
    const grade_rubric_lab *exact = grade_rubric_find(r, name);
    if (exact) return exact;
    /* A number: "3" and "03" both name lab 03. */
    char numbered[16] = "";
    if (strspn(name, "0123456789") == strlen(name) && strlen(name) <= 3)
        snprintf(numbered, sizeof(numbered), "%02d_", atoi(name));
    const grade_rubric_lab *found = NULL;
    for (size_t i = 0; i < r->n_labs; i++) {
        const char *id = r->labs[i].id;
        bool match = numbered[0] ? !strncmp(id, numbered, strlen(numbered)) : !strncmp(id, name, strlen(name));
        if (!match) continue;
        if (found) return NULL; /* more than one */
        found = &r->labs[i];
    }
    return found;
}
