/* trace/gpu/collector.h: device times for the timeline on a real GPU.
 *
 * trace_gpu_begin() turns the collector on; call it once, before the lab's warm-up and
 * before anything is recorded (CUPTI's set-up costs milliseconds, and the trace clock is
 * chosen here). From then on every op that the interposer (interpose.c) and the kernel
 * launchers record gets its device start and end through trace_op_timed, from:
 *   - CUPTI's activity API (kernels, copies, memsets, CUDA events), matched to the op by
 *     external correlation ids: exact device times; or, when CUPTI cannot start (library
 *     missing, no permission, no driver support),
 *   - a pair of CUDA events recorded around each op on its stream, resolved at host sync
 *     points: the start is when the stream reached the op, so time spent queued behind
 *     other streams' work on a busy engine counts as running.
 * trace_gpu_status_message() says which, and why, in a sentence a report can print.
 *
 * Times are on one clock, trace_gpu_now_ns(): CUPTI's timestamp (cuptiGetTimestamp)
 * whenever the CUPTI library can be loaded, in every mode, CLOCK_MONOTONIC otherwise; it
 * is chosen at its first use. Device records are delivered at the
 * host's sync points (stream, event and device synchronisation, blocking copies; at most
 * one flush per TRACE_GPU_FLUSH_INTERVAL_NS except at device-wide syncs), at
 * trace_gpu_flush() and at trace_gpu_end(). */
#ifndef STREAMLAB_TRACE_GPU_COLLECTOR_H
#define STREAMLAB_TRACE_GPU_COLLECTOR_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum trace_gpu_mode {
    TRACE_GPU_OFF = 0, /* not begun, ended, or no device to time on */
    TRACE_GPU_CUPTI,   /* CUPTI activity records */
    TRACE_GPU_EVENTS   /* CUDA events around each op */
} trace_gpu_mode;

typedef enum trace_gpu_request {
    TRACE_GPU_AUTO = 0,   /* CUPTI, unless STREAMLAB_CUPTI=off; events if CUPTI fails */
    TRACE_GPU_WANT_CUPTI, /* CUPTI whatever the environment; events if it fails */
    TRACE_GPU_WANT_EVENTS /* events only (never loads CUPTI's activity API) */
} trace_gpu_request;

/* Stream and event syncs flush CUPTI's buffers at most this often; device syncs always. */
#define TRACE_GPU_FLUSH_INTERVAL_NS 1000000ull

/* Turns timing on (TRACE_GPU_AUTO) and returns the mode reached. Calling it again while on
 * changes nothing and returns the current mode. */
trace_gpu_mode trace_gpu_begin(void);
trace_gpu_mode trace_gpu_begin_mode(trace_gpu_request request);
/* Waits for nothing: delivers every device time already known (forcing CUPTI's buffers
 * out) and turns timing off. Ops still running keep no times. Safe to call when off. */
void trace_gpu_end(void);
/* Delivers the device times known so far. */
void trace_gpu_flush(void);

trace_gpu_mode trace_gpu_status(void);
/* A sentence saying how ops are timed, or why they are not. */
const char *trace_gpu_status_message(void);

/* The trace clock, in ns. */
uint64_t trace_gpu_now_ns(void);

typedef struct trace_gpu_stats {
    uint64_t ops_tracked;      /* ops handed to the collector for timing */
    uint64_t ops_timed;        /* ops that got their device times */
    uint64_t device_records;   /* CUPTI kernel/memcpy/memset/event records seen */
    uint64_t api_records;      /* CUPTI runtime/driver API records seen (not used) */
    uint64_t sync_records;     /* CUPTI synchronization records seen */
    uint64_t unmatched;        /* records or ops lost or late (see correlation.h) */
    uint64_t dropped_records;  /* records CUPTI dropped (buffers full) */
    uint64_t flushes;          /* flushes done */
    uint64_t flush_ns;         /* host time spent in them */
} trace_gpu_stats;

trace_gpu_stats trace_gpu_get_stats(void);

/* ---- for the sources (interpose.c, the kernel launchers) ------------------------------ */

/* How good a device time an op can get. */
typedef enum trace_gpu_op_class {
    TRACE_GPU_OP_DEVICE = 0,  /* a kernel, copy or memset: CUPTI record or event pair */
    TRACE_GPU_OP_EVENT_RECORD, /* cudaEventRecord: CUPTI event timestamp, event pair, or
                                  the enqueue time when neither is available */
    TRACE_GPU_OP_EVENT_WAIT    /* cudaStreamWaitEvent: event pair, else the enqueue time */
} trace_gpu_op_class;

/* Brackets one runtime call that enqueues work on `stream`:
 *   token = trace_gpu_op_begin(stream, class);   before the call
 *   trace_gpu_op_end(token, stream);              right after it
 *   then trace_gpu_op_bind(token, op_id, enqueue_ns) once the op is recorded, or
 *   trace_gpu_op_cancel(token) when the call failed.
 * A token of 0 means the op is not timed (timing off); the other calls accept it. */
uint64_t trace_gpu_op_begin(const void *stream, trace_gpu_op_class op_class);
void trace_gpu_op_end(uint64_t token, const void *stream);
void trace_gpu_op_bind(uint64_t token, uint64_t op_id, uint64_t enqueue_ns);
void trace_gpu_op_cancel(uint64_t token);

/* The host returned from a synchronising call (device_wide: cudaDeviceSynchronize):
 * delivers the device times known so far, rate-limited as described above. */
void trace_gpu_sync_point(bool device_wide);
/* cudaDeviceReset is about to destroy the context: delivers what is known and drops the
 * collector's own CUDA objects; after the reset, the _after call makes them again. */
void trace_gpu_before_device_reset(void);
void trace_gpu_after_device_reset(void);

#ifdef __cplusplus
}
#endif

#endif
