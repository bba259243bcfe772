/* grading/out/grade_beneath.c: writes that stay below one folder (see grade_beneath.h). */
#define _GNU_SOURCE
#include "grading/out/grade_beneath.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grading/base/grade_text.h"

/* Whether one component of a relative path may be used: not empty, ".", ".." nor longer
 * than a file name may be. */
static const char *bad_component(const char *c, size_t n) {
    if (n == 0) return "an empty component (an absolute path, or \"//\")";
    if ((n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.')) return "a \".\" or \"..\" component";
    if (n > NAME_MAX) return "a component longer than a file name may be";
    return NULL;
}

/* err: "<what> <shown>/<rel>: <why>". */
static void say(char *err, size_t err_len, const char *what, const char *shown, const char *rel, const char *why) {
    snprintf(err, err_len, "%s %s%s%s: %s", what, shown, *rel ? "/" : "", rel, why);
}

/* Why openat of a folder failed, in words, looking at what is there. */
static void why_not_folder(int at, const char *name, int e, const char *shown, char *err, size_t err_len) {
    struct stat st;
    if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
        snprintf(err, err_len,
                 "it is a symbolic link; refused: the grader writes only inside %s and never through a link (remove "
                 "the link)",
                 shown);
    else if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode))
        snprintf(err, err_len, "it exists and is not a folder");
    else
        snprintf(err, err_len, "%s", strerror(e));
}

int grade_beneath_dir(int dir_fd, const char *shown, const char *rel, bool create, mode_t mode, char *err,
                      size_t err_len) {
    if (!rel) rel = "";
    int cur = fcntl(dir_fd, F_DUPFD_CLOEXEC, 0);
    if (cur < 0) {
        say(err, err_len, "cannot open folder", shown, "", strerror(errno));
        return -1;
    }
    const char *p = rel;
    while (*p) {
        const char *slash = strchr(p, '/');
        size_t n = slash ? (size_t)(slash - p) : strlen(p);
        char *upto = grade_strf("%.*s", (int)(p - rel + n), rel);
        const char *bad = bad_component(p, n);
        if (bad) {
            char *why = grade_strf("refused: the path holds %s, which could lead outside %s", bad, shown);
            say(err, err_len, "cannot make folder", shown, rel, why);
            free(why);
            free(upto);
            close(cur);
            return -1;
        }
        char *name = grade_strf("%.*s", (int)n, p);
        if (create && mkdirat(cur, name, mode) != 0 && errno != EEXIST) {
            say(err, err_len, "cannot create folder", shown, upto, strerror(errno));
            free(name);
            free(upto);
            close(cur);
            return -1;
        }
        int next = openat(cur, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0) {
            int e = errno;
            char why[512];
            why_not_folder(cur, name, e, shown, why, sizeof(why));
            say(err, err_len, "cannot use folder", shown, upto, why);
            free(name);
            free(upto);
            close(cur);
            errno = e;
            return -1;
        }
        free(name);
        free(upto);
        close(cur);
        cur = next;
        p += n;
        if (*p == '/' && !p[1]) {
            /* a trailing slash: an empty last component */
            say(err, err_len, "cannot make folder", shown, rel,
                "refused: the path holds an empty component (an absolute path, or \"//\")");
            close(cur);
            return -1;
        }
        if (*p == '/') p++;
    }
    return cur;
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

/* rel split into its folder (malloc'd, "" when none) and its last component. */
static char *split(const char *rel, const char **base) {
    const char *slash = strrchr(rel, '/');
    *base = slash ? slash + 1 : rel;
    return slash ? grade_strf("%.*s", (int)(slash - rel), rel) : grade_strdup("");
}

int grade_beneath_write(int dir_fd, const char *shown, const char *rel, const char *data, size_t len, char *err,
                        size_t err_len) {
    const char *base;
    char *parent = split(rel, &base);
    const char *bad = bad_component(base, strlen(base));
    if (bad) {
        char *why = grade_strf("refused: the path holds %s, which could lead outside %s", bad, shown);
        say(err, err_len, "cannot write", shown, rel, why);
        free(why);
        free(parent);
        return -1;
    }
    char e2[1024];
    int dfd = grade_beneath_dir(dir_fd, shown, parent, true, 0755, e2, sizeof(e2));
    free(parent);
    if (dfd < 0) {
        char *why = grade_strf("%s", e2);
        say(err, err_len, "cannot write", shown, rel, why);
        free(why);
        return -1;
    }
    /* The temporary file starts with a dot: no student's folder does (grade_student_dir.h). */
    char tmp[64];
    int fd = -1;
    for (unsigned k = 0; k < 100 && fd < 0; k++) {
        snprintf(tmp, sizeof(tmp), ".grade-tmp.%ld.%u", (long)getpid(), k);
        fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) {
        say(err, err_len, "cannot write", shown, rel, strerror(errno));
        close(dfd);
        return -1;
    }
    int rc = write_all(fd, data, len);
    int e = errno;
    if (close(fd) != 0 && rc == 0) {
        rc = -1;
        e = errno;
    }
    /* rename never follows a link in its way: it replaces it. */
    if (rc == 0 && renameat(dfd, tmp, dfd, base) != 0) {
        rc = -1;
        e = errno;
    }
    if (rc != 0) {
        struct stat st;
        bool folder = fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
        say(err, err_len, "cannot write", shown, rel,
            folder ? "a folder of that name is in the way (remove it)" : strerror(e));
        unlinkat(dfd, tmp, 0);
    }
    close(dfd);
    return rc;
}

int grade_beneath_unlink(int dir_fd, const char *shown, const char *rel, char *err, size_t err_len) {
    const char *base;
    char *parent = split(rel, &base);
    const char *bad = bad_component(base, strlen(base));
    if (bad) {
        char *why = grade_strf("refused: the path holds %s", bad);
        say(err, err_len, "cannot remove", shown, rel, why);
        free(why);
        free(parent);
        return -1;
    }
    char e2[1024];
    int dfd = grade_beneath_dir(dir_fd, shown, parent, false, 0, e2, sizeof(e2));
    free(parent);
    if (dfd < 0) {
        if (errno == ENOENT) return 0;
        say(err, err_len, "cannot remove", shown, rel, e2);
        return -1;
    }
    int rc = 0;
    if (unlinkat(dfd, base, 0) != 0 && errno != ENOENT) {
        say(err, err_len, "cannot remove", shown, rel, strerror(errno));
        rc = -1;
    }
    close(dfd);
    return rc;
}
