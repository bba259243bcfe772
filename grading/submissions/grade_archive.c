/* grading/submissions/grade_archive.c: archives through libarchive (see grade_archive.h). */
#include "grading/submissions/grade_archive.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <archive.h>
#include <archive_entry.h>

#include "grading/base/grade_text.h"

#define ARCHIVE_MAX_ENTRIES 100000
#define ARCHIVE_MAX_TOTAL ((long long)1 << 30)

static const char *const extensions[] = {".tar.gz", ".tgz", ".zip", ".tar", ".tar.bz2", ".tar.xz", NULL};

bool grade_archive_name(const char *name, size_t *stem_len) {
    size_t n = strlen(name);
    for (const char *const *e = extensions; *e; e++) {
        size_t m = strlen(*e);
        if (n > m && !strcmp(name + n - m, *e)) {
            if (stem_len) *stem_len = n - m;
            return true;
        }
    }
    return false;
}

/* A safe relative path ("./" and repeated slashes removed), or NULL. */
static char *normalise(const char *p) {
    if (!p || !*p || p[0] == '/') return NULL;
    grade_buf b;
    grade_buf_init(&b);
    grade_buf_append(&b, "", 0);
    const char *s = p;
    while (*s) {
        size_t n = strcspn(s, "/");
        if (n == 2 && s[0] == '.' && s[1] == '.') {
            grade_buf_free(&b);
            return NULL;
        }
        if (n > 0 && !(n == 1 && s[0] == '.')) {
            if (b.len) grade_buf_append(&b, "/", 1);
            grade_buf_append(&b, s, n);
        }
        s += n;
        while (*s == '/') s++;
    }
    if (b.len == 0) {
        grade_buf_free(&b);
        return NULL;
    }
    return grade_buf_take(&b);
}

int grade_archive_index(const char *path, const grade_wanted *wanted, size_t n, bool loose, grade_index *idx,
                        char *err, size_t err_len) {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    struct archive *a = archive_read_new();
    if (!a) {
        snprintf(err, err_len, "%s: out of memory", base);
        return -1;
    }
    archive_read_support_filter_all(a);
    archive_read_support_format_all(a);
    int rc = -1;
    if (archive_read_open_filename(a, path, 65536) != ARCHIVE_OK) {
        snprintf(err, err_len, "%s: not a readable archive: %s", base, archive_error_string(a));
        goto out;
    }
    long long total = 0;
    size_t entries = 0;
    for (;;) {
        struct archive_entry *e;
        int r = archive_read_next_header(a, &e);
        if (r == ARCHIVE_EOF) break;
        if (r == ARCHIVE_FATAL || r == ARCHIVE_RETRY) {
            snprintf(err, err_len, "%s: not a readable archive: %s", base, archive_error_string(a));
            goto out;
        }
        if (++entries > ARCHIVE_MAX_ENTRIES) {
            snprintf(err, err_len, "%s: more than %d entries: not a submission", base, ARCHIVE_MAX_ENTRIES);
            goto out;
        }
        if (archive_entry_filetype(e) != AE_IFREG) {
            if (archive_entry_filetype(e) != AE_IFDIR) idx->links++;
            continue;
        }
        char *name = normalise(archive_entry_pathname(e));
        if (!name) continue;
        long long size = archive_entry_size_is_set(e) ? archive_entry_size(e) : 0;
        total += size > 0 ? size : 0;
        if (total > ARCHIVE_MAX_TOTAL) {
            snprintf(err, err_len, "%s: holds more than %lld MiB: not a submission", base, ARCHIVE_MAX_TOTAL >> 20);
            free(name);
            goto out;
        }
        if (!grade_index_may_want(name, wanted, n, loose)) {
            grade_index_add(idx, name, NULL, 0, false, false);
            free(name);
            continue;
        }
        /* Read at most one byte more than a lab file may have. */
        grade_buf data;
        grade_buf_init(&data);
        grade_buf_append(&data, "", 0);
        char chunk[65536];
        bool too_big = false;
        la_ssize_t got;
        while ((got = archive_read_data(a, chunk, sizeof(chunk))) > 0) {
            if (data.len + (size_t)got > GRADE_MAX_SOURCE_BYTES) {
                too_big = true;
                break;
            }
            grade_buf_append(&data, chunk, (size_t)got);
        }
        if (got < 0) {
            snprintf(err, err_len, "%s: %s: cannot be read: %s", base, name, archive_error_string(a));
            grade_buf_free(&data);
            free(name);
            goto out;
        }
        grade_index_add(idx, name, too_big ? NULL : data.data, too_big ? 0 : data.len, !too_big, too_big);
        grade_buf_free(&data);
        free(name);
    }
    rc = 0;
out:
    archive_read_free(a);
    return rc;
}
