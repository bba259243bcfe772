/* grading/grade_submission.c: students, their folders and archives, and finding their lab
 * files (see grade_submission.h). */
#define _XOPEN_SOURCE 700
#include "grading/grade_submission.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "grading/grade_archive.h"
#include "grading/grade_fs.h"
#include "grading/grade_text.h"

#define FOLDER_MAX_ENTRIES 20000

static int compare_subs(const void *a, const void *b) {
    return strcmp(((const grade_submission *)a)->name, ((const grade_submission *)b)->name);
}

int grade_submissions_list(const char *dir, grade_submission_list *out, char *err, size_t err_len) {
    memset(out, 0, sizeof(*out));
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, err_len, "submissions folder %s: %s", dir, strerror(errno));
        return -1;
    }
    grade_buf warn;
    grade_buf_init(&warn);
    grade_buf_append(&warn, "", 0);
    size_t cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char *path = grade_path_join(dir, e->d_name);
        struct stat st;
        grade_sub_kind kind;
        size_t stem = strlen(e->d_name);
        char *shown = grade_text_clean(e->d_name, strlen(e->d_name), 200);
        if (lstat(path, &st) != 0) {
            grade_buf_printf(&warn, "%s: skipped: %s\n", shown, strerror(errno));
            free(shown);
            free(path);
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            kind = GRADE_SUB_FOLDER;
        } else if (S_ISREG(st.st_mode) && grade_archive_name(e->d_name, &stem)) {
            kind = GRADE_SUB_ARCHIVE;
        } else {
            grade_buf_printf(&warn, "%s: skipped: not a folder or a .zip, .tar.gz, .tgz or .tar archive\n", shown);
            free(shown);
            free(path);
            continue;
        }
        free(shown);
        if (out->n == cap) {
            cap = cap ? cap * 2 : 64;
            out->items = realloc(out->items, cap * sizeof(grade_submission));
        }
        grade_submission *s = &out->items[out->n++];
        /* The name goes into reports and the gradebook: keep it printable. */
        s->name = grade_text_clean(e->d_name, stem, 200);
        s->path = path;
        s->kind = kind;
    }
    closedir(d);
    if (out->n) qsort(out->items, out->n, sizeof(grade_submission), compare_subs);
    /* alice/ and alice.zip: the second keeps its extension in its name. */
    for (size_t i = 1; i < out->n; i++) {
        if (strcmp(out->items[i].name, out->items[i - 1].name) != 0) continue;
        const char *base = strrchr(out->items[i].path, '/');
        free(out->items[i].name);
        out->items[i].name = grade_strdup(base ? base + 1 : out->items[i].path);
        grade_buf_printf(&warn, "%s: another submission has the same name; graded as %s\n", out->items[i].name,
                         out->items[i].name);
    }
    out->warnings = grade_buf_take(&warn);
    return 0;
}

void grade_submission_list_free(grade_submission_list *l) {
    for (size_t i = 0; i < l->n; i++) {
        free(l->items[i].name);
        free(l->items[i].path);
    }
    free(l->items);
    free(l->warnings);
    memset(l, 0, sizeof(*l));
}

/* ---- folders ------------------------------------------------------------------------------- */

static grade_index *walk_index;
static size_t walk_root_len;
static bool walk_overflow;

static int walk_one(const char *path, const struct stat *st, int type, struct FTW *ftw) {
    (void)st;
    (void)ftw;
    if (walk_index->n + walk_index->links >= FOLDER_MAX_ENTRIES) {
        walk_overflow = true;
        return 1;
    }
    if (type == FTW_SL || type == FTW_SLN || (type == FTW_F && !S_ISREG(st->st_mode))) {
        walk_index->links++;
        return 0;
    }
    if (type != FTW_F) return 0;
    const char *rel = path + walk_root_len;
    while (*rel == '/') rel++;
    grade_index_add(walk_index, rel, NULL, 0, false, false);
    return 0;
}

static int folder_index(const char *dir, const char *name, grade_index *idx, char *err, size_t err_len) {
    walk_index = idx;
    walk_root_len = strlen(dir);
    walk_overflow = false;
    if (nftw(dir, walk_one, 16, FTW_PHYS) < 0) {
        snprintf(err, err_len, "%s/: cannot be read: %s", name, strerror(errno));
        return -1;
    }
    if (walk_overflow) {
        snprintf(err, err_len, "%s/: more than %d files: not a submission", name, FOLDER_MAX_ENTRIES);
        return -1;
    }
    return 0;
}

static void folder_load(const char *dir, grade_entry *e) {
    if (e->loaded || e->too_big) return;
    char *path = grade_path_join(dir, e->path);
    char *data = NULL;
    size_t len = 0;
    bool cut = false;
    char err[256];
    if (grade_read_file_nofollow(path, GRADE_MAX_SOURCE_BYTES, &data, &len, &cut, err, sizeof(err)) == 0) {
        if (cut) {
            e->too_big = true;
            free(data);
        } else {
            e->data = data;
            e->len = len;
            e->loaded = true;
        }
    }
    free(path);
}

/* ---- choosing ------------------------------------------------------------------------------ */

static void resolve(const grade_submission *sub, grade_index *idx, grade_wanted *w, bool loose) {
    grade_entry *exact = NULL, *below = NULL, *named = NULL;
    size_t n_named = 0;
    for (size_t i = 0; i < idx->n; i++) {
        grade_entry *e = &idx->e[i];
        if (!strcmp(e->path, w->path)) exact = e;
        else if (!below && grade_index_below_one_folder(e->path, w->path)) below = e;
        if (!strcmp(grade_index_base_name(e->path), grade_index_base_name(w->path))) {
            named = e;
            n_named++;
        }
    }
    grade_entry *chosen = exact ? exact : below;
    if (!chosen && loose && n_named == 1) chosen = named;
    if (chosen) {
        if (sub->kind == GRADE_SUB_FOLDER) folder_load(sub->path, chosen);
        if (chosen->too_big) {
            w->missing = grade_strf("%s is larger than %u KiB: not a lab file", chosen->path, GRADE_MAX_SOURCE_BYTES >> 10);
            return;
        }
        if (!chosen->loaded) {
            w->missing = grade_strf("%s could not be read", chosen->path);
            return;
        }
        w->data = malloc(chosen->len + 1);
        memcpy(w->data, chosen->data, chosen->len);
        w->data[chosen->len] = '\0';
        w->len = chosen->len;
        if (chosen != exact) {
            char *shown = grade_text_clean(chosen->path, strlen(chosen->path), 200);
            w->note = grade_strf("taken from %s", shown);
            free(shown);
        }
        return;
    }
    if (idx->n == 0) {
        w->missing = grade_strf("no %s: the submission is empty%s", w->path,
                                idx->links ? " (it holds only links or special files, which are ignored)" : "");
        return;
    }
    grade_buf b;
    grade_buf_init(&b);
    grade_buf_printf(&b, "no %s in the submission", w->path);
    size_t shown = 0;
    for (size_t i = 0; i < idx->n && shown < 5; i++) {
        if (strcmp(grade_index_base_name(idx->e[i].path), grade_index_base_name(w->path)) != 0) continue;
        char *p = grade_text_clean(idx->e[i].path, strlen(idx->e[i].path), 200);
        grade_buf_printf(&b, "%s%s", shown ? ", " : "; it has ", p);
        free(p);
        shown++;
    }
    if (shown)
        grade_buf_printf(&b, ": files must keep the repository's paths (%s)", w->path);
    else
        grade_buf_printf(&b, " (it holds %zu other file%s)", idx->n, idx->n == 1 ? "" : "s");
    w->missing = grade_buf_take(&b);
}

int grade_submission_fetch(const grade_submission *sub, grade_wanted *wanted, size_t n, bool loose, char *err,
                           size_t err_len) {
    grade_index idx;
    memset(&idx, 0, sizeof(idx));
    char *shown = grade_text_clean(sub->name, strlen(sub->name), 200);
    int rc;
    if (sub->kind == GRADE_SUB_FOLDER)
        rc = folder_index(sub->path, shown, &idx, err, err_len);
    else
        rc = grade_archive_index(sub->path, wanted, n, loose, &idx, err, err_len);
    free(shown);
    if (rc == 0)
        for (size_t i = 0; i < n; i++) resolve(sub, &idx, &wanted[i], loose);
    grade_index_free(&idx);
    return rc;
}

