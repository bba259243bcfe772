/* trace/gpu/time_check.h: counting device times that cannot be right.
 *
 * Given the device ops of a run with the times the collector gave them, counts the ops
 *   - that start before the host enqueued them (start < enqueue);
 *   - that start before the op enqueued before them on the same stream ended, though after
 *     it started (overlap: a stream runs one op at a time);
 *   - that start before the op enqueued before them on the same stream started (out of
 *     order: a stream runs its ops in enqueue order).
 * A wrong match of records to ops shows up as one of these; the overhead benchmark prints
 * them for each timing strategy. Plain C. */
#ifndef STREAMLAB_TRACE_GPU_TIME_CHECK_H
#define STREAMLAB_TRACE_GPU_TIME_CHECK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct trace_gpu_timed_op {
    uint64_t op_id; /* enqueue order */
    int32_t stream;
    uint64_t enqueue_ns, start_ns, end_ns;
} trace_gpu_timed_op;

typedef struct trace_gpu_time_errors {
    uint64_t checked;
    uint64_t before_enqueue;
    uint64_t overlap;
    uint64_t out_of_order;
} trace_gpu_time_errors;

/* Adds the counts for ops[0..n) to *errors. Returns 0, or -1 when out of memory. */
int trace_gpu_check_times(const trace_gpu_timed_op *ops, size_t n, trace_gpu_time_errors *errors);

#ifdef __cplusplus
}
#endif

#endif
