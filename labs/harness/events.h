/* labs/harness/events.h: the lab's side of the live event stream (--events-fd): the
 * trace writer installed as a recorder sink, plus the records only the harness knows
 * (hello, progress, result, bye), the prepared line the crash guard writes, and its
 * announcements of where the harness is. Every function accepts NULL (no stream) and then
 * does nothing. */
#ifndef STREAMLAB_LAB_EVENTS_H
#define STREAMLAB_LAB_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "labs/harness/result.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lab_events lab_events;

/* Opens the stream on fd (-1: none, returns NULL with err empty). The nonce comes from
 * STREAMLAB_EVENTS_NONCE, which is then removed from the environment. NULL with err filled
 * when fd is not open for writing. */
lab_events *lab_events_open(int fd, const char *lab_id, char *err, size_t err_len);
void lab_events_hello(lab_events *ev, const lab_result *r);
/* Starts writing streams, ops and races as the recorder sees them. */
void lab_events_install(lab_events *ev);
/* "run 3/5 (yours)": done of total runs (warm-ups, timed runs, schedules) have finished. */
void lab_events_progress(lab_events *ev, const char *label, int done, int total);
/* The result record (the --json object) and the closing bye. */
void lab_events_result(lab_events *ev, const lab_result *r);
/* The bye line the crash guard writes if the lab dies (see guard.h): status 2, or
 * LAB_EXIT_HOST when what is "slow_host". */
char *lab_events_fatal_line(void *ev, const char *what, const char *detail, const char *phase, const char *who);
/* The crash guard's announcement of a phase as it begins (see guard.h): a "phase" record
 * named "in <phase> (<who>)", with start = end = now_ns and run -1, written at once. */
void lab_events_where(void *ev, const char *phase, const char *who, uint64_t now_ns);
void lab_events_close(lab_events *ev);

#ifdef __cplusplus
}
#endif

#endif
