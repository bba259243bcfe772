/* trace/view/timeline.h: the timeline store, a recorder sink that keeps the timed ops (of
 * chosen harness runs, or all) and the streams, for metrics and exporters to read.
 *
 * Ops arrive in any order (a real GPU's times come late, from another thread); the store
 * appends them and sorts by start time when read. It holds hundreds of thousands of ops:
 * appends are O(1), the sort happens once per batch of appends.
 *
 * Lanes: one per engine (H2D, compute, D2H, host: what the hardware did) and one per
 * stream (what each queue asked for). An op is on its engine's lane and, when it is a
 * stream op (copy, memset, kernel, host function, event record or wait), on its stream's.
 * Harness phases are on neither.
 *
 * The TUI and the grader fill a store from the live event stream with
 * trace_timeline_add_op / add_stream instead of installing it. Read it when no source is
 * adding ops (after the run's final synchronisation). */
#ifndef STREAMLAB_TRACE_TIMELINE_H
#define STREAMLAB_TRACE_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/record/op.h"
#include "trace/record/recorder.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A run selector meaning every run (and ops outside runs). */
#define TRACE_RUN_ANY INT32_MIN

typedef struct trace_timeline trace_timeline;

trace_timeline *trace_timeline_create(void);
void trace_timeline_destroy(trace_timeline *tl);
/* Forgets every op and stream (the run filter stays). */
void trace_timeline_clear(trace_timeline *tl);

/* Keeps only ops of the runs named so far (call once per run). Without a call, all ops
 * are kept. */
void trace_timeline_keep_run(trace_timeline *tl, int32_t run);

/* The store as a sink (on_stream, on_timed); install with the recorder. */
trace_sink trace_timeline_sink(trace_timeline *tl);
int trace_timeline_install(trace_timeline *tl);
void trace_timeline_uninstall(trace_timeline *tl);

/* Adds a timed op (untimed ones and filtered runs are ignored). */
void trace_timeline_add_op(trace_timeline *tl, const trace_op *op);
/* Adds or updates a stream. */
void trace_timeline_add_stream(trace_timeline *tl, const trace_stream *stream);

/* Ops kept, and the i-th in order of start time (then id). The pointer is valid until the
 * next add or clear. */
size_t trace_timeline_count(trace_timeline *tl);
const trace_op *trace_timeline_get(trace_timeline *tl, size_t i);

/* The stream with this id, or NULL when the store has not seen it. */
const trace_stream *trace_timeline_stream(const trace_timeline *tl, int32_t id);
/* One more than the highest stream id seen (by a stream record or an op). */
int32_t trace_timeline_stream_limit(const trace_timeline *tl);

/* Whether op belongs to run (TRACE_RUN_ANY: to any). */
bool trace_timeline_in_run(const trace_op *op, int32_t run);

/* First start and last end of the ops of run, phases excepted. False when there are none. */
bool trace_timeline_span(trace_timeline *tl, int32_t run, uint64_t *t0, uint64_t *t1);

typedef struct trace_lane {
    bool is_stream;
    trace_engine engine; /* engine lanes */
    int32_t stream;      /* stream lanes */
    int32_t priority;    /* stream lanes */
    char label[48];      /* "H2D engine", "s1 \"buf A\" p-5" */
} trace_lane;

/* Whether op is drawn on lane. */
bool trace_lane_has(const trace_lane *lane, const trace_op *op);

/* The lanes that have ops in run, engines first (H2D, compute, D2H, host), then streams by
 * id; at most max are written. Returns how many there are. */
size_t trace_timeline_lanes(trace_timeline *tl, int32_t run, trace_lane *out, size_t max);

#ifdef __cplusplus
}
#endif

#endif
