/* trace/gpu/event_chain.h: op start times for event timing with one event per op.
 *
 * In that mode each op gets a single CUDA event, recorded on its stream right after it, so
 * only its end is measured. Its start is placed at the latest of the moments it could not
 * have started before:
 *   - its enqueue time (the host had not asked for it yet);
 *   - the end of the op before it on the same stream (a stream runs one op at a time, in
 *     order; an event wait counts as an op that ends when the wait is satisfied);
 *   - for an op on the legacy default stream, the last end on every blocking stream, and
 *     for an op on a blocking stream (or the per-thread default stream), the last end on
 *     the legacy stream: the legacy stream's implicit barrier.
 * This is exact when the op was ready to run at that moment; like the two-event mode, it
 * counts time an op spent queued behind another stream's work on a busy engine as running.
 *
 * The collector feeds ops in enqueue order as their events complete. Plain C; the stream
 * handles are only compared. */
#ifndef STREAMLAB_TRACE_GPU_EVENT_CHAIN_H
#define STREAMLAB_TRACE_GPU_EVENT_CHAIN_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How a stream orders against the legacy default stream. */
typedef enum trace_gpu_stream_sync {
    TRACE_GPU_STREAM_LEGACY = 0,  /* the legacy default stream itself (NULL, cudaStreamLegacy) */
    TRACE_GPU_STREAM_BLOCKING,    /* created without cudaStreamNonBlocking, or cudaStreamPerThread */
    TRACE_GPU_STREAM_NONBLOCKING  /* created with cudaStreamNonBlocking */
} trace_gpu_stream_sync;

typedef struct trace_gpu_chain trace_gpu_chain;

/* NULL when out of memory. */
trace_gpu_chain *trace_gpu_chain_create(void);
void trace_gpu_chain_destroy(trace_gpu_chain *c);

/* The earliest start of an op enqueued at enqueue_ns on stream (see above). */
uint64_t trace_gpu_chain_start(const trace_gpu_chain *c, const void *stream, trace_gpu_stream_sync sync,
                               uint64_t enqueue_ns);
/* An op on stream ended at end_ns. Returns 0, or -1 when out of memory (the end is then
 * not remembered, and later starts on that stream can come out early). */
int trace_gpu_chain_end(trace_gpu_chain *c, const void *stream, trace_gpu_stream_sync sync, uint64_t end_ns);
/* A stream was destroyed: its handle may be given to a new stream. */
void trace_gpu_chain_forget(trace_gpu_chain *c, const void *stream);

#ifdef __cplusplus
}
#endif

#endif
