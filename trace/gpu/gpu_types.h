/* trace/gpu/gpu_types.h: the types the GPU collector and its two timing sources share
 * (match strategies, API record choices, statistics, op classes). Internal to trace/gpu/:
 * collector.h re-exports them; cupti_collector.h and event_timer.h use them without the
 * collector (so that the collector can use them and not the other way round). */
#ifndef STREAMLAB_TRACE_GPU_GPU_TYPES_H
#define STREAMLAB_TRACE_GPU_GPU_TYPES_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How CUPTI's device records are matched to the recorder's ops. */
typedef enum trace_gpu_match {
    TRACE_GPU_MATCH_AUTO = 0,     /* STREAMLAB_CUPTI_MATCH, else TRACE_GPU_DEFAULT_MATCH */
    TRACE_GPU_MATCH_CALLBACK,     /* CUPTI's callback API, enabled for the runtime calls that
                                     enqueue work, gives each call's correlation id as it
                                     returns; device records carry the same id. Falls back to
                                     external matching where another tool holds CUPTI's one
                                     callback subscriber (Nsight Systems, say) */
    TRACE_GPU_MATCH_STREAM_ORDER, /* the k-th device op of a class enqueued on a stream is the
                                     k-th record of that class with the stream's CUPTI id
                                     (stream_order.h): no per-call work at all */
    TRACE_GPU_MATCH_EXTERNAL      /* an external correlation id pushed around each call, joined
                                     through EXTERNAL_CORRELATION records, which CUPTI emits
                                     only for calls that also get an API record */
} trace_gpu_match;

/* Which API records external matching enables. */
typedef enum trace_gpu_api_records {
    TRACE_GPU_API_AUTO = 0,  /* STREAMLAB_CUPTI_API, else TRACE_GPU_API_SELECTED */
    TRACE_GPU_API_SELECTED,  /* runtime records for the calls that enqueue work only */
    TRACE_GPU_API_RUNTIME,   /* every runtime call */
    TRACE_GPU_API_DRIVER,    /* every driver call */
    TRACE_GPU_API_BOTH       /* every runtime and driver call */
} trace_gpu_api_records;

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
    uint64_t match_errors;     /* stream order: records dropped as extra, out of order or
                                  earlier than their op; callback: ops whose call gave no
                                  correlation id */
} trace_gpu_stats;

/* What an op is, for the device time it can get. */
typedef enum trace_gpu_op_class {
    TRACE_GPU_OP_DEVICE = 0,   /* a kernel launch (or any device op that is not a copy or a
                                  memset): CUPTI kernel record or CUDA events */
    TRACE_GPU_OP_EVENT_RECORD, /* cudaEventRecord: CUPTI event timestamp, CUDA events, or
                                  the enqueue time when neither is available */
    TRACE_GPU_OP_EVENT_WAIT,   /* cudaStreamWaitEvent: CUDA events, else the enqueue time */
    TRACE_GPU_OP_COPY,         /* a copy: CUPTI memcpy record or CUDA events */
    TRACE_GPU_OP_MEMSET        /* a memset: CUPTI memset record or CUDA events */
} trace_gpu_op_class;

#ifdef __cplusplus
}
#endif

#endif
