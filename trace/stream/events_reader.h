/* trace/stream/events_reader.h: the live event stream's reader, shared by the TUI and the
 * grader.
 *
 * Feed it bytes as they come, in chunks of any size (a line may arrive in pieces); ask it
 * for records. Each complete line becomes a typed record (C structs: a trace_op for "op",
 * a trace_stream for "stream", a trace_race for "race", ...) or an error naming the line
 * and the reason, and reading goes on with the next line. It survives anything: invalid
 * JSON, lines longer than TRACE_EVENTS_MAX_LINE (skipped, never buffered whole), NUL
 * bytes, unknown record types, missing or mistyped fields, absurd values (negative or
 * huge times, end before start, sizes beyond 2^48, unknown kinds), and a stream cut off
 * in the middle of a line. Unknown fields are ignored, so newer writers stay readable.
 * Strings come back with control characters replaced by '?', safe to draw.
 *
 * Told a nonce, it rejects every line that does not carry it. */
#ifndef STREAMLAB_TRACE_EVENTS_READER_H
#define STREAMLAB_TRACE_EVENTS_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "trace/stream/events_schema.h"
#include "trace/record/op.h"
#include "trace/check/race.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct trace_event_hello {
    int version;
    char lab[64];
    char backend[16];
    char profile[64];
    char device[128];
    char run_label[64];
} trace_event_hello;

typedef struct trace_event_phase {
    char name[TRACE_NAME_MAX];
    uint64_t start_ns, end_ns;
    int32_t run;
} trace_event_phase;

typedef struct trace_event_progress {
    char text[128];
    int64_t done, total;
} trace_event_progress;

typedef struct trace_event_bye {
    int status;
    char reason[256];
} trace_event_bye;

typedef struct trace_event {
    trace_event_type type;
    uint64_t line; /* 1-based line number in the stream */
    union {
        trace_event_hello hello;
        trace_stream stream;
        trace_op op; /* timed; ranges are not carried */
        trace_race race;
        trace_event_phase phase;
        trace_event_progress progress;
        trace_event_bye bye;
    } u;
    /* RESULT: the lab's result object. The reader owns it until the next call to
     * trace_events_reader_next (or destroy); trace_events_reader_take_result keeps it. */
    cJSON *result;
} trace_event;

typedef struct trace_events_reader trace_events_reader;

/* nonce: lines must carry this nonce (NULL or "": any line is accepted). */
trace_events_reader *trace_events_reader_create(const char *nonce);
void trace_events_reader_destroy(trace_events_reader *r);

/* Adds bytes. Never fails: an over-long line is dropped while it arrives and reported
 * when its end (or the end of the stream) is reached. */
void trace_events_reader_feed(trace_events_reader *r, const void *bytes, size_t n);
/* The stream ended: a last line without a newline is read (or reported as truncated). */
void trace_events_reader_end(trace_events_reader *r);

/* The next record: 1 with *out filled; -1 with a message "line N: reason" in err (the
 * line is skipped; call again for the rest); 0 when more input is needed (or, after
 * trace_events_reader_end, when the stream is exhausted). */
int trace_events_reader_next(trace_events_reader *r, trace_event *out, char *err, size_t err_size);

/* Takes the last RESULT record's object: the caller frees it with cJSON_Delete. */
cJSON *trace_events_reader_take_result(trace_events_reader *r);

/* Lines read so far (records and errors), and how many were errors. */
uint64_t trace_events_reader_lines(const trace_events_reader *r);
uint64_t trace_events_reader_errors(const trace_events_reader *r);

/* Parses one line (no newline) as line number `line`: what trace_events_reader_next does
 * for each line. Returns 1 or -1 as it does; a RESULT's object is handed to the caller
 * in out->result (free with cJSON_Delete). nonce as for create. */
int trace_events_parse_line(const char *text, size_t len, uint64_t line, const char *nonce, trace_event *out,
                            char *err, size_t err_size);

#ifdef __cplusplus
}
#endif

#endif
