/* tui/child.h: a lab program run as a child process, so that a crashing lab never takes
 * the timeline down. Its live event stream comes on a pipe at its descriptor 3
 * (`--events-fd 3`), its stdout and stderr on two more pipes (kept, never drawn over the
 * screen), its stdin is /dev/null, and it runs in its own process group so that it can
 * be stopped with everything it started. The reading side never blocks: the loop polls
 * the descriptors and pumps what is there into the session. */
#ifndef STREAMLAB_TUI_CHILD_H
#define STREAMLAB_TUI_CHILD_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "tui/session.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The descriptor the child's event stream is on. */
#define TUI_CHILD_EVENTS_FD 3

typedef struct tui_child {
    pid_t pid;       /* 0: no process (none started, or a replayed file) */
    int fd[3];       /* events, stdout, stderr: the reading ends, -1 when closed */
    bool running;    /* the process has not been reaped yet */
    int wait_status;
} tui_child;

void tui_child_init(tui_child *c);

/* Starts argv (argv[0] is the program's path) with extra environment entries ("NAME=value",
 * NULL-terminated, may be NULL) replacing any of the same name. Returns 0, or -1 with a
 * message in err (the program does not exist, is not executable, ...). */
int tui_child_start(tui_child *c, char *const argv[], char *const extra_env[], char *err, size_t err_size);
/* Reads an event stream from an open descriptor instead of a process (a recorded file,
 * or a pipe). The descriptor becomes the child's. */
void tui_child_attach(tui_child *c, int fd);

/* Whether any descriptor is still open, or the process still runs. */
bool tui_child_active(const tui_child *c);
/* Adds the open descriptors to fds; returns how many were added (at most 3). */
int tui_child_pollfds(const tui_child *c, struct pollfd *fds);
/* Reads what is there (at most budget bytes per descriptor) into the session: events,
 * output; at EOF closes the descriptor (and ends the session's event stream). Reaps the
 * process once it exits and its pipes are drained, and tells the session. Returns true
 * when anything changed. */
bool tui_child_pump(tui_child *c, tui_session *s, size_t budget, double now_ms);
/* Stops the process group (SIGTERM, then SIGKILL after grace_ms), reaps it and closes the
 * descriptors. The session is not told. */
void tui_child_stop(tui_child *c, int grace_ms);

/* A fresh random nonce (hex) for the event stream. */
void tui_child_make_nonce(char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
