/* grading/out/grade_outdir.c: the class's --out folder (see grade_outdir.h). */
#define _GNU_SOURCE
#include "grading/out/grade_outdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grading/base/grade_fs.h"
#include "grading/base/grade_hash.h"
#include "grading/base/grade_text.h"
#include "grading/out/grade_beneath.h"

#define LOCK_NAME ".streamlab-grade.lock"
#define STATE_NAME ".streamlab-grade"
#define INCOMPLETE_NAME "INCOMPLETE.txt"
#define SLURM_NAME "slurm"
#define STUDENTS_REL STATE_NAME "/students"

/* path made absolute with symbolic links resolved, for the part of it that exists. */
static char *resolve(const char *path) {
    char buf[PATH_MAX];
    if (realpath(path, buf)) return grade_strdup(buf);
    char *copy = grade_strdup(path);
    size_t len = strlen(copy);
    while (len > 1 && copy[len - 1] == '/') copy[--len] = '\0';
    char *slash = strrchr(copy, '/');
    char *out;
    if (!slash) {
        out = getcwd(buf, sizeof(buf)) ? grade_strf("%s/%s", buf, copy) : grade_strdup(copy);
    } else {
        *slash = '\0';
        char *parent = resolve(slash == copy ? "/" : copy);
        const char *last = slash + 1;
        if (!strcmp(last, ".") || !*last)
            out = grade_strdup(parent);
        else if (!strcmp(last, "..")) {
            char *p = strrchr(parent, '/');
            if (p && p != parent) *p = '\0';
            else if (p) p[1] = '\0';
            out = grade_strdup(parent);
        } else
            out = grade_strf("%s%s%s", parent, parent[strlen(parent) - 1] == '/' ? "" : "/", last);
        free(parent);
    }
    free(copy);
    return out;
}

bool grade_path_within(const char *a, const char *b) {
    char *ra = resolve(a), *rb = resolve(b);
    size_t lb = strlen(rb);
    bool in = !strcmp(ra, rb) || (!strncmp(ra, rb, lb) && (ra[lb] == '/' || (lb == 1 && rb[0] == '/')));
    free(ra);
    free(rb);
    return in;
}

/* The folder's entries other than the lock file; the first one found into first. */
static size_t entries(const char *dir, bool *ours, char *first, size_t first_len) {
    *ours = false;
    first[0] = '\0';
    DIR *d = opendir(dir);
    if (!d) return 0;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *s = e->d_name;
        /* slurm/: the scripts and tasks of a Slurm run (grade_slurm.h), which writes the
         * class's reports only when its tasks are merged. */
        if (!strcmp(s, ".") || !strcmp(s, "..") || !strcmp(s, LOCK_NAME) || !strcmp(s, SLURM_NAME)) continue;
        if (!strcmp(s, STATE_NAME) || !strcmp(s, "gradebook.csv")) *ours = true;
        if (!first[0] || (strcmp(s, STATE_NAME) && strcmp(s, "gradebook.csv") && *ours)) snprintf(first, first_len, "%s", s);
        n++;
    }
    closedir(d);
    return n;
}

static int clean(const char *dir, char *err, size_t err_len) {
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, err_len, "%s: %s", dir, strerror(errno));
        return -1;
    }
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d)) && rc == 0) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, LOCK_NAME)) continue;
        char *p = grade_path_join(dir, e->d_name);
        rc = grade_rm_rf(p, err, err_len);
        free(p);
    }
    closedir(d);
    return rc;
}

int grade_outdir_open(const char *out, const char *submissions, grade_out_mode mode, const char *usage_name,
                      grade_outdir *od, char *err, size_t err_len) {
    memset(od, 0, sizeof(*od));
    od->fd = od->lock_fd = -1;
    if (grade_path_within(out, submissions) || grade_path_within(submissions, out)) {
        char *ro = resolve(out), *rs = resolve(submissions);
        snprintf(err, err_len,
                 "--out %s and --submissions %s overlap (%s): the reports would become a student on the next run, "
                 "or be written among the students' files; give --out a folder outside the submissions",
                 out, submissions,
                 !strcmp(ro, rs) ? "they are the same folder"
                 : grade_path_within(out, submissions) ? "--out lies inside --submissions"
                                                       : "--submissions lies inside --out");
        free(ro);
        free(rs);
        return -1;
    }
    if (grade_mkdir_p(out, 0755, err, err_len) != 0) return -1;
    od->path = grade_strdup(out);
    od->state_dir = grade_path_join(out, STATE_NAME);
    /* OUT itself is the instructor's (it may be a link they made); below it, nothing is
     * followed. */
    od->fd = open(out, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (od->fd < 0) {
        snprintf(err, err_len, "--out %s: cannot open it: %s", out, strerror(errno));
        return -1;
    }
    char *lock = grade_path_join(out, LOCK_NAME);
    od->lock_fd = openat(od->fd, LOCK_NAME, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (od->lock_fd < 0) {
        snprintf(err, err_len, "--out: cannot open its lock file %s: %s", lock, strerror(errno));
        free(lock);
        return -1;
    }
    if (flock(od->lock_fd, LOCK_EX | LOCK_NB) != 0) {
        char pid[32] = "";
        ssize_t n = pread(od->lock_fd, pid, sizeof(pid) - 1, 0);
        pid[n > 0 ? n : 0] = '\0';
        pid[strcspn(pid, "\n")] = '\0';
        snprintf(err, err_len,
                 "--out %s: another grader%s%s%s is writing there now (it holds %s); wait for it to finish, or give "
                 "another folder",
                 out, *pid ? " (process " : "", pid, *pid ? ")" : "", lock);
        free(lock);
        close(od->lock_fd);
        od->lock_fd = -1;
        return -1;
    }
    free(lock);
    char pid[32];
    int len = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
    if (ftruncate(od->lock_fd, 0) != 0 || pwrite(od->lock_fd, pid, (size_t)len, 0) != len) {
        /* Only the message to a second grader needs it. */
    }

    bool ours;
    char first[256];
    size_t n = entries(out, &ours, first, sizeof(first));
    if (n == 0) return 0;
    if (!ours) {
        snprintf(err, err_len,
                 "--out %s holds files that are not a grader's reports (%s, ...): give an empty or new folder", out,
                 first);
        return -1;
    }
    bool merge = grade_is_dir(od->state_dir);
    switch (mode) {
    case GRADE_OUT_NEW:
        snprintf(err, err_len,
                 "--out %s holds the reports of an earlier run: say what to do with them:\n"
                 "  %s ... --regrade   grade these students again; the earlier run's other students keep their rows\n"
                 "  %s ... --resume    the same, skipping students whose submission and kits are unchanged\n"
                 "  %s ... --force     remove the earlier reports and start clean\n"
                 "or give a new folder",
                 out, usage_name, usage_name, usage_name);
        return -1;
    case GRADE_OUT_FORCE: od->clean = true; return 0;
    case GRADE_OUT_REGRADE:
    case GRADE_OUT_RESUME:
        if (!merge) {
            snprintf(err, err_len,
                     "--out %s holds a gradebook without the stored results a merge needs (an older grader wrote it): "
                     "--force to start clean, or give a new folder",
                     out);
            return -1;
        }
        /* The earlier gradebook is read for the instructor's adjustments: only a file of
         * the folder's own, never what a link in its place points to. */
        struct stat st;
        if (fstatat(od->fd, "gradebook.csv", &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode)) {
            snprintf(err, err_len,
                     "--out %s: gradebook.csv is %s, not the gradebook the grader wrote: the grader reads and writes "
                     "only inside --out and never through a link; nothing was graded. Put the gradebook itself there, "
                     "or remove it, or --force to start clean",
                     out, S_ISLNK(st.st_mode) ? "a symbolic link" : "not a file");
            return -1;
        }
        od->used = true;
        return 0;
    }
    return 0;
}

int grade_outdir_clean(grade_outdir *od, char *err, size_t err_len) {
    if (!od->clean) return 0;
    od->clean = false;
    return clean(od->path, err, err_len);
}

/* A stored result's file, relative to OUT: the name in hex, or (a name too long for a
 * file name) its hash; the name itself is inside. */
static char *stored_rel(const char *name) {
    grade_buf b;
    grade_buf_init(&b);
    grade_buf_puts(&b, STUDENTS_REL "/");
    if (strlen(name) <= 120) {
        for (const unsigned char *p = (const unsigned char *)name; *p; p++) grade_buf_printf(&b, "%02x", *p);
    } else {
        char hex[17];
        grade_hash_hex(grade_hash_str(GRADE_HASH_START, name), hex);
        grade_buf_printf(&b, "long-%s", hex);
    }
    grade_buf_puts(&b, ".json");
    return grade_buf_take(&b);
}

int grade_outdir_write(const grade_outdir *od, const char *rel, const char *data, size_t len, char *err,
                       size_t err_len) {
    return grade_beneath_write(od->fd, od->path, rel, data, len, err, err_len);
}

int grade_outdir_store(const grade_outdir *od, const char *name, const char *key, const cJSON *student, char *err,
                       size_t err_len) {
    int rc;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", name);
    cJSON_AddStringToObject(o, "key", key);
    cJSON_AddItemToObject(o, "student", cJSON_Duplicate(student, 1));
    char *text = cJSON_PrintUnformatted(o);
    char *rel = stored_rel(name);
    rc = text ? grade_outdir_write(od, rel, text, strlen(text), err, err_len) : -1;
    cJSON_free(text);
    cJSON_Delete(o);
    free(rel);
    return rc;
}

int grade_outdir_load(const grade_outdir *od, grade_stored **out, size_t *n, char *err, size_t err_len) {
    *out = NULL;
    *n = 0;
    char *dir = grade_path_join(od->state_dir, "students");
    /* Results are read only from folders the grader made: not through a link. */
    if (!grade_is_dir(od->state_dir) || !grade_is_dir(dir)) {
        bool there = access(dir, F_OK) == 0;
        if (there) snprintf(err, err_len, "%s: not a folder the grader made (a symbolic link?): remove it", dir);
        free(dir);
        return there ? -1 : 0;
    }
    DIR *d = opendir(dir);
    if (!d) {
        free(dir);
        return 0;
    }
    size_t cap = 0;
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d)) && rc == 0) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json")) continue;
        char *path = grade_path_join(dir, e->d_name);
        char *text = NULL;
        size_t tlen = 0;
        if (grade_read_file_nofollow(path, 256u << 20, &text, &tlen, NULL, err, err_len) != 0) {
            rc = -1;
        } else {
            cJSON *j = cJSON_ParseWithLength(text, tlen);
            const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "name"));
            const char *key = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "key"));
            cJSON *student = cJSON_DetachItemFromObjectCaseSensitive(j, "student");
            if (!name || !key || !cJSON_IsObject(student)) {
                snprintf(err, err_len, "%s: not a stored result (remove it, or start clean with --force)", path);
                rc = -1;
                cJSON_Delete(student);
            } else {
                if (*n == cap) {
                    cap = cap ? 2 * cap : 16;
                    *out = realloc(*out, cap * sizeof(grade_stored));
                }
                (*out)[(*n)++] = (grade_stored){grade_strdup(name), grade_strdup(key), student};
            }
            cJSON_Delete(j);
        }
        free(text);
        free(path);
    }
    closedir(d);
    free(dir);
    return rc;
}

void grade_stored_free(grade_stored *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        free(s[i].name);
        free(s[i].key);
        cJSON_Delete(s[i].student);
    }
    free(s);
}

int grade_outdir_mark(const grade_outdir *od, bool complete, const char *how, char *err, size_t err_len) {
    if (complete) return grade_beneath_unlink(od->fd, od->path, INCOMPLETE_NAME, err, err_len);
    return grade_outdir_write(od, INCOMPLETE_NAME, how, strlen(how), err, err_len);
}

void grade_outdir_close(grade_outdir *od) {
    if (od->lock_fd >= 0) close(od->lock_fd);
    if (od->fd >= 0) close(od->fd);
    od->fd = od->lock_fd = -1;
    free(od->path);
    free(od->state_dir);
    od->path = od->state_dir = NULL;
}
