/* labs/harness/guard.c: fatal-signal, timeout and early-exit reporting (see guard.h). */
#define _XOPEN_SOURCE 700
#include "labs/harness/guard.h"

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "labs/harness/options.h"

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

static struct guard {
    const char *lab_id;
    int timeout_s;
    int events_fd;
    lab_guard_line_fn line_fn;
    void *line_ctx;
    volatile sig_atomic_t done;
    const char *phase;
    const char *who;
    char messages[F_COUNT][MSG_MAX];
    char *lines[F_COUNT];
} G = {.events_fd = -1};

static void write_all(int fd, const char *s, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w <= 0) return;
        s += w;
        n -= (size_t)w;
    }
}

/* Prepares what each kind of end would print in the current phase. */
static void prepare(void) {
    bool student = G.who && !strcmp(G.who, "yours");
    for (int k = 0; k < F_COUNT; k++) {
        if (k == F_ALRM)
            snprintf(G.messages[k], MSG_MAX,
                     "\nstreamlab: %s: stopped after %d s in %s() of %s: it seems to hang (an "
                     "endless loop, or waiting for something that never happens). Use "
                     "--timeout to allow longer.\n",
                     G.lab_id, G.timeout_s, G.phase, student ? "your lab" : G.who);
        else if (k == F_EXIT)
            snprintf(G.messages[k], MSG_MAX,
                     "\nstreamlab: %s: the program called exit() in %s() of %s, before the "
                     "harness could check anything. Return from %s() instead (non-zero for "
                     "failure).\n",
                     G.lab_id, G.phase, student ? "your lab" : G.who, G.phase);
        else
            snprintf(G.messages[k], MSG_MAX,
                     "\nstreamlab: %s: %s() of %s crashed with %s: %s.\n", G.lab_id, G.phase,
                     student ? "your lab" : G.who, detail_names[k], detail_words[k]);
        free(G.lines[k]);
        G.lines[k] = NULL;
        if (G.line_fn && G.events_fd >= 0) {
            const char *what = k == F_ALRM ? "timeout" : k == F_EXIT ? "exit" : "crash";
            G.lines[k] = G.line_fn(G.line_ctx, what, detail_names[k], G.phase, G.who);
        }
    }
}

static void finish(int k) {
    write_all(STDERR_FILENO, G.messages[k], strlen(G.messages[k]));
    if (G.lines[k] && G.events_fd >= 0) write_all(G.events_fd, G.lines[k], strlen(G.lines[k]));
    _exit(LAB_EXIT_FAIL);
}

static void on_signal(int sig) {
    for (int k = 0; k < F_EXIT; k++)
        if (fatal_signals[k] == sig) finish(k);
    _exit(LAB_EXIT_FAIL);
}

static void on_exit_early(void) {
    if (!G.done) finish(F_EXIT);
}

void lab_guard_install(const char *lab_id, int timeout_s, int events_fd, lab_guard_line_fn line_fn,
                       void *line_ctx) {
    G.lab_id = lab_id;
    G.timeout_s = timeout_s;
    G.events_fd = events_fd;
    G.line_fn = line_fn;
    G.line_ctx = line_ctx;
    G.phase = "start";
    G.who = "harness";
    prepare();

    /* Handlers run on their own stack, so a stack overflow is reported too. */
    static char alt_stack[64 * 1024];
    stack_t ss = {.ss_sp = alt_stack, .ss_size = sizeof(alt_stack), .ss_flags = 0};
    sigaltstack(&ss, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
        sigaction(fatal_signals[i], &sa, NULL);
    atexit(on_exit_early);
    if (timeout_s > 0) alarm((unsigned)timeout_s);
}

void lab_guard_phase(const char *phase, const char *who) {
    G.phase = phase;
    G.who = who;
    prepare();
}

void lab_guard_done(void) {
    G.done = 1;
    alarm(0);
    for (int k = 0; k < F_COUNT; k++) {
        free(G.lines[k]);
        G.lines[k] = NULL;
    }
}
