/* trace/gpu/collector.h: device times for the timeline on a real GPU.
 *
 * trace_gpu_begin() turns the collector on; call it once, before the lab's warm-up and
 * before anything is recorded (CUPTI's set-up costs milliseconds, and the trace clock is
 * chosen here). From then on every op that the interposer (interpose.c) and the kernel
 * launchers record gets its device start and end through trace_op_timed, from:
 *   - CUPTI's activity API (kernels, copies, memsets, CUDA events): exact device times,
 *     matched to the ops by one of three strategies (trace_gpu_match): the correlation id
 *     of each enqueueing runtime call, read from CUPTI's callback API (the default), the
 *     order of the records on each stream (stream_order.h), or external correlation ids
 *     with API records (the costliest, kept for comparison); or, when CUPTI cannot start
 *     (library missing, no permission, no driver support),
 *   - CUDA events recorded on each op's stream, resolved later: one after each op by
 *     default (its start is then inferred, event_chain.h), or a pair around it; either way
 *     the start is when the stream reached the op, so time spent queued behind other
 *     streams' work on a busy engine counts as running.
 * trace_gpu_status_message() says which, and why, in a sentence a report can print.
 *
 * Times are on one clock, trace_gpu_now_ns(): CUPTI's timestamp (cuptiGetTimestamp)
 * whenever the CUPTI library can be loaded, in every mode, CLOCK_MONOTONIC otherwise; it
 * is chosen at its first use.
 *
 * Device times are delivered when the collector flushes: at trace_gpu_flush(), at
 * trace_gpu_end(), and, while autoflush is on (the default), at the host's sync points
 * (stream, event and device synchronisation, blocking copies; at most one flush per
 * TRACE_GPU_FLUSH_INTERVAL_NS except at device-wide syncs). A flush costs the host a
 * fraction of a millisecond, so a harness that times runs turns autoflush off around
 * them and calls trace_gpu_flush() after each run, outside its timing.
 *
 * Environment (read by trace_gpu_begin; the options of trace_gpu_begin_options override):
 *   STREAMLAB_GPU_TIMING  cupti (default) | events | none (ops are recorded, not timed)
 *   STREAMLAB_CUPTI=off   the same as STREAMLAB_GPU_TIMING=events
 *   STREAMLAB_CUPTI_MATCH callback (default) | stream | external
 *   STREAMLAB_CUPTI_API   with external: selected (default) | runtime | driver | both
 *   STREAMLAB_EVENTS      single (default) | pair */
#ifndef STREAMLAB_TRACE_GPU_COLLECTOR_H
#define STREAMLAB_TRACE_GPU_COLLECTOR_H

#include <stdbool.h>
#include <stdint.h>

#include "trace/gpu/clock.h"
#include "trace/gpu/gpu_types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum trace_gpu_mode {
    TRACE_GPU_OFF = 0, /* not begun, ended, or no device to time on */
    TRACE_GPU_CUPTI,   /* CUPTI activity records */
    TRACE_GPU_EVENTS   /* CUDA events around each op */
} trace_gpu_mode;

typedef enum trace_gpu_request {
    TRACE_GPU_AUTO = 0,    /* as the environment says (CUPTI by default); events if CUPTI fails */
    TRACE_GPU_WANT_CUPTI,  /* CUPTI whatever the environment; events if it fails */
    TRACE_GPU_WANT_EVENTS, /* events only (never loads CUPTI's activity API) */
    TRACE_GPU_WANT_NONE    /* no device times: ops are recorded untimed (TRACE_GPU_OFF) */
} trace_gpu_request;


/* The strategy used when neither the options nor STREAMLAB_CUPTI_MATCH name one: the one
 * overhead_bench found cheapest among those that time every op right. */
#define TRACE_GPU_DEFAULT_MATCH TRACE_GPU_MATCH_CALLBACK


/* How ops are timed with CUDA events. */
typedef enum trace_gpu_event_timing {
    TRACE_GPU_EVENTS_AUTO = 0, /* STREAMLAB_EVENTS, else TRACE_GPU_EVENTS_SINGLE */
    TRACE_GPU_EVENTS_SINGLE,   /* one event after each op; its start is the latest of its
                                  enqueue and the ends before it (event_chain.h) */
    TRACE_GPU_EVENTS_PAIR      /* an event before and one after each op */
} trace_gpu_event_timing;

typedef struct trace_gpu_options {
    trace_gpu_request request;
    trace_gpu_match match;
    trace_gpu_api_records api_records;
    trace_gpu_event_timing events;
} trace_gpu_options;

/* Stream and event syncs flush CUPTI's buffers at most this often; device syncs always. */
#define TRACE_GPU_FLUSH_INTERVAL_NS 1000000ull

/* Turns timing on (TRACE_GPU_AUTO) and returns the mode reached. Calling it again while on
 * changes nothing and returns the current mode. */
trace_gpu_mode trace_gpu_begin(void);
trace_gpu_mode trace_gpu_begin_mode(trace_gpu_request request);
/* The same with every choice spelled out; fields left 0 (AUTO) follow the environment.
 * NULL is all AUTO. */
trace_gpu_mode trace_gpu_begin_options(const trace_gpu_options *options);
/* Waits for nothing: delivers every device time already known (forcing CUPTI's buffers
 * out) and turns timing off. Ops still running keep no times. Safe to call when off. */
void trace_gpu_end(void);
/* Delivers the device times known so far. */
void trace_gpu_flush(void);

/* Whether sync points flush (see above). On by default; the setting outlives
 * trace_gpu_end and applies to the next begin. */
void trace_gpu_set_autoflush(bool on);
bool trace_gpu_autoflush(void);

trace_gpu_mode trace_gpu_status(void);
/* Whether trace_gpu_begin would time ops: false only when the environment turns GPU timing
 * off (STREAMLAB_GPU_TIMING=none). Starts nothing: a caller can decide before anything is
 * begun (CUPTI, once started in a process, still costs each later runtime call some
 * tenths of a microsecond after it is stopped: docs/measured.md). */
bool trace_gpu_timing_wanted(void);
/* A sentence saying how ops are timed, or why they are not. */
const char *trace_gpu_status_message(void);
/* The timing strategy in use, short: "cupti-callback", "cupti-stream",
 * "cupti-external-selected" (-runtime, -driver, -both), "events-single", "events-pair", or
 * "off". */
const char *trace_gpu_strategy(void);


trace_gpu_stats trace_gpu_get_stats(void);

/* ---- for the sources (interpose.c, the kernel launchers) ------------------------------ */


/* A stream was created with these flags (cudaStreamNonBlocking or not), or destroyed:
 * event timing needs to know which streams the legacy stream's barrier applies to, and
 * stream-order matching asks CUPTI for the stream's id at creation, outside any timing. */
void trace_gpu_stream_created(const void *stream, unsigned flags);
void trace_gpu_stream_destroyed(const void *stream);

/* Brackets one runtime call that enqueues work on `stream`:
 *   token = trace_gpu_op_begin(stream, class);   before the call
 *   trace_gpu_op_end(token, stream);              right after it
 *   then trace_gpu_op_bind(token, op_id, enqueue_ns) once the op is recorded, or
 *   trace_gpu_op_cancel(token) when the call failed.
 * The four calls of one op come from one thread, with no other op bracketed on that thread
 * in between. A token of 0 means the op is not timed (timing off); the other calls accept
 * it. */
uint64_t trace_gpu_op_begin(const void *stream, trace_gpu_op_class op_class);
/* trace_gpu_op_begin for a copy in direction dir (a trace_copy_dir): the same, but for
 * the copies that trace_gpu_time_only_copies_to_host keeps timing. */
uint64_t trace_gpu_copy_op_begin(const void *stream, int dir);
/* While on, only copies to the host are timed (trace_gpu_copy_op_begin with
 * TRACE_COPY_D2H); every other op is recorded untimed. A lab of requests needs no more:
 * a request is done when its result has arrived in host memory, and every other timed op
 * would cost the host a CUDA event record in its timed runs. Off by default and at
 * trace_gpu_end. */
void trace_gpu_time_only_copies_to_host(bool on);
void trace_gpu_op_end(uint64_t token, const void *stream);
void trace_gpu_op_bind(uint64_t token, uint64_t op_id, uint64_t enqueue_ns);
void trace_gpu_op_cancel(uint64_t token);

/* The host returned from a synchronising call (device_wide: cudaDeviceSynchronize): while
 * autoflush is on, delivers the device times known so far, rate-limited as described
 * above. */
void trace_gpu_sync_point(bool device_wide);
/* cudaDeviceReset is about to destroy the context: delivers what is known and drops the
 * collector's own CUDA objects; after the reset, the _after call makes them again. */
void trace_gpu_before_device_reset(void);
void trace_gpu_after_device_reset(void);

#ifdef __cplusplus
}
#endif

#endif
