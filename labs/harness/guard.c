/* labs/harness/guard.c: fatal-signal, timeout and early-exit reporting, and the two time
 * budgets (see guard.h). */
#define _XOPEN_SOURCE 700
#include "labs/harness/guard.h"

#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "labs/harness/backend.h"
#include "labs/harness/fault.h"
#include "labs/harness/options.h"
#include "labs/harness/sig_text.h"
#include "labs/harness/source_line.h"

#define MSG_MAX 512

enum { F_SEGV, F_BUS, F_FPE, F_ILL, F_ABRT, F_ALRM, F_EXIT, F_COUNT };

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGALRM};

static const char *const detail_names[F_COUNT] = {
    "SIGSEGV", "SIGBUS", "SIGFPE", "SIGILL", "SIGABRT", "timeout", "exit",
};

static const char *const detail_words[F_COUNT] = {
    "a segmentation fault (a bad pointer: a device pointer used on the host, or an index "
    "past the end of a buffer)",
    "a bus error (a bad or misaligned pointer)",
    "an arithmetic fault (division by zero?)",
    "an illegal instruction",
    "abort() (an assertion failed, or memory was freed twice)",
    "the time limit",
    "exit() called before the harness finished",
};

enum { SIDE_YOURS = 0, SIDE_HARNESS = 1 };

static struct guard {
    const char *lab_id;
    int timeout_s;
    int events_fd;
    lab_guard_line_fn line_fn;
    lab_guard_where_fn where_fn;
    void *ctx;
    volatile sig_atomic_t done;
    const char *phase;
    const char *who;
    volatile sig_atomic_t side;  /* whose budget the current phase uses */
    uint64_t budget_ns[2];       /* 0: none */
    uint64_t used_ns[2];         /* charged before the current phase began */
    uint64_t since_ns;           /* when the current phase began (CLOCK_MONOTONIC) */
    char messages[F_COUNT][MSG_MAX];
    char *lines[F_COUNT];
    char prefix[MSG_MAX]; /* "\nstreamlab: LAB: run() of your lab" */
} G = {.events_fd = -1};

static uint64_t mono_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void write_all(int fd, const char *s, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w <= 0) return;
        s += w;
        n -= (size_t)w;
    }
}

/* Seconds, for messages: whole ones, rounded up (a budget of 0.2 s reads "1 s"). */
static unsigned long long whole_s(uint64_t ns) { return (unsigned long long)((ns + 999999999ull) / 1000000000ull); }

/* Prepares what each kind of end would print in the current phase. The timer's end is
 * the student's timeout in a phase of yours, and a host too slow for the harness's own
 * work in any other. */
static void prepare(void) {
    bool student = G.side == SIDE_YOURS;
    const char *whose = student ? "your lab" : G.who;
    snprintf(G.prefix, MSG_MAX, "\nstreamlab: %s: %s() of %s", G.lab_id, G.phase, whose);
    char budget[32];
    snprintf(budget, sizeof(budget), "%llus", whole_s(G.budget_ns[SIDE_HARNESS]));
    for (int k = 0; k < F_COUNT; k++) {
        if (k == F_ALRM && student)
            snprintf(G.messages[k], MSG_MAX,
                     "\nstreamlab: %s: stopped after %d s in %s() of %s: it seems to hang (an "
                     "endless loop, or waiting for something that never happens). Use "
                     "--timeout to allow longer.\n",
                     G.lab_id, G.timeout_s, G.phase, whose);
        else if (k == F_ALRM)
            snprintf(G.messages[k], MSG_MAX,
                     "\nstreamlab: %s: stopped in %s() of the %s: the harness's own work (the baseline, checking "
                     "results, the report) took more than its %llu s, so this machine is too slow or too busy "
                     "right now. Your code is not at fault (it had used %.1f of its %d s). Run the lab again "
                     "when the machine is less busy.\n",
                     G.lab_id, G.phase, G.who, whole_s(G.budget_ns[SIDE_HARNESS]),
                     (double)G.used_ns[SIDE_YOURS] / 1e9, G.timeout_s);
        else if (k == F_EXIT)
            snprintf(G.messages[k], MSG_MAX,
                     "\nstreamlab: %s: the program called exit() in %s() of %s, before the "
                     "harness could check anything. Return from %s() instead (non-zero for "
                     "failure).\n",
                     G.lab_id, G.phase, whose, G.phase);
        else
            snprintf(G.messages[k], MSG_MAX,
                     "\nstreamlab: %s: %s() of %s crashed with %s: %s.\n", G.lab_id, G.phase,
                     whose, detail_names[k], detail_words[k]);
        free(G.lines[k]);
        G.lines[k] = NULL;
        if (G.line_fn && G.events_fd >= 0) {
            const char *what = k == F_ALRM ? (student ? "timeout" : "slow_host") : k == F_EXIT ? "exit" : "crash";
            const char *detail = k == F_ALRM && !student ? budget : detail_names[k];
            G.lines[k] = G.line_fn(G.ctx, what, detail, G.phase, G.who);
        }
    }
}

static void write_text(int fd, const lab_sig_text *t) { write_all(fd, t->buf, t->len); }

/* The message for a host access to device memory: what it touched, and what to do
 * instead. */
static void device_message(lab_sig_text *t, int k, const lab_fault *f, uintptr_t base, size_t bytes) {
    lab_sig_put(t, G.prefix);
    lab_sig_put(t, " crashed with ");
    lab_sig_put(t, detail_names[k]);
    lab_sig_put(t, f->access == LAB_FAULT_READ    ? ": it read device memory from the host"
                   : f->access == LAB_FAULT_WRITE ? ": it wrote device memory from the host"
                                                  : ": it read or wrote device memory from the host");
    lab_sig_put(t, " (address ");
    lab_sig_put_hex(t, f->addr);
    uint64_t offset = f->addr - base;
    if (offset < bytes) {
        lab_sig_put(t, ": byte ");
        lab_sig_put_dec(t, offset);
        lab_sig_put(t, " of a ");
    } else {
        lab_sig_put(t, ": ");
        lab_sig_put_dec(t, offset - bytes);
        lab_sig_put(t, " bytes past the end of a ");
    }
    lab_sig_put_dec(t, bytes);
    lab_sig_put(t, "-byte buffer from cudaMalloc at ");
    lab_sig_put_hex(t, base);
    lab_sig_put(t, "). Host code cannot touch device memory (on a GPU it crashes just the same): ");
    if (f->access == LAB_FAULT_WRITE)
        lab_sig_put(t, "write host memory, then copy it to the device with cudaMemcpy or cudaMemcpyAsync (or "
                       "set it with cudaMemset).\n");
    else
        lab_sig_put(t, "copy the data back to host memory with cudaMemcpy or cudaMemcpyAsync first (and wait for "
                       "the copy), then read the host copy.\n");
}

/* The message for a host write into a result (lab_output): the student's process may read
 * its results, and only the device's copies write them. */
static void result_message(lab_sig_text *t, int k, const lab_fault *f) {
    lab_sig_put(t, G.prefix);
    lab_sig_put(t, " crashed with ");
    lab_sig_put(t, detail_names[k]);
    lab_sig_put(t, ": it wrote batch ");
    lab_sig_put_dec(t, (uint64_t)f->result_batch);
    lab_sig_put(t, "'s result from the host (lab_output(ctx, ");
    lab_sig_put_dec(t, (uint64_t)f->result_batch);
    lab_sig_put(t, "), byte ");
    lab_sig_put_dec(t, f->result_offset);
    lab_sig_put(t, " of ");
    lab_sig_put_dec(t, f->result_bytes);
    lab_sig_put(t, "). Your code may read lab_output but not write it: a result must be the device's work, "
                   "copied there from device memory with cudaMemcpy or cudaMemcpyAsync (device to host)");
    lab_sig_put(t, f->result_pinned ? ". It is page-locked already: copy into it directly, not through a host "
                                      "buffer of your own.\n"
                                    : ".\n");
}

/* Where in the source the fault happened, as far as can be told. Timeouts say it only
 * when the line is known. */
static void where_line(lab_sig_text *t, int k, const lab_fault *f) {
    char line[600];
    uintptr_t offset = 0;
    lab_line_result r = lab_source_line_of(f->frames, f->n_frames, line, sizeof(line), &offset);
    if (r == LAB_LINE_FOUND) {
        lab_sig_put(t, k == F_ALRM ? "  it was at " : "  at ");
        lab_sig_put(t, line);
        lab_sig_put(t, "\n");
        return;
    }
    if (k == F_ALRM) return;
    switch (r) {
    case LAB_LINE_NOT_IN_BINARY:
        lab_sig_put(t, "  (no source line: the fault is outside the lab binary's own code)\n");
        return;
    case LAB_LINE_NO_INFO:
        lab_sig_put(t, "  (no source line: the code that faulted was not compiled with line information, as "
                       "the lab's own file is)\n");
        return;
    case LAB_LINE_NO_TOOL: lab_sig_put(t, "  (no source line: addr2line, from binutils, was not found"); break;
    case LAB_LINE_NOT_ALLOWED: lab_sig_put(t, "  (the source line was not looked up: this run may not start addr2line"); break;
    default: lab_sig_put(t, "  (no source line: addr2line did not answer"); break;
    }
    lab_sig_put(t, "; to look it up: addr2line -e ");
    /* Frames of the student's process are looked up in its own binary. */
    bool theirs = false;
    for (size_t i = 0; i < f->n_frames; i++) theirs |= (f->frames[i] & LAB_SOURCE_LINE_STUDENT) != 0;
    lab_sig_put(t, theirs && *lab_source_line_student() ? lab_source_line_student() : lab_source_line_binary());
    lab_sig_put(t, " ");
    lab_sig_put_hex(t, offset);
    lab_sig_put(t, ")\n");
}

static void finish(int k, const lab_fault *f) {
    char buf[2048];
    lab_sig_text t = lab_sig_text_on(buf, sizeof(buf));
    const void *base = NULL;
    size_t bytes = 0;
    if (k == F_SEGV && f && f->in_result)
        result_message(&t, k, f);
    else if ((k == F_SEGV || k == F_BUS) && f && f->addr && lab_backend_device_allocation(f->addr, &base, &bytes))
        device_message(&t, k, f, (uintptr_t)base, bytes);
    else
        lab_sig_put(&t, G.messages[k]);
    write_text(STDERR_FILENO, &t);
    if (G.lines[k] && G.events_fd >= 0) write_all(G.events_fd, G.lines[k], strlen(G.lines[k]));
    bool host = k == F_ALRM && G.side != SIDE_YOURS;
    /* Last, as it may take a moment (it starts addr2line): the report and the event
     * stream's last line are out already. Where the harness's own code was when the machine
     * ran out of time says nothing to the student. */
    if (f && k != F_EXIT && !host) {
        t = lab_sig_text_on(buf, sizeof(buf));
        where_line(&t, k, f);
        write_text(STDERR_FILENO, &t);
    }
    _exit(host ? LAB_EXIT_HOST : LAB_EXIT_FAIL);
}

/* Where the student's code is, when it runs in a process of its own (guard.h). */
static lab_guard_locate_fn G_locate;

void lab_guard_set_locator(lab_guard_locate_fn fn) { G_locate = fn; }

static void on_signal(int sig, siginfo_t *info, void *ucontext) {
    /* The timeout must not interrupt the report of a crash. */
    if (sig != SIGALRM) alarm(0);
    lab_fault f;
    lab_fault_read(sig, info, ucontext, &f);
    /* The student's time ran out in their own process: where that process is, not this one. */
    if (sig == SIGALRM && G.side == SIDE_YOURS && G_locate && !G_locate(&f)) memset(&f, 0, sizeof(f));
    for (int k = 0; k < F_EXIT; k++)
        if (fatal_signals[k] == sig) finish(k, &f);
    _exit(LAB_EXIT_FAIL);
}

static void on_exit_early(void) {
    if (!G.done) finish(F_EXIT, NULL);
}

/* Puts the handlers back (code of yours may have replaced them) and unblocks SIGALRM. */
static void install_handlers(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
        sigaction(fatal_signals[i], &sa, NULL);
}

static void block_alarm(bool block) {
    sigset_t alarm_only;
    sigemptyset(&alarm_only);
    sigaddset(&alarm_only, SIGALRM);
    sigprocmask(block ? SIG_BLOCK : SIG_UNBLOCK, &alarm_only, NULL);
}

/* Sets the timer to ns from now (0: off). */
static void set_timer(uint64_t ns) {
    struct itimerval it;
    memset(&it, 0, sizeof(it));
    it.it_value.tv_sec = (time_t)(ns / 1000000000ull);
    it.it_value.tv_usec = (suseconds_t)(ns % 1000000000ull / 1000);
    if (ns > 0 && it.it_value.tv_sec == 0 && it.it_value.tv_usec == 0) it.it_value.tv_usec = 1;
    setitimer(ITIMER_REAL, &it, NULL);
}

/* Charges the time since the current phase began to its side. Returns true when that
 * side's budget is spent. */
static bool charge(uint64_t now) {
    int side = G.side;
    G.used_ns[side] += now > G.since_ns ? now - G.since_ns : 0;
    G.since_ns = now;
    return G.budget_ns[side] > 0 && G.used_ns[side] >= G.budget_ns[side];
}

/* Arms the timer for what is left of the current side's budget. */
static void arm(void) {
    uint64_t budget = G.budget_ns[G.side];
    if (budget == 0 || G.done) {
        set_timer(0);
        return;
    }
    uint64_t used = G.used_ns[G.side];
    set_timer(used < budget ? budget - used : 1);
}

static uint64_t ns_of(double seconds) { return seconds > 0 ? (uint64_t)llround(seconds * 1e9) : 0; }

void lab_guard_install(const lab_guard_config *c) {
    G.lab_id = c->lab_id;
    G.timeout_s = c->timeout_s;
    G.events_fd = c->events_fd;
    G.line_fn = c->line_fn;
    G.where_fn = c->where_fn;
    G.ctx = c->ctx;
    G.budget_ns[SIDE_YOURS] = c->timeout_s > 0 ? (uint64_t)c->timeout_s * 1000000000ull : 0;
    G.budget_ns[SIDE_HARNESS] = ns_of(c->harness_s);
    G.phase = "start";
    G.who = "harness";
    G.side = SIDE_HARNESS;
    prepare();
    lab_fault_prepare();
    lab_source_line_prepare();

    /* Handlers run on their own stack, so a stack overflow is reported too. */
    static char alt_stack[64 * 1024];
    stack_t ss = {.ss_sp = alt_stack, .ss_size = sizeof(alt_stack), .ss_flags = 0};
    sigaltstack(&ss, NULL);
    install_handlers();
    atexit(on_exit_early);
    if (G.where_fn) G.where_fn(G.ctx, G.phase, G.who, lab_backend_now_ns());
    G.since_ns = mono_ns();
    arm();
    block_alarm(false);
}

void lab_guard_phase(const char *phase, const char *who) {
    if (G.done) return;
    /* No timer while the books are kept: a budget that ran out just now is reported for
     * the phase that spent it, not for the next one. */
    block_alarm(true);
    set_timer(0);
    sigset_t pending;
    if (sigpending(&pending) == 0 && sigismember(&pending, SIGALRM)) {
        sigset_t alarm_only;
        sigemptyset(&alarm_only);
        sigaddset(&alarm_only, SIGALRM);
        struct timespec zero = {0, 0};
        sigtimedwait(&alarm_only, NULL, &zero);
    }
    uint64_t now = mono_ns();
    if (charge(now)) finish(F_ALRM, NULL);
    G.phase = phase;
    G.who = who;
    G.side = who && !strcmp(who, "yours") ? SIDE_YOURS : SIDE_HARNESS;
    /* Saying where it is takes the harness's time, whoever's phase begins. */
    if (G.where_fn) {
        G.where_fn(G.ctx, phase, who, lab_backend_now_ns());
        uint64_t after = mono_ns();
        G.used_ns[SIDE_HARNESS] += after > now ? after - now : 0;
        G.since_ns = after;
    }
    prepare();
    install_handlers();
    arm();
    block_alarm(false);
}

void lab_guard_set_harness_budget(double seconds) {
    block_alarm(true);
    set_timer(0);
    G.budget_ns[SIDE_HARNESS] = ns_of(seconds);
    if (charge(mono_ns())) finish(F_ALRM, NULL);
    prepare();
    arm();
    block_alarm(false);
}

static double side_s(int side) {
    uint64_t used = G.used_ns[side];
    if (G.side == side && !G.done) {
        uint64_t now = mono_ns();
        used += now > G.since_ns ? now - G.since_ns : 0;
    }
    return (double)used / 1e9;
}

double lab_guard_harness_s(void) { return side_s(SIDE_HARNESS); }

void lab_guard_student_ended(int sig, int exit_status, const lab_fault *f) {
    alarm(0);
    set_timer(0);
    if (sig == 0) finish(F_EXIT, NULL);
    for (int k = 0; k < F_EXIT; k++)
        if (fatal_signals[k] == sig && k != F_ALRM) finish(k, f);
    /* A signal the guard does not catch in one process: killed from outside, or by its
     * seccomp filter (labs/referee/confine.h). */
    /* One word (the event stream's bye line is parsed by words). */
    char detail[32];
    const char *name = cli_signal_name(sig);
    if (name) snprintf(detail, sizeof(detail), "%s", name);
    else snprintf(detail, sizeof(detail), "signal-%d", sig);
    if (sig == SIGSYS)
        fprintf(stderr,
                "\nstreamlab: %s: %s() of your lab tried to start a new process (fork, vfork or clone), or to "
                "open a socket, a mount or a memory file, which a lab may not do: its process was killed "
                "(SIGSYS).\n",
                G.lab_id, G.phase);
    else
        fprintf(stderr, "\nstreamlab: %s: %s() of your lab: its process was killed by %s (%s).\n", G.lab_id,
                G.phase, detail, strsignal(sig));
    (void)exit_status;
    if (G.line_fn && G.events_fd >= 0) {
        char *line = G.line_fn(G.ctx, "crash", detail, G.phase, G.who);
        if (line) write_all(G.events_fd, line, strlen(line));
        free(line);
    }
    _exit(LAB_EXIT_FAIL);
}

void lab_guard_student_broke(void) {
    alarm(0);
    set_timer(0);
    fprintf(stderr,
            "streamlab: %s: %s() of your lab broke its connection to the harness (it wrote into the memory or "
            "a descriptor the two processes share), so nothing more of it can run.\n",
            G.lab_id, G.phase);
    if (G.line_fn && G.events_fd >= 0) {
        char *line = G.line_fn(G.ctx, "crash", "connection", G.phase, G.who);
        if (line) write_all(G.events_fd, line, strlen(line));
        free(line);
    }
    _exit(LAB_EXIT_FAIL);
}

void lab_guard_done(void) {
    if (!G.done) charge(mono_ns());
    G.done = 1;
    set_timer(0);
    for (int k = 0; k < F_COUNT; k++) {
        free(G.lines[k]);
        G.lines[k] = NULL;
    }
}
