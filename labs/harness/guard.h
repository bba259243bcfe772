/* labs/harness/guard.h: turns a crash, a hang or an early exit in lab code into a clear
 * report instead of a bare "Segmentation fault", and keeps the two time budgets of a lab
 * run apart.
 *
 * The harness tells the guard which phase it is in (setup/run/teardown of yours, or a
 * phase of the baseline or of the harness itself). Time is charged to the side the phase
 * belongs to:
 *
 *   yours    the student's setup(), run() (with the waiting for the work it left on the
 *            device) and teardown(): --timeout, the student's budget, counts only these;
 *   harness  everything else (the baseline's phases, checking results, the bound, the
 *            report): its own budget, scaled to the machine by the runner
 *            (lab_guard_set_harness_budget; budget.h says how).
 *
 * A fatal signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT), a budget running out
 * (SIGALRM, armed for what is left of the current side's budget at every phase change) or
 * a call to exit() before the harness finished prints which phase it was, writes one
 * prepared line to the live event stream, and ends the process. Yours running out is the
 * student's timeout (exit status 2, bye "timeout: timeout in run (yours)"); the harness's
 * running out is the machine's fault, never the student's (exit status LAB_EXIT_HOST, bye
 * "slow_host: <budget>s in <phase> (<who>)"). A SIGSEGV or SIGBUS at an address inside a
 * cudaMalloc'd buffer (the backend knows them: backend.h) is reported as what it is, a
 * host access to device memory, with the buffer and what to do instead. After the report,
 * a crash names the source line where it happened when it can (source_line.h; a timeout,
 * when the line is known). The handler only does what is async-signal-safe: its messages
 * are prepared or built without stdio, and the line lookup forks and execs addr2line.
 *
 * At every phase change the guard puts its SIGALRM handler back, unblocks SIGALRM and
 * re-arms the timer, so code of yours that took them over cannot stop the harness's own
 * phases from being timed; within a phase of yours it can, and the grader's watchdog
 * (grading/run/grade_runner.c) is what ends it then. Each phase is announced on the event
 * stream as it begins (events.h, lab_events_where), so that the watchdog knows whose time
 * is passing. */
#ifndef STREAMLAB_LAB_GUARD_H
#define STREAMLAB_LAB_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Prepares the event-stream line for a fatal end: `what` is "crash", "timeout",
 * "slow_host" or "exit", `detail` the signal name, "timeout" or the harness's budget
 * ("75s"), phase/who where it happened. Returns a malloc'd line ending in '\n', or NULL to
 * write none. */
typedef char *(*lab_guard_line_fn)(void *ctx, const char *what, const char *detail, const char *phase,
                                   const char *who);
/* Announces a phase as it begins (may be NULL). now_ns: lab_backend_now_ns(). */
typedef void (*lab_guard_where_fn)(void *ctx, const char *phase, const char *who, uint64_t now_ns);

typedef struct lab_guard_config {
    const char *lab_id;
    int timeout_s;       /* the student's budget: seconds in phases of yours (0: none) */
    double harness_s;    /* the harness's budget until lab_guard_set_harness_budget (0: none) */
    int events_fd;       /* the live event stream, -1: none */
    lab_guard_line_fn line_fn;
    lab_guard_where_fn where_fn;
    void *ctx;           /* for both functions */
} lab_guard_config;

/* Installs the handlers and starts timing in the phase "start" of the harness. */
void lab_guard_install(const lab_guard_config *config);
/* Says where the program is now. phase and who must be string literals; who is "yours"
 * (the student's), "baseline" or "harness". */
void lab_guard_phase(const char *phase, const char *who);
/* The harness's whole budget, in seconds, counted from the start (0: none). */
void lab_guard_set_harness_budget(double seconds);
/* Seconds charged so far to the harness's phases. */
double lab_guard_harness_s(void);
/* The student's process (remote.h) ended in a phase of yours: killed by sig (0: it called
 * exit()), with f where it happened (its addresses marked LAB_SOURCE_LINE_STUDENT; may be
 * NULL). Reports it as a crash of one process is reported, and ends the program. */
struct lab_fault;
_Noreturn void lab_guard_student_ended(int sig, int exit_status, const struct lab_fault *f);
/* The student's process broke the channel the two processes share (wrote into its memory or
 * its descriptors) in a phase of yours: reported as the end of the run ("crash", detail
 * "connection"), after the words the caller printed; ends the program. */
_Noreturn void lab_guard_student_broke(void);
/* Where the student's process is now, asked when its time runs out (from the signal handler:
 * async-signal-safe): fills f's frames and returns true, or false when it cannot tell. */
typedef bool (*lab_guard_locate_fn)(struct lab_fault *f);
void lab_guard_set_locator(lab_guard_locate_fn fn);
/* The harness finished: exit() is expected from now on, and the timer is stopped. */
void lab_guard_done(void);

#ifdef __cplusplus
}
#endif

#endif
