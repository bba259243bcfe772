/* labs/harness/guard.c: fatal-signal, timeout and early-exit reporting (see guard.h). */
#define _XOPEN_SOURCE 700
#include "labs/harness/guard.h"

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    char prefix[MSG_MAX]; /* "\nstreamlab: LAB: run() of your lab" */
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
    snprintf(G.prefix, MSG_MAX, "\nstreamlab: %s: %s() of %s", G.lab_id, G.phase, student ? "your lab" : G.who);
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
    lab_sig_put(t, lab_source_line_binary());
    lab_sig_put(t, " ");
    lab_sig_put_hex(t, offset);
    lab_sig_put(t, ")\n");
}

static void finish(int k, const lab_fault *f) {
    char buf[2048];
    lab_sig_text t = lab_sig_text_on(buf, sizeof(buf));
    const void *base = NULL;
    size_t bytes = 0;
    if ((k == F_SEGV || k == F_BUS) && f && f->addr && lab_backend_device_allocation(f->addr, &base, &bytes))
        device_message(&t, k, f, (uintptr_t)base, bytes);
    else
        lab_sig_put(&t, G.messages[k]);
    write_text(STDERR_FILENO, &t);
    if (G.lines[k] && G.events_fd >= 0) write_all(G.events_fd, G.lines[k], strlen(G.lines[k]));
    /* Last, as it may take a moment (it starts addr2line): the report and the event
     * stream's last line are out already. */
    if (f && k != F_EXIT) {
        t = lab_sig_text_on(buf, sizeof(buf));
        where_line(&t, k, f);
        write_text(STDERR_FILENO, &t);
    }
    _exit(LAB_EXIT_FAIL);
}

static void on_signal(int sig, siginfo_t *info, void *ucontext) {
    /* The timeout must not interrupt the report of a crash. */
    if (sig != SIGALRM) alarm(0);
    lab_fault f;
    lab_fault_read(sig, info, ucontext, &f);
    for (int k = 0; k < F_EXIT; k++)
        if (fatal_signals[k] == sig) finish(k, &f);
    _exit(LAB_EXIT_FAIL);
}

static void on_exit_early(void) {
    if (!G.done) finish(F_EXIT, NULL);
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
    lab_fault_prepare();
    lab_source_line_prepare();

    /* Handlers run on their own stack, so a stack overflow is reported too. */
    static char alt_stack[64 * 1024];
    stack_t ss = {.ss_sp = alt_stack, .ss_size = sizeof(alt_stack), .ss_flags = 0};
    sigaltstack(&ss, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
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
