/* grading/sandbox/grade_sandbox.c: children with limits (see grade_sandbox.h). */
#define _GNU_SOURCE
#include "grading/sandbox/grade_sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "grading/base/grade_text.h"
#include "grading/sandbox/grade_landlock.h"
#include "labs/referee/confine.h"

const char *grade_signal_name(int sig) {
    static char numbers[NSIG][24];
    if (sig <= 0 || sig >= NSIG) return "an unknown signal";
    const char *name = cli_signal_name(sig);
    if (name) return name;
    if (!numbers[sig][0]) snprintf(numbers[sig], sizeof(numbers[sig]), "signal %d", sig);
    return numbers[sig];
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* ---- probing ---------------------------------------------------------------------------- */

/* Runs fn in a child and returns its wait status. */
static int in_child(int (*fn)(const grade_sandbox_config *), const grade_sandbox_config *cfg) {
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        /* Nothing of ours to flush: leave with _exit. */
        int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0) dup2(fd, 2);
        _exit(fn(cfg));
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return status;
}

static int try_drop(const grade_sandbox_config *cfg) {
    if (setgroups(0, NULL) != 0 || setgid(cfg->gid) != 0 || setuid(cfg->uid) != 0) return 2;
    return getuid() == cfg->uid && geteuid() == cfg->uid ? 0 : 1;
}

static int try_seccomp(const grade_sandbox_config *cfg) {
    (void)cfg;
    char err[128];
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return 2;
    if (lab_confine_no_processes(true, err, sizeof(err)) != 0) return 3;
    pid_t p = fork(); /* must kill us */
    if (p == 0) _exit(0);
    return 4;
}

static long user_processes(uid_t uid) {
    DIR *d = opendir("/proc");
    if (!d) return 0;
    long n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        char path[300];
        snprintf(path, sizeof(path), "/proc/%s", e->d_name);
        struct stat st;
        if (stat(path, &st) == 0 && st.st_uid == uid) n++;
    }
    closedir(d);
    return n;
}

void grade_sandbox_probe(grade_sandbox_config *cfg) {
    memset(cfg, 0, sizeof(*cfg));
    if (geteuid() == 0) {
        struct passwd *pw = getpwnam("nobody");
        cfg->uid = pw ? pw->pw_uid : 65534;
        cfg->gid = pw ? pw->pw_gid : 65534;
        int st = in_child(try_drop, cfg);
        if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
            cfg->drop_user = true;
            snprintf(cfg->user_note, sizeof(cfg->user_note), "ran as the unprivileged user nobody (uid %u)",
                     (unsigned)cfg->uid);
        } else {
            snprintf(cfg->user_note, sizeof(cfg->user_note),
                     "ran as root: this system does not let the grader switch to the user nobody (a user "
                     "namespace that maps only root?)");
        }
    } else {
        cfg->uid = getuid();
        cfg->gid = getgid();
        cfg->nproc_base = user_processes(cfg->uid);
        struct passwd *pw = getpwuid(cfg->uid);
        snprintf(cfg->user_note, sizeof(cfg->user_note),
                 "ran as %s, the grader's own user (run the grader as root, e.g. in a container, to run "
                 "them as nobody)",
                 pw ? pw->pw_name : "the grader's user");
    }

    char why[200];
    cfg->landlock_abi = grade_landlock_abi(why, sizeof(why));
    if (cfg->landlock_abi > 0)
        snprintf(cfg->landlock_note, sizeof(cfg->landlock_note),
                 "Landlock (ABI %d) let them write only inside their scratch folder%s", cfg->landlock_abi,
                 cfg->landlock_abi >= 6 ? " and signal no process outside it" : "");
    else
        snprintf(cfg->landlock_note, sizeof(cfg->landlock_note),
                 "NOT confined by Landlock (%.120s): file writes outside the scratch folder are stopped only by "
                 "file permissions",
                 why);

    int st = in_child(try_seccomp, cfg);
    if (WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS) {
        cfg->seccomp = true;
        snprintf(cfg->seccomp_note, sizeof(cfg->seccomp_note),
                 "a seccomp filter kept them from opening sockets of any family, and lab programs from starting "
                 "processes or mounting");
    } else {
        snprintf(cfg->seccomp_note, sizeof(cfg->seccomp_note),
                 "NO seccomp filter here: lab programs could open sockets (Landlock stops TCP only) and start "
                 "processes (RLIMIT_NPROC alone limits them)");
    }

    cfg->scratch_mb = GRADE_SCRATCH_MB_DEFAULT;
    cfg->compile_s = GRADE_COMPILE_SECONDS_DEFAULT;
    cfg->compile_mem_mb = GRADE_COMPILE_MEMORY_MB_DEFAULT;
    char scratch_why[200] = "";
    cfg->scratch_mode = grade_scratch_probe(cfg->drop_user, cfg->uid, cfg->gid, scratch_why, sizeof(scratch_why));
    if (cfg->scratch_mode == GRADE_SCRATCH_WATCH)
        snprintf(cfg->scratch_note, sizeof(cfg->scratch_note),
                 "the grader only watched the size of a lab run's scratch folder (%.150s): a run may write past the "
                 "cap for a tenth of a second",
                 scratch_why);
    else
        snprintf(cfg->scratch_note, sizeof(cfg->scratch_note), "a private tmpfs%s",
                 cfg->scratch_mode == GRADE_SCRATCH_USERNS ? " (in a user namespace of its own)" : "");
}

char *grade_sandbox_describe(const grade_sandbox_config *cfg) {
    char scratch[600];
    if (cfg->scratch_mode == GRADE_SCRATCH_WATCH)
        snprintf(scratch, sizeof(scratch), "a lab run could keep at most %ld MiB and %d files in its scratch folder, but %s",
                 cfg->scratch_mb, GRADE_SCRATCH_FILES, cfg->scratch_note);
    else
        snprintf(scratch, sizeof(scratch),
                 "a lab run's scratch folder was %s of at most %ld MiB and %d files, gone when the run ended",
                 cfg->scratch_note, cfg->scratch_mb, GRADE_SCRATCH_FILES);
    const char *reads = cfg->landlock_abi > 0 ? "compiles could read only the compiler, the system's C headers, the "
                                                "lab's kit and the student's file, and were"
                                              : "compiles could read whatever the user they ran as may read (no "
                                                "Landlock), and were";
    return grade_strf("Submissions %s; %s; %s; %s; %s stopped after %d s of CPU time (%d s in all) or %ld MiB of memory.",
                      cfg->user_note, cfg->landlock_note, cfg->seccomp_note, scratch, reads, cfg->compile_s,
                      grade_compile_wall_s(cfg), cfg->compile_mem_mb);
}

int grade_sandbox_give(const grade_sandbox_config *cfg, const char *path, char *err, size_t err_len) {
    if (!cfg->drop_user) return 0;
    if (chown(path, cfg->uid, cfg->gid) != 0) {
        snprintf(err, err_len, "cannot give %s to uid %u: %s", path, (unsigned)cfg->uid, strerror(errno));
        return -1;
    }
    return 0;
}

bool grade_sandbox_can_reach(const grade_sandbox_config *cfg, const char *path) {
    if (!cfg->drop_user) return true;
    char *p = realpath(path, NULL);
    if (!p) return false;
    bool ok = true;
    /* Every folder from / down to path itself. */
    for (char *slash = p;; slash = strchr(slash + 1, '/')) {
        char saved = slash ? slash[1] : '\0';
        if (slash) slash[1] = '\0';
        struct stat st;
        if (stat(p, &st) != 0) {
            ok = false;
        } else if (!(st.st_mode & S_IXOTH) && !(st.st_uid == cfg->uid && (st.st_mode & S_IXUSR)) &&
                   !(st.st_gid == cfg->gid && (st.st_mode & S_IXGRP))) {
            ok = false;
        }
        if (slash) slash[1] = saved;
        if (!ok || !slash) break;
    }
    free(p);
    return ok;
}

/* ---- the child ---------------------------------------------------------------------------- */

static void child_fail(int errfd, const char *what) {
    char msg[600];
    int n = snprintf(msg, sizeof(msg), "%s: %s", what, strerror(errno));
    if (n > 0 && write(errfd, msg, (size_t)n) < 0) {
    }
    _exit(127);
}

static void child_fail_msg(int errfd, const char *msg) {
    if (write(errfd, msg, strlen(msg)) < 0) {
    }
    _exit(127);
}

static void set_limit(int errfd, int resource, rlim_t soft, rlim_t hard, const char *name) {
    struct rlimit rl = {soft, hard};
    if (setrlimit(resource, &rl) != 0) child_fail(errfd, name);
}

static void child(const grade_sandbox_config *cfg, const grade_spawn *s, const char *scratch_dir, int devnull,
                  int errfd_in, pid_t parent) {
    setpgid(0, 0);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    for (int sig = 1; sig < NSIG; sig++) signal(sig, SIG_DFL);

    /* Lift every descriptor we keep above the ones it will land on, then place them. */
    int errfd = fcntl(errfd_in, F_DUPFD_CLOEXEC, 16);
    int in = fcntl(devnull, F_DUPFD_CLOEXEC, 16);
    int out = fcntl(s->stdout_fd, F_DUPFD_CLOEXEC, 16);
    int err = fcntl(s->stderr_fd, F_DUPFD_CLOEXEC, 16);
    int ev = s->events_fd >= 0 ? fcntl(s->events_fd, F_DUPFD_CLOEXEC, 16) : -1;
    if (errfd < 0 || in < 0 || out < 0 || err < 0 || (s->events_fd >= 0 && ev < 0)) child_fail(errfd_in, "descriptors");
    int pass[GRADE_PASS_FDS_MAX];
    for (size_t i = 0; i < s->n_pass_fds && i < GRADE_PASS_FDS_MAX; i++)
        if ((pass[i] = fcntl(s->pass_fds[i], F_DUPFD_CLOEXEC, 16)) < 0) child_fail(errfd, "descriptors");
    if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0 || (ev >= 0 && dup2(ev, 3) < 0))
        child_fail(errfd, "descriptors");
    int first = ev >= 0 ? 4 : 3;
    for (size_t i = 0; i < s->n_pass_fds && i < GRADE_PASS_FDS_MAX; i++, first++)
        if (dup2(pass[i], first) < 0) child_fail(errfd, "descriptors");
    if (first < errfd) close_range((unsigned)first, (unsigned)errfd - 1, 0);
    close_range((unsigned)errfd + 1, ~0U, 0);

    const grade_limits *l = &s->limits;
    set_limit(errfd, RLIMIT_CORE, 0, 0, "RLIMIT_CORE");
    if (l->cpu_s > 0) set_limit(errfd, RLIMIT_CPU, (rlim_t)l->cpu_s, (rlim_t)l->cpu_s + 2, "RLIMIT_CPU");
    if (l->as_mb > 0) set_limit(errfd, RLIMIT_AS, (rlim_t)l->as_mb << 20, (rlim_t)l->as_mb << 20, "RLIMIT_AS");
    if (l->fsize_mb > 0) set_limit(errfd, RLIMIT_FSIZE, (rlim_t)l->fsize_mb << 20, (rlim_t)l->fsize_mb << 20, "RLIMIT_FSIZE");
    /* Output past the limit cut, not fatal (the rubric's "output": "cut"): an ignored
     * signal stays ignored through execve, in the lab and the process it starts. */
    if (l->fsize_cut) signal(SIGXFSZ, SIG_IGN);
    if (l->nproc > 0) {
        rlim_t n = (rlim_t)(l->nproc + cfg->nproc_base);
        set_limit(errfd, RLIMIT_NPROC, n, n, "RLIMIT_NPROC");
    }
    if (l->nofile > 0) set_limit(errfd, RLIMIT_NOFILE, (rlim_t)l->nofile, (rlim_t)l->nofile, "RLIMIT_NOFILE");

    if (chdir(s->cwd) != 0) child_fail(errfd, s->cwd);
    char msg[512];
    bool capped = scratch_dir && cfg->scratch_mode != GRADE_SCRATCH_WATCH;
    if (capped && cfg->scratch_mode == GRADE_SCRATCH_MOUNT) {
        /* The tmpfs belongs to the user the program runs as. */
        uid_t owner = cfg->drop_user ? cfg->uid : geteuid();
        gid_t group = cfg->drop_user ? cfg->gid : getegid();
        if (grade_scratch_mount(cfg->scratch_mode, scratch_dir, cfg->scratch_mb, owner, group, msg, sizeof(msg)) != 0)
            child_fail_msg(errfd, msg);
        if (chdir(s->cwd) != 0) child_fail(errfd, s->cwd);
    }
    if (cfg->drop_user) {
        if (setgroups(0, NULL) != 0) child_fail(errfd, "setgroups");
        if (setgid(cfg->gid) != 0) child_fail(errfd, "setgid");
        if (setuid(cfg->uid) != 0) child_fail(errfd, "setuid");
    }
    if (capped && cfg->scratch_mode == GRADE_SCRATCH_USERNS) {
        if (grade_scratch_mount(cfg->scratch_mode, scratch_dir, cfg->scratch_mb, cfg->uid, cfg->gid, msg, sizeof(msg)) != 0)
            child_fail_msg(errfd, msg);
        if (chdir(s->cwd) != 0) child_fail(errfd, s->cwd);
    }
    /* Die with the grader; set after the user switch, which clears it. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) child_fail(errfd, "PR_SET_PDEATHSIG");
    if (getppid() != parent) _exit(127);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) child_fail(errfd, "PR_SET_NO_NEW_PRIVS");
    if (cfg->landlock_abi > 0) {
        static const char *const dev_null[] = {"/dev/null", NULL};
        grade_landlock_rules rules = {
            .write_dirs = s->write_dirs,
            .read_dirs = s->read_dirs,
            .list_dirs = s->list_dirs,
            .write_files = s->gpu ? NULL : dev_null,
            .scope_signals = true,
            .scope_abstract_sockets = !s->gpu,
            .deny_tcp = true,
        };
        /* A GPU is opened read-write under /dev, and the CUDA driver writes to its own
         * /proc entries while it starts (measured on an H200: without /proc/self it fails
         * with cudaErrorOperatingSystem). /proc/self is this process, which the lab program
         * becomes: the rule names its /proc/<pid> and nothing of any other process. */
        static const char *const gpu_write[] = {"/dev", "/proc/self", NULL};
        if (s->gpu) {
            const char *dirs[20];
            size_t n = 0;
            for (const char *const *p = s->write_dirs; p && *p && n < 16; p++) dirs[n++] = *p;
            for (const char *const *p = gpu_write; *p; p++) dirs[n++] = *p;
            dirs[n] = NULL;
            rules.write_dirs = dirs;
            if (grade_landlock_restrict(cfg->landlock_abi, &rules, msg, sizeof(msg)) != 0) child_fail_msg(errfd, msg);
        } else if (grade_landlock_restrict(cfg->landlock_abi, &rules, msg, sizeof(msg)) != 0) {
            child_fail_msg(errfd, msg);
        }
    }
    if (cfg->seccomp) {
        bool lab = s->processes != GRADE_PROCESSES_ALLOWED;
        bool referee = s->processes == GRADE_PROCESSES_REFEREE;
        lab_confine_rules rules = {
            .processes = s->processes == GRADE_PROCESSES_KILL     ? LAB_CONFINE_PROCESSES_KILL
                         : s->processes == GRADE_PROCESSES_REFUSE ? LAB_CONFINE_PROCESSES_REFUSE
                                                                  : LAB_CONFINE_PROCESSES_ALLOW,
            .no_sockets = true,
            /* The CUDA driver's MPS check when it starts (labs/referee/confine.h). */
            .unix_seqpacket = s->gpu,
            .no_namespaces = lab,
            /* The CUDA driver needs memfd_create when it starts; a referee makes the memory
             * it shares with the student's process with it, unless handed them (the grader
             * hands them, grade_runner.c). */
            .no_memfd = lab && !s->gpu && !(referee && s->n_pass_fds == 0),
        };
        if (lab_confine_install(&rules, msg, sizeof(msg)) != 0) child_fail_msg(errfd, msg);
    }
    execve(s->argv[0], s->argv, s->envp);
    child_fail(errfd, s->argv[0]);
}

/* ---- the parent ----------------------------------------------------------------------------- */

static long max_long(long a, long b) { return a > b ? a : b; }

/* A process's resident memory and, of it, the shared memory (memfd, tmpfs) it maps, from
 * /proc/PID/status (readable even for a process that is not dumpable, as a referee is). */
static void resident_of(pid_t pid, long *rss_kb, long *shmem_kb) {
    *rss_kb = *shmem_kb = 0;
    char path[64], line[160];
    snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f) return;
    while (fgets(line, sizeof(line), f)) {
        if (!strncmp(line, "VmRSS:", 6)) *rss_kb = strtol(line + 6, NULL, 10);
        else if (!strncmp(line, "RssShmem:", 9)) *shmem_kb = strtol(line + 9, NULL, 10);
    }
    fclose(f);
}

typedef struct tree_memory {
    long private_kb; /* every process's own */
    long shmem_kb;   /* the most any one maps: the two processes of a lab run share theirs */
} tree_memory;

/* pid and every process below it (a compiler driver and the passes it runs; a referee and
 * the student's process), from the kernel's lists of children. */
static void tree_resident(pid_t pid, int depth, tree_memory *m) {
    long rss, shmem;
    resident_of(pid, &rss, &shmem);
    m->private_kb += rss > shmem ? rss - shmem : 0;
    m->shmem_kb = max_long(m->shmem_kb, shmem);
    char path[96];
    snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
    DIR *d = depth < 16 ? opendir(path) : NULL;
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        snprintf(path, sizeof(path), "/proc/%d/task/%.20s/children", (int)pid, e->d_name);
        FILE *f = fopen(path, "re");
        if (!f) continue;
        int c;
        while (fscanf(f, "%d", &c) == 1) tree_resident((pid_t)c, depth + 1, m);
        fclose(f);
    }
    closedir(d);
}

/* The resident memory of pid and the processes below it, shared memory counted once. */
static long tree_resident_kb(pid_t pid) {
    tree_memory m = {0, 0};
    tree_resident(pid, 0, &m);
    return m.private_kb + m.shmem_kb;
}

/* Reads what is on the event pipe now. Returns false at its end (or on an error). */
static bool drain_events(const grade_spawn *s, size_t *total, bool *flood) {
    char buf[65536];
    for (;;) {
        ssize_t n = read(s->events_read_fd, buf, sizeof(buf));
        if (n > 0) {
            if (*total + (size_t)n > s->events_cap) {
                *flood = true;
                return true;
            }
            *total += (size_t)n;
            if (s->on_events) s->on_events(s->ctx, buf, (size_t)n);
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
        return false;
    }
}

static void kill_all(pid_t pid) {
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
}

int grade_sandbox_run(const grade_sandbox_config *cfg, const grade_spawn *s, grade_outcome *out) {
    memset(out, 0, sizeof(*out));
    out->scratch_bytes = -1;
    /* The capped folder by its absolute path: where the child mounts its tmpfs, and where
     * the parent looks at it through /proc/<pid>/root. */
    char *scratch_dir = NULL;
    if (s->scratch_dir && cfg->scratch_mb > 0) {
        scratch_dir = realpath(s->scratch_dir, NULL);
        if (!scratch_dir) {
            out->end = GRADE_END_NOT_STARTED;
            snprintf(out->error, sizeof(out->error), "scratch folder %.400s: %s", s->scratch_dir, strerror(errno));
            return -1;
        }
    }
    int errpipe[2];
    if (pipe2(errpipe, O_CLOEXEC) != 0) {
        out->end = GRADE_END_NOT_STARTED;
        snprintf(out->error, sizeof(out->error), "pipe: %s", strerror(errno));
        free(scratch_dir);
        return -1;
    }
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (devnull < 0) {
        close(errpipe[0]);
        close(errpipe[1]);
        out->end = GRADE_END_NOT_STARTED;
        snprintf(out->error, sizeof(out->error), "/dev/null: %s", strerror(errno));
        free(scratch_dir);
        return -1;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        close(errpipe[0]);
        close(errpipe[1]);
        close(devnull);
        out->end = GRADE_END_NOT_STARTED;
        snprintf(out->error, sizeof(out->error), "fork: %s", strerror(errno));
        free(scratch_dir);
        return -1;
    }
    if (pid == 0) {
        close(errpipe[0]);
        child(cfg, s, scratch_dir, devnull, errpipe[1], parent);
    }
    setpgid(pid, pid); /* also done by the child: whichever runs first */
    close(errpipe[1]);
    close(devnull);
    double start = now_s();

    /* Until exec, the child can still report a failure to start. */
    char msg[512];
    ssize_t n;
    size_t got = 0;
    while ((n = read(errpipe[0], msg + got, sizeof(msg) - 1 - got)) != 0) {
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) break;
        got += (size_t)n;
        if (got >= sizeof(msg) - 1) break;
    }
    close(errpipe[0]);
    if (got > 0) {
        msg[got] = '\0';
        int status;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        out->end = GRADE_END_NOT_STARTED;
        snprintf(out->error, sizeof(out->error), "could not start %.200s: %.250s", s->argv[0], msg);
        free(scratch_dir);
        return -1;
    }

    if (s->events_read_fd >= 0) fcntl(s->events_read_fd, F_SETFL, fcntl(s->events_read_fd, F_GETFL) | O_NONBLOCK);
    bool events_open = s->events_read_fd >= 0;
    size_t events_total = 0;
    bool flood = false;
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof(ru));
    grade_end forced = GRADE_END_EXIT;
    bool forced_end = false;
    long peak_kb = 0; /* the largest resident size the watchdog saw */
    grade_scratch_state scratch = GRADE_SCRATCH_OK;
    /* Adding up a folder costs more than asking a tmpfs: every fifth turn (0.1 s). */
    unsigned turn = 0, scratch_every = cfg->scratch_mode == GRADE_SCRATCH_WATCH ? 5 : 1;
    for (;;) {
        struct pollfd p = {.fd = s->events_read_fd, .events = POLLIN};
        if (poll(&p, events_open ? 1 : 0, 20) > 0 && events_open) events_open = drain_events(s, &events_total, &flood);
        pid_t r = wait4(pid, &status, WNOHANG, &ru);
        if (r == pid) break;
        double elapsed = now_s() - start;
        if (s->limits.mem_mb > 0)
            peak_kb = max_long(peak_kb, tree_resident_kb(pid));
        if (scratch_dir && ++turn % scratch_every == 0) {
            long long used = -1;
            scratch = grade_scratch_check(cfg->scratch_mode, pid, scratch_dir, cfg->scratch_mb, &used);
            if (used > out->scratch_bytes) out->scratch_bytes = used;
        }
        if (flood) {
            forced = GRADE_END_FLOOD;
        } else if (s->limits.wall_s > 0 && elapsed > s->limits.wall_s) {
            forced = GRADE_END_WALL;
        } else if (s->limits.mem_mb > 0 && peak_kb > s->limits.mem_mb * 1024) {
            forced = GRADE_END_MEMORY;
        } else if (scratch != GRADE_SCRATCH_OK) {
            forced = GRADE_END_SCRATCH;
            if (scratch == GRADE_SCRATCH_FULL_BYTES)
                snprintf(out->error, sizeof(out->error),
                         "wrote more than %ld MiB into its scratch folder, so it was stopped: a lab needs no files "
                         "of its own",
                         cfg->scratch_mb);
            else
                snprintf(out->error, sizeof(out->error),
                         "made more than %d files and folders in its scratch folder, so it was stopped: a lab "
                         "needs no files of its own",
                         GRADE_SCRATCH_FILES);
        } else {
            continue;
        }
        forced_end = true;
        kill_all(pid);
        while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR) {
        }
        break;
    }
    out->wall_s = now_s() - start;
    /* Whatever it left behind in its group goes too. */
    kill(-pid, SIGKILL);
    if (events_open && !flood) drain_events(s, &events_total, &flood);
    out->cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
                 (double)ru.ru_stime.tv_usec / 1e6;
    /* The kernel's high-water mark can lag the resident size the watchdog read (its
     * counters are synced lazily): a program ended for memory never reports less than
     * what ended it. */
    out->max_rss_kb = max_long(ru.ru_maxrss, peak_kb);
    if (forced_end) {
        out->end = forced;
        out->code = SIGKILL;
    } else if (WIFSIGNALED(status)) {
        out->end = GRADE_END_SIGNAL;
        out->code = WTERMSIG(status);
    } else {
        out->end = GRADE_END_EXIT;
        out->code = WEXITSTATUS(status);
    }
    free(scratch_dir);
    return 0;
}
