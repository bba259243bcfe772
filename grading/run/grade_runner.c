/* grading/run/grade_runner.c: running a lab binary and reading its private event stream (see
 * grade_runner.h). */
#define _GNU_SOURCE
#include "grading/run/grade_runner.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "grading/base/grade_fs.h"
#include "grading/base/grade_text.h"
#include "grading/run/grade_lines.h"
#include "labs/harness/result_schema.h"
#include "labs/referee/protocol.h"
#include "trace/stream/events_reader.h"
#include "trace/view/export_text.h"
#include "trace/view/timeline.h"

#define EVENTS_CAP ((size_t)256 << 20)
#define OUTPUT_SHOWN (8u << 10)
#define GRACE_S 10

uint64_t grade_random_u64(void) {
    uint64_t v = 0;
    while (getrandom(&v, sizeof(v), 0) != (ssize_t)sizeof(v)) {
    }
    return v;
}

void grade_random_hex(char *out, size_t nbytes) {
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < nbytes; i++) {
        unsigned char b = (unsigned char)grade_random_u64();
        out[2 * i] = digits[b >> 4];
        out[2 * i + 1] = digits[b & 15];
    }
    out[2 * nbytes] = '\0';
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Whose time is passing, by the harness's announcements (see grade_runner.h). */
enum { SIDE_YOURS = 0, SIDE_HARNESS = 1 };

/* What the event stream has told so far. */
typedef struct stream_state {
    trace_events_reader *reader;
    trace_timeline *timeline;
    int32_t last_yours_run;
    grade_attempt *a;
    /* The watchdog: the sandbox reads spawn->limits.wall_s at every poll (its seconds
     * since the start), and each announcement moves it to when the side whose phase began
     * will have spent what it is allowed. */
    grade_spawn *spawn;
    double start;          /* now_s() when the program was started */
    double since;          /* when the current side's stretch began */
    double used[2];        /* seconds charged to each side before that */
    double allowed[2];     /* each side's budget and the grace */
    int side;
    bool announced;        /* the harness has said where it is */
    char phase[64], who[16];
} stream_state;

/* "in run (yours)": the harness began a phase (labs/harness/guard.h). */
static void announced(stream_state *st, const char *name) {
    char phase[64], who[16];
    if (sscanf(name, "in %63[^(] (%15[^)])", phase, who) != 2) return;
    size_t n = strlen(phase);
    while (n > 0 && phase[n - 1] == ' ') phase[--n] = '\0';
    double now = now_s();
    st->used[st->side] += now - st->since;
    st->since = now;
    st->side = !strcmp(who, "yours") ? SIDE_YOURS : SIDE_HARNESS;
    st->announced = true;
    snprintf(st->phase, sizeof(st->phase), "%s", phase);
    snprintf(st->who, sizeof(st->who), "%s", who);
    if (!st->spawn) return;
    double left = st->allowed[st->side] - st->used[st->side];
    st->spawn->limits.wall_s = (now - st->start) + (left > 0.001 ? left : 0.001);
}

static bool ends_with(const char *s, const char *tail) {
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && !strcmp(s + n - m, tail);
}

static void take_records(stream_state *st) {
    trace_event ev;
    char err[512];
    int rc;
    while ((rc = trace_events_reader_next(st->reader, &ev, err, sizeof(err))) != 0) {
        if (rc < 0) {
            if (strstr(err, "nonce")) {
                if (st->a->foreign_lines++ == 0) snprintf(st->a->first_foreign, sizeof(st->a->first_foreign), "%.150s", err);
            } else {
                st->a->bad_lines++;
            }
            continue;
        }
        switch (ev.type) {
        case TRACE_EVENT_STREAM: trace_timeline_add_stream(st->timeline, &ev.u.stream); break;
        case TRACE_EVENT_PHASE:
            if (ev.u.phase.run == -1 && ev.u.phase.start_ns == ev.u.phase.end_ns) announced(st, ev.u.phase.name);
            break;
        case TRACE_EVENT_OP: trace_timeline_add_op(st->timeline, &ev.u.op); break;
        case TRACE_EVENT_PROGRESS:
            /* The harness announces run r as "... (yours)" with done = r - 1. */
            if (ends_with(ev.u.progress.text, "(yours)") && ev.u.progress.done >= 0 && ev.u.progress.done < INT32_MAX)
                st->last_yours_run = (int32_t)ev.u.progress.done + 1;
            break;
        case TRACE_EVENT_RESULT: {
            /* The harness sends one; a second is not its own (grade_trust.h): keep the first. */
            if (st->a->results++ > 0) break;
            st->a->result = trace_events_reader_take_result(st->reader);
            /* The run the lab's own report describes: its last timed run, not a schedule. */
            const cJSON *n = cJSON_GetObjectItemCaseSensitive(st->a->result, LAB_KEY_TIMELINE_RUN);
            if (cJSON_IsNumber(n) && n->valuedouble >= 1 && n->valuedouble < INT32_MAX)
                st->last_yours_run = (int32_t)n->valuedouble;
            break;
        }
        case TRACE_EVENT_BYE:
            st->a->have_bye = true;
            st->a->bye_status = ev.u.bye.status;
            snprintf(st->a->bye_reason, sizeof(st->a->bye_reason), "%s", ev.u.bye.reason);
            break;
        default: break;
        }
    }
}

static void on_events(void *ctx, const char *bytes, size_t n) {
    stream_state *st = ctx;
    trace_events_reader_feed(st->reader, bytes, n);
    take_records(st);
}

/* The words of a host too slow for the harness's own work: the lab said so (its budget,
 * "75s"), or the watchdog stopped it in a phase of the harness. */
static char *host_words(const char *budget, const char *phase, const char *whose) {
    return grade_strf("not graded: the grading host was too slow: the harness's own work (the baseline, checking "
                      "results, the report) in this lab run took more than %s, in %s() of %s, and was stopped. "
                      "The submission is not at fault; grade it again when the host is less busy (--resume grades "
                      "it again)",
                      budget, phase, whose);
}

/* "crash: SIGSEGV in run (yours)" -> words. */
static int harness_timeout(const grade_run_settings *s);

/* The CPU time a lab run may use: the student's time and the harness's own, and a margin. */
static int cpu_limit_s(const grade_run_settings *s) { return s->timeout_s + harness_timeout(s) + 5; }

/* Words for a run a limit's signal ended (SIGXCPU, SIGXFSZ), then `where`; NULL for any
 * other signal. */
static char *limit_words(int sig, const grade_run_settings *s, const char *where) {
    if (sig == SIGXCPU)
        return grade_strf("used more than its %d s of CPU time (killed by SIGXCPU)%s", cpu_limit_s(s), where);
    if (sig == SIGXFSZ)
        return grade_strf("wrote more than %ld MiB of output or to a file (killed by SIGXFSZ: the size limit)%s",
                          s->output_mb, where);
    return NULL;
}

static char *bye_words(const char *reason, const grade_run_settings *s, bool *host) {
    int timeout_s = s->timeout_s;
    char what[32] = "", detail[64] = "", phase[64] = "", who[32] = "";
    if (sscanf(reason, "%31[^:]: %63s in %63[^(] (%31[^)])", what, detail, phase, who) < 3)
        return grade_strf("the lab stopped: %s", reason);
    size_t n = strlen(phase);
    while (n > 0 && phase[n - 1] == ' ') phase[--n] = '\0';
    const char *whose = !strcmp(who, "yours") ? "your lab" : !strcmp(who, "baseline") ? "the baseline" : "the harness";
    /* The timer runs out in a phase that is not the student's only for the harness's own
     * budget: the host's problem. */
    if (!strcmp(what, "slow_host") || (!strcmp(what, "timeout") && strcmp(who, "yours") != 0)) {
        *host = true;
        char budget[80];
        size_t d = strlen(detail);
        if (!strcmp(what, "slow_host") && d > 1 && detail[d - 1] == 's')
            snprintf(budget, sizeof(budget), "its %.*s s", (int)(d - 1), detail);
        else
            snprintf(budget, sizeof(budget), "its budget");
        return host_words(budget, phase, whose);
    }
    /* The baseline and the harness work with every other submission: when they fail
     * here, the submission broke something they rely on. */
    const char *blame = strcmp(who, "yours") != 0
                            ? ", most likely because of something your code did before (cudaDeviceReset, freeing "
                              "memory it did not allocate, writing past the end of a buffer)"
                            : "";
    /* The limits the student's process inherits: said as when it was the only process. */
    if (!strcmp(what, "crash") && !strcmp(who, "yours") &&
        (!strcmp(detail, "SIGXFSZ") || !strcmp(detail, "SIGXCPU"))) {
        char where[96];
        snprintf(where, sizeof(where), ", in %s() of your lab", phase);
        return limit_words(!strcmp(detail, "SIGXFSZ") ? SIGXFSZ : SIGXCPU, s, where);
    }
    /* The referee's filter on the student's process (labs/referee/confine.h). */
    if (!strcmp(what, "crash") && !strcmp(detail, "SIGSYS") && !strcmp(who, "yours"))
        return grade_strf("tried to start a new process (fork, vfork or clone), or to open a socket, a mount or a "
                          "memory file, in %s() of your lab, which a lab may not do; it was killed (SIGSYS)",
                          phase);
    if (!strcmp(what, "crash") && !strcmp(detail, "connection") && !strcmp(who, "yours"))
        return grade_strf("broke its connection to the harness in %s() of your lab (it wrote into the memory or a "
                          "descriptor the two processes share), so nothing more of it could run",
                          phase);
    if (!strcmp(what, "crash"))
        return grade_strf("crashed with %s in %s() of %s%s", detail, phase, whose, blame);
    if (!strcmp(what, "timeout"))
        return grade_strf("timed out: still running after %d s, in %s() of %s (an endless loop, or a wait for "
                          "something that never happens)",
                          timeout_s, phase, whose);
    if (!strcmp(what, "exit"))
        return grade_strf("called exit() in %s() of %s, before the harness had checked anything%s", phase, whose,
                          blame);
    return grade_strf("the lab stopped: %s", reason);
}

static int harness_timeout(const grade_run_settings *s) {
    return s->harness_timeout_s > 0 ? s->harness_timeout_s : GRADE_HARNESS_TIMEOUT_S;
}

static char *failure_words(grade_attempt *a, const grade_run_settings *s, const stream_state *st) {
    const grade_outcome *o = &a->outcome;
    switch (o->end) {
    case GRADE_END_WALL:
        /* The watchdog's: whose phase it stopped the program in says whose fault it is. */
        if (st->announced && st->side == SIDE_HARNESS) {
            a->host_problem = true;
            char budget[48];
            snprintf(budget, sizeof(budget), "%d s", harness_timeout(s) + GRACE_S);
            return host_words(budget, st->phase, !strcmp(st->who, "baseline") ? "the baseline" : "the harness");
        }
        if (st->announced)
            return grade_strf("did not finish: still running after %d s of its own time, in %s() of your lab, so it "
                              "was stopped (an endless loop or a wait that never ends, with the harness's own timer "
                              "disabled)",
                              s->timeout_s + GRACE_S, st->phase);
        return grade_strf("did not finish: still running after %d s, before the harness had started (in code of "
                          "the submission that runs before main()?), so it was stopped",
                          s->timeout_s + GRACE_S);
    case GRADE_END_MEMORY:
        return grade_strf("used more than %ld MiB of memory, so it was stopped (allocating without bound?)", s->mem_mb);
    case GRADE_END_FLOOD:
        return grade_strf("wrote more than %zu MiB to the event stream, so it was stopped", EVENTS_CAP >> 20);
    case GRADE_END_SCRATCH: return grade_strdup(o->error); /* "wrote more than N MiB into its scratch folder..." */
    case GRADE_END_NOT_STARTED: return grade_strf("grader problem: %s", o->error);
    default: break;
    }
    if (a->have_bye && a->bye_reason[0]) return bye_words(a->bye_reason, s, &a->host_problem);
    if (o->end == GRADE_END_SIGNAL) {
        switch (o->code) {
        case SIGXCPU:
        case SIGXFSZ: return limit_words(o->code, s, "");
        case SIGSYS:
            return grade_strdup("tried to start a new process (fork, vfork or clone), which a lab may not do; it was "
                                "killed (SIGSYS)");
        case SIGKILL:
            return grade_strdup("was killed (SIGKILL), probably by the system for using too much memory");
        default: return grade_strf("crashed with %s (with the harness's crash reporting turned off)", grade_signal_name(o->code));
        }
    }
    if (o->code == 64) return grade_strdup("grader problem: the lab binary rejected the grader's options (exit status 64)");
    return grade_strf("ended (exit status %d) without a result from the harness: did the code call _exit() or "
                      "exec(), or close the event stream?",
                      o->code);
}

static char *read_head(const char *path, size_t max, bool *cut, off_t *size) {
    char *data = NULL;
    size_t len = 0;
    char err[256];
    struct stat st;
    *size = stat(path, &st) == 0 ? st.st_size : 0;
    if (grade_read_file(path, max, &data, &len, cut, err, sizeof(err)) != 0) return grade_strdup("");
    char *clean = grade_text_clean(data, len, max);
    free(data);
    if (*cut && *size > (off_t)len) {
        char *more = grade_strf("%s%s[... %lld more bytes not shown]\n", clean, ends_with(clean, "\n") ? "" : "\n",
                                (long long)(*size - (off_t)len));
        free(clean);
        clean = more;
    }
    return clean;
}

int grade_run_lab(const grade_sandbox_config *cfg, const grade_kit *kit, const char *binary, const char *build_dir,
                  const char *run_dir, const char *log_dir, const grade_run_settings *settings, uint64_t seed,
                  grade_attempt *out) {
    memset(out, 0, sizeof(*out));
    out->seed = seed;
    char err[600];
    char *out_path = grade_path_join(log_dir, "stdout.txt");
    char *err_path = grade_path_join(log_dir, "stderr.txt");
    int out_fd = -1, err_fd = -1, lock_fd = -1;
    int pipefd[2] = {-1, -1};
    stream_state st = {.a = out, .last_yours_run = -1};

    if (grade_rm_rf(run_dir, err, sizeof(err)) || grade_mkdir_p(run_dir, 0700, err, sizeof(err)) ||
        grade_sandbox_give(cfg, run_dir, err, sizeof(err)) || grade_mkdir_p(log_dir, 0700, err, sizeof(err))) {
        out->failure = grade_strf("grader problem: %s", err);
        out->grader_fault = true;
        goto done;
    }
    out_fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    err_fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (out_fd < 0 || err_fd < 0 || pipe2(pipefd, O_CLOEXEC) != 0) {
        out->failure = grade_strf("grader problem: cannot create the output files in %s: %s", log_dir, strerror(errno));
        out->grader_fault = true;
        goto done;
    }

    /* The memory the referee shares with the student's process: made here, outside the
     * run's file size limit, which a memory file's size counts against. */
    int shm_fds[2] = {-1, -1};
    const size_t shm_bytes[2] = {LAB_SHARED_BYTES, LAB_OUTPUTS_BYTES};
    for (int i = 0; i < 2; i++) {
        shm_fds[i] = memfd_create(i ? "streamlab-outputs" : "streamlab-shared", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        if (shm_fds[i] < 0 || ftruncate(shm_fds[i], (off_t)shm_bytes[i]) != 0) {
            out->failure = grade_strf("grader problem: cannot make the lab's shared memory: %s", strerror(errno));
            out->grader_fault = true;
            goto done;
        }
    }

    char nonce[33];
    grade_random_hex(nonce, 16);
    char *env_home = grade_strf("HOME=%s", run_dir);
    char *env_nonce = grade_strf("STREAMLAB_EVENTS_NONCE=%s", nonce);
    /* STREAMLAB_NO_SUBPROCESS: the harness's crash report must not start addr2line to name
     * the source line (the sandbox kills a lab that starts a process); it says how to look
     * the line up instead. */
    /* Where the child finds them: after the event stream (fd 3), in order (pass_fds). */
    char *envp[14] = {"PATH=/usr/bin:/bin", env_home, "LANG=C.UTF-8", env_nonce, "STREAMLAB_NO_SUBPROCESS=1",
                      LAB_SHM_FDS_ENV "=4,5", NULL};
    int ne = 6;
    if (kit->sanitized) {
        /* Sanitizer builds: no leak check at exit (the lab's end is the harness's), no
         * symbolizer process (lab programs may not start processes), and an error ends
         * the program with abort(), which the harness's guard reports with its phase. */
        envp[ne++] = "ASAN_OPTIONS=detect_leaks=0:symbolize=0:protect_shadow_gap=0:abort_on_error=1";
        envp[ne++] = "UBSAN_OPTIONS=print_stacktrace=0:abort_on_error=1";
    }
    /* The test hooks of labs/harness/budget.h, for the grader's own tests. */
    char *hooks[2] = {NULL, NULL};
    static const char *const hook_names[2] = {"STREAMLAB_TEST_SLOW_BASELINE_MS", "STREAMLAB_TEST_HARNESS_BUDGET_S"};
    for (int i = 0; i < 2; i++) {
        const char *v = getenv(hook_names[i]);
        if (v && *v) envp[ne++] = hooks[i] = grade_strf("%s=%s", hook_names[i], v);
    }
    envp[ne] = NULL;
    char seed_s[32], runs_s[16], sched_s[16], timeout_s[16], harness_s[16], width_s[16];
    snprintf(seed_s, sizeof(seed_s), "%llu", (unsigned long long)seed);
    snprintf(runs_s, sizeof(runs_s), "%d", settings->runs);
    snprintf(sched_s, sizeof(sched_s), "%d", settings->schedules);
    snprintf(timeout_s, sizeof(timeout_s), "%d", settings->timeout_s);
    snprintf(harness_s, sizeof(harness_s), "%d", harness_timeout(settings));
    snprintf(width_s, sizeof(width_s), "%d", settings->width > 0 ? settings->width : 100);
    /* The kit's lab binary referees the student's program (docs/referee.md): nothing the
     * grade depends on is linked with the student's code. */
    char *argv[26];
    int n = 0;
    argv[n++] = kit->referee;
    argv[n++] = "--student";
    argv[n++] = (char *)binary;
    argv[n++] = "--json";
    argv[n++] = "--events-fd";
    argv[n++] = "3";
    argv[n++] = "--seed";
    argv[n++] = seed_s;
    argv[n++] = "--runs";
    argv[n++] = runs_s;
    argv[n++] = "--schedules";
    argv[n++] = sched_s;
    argv[n++] = "--timeout";
    argv[n++] = timeout_s;
    argv[n++] = "--harness-timeout";
    argv[n++] = harness_s;
    argv[n++] = "--width";
    argv[n++] = width_s;
    char *profile = NULL;
    if (settings->profile && *settings->profile && !strcmp(kit->backend, "sim")) {
        profile = grade_strf("--profile=%s", settings->profile);
        argv[n++] = profile;
    }
    argv[n] = NULL;

    bool gpu = !strcmp(kit->backend, "gpu");
    static const char *const system_read[] = {"/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/etc/ld.so.cache",
                                              "/dev/null", "/dev/urandom", "/dev/zero"};
    const char *read_dirs[16];
    size_t nr = 0;
    for (size_t i = 0; i < sizeof(system_read) / sizeof(system_read[0]); i++) read_dirs[nr++] = system_read[i];
    read_dirs[nr++] = kit->dir;
    read_dirs[nr++] = build_dir;
    read_dirs[nr++] = run_dir;
    read_dirs[nr] = NULL;
    const char *write_dirs[] = {run_dir, NULL};
    grade_spawn s = {
        .argv = argv,
        .envp = envp,
        .cwd = run_dir,
        .stdout_fd = out_fd,
        .stderr_fd = err_fd,
        .events_fd = pipefd[1],
        .events_read_fd = pipefd[0],
        .pass_fds = shm_fds,
        .n_pass_fds = 2,
        .events_cap = EVENTS_CAP,
        .on_events = on_events,
        .ctx = &st,
        .limits =
            {
                /* Until the harness says where it is, the student's; then the watchdog's
                 * (announced()). */
                .wall_s = settings->timeout_s + GRACE_S,
                .cpu_s = cpu_limit_s(settings),
                .mem_mb = settings->mem_mb,
                /* Sanitizers and the CUDA driver reserve far more address space than they use;
                 * both processes map the memory they share whole (labs/referee/protocol.h). */
                .as_mb = (kit->sanitized || gpu)
                             ? 0
                             : 2 * settings->mem_mb + 1024 + (long)((LAB_SHARED_BYTES + LAB_OUTPUTS_BYTES) >> 20),
                .fsize_mb = settings->output_mb,
                .fsize_cut = settings->cut_output,
                .nproc = 256,
                .nofile = 1024,
            },
        .write_dirs = write_dirs,
        .scratch_dir = run_dir, /* its total size capped (grade_scratch.h) */
        /* Reads are confined where nothing needs /proc or the GPU's files. */
        .read_dirs = (kit->sanitized || gpu) ? NULL : read_dirs,
        .gpu = gpu,
        /* The referee starts the student's process and confines it (labs/referee/confine.h). */
        .processes = GRADE_PROCESSES_REFEREE,
    };
    st.reader = trace_events_reader_create(nonce);
    st.timeline = trace_timeline_create();
    st.spawn = &s;
    st.allowed[SIDE_YOURS] = settings->timeout_s + GRACE_S;
    st.allowed[SIDE_HARNESS] = harness_timeout(settings) + GRACE_S;
    st.side = SIDE_YOURS;

    if (settings->gpu_lock) {
        /* One timed program on the GPU at a time. */
        lock_fd = open(settings->gpu_lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (lock_fd >= 0)
            while (flock(lock_fd, LOCK_EX) != 0 && errno == EINTR) {
            }
    }
    st.start = st.since = now_s();
    grade_sandbox_run(cfg, &s, &out->outcome);
    st.spawn = NULL;
    for (int i = 0; i < 2; i++) {
        close(shm_fds[i]);
        shm_fds[i] = -1;
    }
    if (lock_fd >= 0) {
        flock(lock_fd, LOCK_UN);
        close(lock_fd);
        lock_fd = -1;
    }
    close(pipefd[1]);
    pipefd[1] = -1;
    trace_events_reader_end(st.reader);
    take_records(&st);
    free(env_home);
    free(env_nonce);
    free(hooks[0]);
    free(hooks[1]);
    free(profile);

    /* The races' source lines, which the sandboxed run could not look up. */
    if (out->result) grade_lines_fill(binary, build_dir, out->result);
    if (!out->result) {
        out->failure = failure_words(out, settings, &st);
        out->grader_fault = out->outcome.end == GRADE_END_NOT_STARTED || !strncmp(out->failure, "grader problem", 14);
    }
    if (st.last_yours_run > 0 && trace_timeline_count(st.timeline) > 0) {
        trace_text_options to = {
            .width = settings->width > 0 ? settings->width : 100,
            .utf8 = true,
            .run = st.last_yours_run,
            .legend = true,
        };
        out->timeline = trace_export_text(st.timeline, &to);
    }

    bool cut_out = false, cut_err = false;
    off_t out_size = 0, err_size = 0;
    close(out_fd);
    close(err_fd);
    out_fd = err_fd = -1;
    char *so = read_head(out_path, OUTPUT_SHOWN, &cut_out, &out_size);
    char *se = read_head(err_path, OUTPUT_SHOWN, &cut_err, &err_size);
    grade_buf b;
    grade_buf_init(&b);
    grade_buf_append(&b, "", 0);
    if (*se) grade_buf_printf(&b, "--- stderr (%lld bytes) ---\n%s%s", (long long)err_size, se, ends_with(se, "\n") ? "" : "\n");
    if (*so) grade_buf_printf(&b, "--- stdout (%lld bytes) ---\n%s%s", (long long)out_size, so, ends_with(so, "\n") ? "" : "\n");
    out->output = grade_buf_take(&b);
    /* The lines the run named by address, as in its result. */
    char *lined = grade_lines_in_text(binary, build_dir, out->output);
    if (lined) {
        free(out->output);
        out->output = lined;
    }
    out->output_cut = settings->cut_output && settings->output_mb > 0 &&
                      (out_size >= (off_t)settings->output_mb << 20 || err_size >= (off_t)settings->output_mb << 20);
    free(so);
    free(se);
done:
    for (int i = 0; i < 2; i++)
        if (shm_fds[i] >= 0) close(shm_fds[i]);
    if (out_fd >= 0) close(out_fd);
    if (err_fd >= 0) close(err_fd);
    if (pipefd[0] >= 0) close(pipefd[0]);
    if (pipefd[1] >= 0) close(pipefd[1]);
    trace_events_reader_destroy(st.reader);
    trace_timeline_destroy(st.timeline);
    free(out_path);
    free(err_path);
    if (!out->output) out->output = grade_strdup("");
    return out->failure && out->grader_fault ? -1 : 0;
}

void grade_attempt_free(grade_attempt *a) {
    cJSON_Delete(a->result);
    free(a->timeline);
    free(a->output);
    free(a->failure);
    memset(a, 0, sizeof(*a));
}
