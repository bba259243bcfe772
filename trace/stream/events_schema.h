/* trace/stream/events_schema.h: the live event stream's schema, shared by its writer
 * (events_writer.h) and its reader (events_reader.h). docs/event-stream.md describes it
 * for people.
 *
 * One JSON object per line. Every line has "v" (the schema version, 1) and "t" (the
 * record type); a stream with a nonce has "nonce" on every line. Times are integer
 * nanoseconds from the writer's origin; sizes are bytes. */
#ifndef STREAMLAB_TRACE_EVENTS_SCHEMA_H
#define STREAMLAB_TRACE_EVENTS_SCHEMA_H

#include <stdint.h>

#include "trace/record/op.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TRACE_EVENTS_VERSION 1

/* Bounds a reader enforces (and a writer respects). */
#define TRACE_EVENTS_MAX_LINE 65536u                /* bytes, newline excluded */
#define TRACE_EVENTS_MAX_TIME_NS (1ull << 53)       /* times are below this: JSON numbers carry them exactly */
#define TRACE_EVENTS_MAX_BYTES (1ull << 48)
#define TRACE_EVENTS_MAX_ID (1ull << 53)
#define TRACE_EVENTS_MAX_STREAM 65535
#define TRACE_EVENTS_MAX_DIM 0x7fffffffu            /* grid and block sizes */
#define TRACE_EVENTS_MAX_DEVICE 255                 /* "device", "dst_device" */

typedef enum trace_event_type {
    TRACE_EVENT_HELLO = 1, /* "hello": who is talking */
    TRACE_EVENT_STREAM,    /* "stream": a stream was created, named or destroyed */
    TRACE_EVENT_OP,        /* "op": an op with its times */
    TRACE_EVENT_RACE,      /* "race": a race the checker found */
    TRACE_EVENT_PHASE,     /* "phase": a harness phase */
    TRACE_EVENT_PROGRESS,  /* "progress": "run 3/5" */
    TRACE_EVENT_RESULT,    /* "result": the lab's result object */
    TRACE_EVENT_BYE        /* "bye": the writer is done */
} trace_event_type;

/* "hello", "stream", ...; NULL for a bad type. */
const char *trace_event_type_name(trace_event_type type);
/* The type with this name, or 0. */
trace_event_type trace_event_type_from_name(const char *name);

/* The stream's names for engines and sync targets: "h2d", "d2h", "compute", "host",
 * "link" (peer copies between devices; added to schema 1 with "device"), "none";
 * "stream", "event", "device", "op". */
const char *trace_events_engine_name(trace_engine engine);
int trace_events_engine_from_name(const char *name); /* -1 when unknown */
const char *trace_events_sync_name(trace_sync_target target);
int trace_events_sync_from_name(const char *name);
/* trace_op_kind_name / trace_copy_dir_name, backwards. -1 when unknown. */
int trace_events_kind_from_name(const char *name);
int trace_events_dir_from_name(const char *name);

#ifdef __cplusplus
}
#endif

#endif
