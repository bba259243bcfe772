/* trace/gpu/stream_order.h: matching CUPTI's device records to the recorder's ops by their
 * order on each stream, with no per-call help from CUPTI.
 *
 * A CUDA stream runs its work in the order it was enqueued, and CUPTI tags every device
 * record (kernel, memcpy, memset, CUDA event) with the id of the stream it ran on. So the
 * k-th kernel enqueued on a stream is the k-th kernel record with that stream id, and the
 * same holds for copies, memsets and event records: one queue per (stream id, record
 * class). Records of different classes may be delivered in any order relative to each
 * other; within one class and stream they arrive in the order they ran.
 *
 * Checks, each counted in the stats (they mean a record belonged to an op this table was
 * never told about, for example a kernel launched outside kernels.h):
 *   - correlation ids grow with enqueue order, so a record whose correlation id is below
 *     the last one matched on its queue is out of order, and is dropped;
 *   - an op cannot start before the host enqueued it, so a record that starts more than
 *     TRACE_GPU_SORDER_SLACK_NS before the oldest waiting op's enqueue time belongs to an
 *     earlier, unknown op, and is dropped;
 *   - a record for a queue with no op waiting is extra, and is dropped.
 * A record with the correlation id of the previous record on its queue is a further piece
 * of the same op (a copy done in chunks): its span is merged into that op's.
 *
 * An op whose record never comes (CUPTI dropped it) shifts the later records of its queue
 * onto the wrong ops; the dropped-records count of the collector says when that can have
 * happened. Not thread-safe: the collector holds its lock. */
#ifndef STREAMLAB_TRACE_GPU_STREAM_ORDER_H
#define STREAMLAB_TRACE_GPU_STREAM_ORDER_H

#include <stddef.h>
#include <stdint.h>

#include "trace/gpu/correlation.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How far a record may start before its op's enqueue time and still be taken as its
 * record: CUPTI places device timestamps on the host clock by interpolation, which is
 * exact to well under this. */
#define TRACE_GPU_SORDER_SLACK_NS 1000u

typedef enum trace_gpu_rec_class {
    TRACE_GPU_REC_KERNEL = 0,
    TRACE_GPU_REC_COPY,
    TRACE_GPU_REC_MEMSET,
    TRACE_GPU_REC_EVENT,
    TRACE_GPU_REC_CLASSES
} trace_gpu_rec_class;

typedef struct trace_gpu_sorder trace_gpu_sorder;

typedef struct trace_gpu_sorder_stats {
    uint64_t ops;          /* ops queued */
    uint64_t records;      /* device records seen */
    uint64_t matched;      /* records that took an op */
    uint64_t pieces;       /* records merged into the op of the record before them */
    uint64_t late_pieces;  /* pieces whose op had already been handed out */
    uint64_t extra;        /* records with no op waiting on their queue */
    uint64_t out_of_order; /* records whose correlation id went backwards */
    uint64_t too_early;    /* records that started before the waiting op was enqueued */
    uint64_t timed;        /* ops handed out with their times */
} trace_gpu_sorder_stats;

/* NULL when out of memory. */
trace_gpu_sorder *trace_gpu_sorder_create(void);
void trace_gpu_sorder_destroy(trace_gpu_sorder *s);

/* An op was enqueued on the stream CUPTI knows as stream_id. Returns 0, or -1 when out of
 * memory (the op is then not timed). */
int trace_gpu_sorder_op(trace_gpu_sorder *s, uint32_t stream_id, trace_gpu_rec_class cls, uint64_t op_id,
                        uint64_t enqueue_ns);

/* A device record. A record with both times 0 (CUPTI could not time it) still takes its
 * op, which is then handed out at its enqueue time with no duration. */
void trace_gpu_sorder_record(trace_gpu_sorder *s, uint32_t stream_id, trace_gpu_rec_class cls,
                             uint32_t correlation_id, uint64_t start_ns, uint64_t end_ns);

/* Moves up to max ops that have their records into out[], in the order they got them.
 * Returns how many. */
size_t trace_gpu_sorder_take_ready(trace_gpu_sorder *s, trace_gpu_timing *out, size_t max);

/* Ops still waiting for their record. */
uint64_t trace_gpu_sorder_waiting(const trace_gpu_sorder *s);

trace_gpu_sorder_stats trace_gpu_sorder_get_stats(const trace_gpu_sorder *s);

#ifdef __cplusplus
}
#endif

#endif
