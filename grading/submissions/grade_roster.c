/* grading/submissions/grade_roster.c: the --roster class list (see grade_roster.h). */
#define _GNU_SOURCE
#include "grading/submissions/grade_roster.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "grading/base/grade_fs.h"

static const char *const id_columns[GRADE_ROSTER_IDS] = {"sid", "email", "canvas_id", "moodle_id", "id"};

int grade_csv_record_sep(const char **p, const char *end, char ***fields, int *line, char sep) {
    if (*p >= end) return 0;
    int n = 0;
    *fields = NULL;
    for (;;) {
        grade_buf f;
        grade_buf_init(&f);
        grade_buf_append(&f, "", 0);
        const char *s = *p;
        while (s < end && (*s == ' ' || *s == '\t')) s++;
        if (s < end && *s == '"') {
            s++;
            for (;;) {
                if (s >= end) {
                    grade_buf_free(&f);
                    for (int i = 0; i < n; i++) free((*fields)[i]);
                    free(*fields);
                    return -1;
                }
                if (*s == '"' && s + 1 < end && s[1] == '"') {
                    grade_buf_append(&f, "\"", 1);
                    s += 2;
                } else if (*s == '"') {
                    s++;
                    break;
                } else {
                    if (*s == '\n') (*line)++;
                    grade_buf_append(&f, s++, 1);
                }
            }
            while (s < end && *s != sep && *s != '\n') s++;
        } else {
            const char *start = s;
            while (s < end && *s != sep && *s != '\n') s++;
            const char *e = s;
            while (e > start && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r')) e--;
            grade_buf_append(&f, start, (size_t)(e - start));
        }
        *fields = realloc(*fields, (size_t)(n + 1) * sizeof(char *));
        (*fields)[n++] = grade_buf_take(&f);
        if (s < end && *s == sep) {
            *p = s + 1;
            continue;
        }
        *p = s < end ? s + 1 : end;
        (*line)++;
        return n;
    }
}

int grade_csv_record(const char **p, const char *end, char ***fields, int *line) {
    return grade_csv_record_sep(p, end, fields, line, ',');
}

char grade_csv_separator(const char *p, const char *end) {
    size_t commas = 0, semis = 0;
    bool quoted = false;
    for (; p < end && (quoted || *p != '\n'); p++) {
        if (*p == '"') quoted = !quoted;
        else if (!quoted && *p == ',') commas++;
        else if (!quoted && *p == ';') semis++;
    }
    return semis > 0 && commas == 0 ? ';' : ',';
}

void grade_csv_fields_free(char **f, int n) {
    for (int i = 0; i < n; i++) free(f[i]);
    free(f);
}

int grade_roster_parse(const char *path, const char *text, size_t len, grade_roster *r, char *err, size_t err_len) {
    memset(r, 0, sizeof(*r));
    r->path = grade_strdup(path);
    const char *p = text, *end = text + len;
    if (len >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3)) p += 3;
    int line = 1;
    char **head = NULL;
    /* A spreadsheet saved in a locale whose decimal mark is a comma (German, French, ...)
     * separates fields with semicolons: read as such. */
    char sep = grade_csv_separator(p, end);
    int nh = grade_csv_record_sep(&p, end, &head, &line, sep);
    if (nh <= 0) {
        snprintf(err, err_len, "%s: %s", path,
                 nh == 0 ? "empty: a roster needs a header row (name,sid,email,canvas_id,moodle_id,id)"
                         : "line 1: a quoted field is not closed");
        grade_roster_free(r);
        return -1;
    }
    int name_col = -1, col[GRADE_ROSTER_IDS];
    bool any_id = false;
    for (int k = 0; k < GRADE_ROSTER_IDS; k++) col[k] = -1;
    for (int i = 0; i < nh; i++) {
        if (!strcasecmp(head[i], "name")) name_col = i;
        for (int k = 0; k < GRADE_ROSTER_IDS; k++)
            if (!strcasecmp(head[i], id_columns[k])) {
                col[k] = i;
                any_id = true;
            }
    }
    grade_csv_fields_free(head, nh);
    if (name_col < 0 || !any_id) {
        snprintf(err, err_len,
                 "%s: line 1: the header needs a \"name\" column and at least one id column (sid, email, canvas_id, "
                 "moodle_id or id)",
                 path);
        grade_roster_free(r);
        return -1;
    }
    for (;;) {
        int at = line;
        char **f = NULL;
        int nf = grade_csv_record_sep(&p, end, &f, &line, sep);
        if (nf == 0) break;
        if (nf < 0) {
            snprintf(err, err_len, "%s: line %d: a quoted field is not closed", path, at);
            grade_roster_free(r);
            return -1;
        }
        bool blank = true;
        for (int i = 0; i < nf; i++) blank &= f[i][0] == '\0';
        if (blank) {
            grade_csv_fields_free(f, nf);
            continue;
        }
        grade_roster_row row;
        memset(&row, 0, sizeof(row));
        row.line = at;
        row.name = grade_strdup(name_col < nf ? f[name_col] : "");
        bool has_id = false;
        for (int k = 0; k < GRADE_ROSTER_IDS; k++)
            if (col[k] >= 0 && col[k] < nf && f[col[k]][0]) {
                row.ids[k] = grade_strdup(f[col[k]]);
                has_id = true;
            }
        grade_csv_fields_free(f, nf);
        const char *why = !row.name[0] ? "no name" : !has_id ? "no id" : NULL;
        for (size_t i = 0; !why && i < r->n; i++)
            for (int k = 0; k < GRADE_ROSTER_IDS; k++)
                if (row.ids[k] && r->rows[i].ids[k] &&
                    (k == GRADE_ROSTER_EMAIL ? !strcasecmp(row.ids[k], r->rows[i].ids[k])
                                             : !strcmp(row.ids[k], r->rows[i].ids[k]))) {
                    snprintf(err, err_len, "%s: line %d: %s %s is also on line %d: each id names one student", path,
                             at, id_columns[k], row.ids[k], r->rows[i].line);
                    free(row.name);
                    for (int j = 0; j < GRADE_ROSTER_IDS; j++) free(row.ids[j]);
                    grade_roster_free(r);
                    return -1;
                }
        if (why) {
            snprintf(err, err_len, "%s: line %d: %s", path, at, why);
            free(row.name);
            for (int j = 0; j < GRADE_ROSTER_IDS; j++) free(row.ids[j]);
            grade_roster_free(r);
            return -1;
        }
        r->rows = realloc(r->rows, (r->n + 1) * sizeof(grade_roster_row));
        r->rows[r->n++] = row;
    }
    return 0;
}

int grade_roster_load(const char *path, grade_roster *r, char *err, size_t err_len) {
    char *text = NULL;
    size_t len = 0;
    bool cut = false;
    char e2[512];
    memset(r, 0, sizeof(*r));
    if (grade_read_file(path, 16u << 20, &text, &len, &cut, e2, sizeof(e2)) != 0) {
        snprintf(err, err_len, "--roster: %s", e2);
        return -1;
    }
    int rc = cut ? -1 : grade_roster_parse(path, text, len, r, err, err_len);
    if (cut) snprintf(err, err_len, "--roster %s: larger than 16 MiB: not a class list", path);
    free(text);
    return rc;
}

void grade_roster_free(grade_roster *r) {
    for (size_t i = 0; i < r->n; i++) {
        free(r->rows[i].name);
        for (int k = 0; k < GRADE_ROSTER_IDS; k++) free(r->rows[i].ids[k]);
    }
    free(r->rows);
    free(r->path);
    memset(r, 0, sizeof(*r));
}

static bool same(const char *a, const char *b, bool nocase) {
    return a && b && *a && (nocase ? !strcasecmp(a, b) : !strcmp(a, b));
}

const grade_roster_row *grade_roster_find(const grade_roster *r, const grade_submission *s) {
    for (size_t i = 0; r && i < r->n; i++) {
        char *const *id = r->rows[i].ids;
        if (same(s->sid, id[GRADE_ROSTER_SID], false) || same(s->email, id[GRADE_ROSTER_EMAIL], true) ||
            same(s->platform_id, id[GRADE_ROSTER_CANVAS], false) ||
            same(s->platform_id, id[GRADE_ROSTER_MOODLE], false) || same(s->platform_id, id[GRADE_ROSTER_ID], false))
            return &r->rows[i];
    }
    /* A folder named by an id (alice/, 12345/, alice@uni.edu.zip). */
    for (size_t i = 0; r && i < r->n; i++) {
        char *const *id = r->rows[i].ids;
        if (same(s->name, id[GRADE_ROSTER_ID], false) || same(s->name, id[GRADE_ROSTER_SID], false) ||
            same(s->name, id[GRADE_ROSTER_EMAIL], true))
            return &r->rows[i];
    }
    return NULL;
}

void grade_roster_apply(const grade_roster *r, grade_submission_list *l, grade_buf *warn) {
    size_t unknown = 0;
    grade_buf names;
    grade_buf_init(&names);
    grade_buf_append(&names, "", 0);
    for (size_t i = 0; i < l->n; i++) {
        grade_submission *s = &l->items[i];
        if (s->absent) continue; /* the roster's own row (grade_roster_add_missing) */
        const grade_roster_row *row = grade_roster_find(r, s);
        if (!row) {
            if (unknown++ < 10) grade_buf_printf(&names, "%s%s", unknown > 1 ? ", " : "", s->name);
            continue;
        }
        free(s->name);
        s->name = grade_text_clean(row->name, strlen(row->name), 200);
        if (row->ids[GRADE_ROSTER_SID]) {
            free(s->sid);
            s->sid = grade_strdup(row->ids[GRADE_ROSTER_SID]);
        }
        if (row->ids[GRADE_ROSTER_EMAIL]) {
            free(s->email);
            s->email = grade_strdup(row->ids[GRADE_ROSTER_EMAIL]);
        }
    }
    if (unknown)
        grade_buf_printf(warn, "--roster %s: %zu submission%s not on the roster, graded under the platform's name: %s%s\n",
                         r->path, unknown, unknown == 1 ? " is" : "s are", names.data, unknown > 10 ? ", ..." : "");
    grade_buf_free(&names);
}

void grade_roster_add_missing(const grade_roster *r, grade_submission_list *l, grade_buf *warn) {
    bool *seen = calloc(r->n ? r->n : 1, sizeof(bool));
    size_t n0 = l->n;
    for (size_t i = 0; i < n0; i++) {
        const grade_roster_row *row = grade_roster_find(r, &l->items[i]);
        if (row) seen[row - r->rows] = true;
    }
    grade_buf names;
    grade_buf_init(&names);
    grade_buf_append(&names, "", 0);
    size_t missing = 0;
    for (size_t k = 0; k < r->n; k++) {
        if (seen[k]) continue;
        const grade_roster_row *row = &r->rows[k];
        grade_submission *s = grade_submission_list_add(l);
        s->name = grade_text_clean(row->name, strlen(row->name), 200);
        s->kind = GRADE_SUB_FILES;
        s->path = grade_strdup(r->path);
        if (row->ids[GRADE_ROSTER_SID]) s->sid = grade_strdup(row->ids[GRADE_ROSTER_SID]);
        if (row->ids[GRADE_ROSTER_EMAIL]) s->email = grade_strdup(row->ids[GRADE_ROSTER_EMAIL]);
        const char *pid = row->ids[GRADE_ROSTER_CANVAS]   ? row->ids[GRADE_ROSTER_CANVAS]
                          : row->ids[GRADE_ROSTER_MOODLE] ? row->ids[GRADE_ROSTER_MOODLE]
                                                          : NULL;
        if (pid) s->platform_id = grade_strdup(pid);
        s->absent = grade_strf("nothing handed in: the roster lists this student (line %d) and --submissions holds "
                               "nothing of theirs",
                               row->line);
        if (missing++ < 10) grade_buf_printf(&names, "%s%s", missing > 1 ? ", " : "", s->name);
    }
    if (missing)
        grade_buf_printf(warn,
                         "--roster %s: %zu student%s on the roster handed in nothing: %s%s (each has a row of 0, "
                         "\"not submitted\")\n",
                         r->path, missing, missing == 1 ? "" : "s", names.data, missing > 10 ? ", ..." : "");
    grade_buf_free(&names);
    free(seen);
}
