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
 * Harness phases are on neither. A run on several devices has each device's engine lanes,
 * and a link lane per direction of peer copies, grouped under headings.
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
    bool heading;        /* a heading row of a run on several devices ("GPU 1", "link"):
                            no ops; label is the heading; engine is TRACE_ENGINE_LINK for
                            the link's, else TRACE_ENGINE_NONE */
    trace_engine engine; /* engine lanes */
    uint32_t device;     /* engine lanes: the device whose engine (a link lane: the peer
                            copies' source); stream lanes and headings: their device */
    uint32_t dst_device; /* link lanes: the peer copies' destination */
    int32_t stream;      /* stream lanes */
    int32_t priority;    /* stream lanes */
    char label[48];      /* "H2D engine", "s1 \"buf A\" p-5", "GPU 0 -> GPU 1" */
} trace_lane;

/* Whether op is drawn on lane: an engine lane holds the ops its engine ran (on its
 * device; the host lane those of any), a link lane the peer copies from its device to
 * its dst_device, a stream lane its stream's work. Headings hold none. */
bool trace_lane_has(const trace_lane *lane, const trace_op *op);

/* Whether run used more than device 0: an op or a stream on another device, or a peer
 * copy. Views group lanes by device only then. */
bool trace_timeline_multi_device(trace_timeline *tl, int32_t run);

/* The lanes that have ops in run; at most max are written. Returns how many there are.
 * On one device: engines first (H2D, compute, D2H, host), then streams by id. On several
 * (trace_timeline_multi_device): the host lane, then for each device used a heading
 * ("GPU 0") and its engines (H2D, compute, D2H) and its streams by id, then a heading
 * "link" and a lane for each direction of peer copies used ("GPU 0 -> GPU 1"). */
size_t trace_timeline_lanes(trace_timeline *tl, int32_t run, trace_lane *out, size_t max);

#ifdef __cplusplus
}
#endif

#endif
