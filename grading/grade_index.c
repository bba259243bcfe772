/* grading/grade_index.c: a submission's file index and the files the grader wants (see
 * grade_index.h). */
#include "grading/grade_index.h"

#include <stdlib.h>
#include <string.h>

#include "grading/grade_text.h"

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

bool grade_index_may_want(const char *path, const grade_wanted *wanted, size_t n, bool loose) {
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(path, wanted[i].path) || grade_index_below_one_folder(path, wanted[i].path)) return true;
        if (loose && !strcmp(grade_index_base_name(path), grade_index_base_name(wanted[i].path))) return true;
    }
    /* Loose: a submission's only .c file may be the lab file (grade_submission.h). */
    size_t len = strlen(path);
    if (loose && n > 0 && len > 2 && !strcmp(path + len - 2, ".c")) return true;
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
