/* grading/base/grade_fs.c: folders and files for the grader (see grade_fs.h). */
#define _XOPEN_SOURCE 700
#include "grading/base/grade_fs.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grading/base/grade_text.h"

int grade_mkdir_p(const char *dir, mode_t mode, char *err, size_t err_len) {
    char *p = grade_strdup(dir);
    size_t n = strlen(p);
    while (n > 1 && p[n - 1] == '/') p[--n] = '\0';
    for (char *q = p + 1; *q; q++) {
        if (*q != '/') continue;
        *q = '\0';
        if (mkdir(p, mode) != 0 && errno != EEXIST) {
            snprintf(err, err_len, "cannot create folder %s: %s", p, strerror(errno));
            free(p);
            return -1;
        }
        *q = '/';
    }
    if (mkdir(p, mode) != 0 && errno != EEXIST) {
        snprintf(err, err_len, "cannot create folder %s: %s", p, strerror(errno));
        free(p);
        return -1;
    }
    struct stat st;
    if (stat(p, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, err_len, "%s exists and is not a folder", p);
        free(p);
        return -1;
    }
    free(p);
    return 0;
}

/* nftw callbacks get no context: the first failure is kept here (the grader removes
 * trees from one thread). */
static int rm_errno;
static char rm_path[512];

static int rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw) {
    (void)st;
    (void)ftw;
    int rc = (type == FTW_DP) ? rmdir(path) : unlink(path);
    if (rc != 0 && errno != ENOENT && rm_errno == 0) {
        rm_errno = errno;
        snprintf(rm_path, sizeof(rm_path), "%s", path);
    }
    return 0;
}

static int unlocked;

/* Makes folders we cannot read, search or write (a sandboxed program may leave them so when the
 * grader is not root) readable again, so that the removal can enter them. */
static int unlock_one(const char *path, const struct stat *st, int type, struct FTW *ftw) {
    (void)st;
    (void)ftw;
    if (type == FTW_D) chmod(path, 0700);
    if (type == FTW_DNR && chmod(path, 0700) == 0) unlocked++;
    return 0;
}

int grade_rm_rf(const char *path, char *err, size_t err_len) {
    struct stat st;
    if (lstat(path, &st) != 0) return errno == ENOENT ? 0 : (snprintf(err, err_len, "%s: %s", path, strerror(errno)), -1);
    if (!S_ISDIR(st.st_mode)) {
        if (unlink(path) != 0) {
            snprintf(err, err_len, "cannot remove %s: %s", path, strerror(errno));
            return -1;
        }
        return 0;
    }
    for (int pass = 0; pass < 16; pass++) {
        unlocked = 0;
        nftw(path, unlock_one, 32, FTW_PHYS);
        if (!unlocked) break;
    }
    rm_errno = 0;
    if (nftw(path, rm_one, 32, FTW_DEPTH | FTW_PHYS) != 0 || rm_errno) {
        snprintf(err, err_len, "cannot remove %s: %s", rm_errno ? rm_path : path, strerror(rm_errno ? rm_errno : errno));
        return -1;
    }
    return 0;
}

static const char *copy_src_root;
static const char *copy_dst_root;
static char copy_err[512];

static int copy_file(const char *from, const char *to) {
    int in = open(from, O_RDONLY | O_CLOEXEC);
    if (in < 0) return -1;
    int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0) {
        close(in);
        return -1;
    }
    char buf[65536];
    ssize_t n;
    int rc = 0;
    while ((n = read(in, buf, sizeof(buf))) > 0) {
        for (ssize_t off = 0; off < n;) {
            ssize_t w = write(out, buf + off, (size_t)(n - off));
            if (w <= 0) {
                rc = -1;
                break;
            }
            off += w;
        }
        if (rc) break;
    }
    if (n < 0) rc = -1;
    if (close(out) != 0) rc = -1;
    close(in);
    if (rc == 0) rc = chmod(to, 0644);
    return rc;
}

static int copy_one(const char *path, const struct stat *st, int type, struct FTW *ftw) {
    (void)st;
    (void)ftw;
    char *rel = grade_strdup(path + strlen(copy_src_root));
    char *dst = grade_strf("%s%s", copy_dst_root, rel);
    int rc = 0;
    if (type == FTW_D) {
        if (mkdir(dst, 0755) != 0 && errno != EEXIST) rc = -1;
        else rc = chmod(dst, 0755);
    } else if (type == FTW_F) {
        rc = copy_file(path, dst);
    }
    /* Anything else (symbolic links, sockets) is not part of a kit: skipped. */
    if (rc != 0) snprintf(copy_err, sizeof(copy_err), "cannot copy %s to %s: %s", path, dst, strerror(errno));
    free(rel);
    free(dst);
    return rc ? 1 : 0;
}

int grade_copy_tree(const char *src, const char *dst, char *err, size_t err_len) {
    copy_src_root = src;
    copy_dst_root = dst;
    copy_err[0] = '\0';
    /* FTW_PHYS off: a kit in Bazel's runfiles is a tree of symbolic links to the outputs. */
    int rc = nftw(src, copy_one, 32, 0);
    if (rc != 0) {
        snprintf(err, err_len, "%s", copy_err[0] ? copy_err : strerror(errno));
        return -1;
    }
    return 0;
}

static int read_file(const char *path, int flags, size_t max, char **data, size_t *len, bool *truncated, char *err,
                     size_t err_len) {
    *data = NULL;
    if (len) *len = 0;
    if (truncated) *truncated = false;
    int fd = open(path, O_RDONLY | O_CLOEXEC | flags);
    if (fd < 0) {
        snprintf(err, err_len, "%s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, err_len, "%s: not a regular file", path);
        close(fd);
        return -1;
    }
    size_t cap = max + 1;
    char *buf = malloc(cap + 1);
    if (!buf) {
        snprintf(err, err_len, "%s: out of memory", path);
        close(fd);
        return -1;
    }
    size_t got = 0;
    while (got < cap) {
        ssize_t n = read(fd, buf + got, cap - got);
        if (n < 0) {
            snprintf(err, err_len, "%s: %s", path, strerror(errno));
            free(buf);
            close(fd);
            return -1;
        }
        if (n == 0) break;
        got += (size_t)n;
    }
    close(fd);
    if (got > max) {
        got = max;
        if (truncated) *truncated = true;
    }
    buf[got] = '\0';
    *data = buf;
    if (len) *len = got;
    return 0;
}

int grade_read_file(const char *path, size_t max, char **data, size_t *len, bool *truncated, char *err,
                    size_t err_len) {
    return read_file(path, 0, max, data, len, truncated, err, err_len);
}

int grade_read_file_nofollow(const char *path, size_t max, char **data, size_t *len, bool *truncated, char *err,
                             size_t err_len) {
    return read_file(path, O_NOFOLLOW, max, data, len, truncated, err, err_len);
}

static int write_all(int fd, const char *data, size_t len) {
    while (len > 0) {
        ssize_t w = write(fd, data, len);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        data += w;
        len -= (size_t)w;
    }
    return 0;
}

int grade_write_file(const char *path, const char *data, size_t len, char *err, size_t err_len) {
    char *tmp = grade_strf("%s.tmp.%ld", path, (long)getpid());
    /* A new file, never one a link in its place points to (rename then replaces a link at
     * path instead of following it); a stale one of this process's id is removed first. */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 && errno == EEXIST && unlink(tmp) == 0)
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, err_len, "cannot write %s: %s", path, strerror(errno));
        free(tmp);
        return -1;
    }
    int rc = write_all(fd, data, len);
    if (close(fd) != 0) rc = -1;
    if (rc == 0 && rename(tmp, path) != 0) rc = -1;
    if (rc != 0) {
        snprintf(err, err_len, "cannot write %s: %s", path, strerror(errno));
        unlink(tmp);
    }
    free(tmp);
    return rc;
}

int grade_write_new_file(const char *path, const char *data, size_t len, mode_t mode, char *err, size_t err_len) {
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
    if (fd < 0) {
        snprintf(err, err_len, "cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    int rc = write_all(fd, data, len);
    if (close(fd) != 0) rc = -1;
    if (rc != 0) snprintf(err, err_len, "cannot write %s: %s", path, strerror(errno));
    return rc;
}

char *grade_path_join(const char *a, const char *b) {
    size_t n = strlen(a);
    if (n > 0 && a[n - 1] == '/') return grade_strf("%s%s", a, b);
    return grade_strf("%s/%s", a, b);
}

bool grade_is_dir(const char *path) {
    struct stat st;
    return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool grade_is_file(const char *path) {
    struct stat st;
    return lstat(path, &st) == 0 && S_ISREG(st.st_mode);
}
