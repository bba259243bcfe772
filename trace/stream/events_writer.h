/* trace/stream/events_writer.h: the live event stream's writer, a recorder sink that writes one
 * JSON object per line (events_schema.h, docs/event-stream.md) to a file descriptor as
 * ops become known: streams as they are created or named, ops when their times arrive
 * (harness phases as "phase" records), races as the checker finds them. The harness adds
 * hello, progress, result and bye.
 *
 * Writes are buffered (flushed when the buffer fills, every flush interval while ops
 * arrive, and at once for hello, race, progress, result and bye). A reader that went
 * away (EPIPE) or that accepts nothing for the stall timeout turns the stream off, with
 * one message on stderr: it never kills or hangs the lab. SIGPIPE is not raised.
 *
 * With a nonce, every line carries it: the grader gives the lab a secret and a reader
 * told the nonce rejects lines without it, so a program cannot forge records on the same
 * descriptor. The writer may be called from several threads. */
#ifndef STREAMLAB_TRACE_EVENTS_WRITER_H
#define STREAMLAB_TRACE_EVENTS_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "trace/stream/events_schema.h"
#include "trace/check/race.h"
#include "trace/record/recorder.h"

#ifdef __cplusplus
extern "C" {
#endif

/* origin_ns: times in the stream are ns since the origin. AUTO keeps times as they are
 * when they fit a JSON number exactly (the simulator's virtual clock), and otherwise (a
 * real GPU's CUPTI clock) takes the first time seen, less one second, rounded down to a
 * whole second. */
#define TRACE_EVENTS_ORIGIN_AUTO UINT64_MAX

typedef struct trace_events_options {
    const char *nonce;     /* put on every line; NULL or "": none */
    bool include_api;      /* runtime API spans (the host lane's finest detail) */
    uint64_t origin_ns;    /* see above */
    int stall_timeout_ms;  /* give up on a reader that takes nothing for this long; 0: 5000 */
    size_t buffer_bytes;   /* flush when this much is buffered; 0: 64 KiB */
    int flush_interval_ms; /* flush at least this often while records come; 0: 50 */
} trace_events_options;

/* The defaults above (include_api true, origin AUTO). */
trace_events_options trace_events_default_options(void);

typedef struct trace_events_writer trace_events_writer;

/* A writer on fd (not closed by the writer). options may be NULL for the defaults. */
trace_events_writer *trace_events_writer_create(int fd, const trace_events_options *options);
/* Flushes, uninstalls and frees. */
void trace_events_writer_destroy(trace_events_writer *w);

/* The writer as a sink (on_stream, on_op, on_timed, on_race). */
trace_sink trace_events_writer_sink(trace_events_writer *w);
/* Installs the sink and writes a stream record for every stream the recorder knows. */
int trace_events_writer_install(trace_events_writer *w);
void trace_events_writer_uninstall(trace_events_writer *w);

typedef struct trace_events_hello_info {
    const char *lab;       /* "03_double_buffer" */
    const char *backend;   /* "sim" or "gpu" */
    const char *profile;   /* "h200" (sim) */
    const char *device;    /* "NVIDIA H200 (simulated)" */
    const char *run_label; /* "yours", "reference", "baseline" */
} trace_events_hello_info;

/* Records; each returns 0, or -1 when the stream is off or the record was refused. */
int trace_events_hello(trace_events_writer *w, const trace_events_hello_info *info);
int trace_events_stream(trace_events_writer *w, const trace_stream *stream);
int trace_events_op(trace_events_writer *w, const trace_op *op);
int trace_events_race(trace_events_writer *w, const trace_race *race);
int trace_events_phase(trace_events_writer *w, const char *name, uint64_t start_ns, uint64_t end_ns, int32_t run);
int trace_events_progress(trace_events_writer *w, const char *text, int64_t done, int64_t total);
/* Embeds a copy of result (a JSON object). */
int trace_events_result(trace_events_writer *w, const cJSON *result);
int trace_events_bye(trace_events_writer *w, int status, const char *reason);

/* The bye record as a line (with the nonce and the newline), not written: for a caller
 * that must write it later where it cannot build JSON (a fatal-signal handler). malloc'd;
 * NULL when out of memory. */
char *trace_events_format_bye(trace_events_writer *w, int status, const char *reason);
/* Writes what is buffered. 0, or -1 when the stream is off. */
int trace_events_flush(trace_events_writer *w);

/* Whether the stream is still on, and why not. */
bool trace_events_writer_ok(trace_events_writer *w);
const char *trace_events_writer_error(trace_events_writer *w);
/* Lines accepted so far, and lines dropped because the stream was off or a line was too
 * long. */
uint64_t trace_events_writer_lines(trace_events_writer *w);
uint64_t trace_events_writer_dropped(trace_events_writer *w);
/* The origin in use (TRACE_EVENTS_ORIGIN_AUTO until the first time is seen). */
uint64_t trace_events_writer_origin(trace_events_writer *w);

#ifdef __cplusplus
}
#endif

#endif
