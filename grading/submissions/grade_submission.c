/* grading/submissions/grade_submission.c: students, their folders and archives, and finding their lab
 * files (see grade_submission.h). */
#define _XOPEN_SOURCE 700
#include "grading/submissions/grade_submission.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "grading/base/grade_fs.h"
#include "grading/base/grade_text.h"
#include "grading/submissions/grade_layout_walk.h"
#include "grading/submissions/grade_archive.h"

#define FOLDER_MAX_ENTRIES 20000

static int compare_subs(const void *a, const void *b) {
    return strcmp(((const grade_submission *)a)->name, ((const grade_submission *)b)->name);
}

grade_submission *grade_submission_list_add(grade_submission_list *l) {
    if (l->n % 64 == 0) l->items = realloc(l->items, (l->n + 64) * sizeof(grade_submission));
    grade_submission *s = &l->items[l->n++];
    memset(s, 0, sizeof(*s));
    return s;
}

grade_submission *grade_submission_list_loose(grade_submission_list *l, const char *platform_id, const char *name) {
    for (size_t i = 0; i < l->n; i++)
        if (l->items[i].platform_id && !strcmp(l->items[i].platform_id, platform_id)) return &l->items[i];
    grade_submission *s = grade_submission_list_add(l);
    s->name = grade_text_clean(name, strlen(name), 200);
    s->kind = GRADE_SUB_FILES;
    s->loose = true;
    s->platform_id = grade_strdup(platform_id);
    return s;
}

void grade_submission_add_part(grade_submission *s, const char *path, const char *name) {
    s->parts = realloc(s->parts, (s->n_parts + 1) * sizeof(grade_sub_part));
    s->parts[s->n_parts].path = grade_strdup(path);
    s->parts[s->n_parts].name = grade_strdup(name);
    s->parts[s->n_parts].claim = NULL;
    s->n_parts++;
    if (!s->path) s->path = grade_strdup(path);
}

static int compare_parts(const void *a, const void *b) {
    return strcmp(((const grade_sub_part *)a)->name, ((const grade_sub_part *)b)->name);
}

void grade_submission_list_finish(grade_submission_list *l, grade_buf *warn) {
    if (l->n) qsort(l->items, l->n, sizeof(grade_submission), compare_subs);
    /* A student's files in one order, whatever order the folder lists them in. */
    for (size_t i = 0; i < l->n; i++)
        if (l->items[i].n_parts > 1) qsort(l->items[i].parts, l->items[i].n_parts, sizeof(grade_sub_part), compare_parts);
    /* alice/ and alice.zip: the second keeps its extension in its name. */
    for (size_t i = 1; i < l->n; i++) {
        if (strcmp(l->items[i].name, l->items[i - 1].name) != 0) continue;
        const char *base = strrchr(l->items[i].path, '/');
        char *renamed = grade_strdup(base ? base + 1 : l->items[i].path);
        if (!strcmp(renamed, l->items[i].name) && l->items[i].platform_id) {
            free(renamed);
            renamed = grade_strf("%s (%s)", l->items[i].name, l->items[i].platform_id);
        }
        free(l->items[i].name);
        l->items[i].name = renamed;
        grade_buf_printf(warn, "%s: another submission has the same name; graded as %s\n", l->items[i].name,
                         l->items[i].name);
    }
}

/* Whether a file name ends in ".c": a bare lab file. */
static bool c_file(const char *name) { return grade_index_c_file(name); }

/* What the folders layout's visit of an entry adds to. */
typedef struct folders_reading {
    grade_submission_list *out;
    grade_buf *warn;
} folders_reading;

/* One entry of the folders layout: a folder, an archive or a bare .c file is a student's
 * submission; anything else is skipped with a warning (none is misnamed). */
static bool folders_entry(const grade_layout_entry *e, void *arg, const char **note) {
    (void)note;
    folders_reading *r = arg;
    grade_sub_kind kind;
    size_t stem = strlen(e->name);
    if (!e->stat_ok) {
        grade_buf_printf(r->warn, "%s: skipped: %s\n", e->shown, strerror(e->stat_errno));
        return false;
    }
    if (S_ISDIR(e->st.st_mode)) {
        kind = GRADE_SUB_FOLDER;
    } else if (S_ISREG(e->st.st_mode) && grade_archive_name(e->name, &stem)) {
        kind = GRADE_SUB_ARCHIVE;
    } else if (S_ISREG(e->st.st_mode) && c_file(e->name)) {
        /* A bare lab file (alice.c): graded as in Gradescope mode, where a lone file
         * counts when one lab is graded. */
        kind = GRADE_SUB_FILES;
        stem -= 2;
    } else {
        grade_buf_printf(r->warn, "%s: skipped: not a folder, a .c file or a .zip, .tar.gz, .tgz or .tar archive\n",
                         e->shown);
        return false;
    }
    grade_submission *s = grade_submission_list_add(r->out);
    /* The name goes into reports and the gradebook: keep it printable. */
    s->name = grade_text_clean(e->name, stem, 200);
    s->kind = kind;
    if (kind == GRADE_SUB_FILES) {
        grade_submission_add_part(s, e->path, e->name);
        s->loose = true;
    } else {
        s->path = grade_strdup(e->path);
    }
    return false;
}

int grade_submissions_list(const char *dir, grade_submission_list *out, char *err, size_t err_len) {
    memset(out, 0, sizeof(*out));
    grade_buf warn;
    grade_buf_init(&warn);
    grade_buf_append(&warn, "", 0);
    folders_reading r = {out, &warn};
    grade_layout_misnamed none;
    int rc = grade_layout_walk(dir, NULL, "", folders_entry, &r, &none, err, err_len);
    grade_layout_misnamed_free(&none);
    if (rc != 0) {
        grade_buf_free(&warn);
        return -1;
    }
    grade_submission_list_finish(out, &warn);
    out->warnings = grade_buf_take(&warn);
    return 0;
}

void grade_submission_list_free(grade_submission_list *l) {
    for (size_t i = 0; i < l->n; i++) {
        grade_submission *s = &l->items[i];
        free(s->name);
        free(s->path);
        for (size_t k = 0; k < s->n_parts; k++) {
            free(s->parts[k].path);
            free(s->parts[k].name);
            free(s->parts[k].claim);
        }
        free(s->parts);
        free(s->problem);
        free(s->sid);
        free(s->email);
        free(s->platform_id);
        free(s->time_from);
        free(s->group);
        free(s->absent);
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

/* The claim of the platform's file that the index entry at path came from (a flat file is
 * indexed under its own name), or NULL. */
static const char *claim_of(const grade_submission *sub, const char *path) {
    if (sub->kind != GRADE_SUB_FILES) return NULL;
    for (size_t p = 0; p < sub->n_parts; p++)
        if (sub->parts[p].claim && !strcmp(sub->parts[p].name, path)) return sub->parts[p].claim;
    return NULL;
}

/* Files of the submission that claim another participant but were not taken for w: said
 * in w's note too, so that the student's report tells every such file. */
static void other_claims(const grade_submission *sub, grade_wanted *w) {
    if (sub->kind != GRADE_SUB_FILES) return;
    for (size_t p = 0; p < sub->n_parts; p++) {
        const grade_sub_part *part = &sub->parts[p];
        if (!part->claim || (w->note && strstr(w->note, part->claim))) continue;
        char *shown = grade_text_clean(part->name, strlen(part->name), 200);
        char *n = grade_strf("%s%s(the upload %s: %s; it stays with this student)", w->note ? w->note : "",
                             w->note ? " " : "", shown, part->claim);
        free(shown);
        free(w->note);
        w->note = n;
    }
}

/* The folder part of a path ("labs/03_double_buffer/" of ".../lab.c"), its length. */
static size_t dir_len(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? (size_t)(slash - path + 1) : 0;
}

/* Whether path lies in want's folder, or in it below one enclosing folder. */
static bool in_lab_folder(const char *path, const char *want) {
    size_t d = dir_len(want), pd = dir_len(path);
    if (pd == d && !strncmp(path, want, d)) return true;
    const char *slash = strchr(path, '/');
    return slash && slash > path && dir_len(slash + 1) == d && !strncmp(slash + 1, want, d);
}

static int by_path(const void *x, const void *y) { return strcmp(*(const char *const *)x, *(const char *const *)y); }

/* "a, b and c" of up to 5 entries' paths, in name order (for the reasons), chosen by keep. */
static void list_paths(grade_buf *b, grade_index *idx, bool (*keep)(const grade_entry *, const char *),
                       const char *want, size_t *count) {
    size_t n = 0;
    const char **paths = calloc(idx->n ? idx->n : 1, sizeof(char *));
    for (size_t i = 0; i < idx->n; i++)
        if (keep(&idx->e[i], want)) paths[n++] = idx->e[i].path;
    qsort(paths, n, sizeof(char *), by_path);
    size_t shown = n < 5 ? n : 5;
    for (size_t i = 0; i < shown; i++) {
        char *p = grade_text_clean(paths[i], strlen(paths[i]), 200);
        grade_buf_printf(b, "%s%s", i == 0 ? "" : i + 1 == shown && n == shown ? " and " : ", ", p);
        free(p);
    }
    if (n > shown) grade_buf_printf(b, " and %zu more", n - shown);
    free(paths);
    *count = n;
}

static bool is_copy_name(const grade_entry *e, const char *want) {
    return grade_lab_file_name(grade_index_base_name(e->path), grade_index_base_name(want)) == 1;
}
static bool any_file(const grade_entry *e, const char *want) {
    (void)e;
    (void)want;
    return true;
}

/* The lab file of a submission, by one rule (grade_lab_file_name): its exact path, below
 * one enclosing folder; else in the lab's folder a file of its name but for case or a
 * copy's mark (Lab.C, lab (1).c), when there is one such; loose (what a student uploaded,
 * one lab graded) also a file of its name anywhere, or such a copy's, or the only .c file. */
static void resolve(const grade_submission *sub, grade_index *idx, grade_wanted *w, bool loose) {
    const char *want_base = grade_index_base_name(w->path);
    grade_entry *exact = NULL, *below = NULL, *named = NULL, *copy_here = NULL, *copy_any = NULL;
    size_t n_named = 0, n_copy_here = 0, n_copy_any = 0;
    for (size_t i = 0; i < idx->n; i++) {
        grade_entry *e = &idx->e[i];
        int rank = grade_lab_file_name(grade_index_base_name(e->path), want_base);
        if (!strcmp(e->path, w->path)) exact = e;
        else if (!below && grade_index_below_one_folder(e->path, w->path)) below = e;
        if (rank == 2) {
            named = e;
            n_named++;
        } else if (rank == 1) {
            copy_any = e;
            n_copy_any++;
            if (in_lab_folder(e->path, w->path)) {
                copy_here = e;
                n_copy_here++;
            }
        }
    }
    grade_entry *chosen = exact ? exact : below;
    if (!chosen && n_copy_here == 1) chosen = copy_here;
    if (!chosen && loose && n_named == 1) chosen = named;
    if (!chosen && loose && n_named == 0 && n_copy_any == 1) chosen = copy_any;
    /* Loose, and nothing of the lab file's name: the submission's only .c file (a student
     * who uploaded alice_lab3.c). */
    size_t n_c = 0;
    grade_entry *lone_c = NULL;
    for (size_t i = 0; i < idx->n; i++)
        if (grade_index_c_file(idx->e[i].path)) {
            lone_c = &idx->e[i];
            n_c++;
        }
    if (!chosen && loose && n_named == 0 && n_copy_any == 0 && n_c == 1) chosen = lone_c;
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
            const char *claim = claim_of(sub, chosen->path);
            bool renamed = grade_lab_file_name(grade_index_base_name(chosen->path), want_base) != 2;
            w->note = claim ? grade_strf("taken from %s: %s, so it is graded as this student's", shown, claim)
                      : renamed ? grade_strf("taken from %s (name it %s next time)", shown, want_base)
                                : grade_strf("taken from %s", shown);
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
    size_t count = 0;
    if (n_copy_here > 1 || (loose && n_copy_any > 1)) {
        /* Several copies and no lab.c: which one is meant is the student's to say. */
        grade_buf_puts(&b, "; it has ");
        list_paths(&b, idx, is_copy_name, w->path, &count);
        grade_buf_printf(&b, ", %zu copies of it: keep one, named %s", count, want_base);
        w->missing = grade_buf_take(&b);
        return;
    }
    size_t shown = 0;
    for (size_t i = 0; i < idx->n && shown < 5; i++) {
        if (grade_lab_file_name(grade_index_base_name(idx->e[i].path), want_base) == 0) continue;
        char *p = grade_text_clean(idx->e[i].path, strlen(idx->e[i].path), 200);
        grade_buf_printf(&b, "%s%s", shown ? ", " : "; it has ", p);
        free(p);
        shown++;
    }
    if (shown) {
        grade_buf_printf(&b, ": files must keep the repository's paths (%s)", w->path);
    } else {
        grade_buf_puts(&b, "; it holds ");
        list_paths(&b, idx, any_file, w->path, &count);
        grade_buf_printf(&b, " (%zu other file%s, none of them named %s)", count, count == 1 ? "" : "s", want_base);
    }
    if (!loose && !shown && n_c == 1 && idx->n == 1)
        grade_buf_puts(&b, "; a lone .c file is taken as the lab file only when one lab is graded (--labs)");
    w->missing = grade_buf_take(&b);
}

/* Adds one file of an upload to idx under the name shown: an archive's files, or the file,
 * read when it may be wanted. */
static int add_file(grade_index *idx, const char *disk, const char *shown, const grade_wanted *wanted, size_t n,
                    bool loose, char *err, size_t err_len) {
    if (grade_archive_name(shown, NULL)) return grade_archive_index(disk, wanted, n, loose, idx, err, err_len);
    if (!grade_index_may_want(shown, wanted, n, loose)) {
        grade_index_add(idx, shown, NULL, 0, false, false);
        return 0;
    }
    char *data = NULL;
    size_t len = 0;
    bool cut = false;
    char e2[256];
    if (grade_read_file_nofollow(disk, GRADE_MAX_SOURCE_BYTES, &data, &len, &cut, e2, sizeof(e2)) != 0)
        grade_index_add(idx, shown, NULL, 0, false, false);
    else
        grade_index_add(idx, shown, cut ? NULL : data, cut ? 0 : len, !cut, cut);
    free(data);
    return 0;
}

/* A GRADE_SUB_FILES submission: every part, a folder's files at their paths below it. */
static int parts_index(const grade_submission *sub, const grade_wanted *wanted, size_t n, bool loose,
                       grade_index *idx, char *err, size_t err_len) {
    for (size_t p = 0; p < sub->n_parts; p++) {
        const grade_sub_part *part = &sub->parts[p];
        struct stat st;
        if (lstat(part->path, &st) != 0) {
            snprintf(err, err_len, "%s: cannot be read: %s", part->name, strerror(errno));
            return -1;
        }
        if (!S_ISDIR(st.st_mode)) {
            if (!S_ISREG(st.st_mode)) {
                idx->links++;
                continue;
            }
            if (add_file(idx, part->path, part->name, wanted, n, loose, err, err_len) != 0) return -1;
            continue;
        }
        grade_index files;
        memset(&files, 0, sizeof(files));
        int rc = folder_index(part->path, part->name, &files, err, err_len);
        idx->links += files.links;
        for (size_t i = 0; rc == 0 && i < files.n; i++) {
            char *disk = grade_path_join(part->path, files.e[i].path);
            rc = add_file(idx, disk, files.e[i].path, wanted, n, loose, err, err_len);
            free(disk);
        }
        grade_index_free(&files);
        if (rc != 0) return -1;
    }
    return 0;
}

/* An upload's folder (Gradescope): the archives in it are opened, their files indexed
 * beside the folder's. */
static int open_archives(const grade_submission *sub, const grade_wanted *wanted, size_t n, bool loose,
                         grade_index *idx, char *err, size_t err_len) {
    size_t n0 = idx->n;
    for (size_t i = 0; i < n0; i++) {
        if (!grade_archive_name(idx->e[i].path, NULL)) continue;
        char *disk = grade_path_join(sub->path, idx->e[i].path);
        int rc = grade_archive_index(disk, wanted, n, loose, idx, err, err_len);
        free(disk);
        if (rc != 0) return -1;
    }
    return 0;
}

int grade_submission_fetch(const grade_submission *sub, grade_wanted *wanted, size_t n, bool loose, char *err,
                           size_t err_len) {
    grade_index idx;
    memset(&idx, 0, sizeof(idx));
    char *shown = grade_text_clean(sub->name, strlen(sub->name), 200);
    int rc;
    if (sub->kind == GRADE_SUB_FOLDER) {
        rc = folder_index(sub->path, shown, &idx, err, err_len);
        if (rc == 0 && sub->loose) rc = open_archives(sub, wanted, n, loose, &idx, err, err_len);
    } else if (sub->kind == GRADE_SUB_FILES) {
        rc = parts_index(sub, wanted, n, loose, &idx, err, err_len);
    } else {
        rc = grade_archive_index(sub->path, wanted, n, loose, &idx, err, err_len);
    }
    free(shown);
    if (rc == 0)
        for (size_t i = 0; i < n; i++) {
            resolve(sub, &idx, &wanted[i], loose);
            other_claims(sub, &wanted[i]);
        }
    grade_index_free(&idx);
    return rc;
}
