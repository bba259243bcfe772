/* tui/session.h: one run of a lab program (yours or the reference) as the timeline knows
 * it: everything its live event stream said (who it is, its streams, each harness run's
 * ops, races, progress, the result and the closing bye), the lines the reader rejected,
 * what the program printed, and how it ended. It does no I/O: the child process
 * (child.h) hands it bytes and, at the end, the wait status. */
#ifndef STREAMLAB_TUI_SESSION_H
#define STREAMLAB_TUI_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "trace/stream/events_reader.h"
#include "trace/check/race.h"
#include "tui/run.h"
#include "tui/textlog.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tui_variant {
    TUI_YOURS = 0,    /* the student's labs/NN_topic/lab.c */
    TUI_REFERENCE = 1 /* solutions/NN_topic.c */
} tui_variant;

#define TUI_VARIANTS 2

/* "yours", "reference". */
const char *tui_variant_name(tui_variant v);

typedef enum tui_session_state {
    TUI_SESSION_IDLE = 0, /* not started */
    TUI_SESSION_WAITING,  /* it waits for the other variant to finish (one runs at a time) */
    TUI_SESSION_RUNNING,  /* the program runs */
    TUI_SESSION_DONE,     /* it ended with a result */
    TUI_SESSION_FAILED    /* it crashed, was killed, timed out, or ended without a result */
} tui_session_state;

/* A program that says nothing for this long while it runs is reported as maybe stuck. */
#define TUI_QUIET_WARN_MS 10000.0

typedef struct tui_session {
    char lab[64];
    tui_variant variant;
    tui_session_state state;
    trace_events_reader *reader;

    bool have_hello;
    trace_event_hello hello;
    trace_stream *streams; /* by id; known[id] says which are set */
    bool *known;
    int32_t n_streams;
    tui_run **runs;        /* by run number; NULL where none */
    int32_t n_runs;
    trace_race *races;
    size_t n_races, cap_races;

    char progress[128];    /* the last progress text: "run 3/5 (yours)" */
    int64_t done, total;
    cJSON *result;         /* the lab's result object, once it came */
    bool have_bye;
    trace_event_bye bye;

    uint64_t lines;        /* event lines read */
    uint64_t ops;
    uint64_t bad_lines;
    char first_bad[256];   /* the reader's message for the first bad line */

    char status[256];      /* how it ended, or why it could not start, in one line */
    bool ended;            /* tui_session_exited was told how it ended */
    int exit_code;         /* then: the lab's exit status (its result's exit_code, else the
                              process's status, 128 + N when signal N ended it) */
    double started_ms, last_event_ms;
    tui_textlog *output;   /* what the program printed (stdout and stderr) */
    uint64_t version;      /* bumped on every change */
} tui_session;

/* NULL when out of memory. */
tui_session *tui_session_create(const char *lab, tui_variant variant);
void tui_session_destroy(tui_session *s);
/* Forgets everything, ready for a new start (a rerun). */
void tui_session_reset(tui_session *s);

/* The program was started (now_ms on the caller's clock). Its event stream must carry
 * nonce on every line (NULL: any line is accepted). */
void tui_session_started(tui_session *s, const char *nonce, double now_ms);
/* The program will start when the other one has finished. */
void tui_session_waiting(tui_session *s, const char *why);
/* The program could not be started: why. */
void tui_session_start_failed(tui_session *s, const char *why);
/* Bytes from the event stream. Every complete line is read; bad lines are counted. */
void tui_session_feed(tui_session *s, const void *bytes, size_t n, double now_ms);
/* The event stream ended (EOF). */
void tui_session_end_of_stream(tui_session *s, double now_ms);
/* Bytes the program wrote on stdout or stderr. */
void tui_session_output(tui_session *s, const void *bytes, size_t n);
/* The program ended with this wait status (waitpid); the state and status line follow
 * from it and from the bye record. */
void tui_session_exited(tui_session *s, int wait_status);

/* One record, as the reader gives it (tui_session_feed calls this for each). */
void tui_session_event(tui_session *s, const trace_event *ev, double now_ms);
/* A line the reader rejected: err is its message ("line 12: ..."). */
void tui_session_bad_line(tui_session *s, const char *err);

/* Run number n, or NULL. */
tui_run *tui_session_run(const tui_session *s, int32_t n);
/* The latest run of this role that has ops (TUI_ROLE_OTHER: the latest of any role), or
 * NULL. */
tui_run *tui_session_latest(const tui_session *s, tui_role role);

/* A run's name for people: the harness's ("run 3/5 (yours)"), where the reference's own
 * runs say "(reference)". */
void tui_session_run_name(const tui_session *s, const tui_run *run, char *buf, size_t size);

/* The speedup so far: the median of the baseline's timed runs over the median of yours
 * ("run k/K" runs, each timed by its harness phase). False while either has none. */
bool tui_session_live_speedup(const tui_session *s, double *speedup);
/* Races found in run n (counted by the later op's run, else the earlier's). */
size_t tui_session_races_in(const tui_session *s, int32_t run);

/* Race i of s->races numbered as the lab's report numbers the races of the run it shows:
 * 1, 2, ... within its run (the later op's, else the earlier's), in the order the race
 * checker found them. */
size_t tui_session_race_number(const tui_session *s, size_t i);
/* The student's source line ("labs/05_cross_stream_races/lab.c:57") of one side of a race
 * (second: the later op), or NULL where the event stream does not carry it. The lab's result
 * names the lines of the races its report shows (race_reports); a race the report did not
 * show gets the line of the same operation (its kind, name and stream) when the report names
 * exactly one line for that operation. */
const char *tui_session_race_line(const tui_session *s, const trace_race *race, bool second);

/* The result's fields (false / NULL before it arrives or when missing). */
const char *tui_session_result_status(const tui_session *s); /* "pass", "below_target", ... */
/* The lab's graded metric from its result, in its own unit: "speedup 2.50x" or
 * "bandwidth 84.2 GB/s", with " (target ...)" when with_target and the result has one;
 * short: the value alone ("2.50x", "84.2 GB/s"). False when there is no result yet. */
bool tui_session_metric_text(const tui_session *s, bool with_target, bool short_form, char *buf, size_t len);
bool tui_session_result_number(const tui_session *s, const char *key, double *out);
/* "PASS", "BELOW TARGET", "FAIL: incorrect", "FAIL: racy", "ERROR"; NULL before the result. */
const char *tui_session_verdict(const tui_session *s);
/* Whether the verdict is a pass. */
bool tui_session_passed(const tui_session *s);
/* "simulated h200", or the real GPU's name; "" before the hello. */
void tui_session_backend(const tui_session *s, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
