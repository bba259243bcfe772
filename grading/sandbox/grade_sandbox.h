/* grading/sandbox/grade_sandbox.h: running an untrusted program (a compiler on a student's file,
 * or a lab binary) as a child with limits, and ending it whatever it does.
 *
 * The child gets its own process group (killed whole), a clean environment and working
 * folder, stdin from /dev/null, stdout and stderr into files the caller opened (their
 * size capped by RLIMIT_FSIZE), optionally the write end of the event-stream pipe as fd 3,
 * and no other descriptor. Limits: RLIMIT_CPU, RLIMIT_AS (optional), RLIMIT_FSIZE,
 * RLIMIT_NPROC, RLIMIT_NOFILE, no core files; a wall-clock timeout and a resident-memory
 * watchdog kept by the parent (over the child's whole process group). When the grader is
 * root it switches the child to an unprivileged user (nobody) first; Landlock confines
 * its writes (and, when asked, its reads) to named folders; one seccomp filter
 * (labs/referee/confine.h) refuses sockets of every family to every child and, for lab
 * programs, new processes, namespaces and mounts; a lab program's scratch folder has a
 * cap on its total size (grade_scratch.h). What could not be applied on this machine is
 * found once by grade_sandbox_probe and said in reports. */
#ifndef STREAMLAB_GRADE_SANDBOX_H
#define STREAMLAB_GRADE_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "grading/sandbox/grade_scratch.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct grade_sandbox_config {
    bool drop_user;      /* switch children to uid/gid */
    uid_t uid;
    gid_t gid;
    long nproc_base;     /* processes this user already has (not root): RLIMIT_NPROC counts them */
    int landlock_abi;    /* -1: none */
    bool seccomp;        /* the seccomp filter works here */
    grade_scratch_mode scratch_mode;
    /* Settings (grade_sandbox_probe sets the defaults; the grader's options change them
     * before grade_sandbox_describe): */
    long scratch_mb;     /* the cap on a spawn's scratch_dir (--scratch-mb) */
    int compile_s;       /* CPU seconds of each compiler process (--compile-timeout; wall: grade_compile_wall_s) */
    long compile_mem_mb; /* resident memory of a compile or link, all its processes together */
    char user_note[256];
    char landlock_note[256];
    char seccomp_note[256];
    char scratch_note[400];
} grade_sandbox_config;

#define GRADE_COMPILE_SECONDS_DEFAULT 20
#define GRADE_COMPILE_MEMORY_MB_DEFAULT 2048

/* The wall-clock limit of a compile or link: three times its CPU time, and at least 30 s,
 * so that a busy machine does not stop an ordinary compile. */
static inline int grade_compile_wall_s(const struct grade_sandbox_config *cfg) {
    return 3 * cfg->compile_s > 30 ? 3 * cfg->compile_s : 30;
}

/* Finds out what this machine allows (forks short-lived children to try). */
void grade_sandbox_probe(grade_sandbox_config *cfg);
/* One paragraph for a report header: what protects the grader from the programs it runs. */
char *grade_sandbox_describe(const grade_sandbox_config *cfg);

typedef struct grade_limits {
    double wall_s;  /* killed after this many seconds; 0: no limit */
    int cpu_s;      /* RLIMIT_CPU (SIGXCPU); 0: no limit */
    long mem_mb;    /* resident memory watchdog; 0: none */
    long as_mb;     /* RLIMIT_AS; 0: none */
    long fsize_mb;  /* RLIMIT_FSIZE (SIGXFSZ) */
    bool fsize_cut; /* SIGXFSZ ignored: a write past fsize_mb fails (EFBIG) instead of killing */
    long nproc;     /* RLIMIT_NPROC */
    long nofile;    /* RLIMIT_NOFILE */
} grade_limits;

#define GRADE_PASS_FDS_MAX 4

typedef enum grade_processes {
    GRADE_PROCESSES_ALLOWED = 0, /* a compiler runs its passes as processes */
    GRADE_PROCESSES_KILL,        /* trying to start one kills the program (SIGSYS) */
    GRADE_PROCESSES_REFUSE,      /* trying fails with EPERM */
    GRADE_PROCESSES_REFEREE      /* a lab binary: it starts the student's process, which it
                                    confines itself (labs/referee/confine.h: no process,
                                    socket, namespace or memfd); no namespaces or mounts */
} grade_processes;

typedef struct grade_spawn {
    char *const *argv;             /* argv[0] is an absolute path */
    char *const *envp;             /* the whole environment */
    const char *cwd;
    int stdout_fd, stderr_fd;      /* open for writing */
    int events_fd;                 /* becomes fd 3 in the child; -1: none */
    int events_read_fd;            /* the parent's end, read while the child runs; -1: none */
    const int *pass_fds;           /* more descriptors for the child, placed after the event
                                      stream's (4, 5, ...), in this order */
    size_t n_pass_fds;             /* at most GRADE_PASS_FDS_MAX */
    size_t events_cap;             /* more than this on the stream ends the child (flood) */
    void (*on_events)(void *ctx, const char *bytes, size_t n);
    void *ctx;
    grade_limits limits;
    const char *const *write_dirs; /* Landlock: writable folders (NULL-terminated) */
    const char *const *read_dirs;  /* Landlock: readable folders (and files); NULL: reads not confined */
    const char *const *list_dirs;  /* Landlock, with read_dirs: folders that may be listed, not read */
    bool gpu;                      /* keep what a GPU driver needs (devices, abstract sockets, the
                                      Unix socket of its MPS check, memfd) */
    grade_processes processes;     /* not ALLOWED: a lab program (no namespaces or mounts either;
                                      KILL and REFUSE: no memfd, except on a GPU) */
    const char *scratch_dir;       /* a folder of write_dirs whose total size is capped at
                                      cfg->scratch_mb (absolute); NULL: none. Its content is
                                      the run's alone: with a tmpfs it is gone when it ends */
} grade_spawn;

typedef enum grade_end {
    GRADE_END_EXIT = 0,     /* exited: code is its status */
    GRADE_END_SIGNAL,       /* killed by signal `code` (not by the grader) */
    GRADE_END_WALL,         /* the grader ended it: wall-clock limit */
    GRADE_END_MEMORY,       /* the grader ended it: resident memory over the limit */
    GRADE_END_FLOOD,        /* the grader ended it: too much on the event stream */
    GRADE_END_SCRATCH,      /* the grader ended it: its scratch folder was full (error says how) */
    GRADE_END_NOT_STARTED   /* it could not be started: error says why */
} grade_end;

typedef struct grade_outcome {
    grade_end end;
    int code;
    double wall_s;
    double cpu_s;
    long max_rss_kb;        /* of the child, or of its whole group when it may start processes */
    long long scratch_bytes; /* the most its scratch folder held that the grader saw (-1: no cap) */
    char error[512];        /* NOT_STARTED: why; SCRATCH: what it did ("wrote more than ...") */
} grade_outcome;

/* Runs one child to its end. Returns 0 when it ran (whatever its outcome), -1 when it
 * could not be started (out->end GRADE_END_NOT_STARTED, out->error says why). */
int grade_sandbox_run(const grade_sandbox_config *cfg, const grade_spawn *spawn, grade_outcome *out);

/* Gives path to the children's user (when the grader switches users), so that they may
 * write there. Returns 0 or -1 with err. */
int grade_sandbox_give(const grade_sandbox_config *cfg, const char *path, char *err, size_t err_len);

/* Whether the children's user can reach path (search every folder on the way: a scratch
 * folder under /root, mode 0700, is out of reach of nobody). */
bool grade_sandbox_can_reach(const grade_sandbox_config *cfg, const char *path);

/* "SIGSEGV", "SIGXCPU", ...: the signal's name. */
const char *grade_signal_name(int sig);

#ifdef __cplusplus
}
#endif

#endif
