/* labs/harness/guard.h: turns a crash, a hang or an early exit in lab code into a clear
 * report instead of a bare "Segmentation fault".
 *
 * The harness tells the guard which phase it is in (setup/run/teardown, of yours or the
 * baseline). A fatal signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT), the timeout
 * (SIGALRM) or a call to exit() before the harness finished prints which phase it was,
 * writes one prepared line to the live event stream, and ends the process with exit
 * status 2. A SIGSEGV or SIGBUS at an address inside a cudaMalloc'd buffer (the backend
 * knows them: backend.h) is reported as what it is, a host access to device memory, with
 * the buffer and what to do instead. After the report, a crash names the source line
 * where it happened when it can (source_line.h; a timeout, when the line is known).
 * The handler only does what is async-signal-safe: its messages are prepared or built
 * without stdio, and the line lookup forks and execs addr2line. */
#ifndef STREAMLAB_LAB_GUARD_H
#define STREAMLAB_LAB_GUARD_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Prepares the event-stream line for a fatal end: `what` is "crash" or "timeout" or
 * "exit", `detail` the signal name or the timeout, phase/who where it happened. Returns
 * a malloc'd line ending in '\n', or NULL to write none. */
typedef char *(*lab_guard_line_fn)(void *ctx, const char *what, const char *detail,
                                   const char *phase, const char *who);

/* Installs the handlers and starts the timeout (0: none). */
void lab_guard_install(const char *lab_id, int timeout_s, int events_fd, lab_guard_line_fn line_fn,
                       void *line_ctx);
/* Says where the program is now. phase and who must be string literals. */
void lab_guard_phase(const char *phase, const char *who);
/* The harness finished: exit() is expected from now on, and the timer is stopped. */
void lab_guard_done(void);

#ifdef __cplusplus
}
#endif

#endif
