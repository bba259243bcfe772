/* sim/stream_calls.c: the stream calls of the runtime API: cudaStreamCreate*,
 * cudaStreamDestroy, cudaStreamSynchronize, cudaStreamQuery, cudaStreamGetPriority and
 * cudaStreamGetFlags, on the handles of stream_handles.h. (cudaStreamWaitEvent lives with
 * the events, cudaLaunchHostFunc in host_fn.c.) */
#include <stddef.h>

#include "sim/call.h"
#include "sim/stream_capture.h"
#include "sim/core/scheduler.h"
#include "sim/errors.h"
#include "sim/stream_handles.h"
#include "trace/record/recorder.h"

static cudaError_t create(const char *name, cudaStream_t *pStream, unsigned flags, int priority) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, name, 0);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    const sim_profile *p = sim_prof();
    sim_host_charge(p->stream_create_ns);
    if (!pStream || (flags & ~(unsigned)cudaStreamNonBlocking))
        return sim_call_end(&call, cudaErrorInvalidValue);
    /* Out-of-range priorities are clamped, as the runtime documents. */
    int least = (int)p->priority_least, greatest = (int)p->priority_greatest;
    if (priority > least) priority = least;
    if (priority < greatest) priority = greatest;
    if (sim_stream_count() >= (1u << 27)) return sim_call_end(&call, cudaErrorMemoryAllocation);
    *pStream = (cudaStream_t)sim_stream_at(sim_stream_add(flags, priority))->handle;
    return sim_call_end(&call, cudaSuccess);
}

cudaError_t cudaStreamCreate(cudaStream_t *pStream) {
    TRACE_CALL_SITE();
    return create("cudaStreamCreate", pStream, cudaStreamDefault, 0);
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags) {
    TRACE_CALL_SITE();
    return create("cudaStreamCreateWithFlags", pStream, flags, 0);
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags, int priority) {
    TRACE_CALL_SITE();
    return create("cudaStreamCreateWithPriority", pStream, flags, priority);
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, "cudaStreamDestroy", 0);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    sim_host_charge(sim_prof()->stream_destroy_ns);
    uint32_t i;
    /* The default streams are not the program's to destroy. */
    if (!sim_stream_resolve(stream, &i) || i < 2) return sim_call_end(&call, cudaErrorInvalidResourceHandle);
    /* Work already queued still runs; the handle is dead at once. */
    sim_stream_at(i)->live = false;
    trace_stream_destroyed(stream);
    return sim_call_end(&call, cudaSuccess);
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, "cudaStreamSynchronize", 0);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    sim_host_charge(sim_prof()->sync_call_ns);
    uint32_t i;
    if (!sim_stream_resolve(stream, &i)) return sim_call_end(&call, cudaErrorInvalidResourceHandle);
    /* Captured work never runs: waiting for it is refused, and breaks the capture. */
    err = sim_capture_check_stream_sync(i);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    uint64_t start = call.start_ns;
    if (sim_stream_at(i)->legacy) /* the legacy stream's work waits for theirs */
        sim_sched_wait_blocking_streams_of(sim_stream_at(i)->device);
    else
        sim_sched_wait_stream(i);
    trace_record_sync(TRACE_SYNC_STREAM, sim_stream_trace_handle(i), "cudaStreamSynchronize", start, sim_host_now());
    return sim_call_end(&call, sim_error_sticky_or(cudaSuccess));
}

cudaError_t cudaStreamQuery(cudaStream_t stream) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, "cudaStreamQuery", 0);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    sim_host_charge(sim_prof()->stream_query_ns);
    uint32_t i;
    if (!sim_stream_resolve(stream, &i)) return sim_call_end(&call, cudaErrorInvalidResourceHandle);
    err = sim_capture_check_stream_sync(i);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    /* The answer is about the device as it is when the call returns. As with
     * cudaStreamSynchronize, the legacy stream counts the work of the streams that
     * synchronise with it (measured: an H100 with CUDA 13.0 answers cudaErrorNotReady for
     * the legacy stream while only a blocking stream or the per-thread stream is busy). */
    sim_sched_advance(sim_host_now());
    const sim_stream *st = sim_stream_at(i);
    bool done = st->legacy ? sim_sched_blocking_streams_idle_of(st->device) : st->done_seq == st->enq_seq;
    if (!done) return sim_call_end_not_ready(&call, TRACE_SYNC_STREAM, sim_stream_trace_handle(i));
    /* cudaSuccess: the stream's work has completed, which orders it before what the host does
     * next, as cudaStreamSynchronize would (a cudaErrorNotReady orders nothing). */
    trace_record_sync(TRACE_SYNC_STREAM, sim_stream_trace_handle(i), "cudaStreamQuery", call.start_ns, sim_host_now());
    return sim_call_end(&call, cudaSuccess);
}

cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int *priority) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, "cudaStreamGetPriority", 0);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    sim_host_charge(sim_prof()->api_min_ns);
    uint32_t i;
    if (!priority) return sim_call_end(&call, cudaErrorInvalidValue);
    if (!sim_stream_resolve(hStream, &i)) return sim_call_end(&call, cudaErrorInvalidResourceHandle);
    *priority = sim_stream_at(i)->priority;
    return sim_call_end(&call, cudaSuccess);
}

cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, "cudaStreamGetFlags", 0);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    sim_host_charge(sim_prof()->api_min_ns);
    uint32_t i;
    if (!flags) return sim_call_end(&call, cudaErrorInvalidValue);
    if (!sim_stream_resolve(hStream, &i)) return sim_call_end(&call, cudaErrorInvalidResourceHandle);
    *flags = sim_stream_at(i)->flags;
    return sim_call_end(&call, cudaSuccess);
}
