/* grading/sandbox/grade_scratch.c: the capped scratch folder (see grade_scratch.h). */
#define _GNU_SOURCE
#include "grading/sandbox/grade_scratch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/magic.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

/* Deeper than this the grader does not follow a watched folder: it counts as full. */
#define NOBODY_ID 65534
#define WATCH_DEPTH 64

static int fail(char *err, size_t err_len, const char *what) {
    snprintf(err, err_len, "%s: %s", what, strerror(errno));
    return -1;
}

static int write_text(const char *path, const char *text) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t n = strlen(text);
    ssize_t w = write(fd, text, n);
    int saved = errno;
    close(fd);
    errno = saved;
    return w == (ssize_t)n ? 0 : -1;
}

int grade_scratch_mount(grade_scratch_mode mode, const char *dir, long cap_mb, uid_t uid, gid_t gid, char *err,
                        size_t err_len) {
    if (mode == GRADE_SCRATCH_WATCH) return 0;
    if (mode == GRADE_SCRATCH_USERNS) {
        uid_t u = geteuid();
        gid_t g = getegid();
        /* A process that switched users is not dumpable, and its /proc/self files are
         * root's: it could not write its own uid_map. (exec decides this afresh.) */
        if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) != 0) return fail(err, err_len, "scratch: PR_SET_DUMPABLE");
        if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) return fail(err, err_len, "scratch: unshare(CLONE_NEWUSER)");
        /* The same user inside as outside, and never root there (a root outside is
         * nobody inside): the program it becomes keeps no capability in the namespace. */
        uid = u != 0 ? u : NOBODY_ID;
        gid = g != 0 ? g : NOBODY_ID;
        char map[64];
        if (write_text("/proc/self/setgroups", "deny") != 0) return fail(err, err_len, "scratch: /proc/self/setgroups");
        snprintf(map, sizeof(map), "%u %u 1", (unsigned)gid, (unsigned)g);
        if (write_text("/proc/self/gid_map", map) != 0) return fail(err, err_len, "scratch: /proc/self/gid_map");
        snprintf(map, sizeof(map), "%u %u 1", (unsigned)uid, (unsigned)u);
        if (write_text("/proc/self/uid_map", map) != 0) return fail(err, err_len, "scratch: /proc/self/uid_map");
    } else if (unshare(CLONE_NEWNS) != 0) {
        return fail(err, err_len, "scratch: unshare(CLONE_NEWNS)");
    }
    /* Nothing mounted here reaches the grader's namespace. */
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) return fail(err, err_len, "scratch: private mounts");
    char opts[160];
    snprintf(opts, sizeof(opts), "size=%ldm,nr_inodes=%d,mode=0700,uid=%u,gid=%u", cap_mb, GRADE_SCRATCH_FILES,
             (unsigned)uid, (unsigned)gid);
    if (mount("streamlab-scratch", dir, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, opts) != 0) {
        char what[PATH_MAX + 40];
        snprintf(what, sizeof(what), "scratch: mount a tmpfs on %s", dir);
        return fail(err, err_len, what);
    }
    return 0;
}

/* ---- probing ---------------------------------------------------------------------------- */

static int try_mode(grade_scratch_mode mode, bool drop_user, uid_t uid, gid_t gid) {
    pid_t pid = fork();
    if (pid < 0) return errno;
    if (pid == 0) {
        if (mode == GRADE_SCRATCH_USERNS && drop_user &&
            (setgroups(0, NULL) != 0 || setgid(gid) != 0 || setuid(uid) != 0))
            _exit(EPERM);
        char err[256];
        /* In a namespace of this child's: nobody else sees the mount. */
        const char *dir = access("/tmp", F_OK) == 0 ? "/tmp" : "/";
        if (grade_scratch_mount(mode, dir, 1, drop_user ? uid : geteuid(), drop_user ? gid : getegid(), err,
                                sizeof(err)) != 0)
            _exit(errno ? errno : EPERM);
        _exit(0);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : EPERM;
}

grade_scratch_mode grade_scratch_probe(bool drop_user, uid_t uid, gid_t gid, char *why, size_t why_len) {
    int mount_err = -1;
    if (geteuid() == 0) {
        mount_err = try_mode(GRADE_SCRATCH_MOUNT, drop_user, uid, gid);
        if (mount_err == 0) return GRADE_SCRATCH_MOUNT;
    }
    int userns_err = try_mode(GRADE_SCRATCH_USERNS, drop_user, uid, gid);
    if (userns_err == 0) return GRADE_SCRATCH_USERNS;
    if (mount_err > 0)
        snprintf(why, why_len, "the grader cannot mount a tmpfs (%s) nor make a user namespace (%s)",
                 strerror(mount_err), strerror(userns_err));
    else
        snprintf(why, why_len, "the grader is not root and cannot make a user namespace (%s)", strerror(userns_err));
    return GRADE_SCRATCH_WATCH;
}

/* ---- watching ------------------------------------------------------------------------------ */

typedef struct tally {
    long long bytes;
    long files;
    bool too_deep;
} tally;

/* Adds up what lies below the open folder dfd (closed here), following no links. */
static void add_up(int dfd, int depth, tally *t) {
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL && t->files < GRADE_SCRATCH_FILES && !t->too_deep) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        t->files++;
        t->bytes += (long long)st.st_blocks * 512;
        if (!S_ISDIR(st.st_mode)) continue;
        if (depth >= WATCH_DEPTH) {
            t->too_deep = true;
            break;
        }
        int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub >= 0) add_up(sub, depth + 1, t);
    }
    closedir(d);
}

grade_scratch_state grade_scratch_check(grade_scratch_mode mode, pid_t pid, const char *dir, long cap_mb,
                                        long long *used_bytes) {
    long long cap = (long long)cap_mb << 20;
    *used_bytes = -1;
    if (mode == GRADE_SCRATCH_WATCH) {
        int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) return GRADE_SCRATCH_OK;
        tally t = {0, 0, false};
        add_up(fd, 0, &t);
        *used_bytes = t.bytes;
        if (t.bytes >= cap) return GRADE_SCRATCH_FULL_BYTES;
        if (t.files >= GRADE_SCRATCH_FILES || t.too_deep) return GRADE_SCRATCH_FULL_FILES;
        return GRADE_SCRATCH_OK;
    }
    /* The child's own view of the folder: its tmpfs. */
    char path[PATH_MAX + 32];
    snprintf(path, sizeof(path), "/proc/%d/root%s", (int)pid, dir);
    struct statfs sf;
    if (statfs(path, &sf) != 0 || sf.f_type != TMPFS_MAGIC) return GRADE_SCRATCH_OK;
    *used_bytes = (long long)(sf.f_blocks - sf.f_bfree) * (long long)sf.f_bsize;
    if (sf.f_bfree == 0) return GRADE_SCRATCH_FULL_BYTES;
    if (sf.f_ffree == 0) return GRADE_SCRATCH_FULL_FILES;
    return GRADE_SCRATCH_OK;
}
