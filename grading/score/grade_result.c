/* grading/score/grade_result.c: the grading results and their JSON form (see grade_result.h). */
#include "grading/score/grade_result.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grading/base/grade_text.h"

const char *const grade_check_names[GRADE_CHECKS] = {"correct", "race_free", "speedup", "measurement"};
const char *const grade_check_titles[GRADE_CHECKS] = {"correct", "race-free", "speed", "measurement"};

bool grade_lab_has_check(const grade_lab *lab, grade_check_id c) {
    return c != GRADE_MEASUREMENT || lab->checks[c].max > 0;
}

int grade_lab_checks(const grade_lab *lab) {
    int n = 0;
    for (int c = 0; c < GRADE_CHECKS; c++) n += grade_lab_has_check(lab, (grade_check_id)c);
    return n;
}

void grade_lab_init(grade_lab *lab, const char *id, const char *student_file, const double max[GRADE_CHECKS]) {
    memset(lab, 0, sizeof(*lab));
    lab->lab = grade_strdup(id);
    lab->student_file = grade_strdup(student_file);
    lab->diagnostics = grade_strdup("");
    lab->notes = grade_strdup("");
    lab->output = grade_strdup("");
    for (int c = 0; c < GRADE_CHECKS; c++) {
        lab->checks[c].max = max[c];
        lab->checks[c].reason = grade_strdup("not checked");
    }
}

void grade_lab_free(grade_lab *lab) {
    free(lab->lab);
    free(lab->student_file);
    free(lab->missing);
    free(lab->diagnostics);
    free(lab->build_error);
    free(lab->failure);
    cJSON_Delete(lab->result);
    free(lab->timeline);
    free(lab->output);
    free(lab->notes);
    for (int c = 0; c < GRADE_CHECKS; c++) free(lab->checks[c].reason);
    free(lab->late_reason);
    free(lab->backend_note);
    free(lab->adjustment_note);
    memset(lab, 0, sizeof(*lab));
}

double grade_round_points(double p) { return round(p * 100.0) / 100.0; }

void grade_check_set(grade_check *c, double points, const char *reason) {
    if (points < 0) points = 0;
    if (points > c->max) points = c->max;
    c->points = grade_round_points(points);
    c->passed = c->points >= c->max;
    free(c->reason);
    c->reason = grade_strdup(reason);
}

double grade_lab_score(const grade_lab *lab) {
    double p = 0;
    for (int c = 0; c < GRADE_CHECKS; c++) p += lab->checks[c].points;
    p -= lab->late_penalty;
    if (lab->adjusted) p += lab->adjustment;
    return p > 0 ? grade_round_points(p) : 0;
}

void grade_student_total(grade_student *s) {
    s->score = 0;
    s->max_score = 0;
    for (size_t i = 0; i < s->n_labs; i++) {
        s->score += grade_lab_score(&s->labs[i]);
        for (int c = 0; c < GRADE_CHECKS; c++) s->max_score += s->labs[i].checks[c].max;
    }
    s->score = grade_round_points(s->score);
    s->max_score = grade_round_points(s->max_score);
}

const grade_lab *grade_student_lab(const grade_student *s, const char *id) {
    for (size_t i = 0; i < s->n_labs; i++)
        if (s->labs[i].lab && !strcmp(s->labs[i].lab, id)) return &s->labs[i];
    return NULL;
}

static int by_id(const void *x, const void *y) { return strcmp(*(const char *const *)x, *(const char *const *)y); }

size_t grade_students_labs(const grade_student *const *students, size_t n, const char ***ids) {
    size_t count = 0, cap = 0;
    const char **out = NULL;
    for (size_t i = 0; i < n; i++)
        for (size_t l = 0; l < students[i]->n_labs; l++) {
            const char *id = students[i]->labs[l].lab;
            bool seen = false;
            for (size_t k = 0; k < count && !seen; k++) seen = !strcmp(out[k], id);
            if (seen) continue;
            if (count == cap) out = realloc(out, (cap = cap ? 2 * cap : 8) * sizeof(char *));
            out[count++] = id;
        }
    if (count > 1) qsort(out, count, sizeof(char *), by_id);
    *ids = out;
    return count;
}

static int lab_by_id(const void *x, const void *y) {
    return strcmp(((const grade_lab *)x)->lab, ((const grade_lab *)y)->lab);
}

size_t grade_student_keep_labs(grade_student *s, const grade_student *earlier) {
    size_t taken = 0;
    for (size_t l = 0; earlier && l < earlier->n_labs; l++) {
        /* A lab the host was too slow for has no grade to keep: it is graded again. */
        if (grade_student_lab(s, earlier->labs[l].lab) || earlier->labs[l].host_problem) continue;
        /* A deep copy, through the stored form. */
        grade_student one = *earlier;
        one.labs = &earlier->labs[l];
        one.n_labs = 1;
        cJSON *j = grade_student_to_json(&one);
        grade_student copy;
        if (j && grade_student_from_json(j, &copy) == 0) {
            s->labs = realloc(s->labs, (s->n_labs + 1) * sizeof(grade_lab));
            s->labs[s->n_labs++] = copy.labs[0];
            copy.n_labs = 0;
            grade_student_free(&copy);
            taken++;
        }
        cJSON_Delete(j);
    }
    if (taken) {
        qsort(s->labs, s->n_labs, sizeof(grade_lab), lab_by_id);
        if (!s->not_graded) grade_student_total(s);
    }
    return taken;
}

void grade_student_free(grade_student *s) {
    free(s->name);
    free(s->source);
    free(s->sid);
    free(s->email);
    free(s->platform_id);
    free(s->problem);
    for (size_t i = 0; i < s->n_labs; i++) grade_lab_free(&s->labs[i]);
    free(s->labs);
    memset(s, 0, sizeof(*s));
}

/* ---- JSON ---------------------------------------------------------------------------------- */

static void add_str(cJSON *o, const char *k, const char *v) {
    if (v) cJSON_AddStringToObject(o, k, v);
}

static char *get_str(const cJSON *o, const char *k) {
    const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));
    return v ? grade_strdup(v) : NULL;
}

static double get_num(const cJSON *o, const char *k) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : 0.0;
}

static cJSON *lab_to_json(const grade_lab *l) {
    cJSON *o = cJSON_CreateObject();
    add_str(o, "lab", l->lab);
    add_str(o, "student_file", l->student_file);
    cJSON_AddBoolToObject(o, "submitted", l->submitted);
    add_str(o, "missing", l->missing);
    add_str(o, "diagnostics", l->diagnostics);
    add_str(o, "build_error", l->build_error);
    /* A JSON number carries 53 bits: the seed goes as text. */
    char seed[32];
    snprintf(seed, sizeof(seed), "%llu", (unsigned long long)l->seed);
    cJSON_AddStringToObject(o, "seed", seed);
    cJSON_AddBoolToObject(o, "seed_fixed", l->seed_fixed);
    cJSON_AddNumberToObject(o, "attempts", l->attempts);
    cJSON *sp = cJSON_AddArrayToObject(o, "speedups");
    cJSON *bf = cJSON_AddArrayToObject(o, "bound_fractions");
    for (int i = 0; i < l->attempts && i < GRADE_MAX_ATTEMPTS; i++) {
        cJSON_AddItemToArray(sp, cJSON_CreateNumber(l->speedups[i]));
        cJSON_AddItemToArray(bf, cJSON_CreateNumber(l->bound_fractions[i]));
    }
    cJSON_AddNumberToObject(o, "speedup", l->speedup);
    cJSON_AddNumberToObject(o, "bound_fraction", l->bound_fraction);
    cJSON_AddNumberToObject(o, "pipeline_bound", l->pipeline_bound);
    cJSON_AddNumberToObject(o, "lab_target", l->lab_target);
    cJSON_AddNumberToObject(o, "floor_speedup", l->floor_speedup);
    cJSON_AddNumberToObject(o, "target_speedup", l->target_speedup);
    add_str(o, "failure", l->failure);
    if (l->host_problem) cJSON_AddBoolToObject(o, "host_problem", true);
    if (l->result) cJSON_AddItemToObject(o, "result", cJSON_Duplicate(l->result, 1));
    add_str(o, "timeline", l->timeline);
    add_str(o, "output", l->output);
    add_str(o, "notes", l->notes);
    cJSON_AddNumberToObject(o, "seconds", l->seconds);
    cJSON *checks = cJSON_AddObjectToObject(o, "checks");
    for (int c = 0; c < GRADE_CHECKS; c++) {
        /* A check the lab does not have is left out (from_json reads it back as max 0). */
        if (!grade_lab_has_check(l, (grade_check_id)c)) continue;
        cJSON *k = cJSON_AddObjectToObject(checks, grade_check_names[c]);
        cJSON_AddNumberToObject(k, "points", l->checks[c].points);
        cJSON_AddNumberToObject(k, "max", l->checks[c].max);
        cJSON_AddBoolToObject(k, "passed", l->checks[c].passed);
        add_str(k, "reason", l->checks[c].reason);
    }
    if (l->late_policy) {
        cJSON *late = cJSON_AddObjectToObject(o, "late");
        cJSON_AddNumberToObject(late, "days", l->late_days);
        cJSON_AddNumberToObject(late, "penalty", l->late_penalty);
        add_str(late, "reason", l->late_reason);
    }
    add_str(o, "backend_note", l->backend_note);
    if (l->adjusted || l->adjustment_note) {
        cJSON *adj = cJSON_AddObjectToObject(o, "adjustment");
        cJSON_AddBoolToObject(adj, "adjusted", l->adjusted);
        cJSON_AddNumberToObject(adj, "points", l->adjustment);
        add_str(adj, "note", l->adjustment_note);
    }
    return o;
}

cJSON *grade_student_to_json(const grade_student *s) {
    cJSON *o = cJSON_CreateObject();
    add_str(o, "name", s->name);
    add_str(o, "source", s->source);
    add_str(o, "sid", s->sid);
    add_str(o, "email", s->email);
    add_str(o, "platform_id", s->platform_id);
    add_str(o, "problem", s->problem);
    if (s->not_graded) cJSON_AddBoolToObject(o, "not_graded", true);
    cJSON_AddNumberToObject(o, "score", s->score);
    cJSON_AddNumberToObject(o, "max_score", s->max_score);
    cJSON_AddNumberToObject(o, "seconds", s->seconds);
    cJSON *labs = cJSON_AddArrayToObject(o, "labs");
    for (size_t i = 0; i < s->n_labs; i++) cJSON_AddItemToArray(labs, lab_to_json(&s->labs[i]));
    return o;
}

static void lab_from_json(const cJSON *o, grade_lab *l) {
    memset(l, 0, sizeof(*l));
    l->lab = get_str(o, "lab");
    l->student_file = get_str(o, "student_file");
    l->submitted = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "submitted"));
    l->missing = get_str(o, "missing");
    l->diagnostics = get_str(o, "diagnostics");
    l->build_error = get_str(o, "build_error");
    const char *seed = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "seed"));
    l->seed = seed ? strtoull(seed, NULL, 10) : 0;
    l->seed_fixed = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "seed_fixed"));
    l->attempts = (int)get_num(o, "attempts");
    if (l->attempts < 0) l->attempts = 0;
    if (l->attempts > GRADE_MAX_ATTEMPTS) l->attempts = GRADE_MAX_ATTEMPTS;
    const cJSON *sp = cJSON_GetObjectItemCaseSensitive(o, "speedups");
    const cJSON *bf = cJSON_GetObjectItemCaseSensitive(o, "bound_fractions");
    for (int i = 0; i < l->attempts; i++) {
        const cJSON *a = cJSON_GetArrayItem(sp, i), *b = cJSON_GetArrayItem(bf, i);
        l->speedups[i] = cJSON_IsNumber(a) ? a->valuedouble : 0;
        l->bound_fractions[i] = cJSON_IsNumber(b) ? b->valuedouble : 0;
    }
    l->speedup = get_num(o, "speedup");
    l->bound_fraction = get_num(o, "bound_fraction");
    l->pipeline_bound = get_num(o, "pipeline_bound");
    l->lab_target = get_num(o, "lab_target");
    l->floor_speedup = get_num(o, "floor_speedup");
    l->target_speedup = get_num(o, "target_speedup");
    l->failure = get_str(o, "failure");
    l->host_problem = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "host_problem"));
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(o, "result");
    l->result = cJSON_IsObject(r) ? cJSON_Duplicate(r, 1) : NULL;
    l->timeline = get_str(o, "timeline");
    l->output = get_str(o, "output");
    l->notes = get_str(o, "notes");
    l->seconds = get_num(o, "seconds");
    if (!l->lab) l->lab = grade_strdup("?");
    if (!l->student_file) l->student_file = grade_strdup("");
    if (!l->diagnostics) l->diagnostics = grade_strdup("");
    if (!l->output) l->output = grade_strdup("");
    if (!l->notes) l->notes = grade_strdup("");
    const cJSON *checks = cJSON_GetObjectItemCaseSensitive(o, "checks");
    for (int c = 0; c < GRADE_CHECKS; c++) {
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(checks, grade_check_names[c]);
        l->checks[c].points = get_num(k, "points");
        l->checks[c].max = get_num(k, "max");
        l->checks[c].passed = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(k, "passed"));
        l->checks[c].reason = get_str(k, "reason");
        if (!l->checks[c].reason) l->checks[c].reason = grade_strdup("");
    }
    const cJSON *late = cJSON_GetObjectItemCaseSensitive(o, "late");
    if (cJSON_IsObject(late)) {
        l->late_policy = true;
        l->late_days = (int)get_num(late, "days");
        l->late_penalty = get_num(late, "penalty");
        l->late_reason = get_str(late, "reason");
    }
    l->backend_note = get_str(o, "backend_note");
    const cJSON *adj = cJSON_GetObjectItemCaseSensitive(o, "adjustment");
    if (cJSON_IsObject(adj)) {
        l->adjusted = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(adj, "adjusted"));
        l->adjustment = get_num(adj, "points");
        l->adjustment_note = get_str(adj, "note");
    }
}

int grade_student_from_json(const cJSON *j, grade_student *s) {
    memset(s, 0, sizeof(*s));
    if (!cJSON_IsObject(j)) return -1;
    s->name = get_str(j, "name");
    if (!s->name) return -1;
    s->source = get_str(j, "source");
    s->sid = get_str(j, "sid");
    s->email = get_str(j, "email");
    s->platform_id = get_str(j, "platform_id");
    s->problem = get_str(j, "problem");
    s->not_graded = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "not_graded"));
    s->score = get_num(j, "score");
    s->max_score = get_num(j, "max_score");
    s->seconds = get_num(j, "seconds");
    const cJSON *labs = cJSON_GetObjectItemCaseSensitive(j, "labs");
    int n = cJSON_GetArraySize(labs);
    s->labs = calloc((size_t)(n > 0 ? n : 1), sizeof(grade_lab));
    const cJSON *l;
    cJSON_ArrayForEach(l, labs) lab_from_json(l, &s->labs[s->n_labs++]);
    return 0;
}
