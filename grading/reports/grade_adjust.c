/* grading/reports/grade_adjust.c: the gradebook's manual adjustments (see grade_adjust.h). */
#define _GNU_SOURCE
#include "grading/reports/grade_adjust.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "grading/base/grade_fs.h"
#include "grading/base/grade_text.h"
#include "grading/reports/grade_gradebook.h"
#include "grading/submissions/grade_roster.h"

#define ADJ " adjustment"
#define NOTE " adjustment_note"

/* A cell as the grader wrote it: a ' before a cell a spreadsheet would run as a formula
 * (grade_csv_field) is taken off again. */
static const char *unquoted(const char *cell) { return grade_csv_unescape(cell); }

static bool ends_with(const char *s, const char *tail) {
    size_t n = strlen(s), t = strlen(tail);
    return n > t && !strcmp(s + n - t, tail);
}

int grade_adjustments_parse(const char *text, size_t len, const char *name, grade_adjustments *out, char *err,
                            size_t err_len) {
    memset(out, 0, sizeof(*out));
    const char *p = text, *end = text + len;
    if (len >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3)) p += 3;
    int line = 1;
    char **head = NULL;
    /* Saved by a spreadsheet in a locale whose decimal mark is a comma (German, French):
     * semicolons between fields, and 7,5 for 7.5 points. */
    char sep = grade_csv_separator(p, end);
    const char *head_text = p;
    int nh = grade_csv_record_sep(&p, end, &head, &line, sep);
    if (nh <= 0) {
        if (nh == 0) return 0;
        snprintf(err, err_len, "%s: row 1: a quote is never closed", name);
        return -1;
    }
    int c_student = -1;
    for (int i = 0; i < nh; i++)
        if (!strcmp(head[i], "student")) c_student = i;
    int rc = -1;
    if (c_student < 0) {
        /* Say what the header row is, so that a file saved with other separators (tabs) or
         * without its header row shows itself. */
        size_t hl = 0;
        while (head_text + hl < end && head_text[hl] != '\n' && head_text[hl] != '\r') hl++;
        char *shown = grade_text_clean(head_text, hl, 80);
        bool tabs = memchr(head_text, '\t', hl) != NULL;
        snprintf(err, err_len,
                 "%s: row 1: no student column: the first row is \"%s\"%s; the grader's gradebook starts with the "
                 "header row student,... (keep it when you edit the file, and save it as CSV)",
                 name, shown, tabs ? ", which is separated by tabs, not commas or semicolons" : "");
        free(shown);
        goto out;
    }
    for (int row = 2;; row++) {
        char **f = NULL;
        int nf = grade_csv_record_sep(&p, end, &f, &line, sep);
        if (nf == 0) break;
        if (nf < 0) {
            snprintf(err, err_len, "%s: row %d: a quote is never closed", name, row);
            goto out;
        }
        const char *student = c_student < nf ? unquoted(f[c_student]) : "";
        if (!*student) {
            grade_csv_fields_free(f, nf);
            continue;
        }
        out->students = realloc(out->students, (out->n_students + 1) * sizeof(char *));
        out->students[out->n_students++] = grade_strdup(student);
        for (int c = 0; c < nh; c++) {
            if (!ends_with(head[c], ADJ)) continue;
            char *lab = strndup(head[c], strlen(head[c]) - strlen(ADJ));
            const char *cell = c < nf ? unquoted(f[c]) : "";
            const char *note = NULL;
            for (int k = 0; k < nh; k++)
                if (ends_with(head[k], NOTE) && strlen(head[k]) == strlen(lab) + strlen(NOTE) &&
                    !strncmp(head[k], lab, strlen(lab)) && k < nf && *f[k])
                    note = unquoted(f[k]);
            double v = 0;
            bool adjusted = false;
            char decimal[64];
            if (sep == ';' && strchr(cell, ',') && !strchr(cell, '.') && strlen(cell) < sizeof(decimal)) {
                /* 7,5: a decimal comma. */
                snprintf(decimal, sizeof(decimal), "%s", cell);
                *strchr(decimal, ',') = '.';
                cell = decimal;
            }
            if (*cell) {
                char *stop = NULL;
                errno = 0;
                v = strtod(cell, &stop);
                while (stop && (*stop == ' ' || *stop == '\t')) stop++;
                if (stop == cell || (stop && *stop) || errno || !isfinite(v) || fabs(v) > 1e6) {
                    char *shown = grade_text_clean(cell, strlen(cell), 60);
                    snprintf(err, err_len,
                             "%s: row %d (student \"%s\"), column \"%s\": \"%s\" is not a number of points: type points "
                             "such as 5 or -2.5 (a . for decimals), or leave the cell empty",
                             name, row, student, head[c], shown);
                    free(shown);
                    free(lab);
                    grade_csv_fields_free(f, nf);
                    goto out;
                }
                adjusted = true;
            }
            if (adjusted || note) {
                out->items = realloc(out->items, (out->n + 1) * sizeof(grade_adjustment));
                out->items[out->n++] = (grade_adjustment){grade_strdup(student), grade_strdup(lab), adjusted,
                                                          grade_round_points(v), note ? grade_strdup(note) : NULL};
            }
            free(lab);
        }
        grade_csv_fields_free(f, nf);
    }
    rc = 0;
out:
    grade_csv_fields_free(head, nh);
    if (rc) grade_adjustments_free(out);
    return rc;
}

int grade_adjustments_load(const char *path, grade_adjustments *out, char *err, size_t err_len) {
    memset(out, 0, sizeof(*out));
    struct stat st;
    if (stat(path, &st) != 0 && errno == ENOENT) return 0;
    char *text = NULL;
    size_t len = 0;
    bool cut = false;
    if (grade_read_file(path, 256u << 20, &text, &len, &cut, err, err_len) != 0) return -1;
    int rc = grade_adjustments_parse(text, len, path, out, err, err_len);
    free(text);
    return rc;
}

void grade_adjustments_free(grade_adjustments *a) {
    for (size_t i = 0; i < a->n; i++) {
        free(a->items[i].student);
        free(a->items[i].lab);
        free(a->items[i].note);
    }
    for (size_t i = 0; i < a->n_students; i++) free(a->students[i]);
    free(a->items);
    free(a->students);
    memset(a, 0, sizeof(*a));
}

void grade_adjustments_apply(const grade_adjustments *a, grade_student *s) {
    bool has_row = false;
    for (size_t i = 0; i < a->n_students && !has_row; i++) has_row = !strcmp(a->students[i], s->name);
    if (!has_row) return;
    for (size_t l = 0; l < s->n_labs; l++) {
        grade_lab *lab = &s->labs[l];
        lab->adjusted = false;
        lab->adjustment = 0;
        free(lab->adjustment_note);
        lab->adjustment_note = NULL;
        for (size_t i = 0; i < a->n; i++) {
            const grade_adjustment *x = &a->items[i];
            if (strcmp(x->student, s->name) || strcmp(x->lab, lab->lab)) continue;
            lab->adjusted = x->adjusted;
            lab->adjustment = x->points;
            lab->adjustment_note = x->note ? grade_strdup(x->note) : NULL;
        }
    }
    if (!s->not_graded) grade_student_total(s);
}
