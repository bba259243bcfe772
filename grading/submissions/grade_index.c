/* grading/submissions/grade_index.c: a submission's file index and the files the grader wants (see
 * grade_index.h). */
#include "grading/submissions/grade_index.h"

#include <ctype.h>
#include <stdlib.h>
#include <strings.h>
#include <string.h>

#include "grading/base/grade_text.h"

void grade_index_add(grade_index *idx, const char *path, const char *data, size_t len, bool loaded, bool too_big) {
    if (idx->n == idx->cap) {
        idx->cap = idx->cap ? idx->cap * 2 : 64;
        idx->e = realloc(idx->e, idx->cap * sizeof(grade_entry));
    }
    grade_entry *e = &idx->e[idx->n++];
    e->path = grade_strdup(path);
    e->data = NULL;
    if (loaded) {
        e->data = malloc(len + 1);
        memcpy(e->data, data ? data : "", len);
        e->data[len] = '\0';
    }
    e->len = len;
    e->loaded = loaded;
    e->too_big = too_big;
}

void grade_index_free(grade_index *idx) {
    for (size_t i = 0; i < idx->n; i++) {
        free(idx->e[i].path);
        free(idx->e[i].data);
    }
    free(idx->e);
    memset(idx, 0, sizeof(*idx));
}

const char *grade_index_base_name(const char *p) {
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

bool grade_index_below_one_folder(const char *path, const char *want) {
    const char *slash = strchr(path, '/');
    return slash && slash > path && !strcmp(slash + 1, want);
}

bool grade_index_c_file(const char *name) {
    size_t n = strlen(name);
    return n > 2 && name[n - 2] == '.' && (name[n - 1] == 'c' || name[n - 1] == 'C');
}

/* name's stem without a second copy's mark: "lab (1)", "lab(1)", "lab-1", "lab_1", "lab copy",
 * "lab - Copy", "lab copy 2" all give "lab" (length in *len). */
static void strip_copy_mark(const char *stem, size_t *len) {
    size_t n = *len;
    /* " copy 2", " - copy", " copy" (any case) */
    size_t k = n;
    while (k > 0 && isdigit((unsigned char)stem[k - 1])) k--;
    if (k < n && k > 0 && stem[k - 1] == ' ') k--;
    else k = n;
    if (k >= 5 && !strncasecmp(stem + k - 5, " copy", 5)) {
        k -= 5;
        if (k >= 2 && !strncmp(stem + k - 2, " -", 2)) k -= 2;
        *len = k;
        return;
    }
    /* " (1)", "(1)" */
    if (n >= 3 && stem[n - 1] == ')') {
        size_t d = n - 1;
        while (d > 0 && isdigit((unsigned char)stem[d - 1])) d--;
        if (d < n - 1 && d > 0 && stem[d - 1] == '(') {
            d--;
            while (d > 0 && stem[d - 1] == ' ') d--;
            *len = d;
            return;
        }
    }
    /* "-1", "_2" */
    size_t d = n;
    while (d > 0 && isdigit((unsigned char)stem[d - 1])) d--;
    if (d < n && d > 1 && (stem[d - 1] == '-' || stem[d - 1] == '_')) *len = d - 1;
}

int grade_lab_file_name(const char *name, const char *want) {
    if (!strcmp(name, want)) return 2;
    const char *dot = strrchr(name, '.'), *wdot = strrchr(want, '.');
    if (!dot || !wdot || strcasecmp(dot, wdot)) return 0;
    size_t len = (size_t)(dot - name), wlen = (size_t)(wdot - want);
    if (len == wlen && !strncasecmp(name, want, len)) return 1;
    strip_copy_mark(name, &len);
    return len == wlen && !strncasecmp(name, want, len) ? 1 : 0;
}

bool grade_index_may_want(const char *path, const grade_wanted *wanted, size_t n, bool loose) {
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(path, wanted[i].path) || grade_index_below_one_folder(path, wanted[i].path)) return true;
        /* Its name, or a copy's (grade_lab_file_name), anywhere: cheap to read. */
        if (grade_lab_file_name(grade_index_base_name(path), grade_index_base_name(wanted[i].path))) return true;
    }
    /* Loose: a submission's only .c file may be the lab file (grade_submission.h). */
    if (loose && n > 0 && grade_index_c_file(path)) return true;
    return false;
}

void grade_wanted_clear(grade_wanted *w) {
    free(w->data);
    free(w->missing);
    free(w->note);
    w->data = NULL;
    w->missing = NULL;
    w->note = NULL;
    w->len = 0;
}
