/* sim/streams.c: stream handles (see streams.h) and the stream calls of the runtime
 * API: cudaStreamCreate*, cudaStreamDestroy, cudaStreamSynchronize, cudaStreamQuery,
 * cudaStreamGetPriority and cudaStreamGetFlags. (cudaStreamWaitEvent lives with the
 * events, cudaLaunchHostFunc in host_fn.c.) */
#include "sim/streams.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/call.h"
#include "sim/capture.h"
#include "sim/core/scheduler.h"
#include "sim/errors.h"
#include "trace/record/recorder.h"

/* Created streams get handles that are not addresses: a tag, the reset generation and
 * the table index. They are never dereferenced, so a stale or made-up handle is caught
 * by the table lookup instead of crashing. */
#define HANDLE_TAG 0x5e57000000000000ull
#define HANDLE_TAG_MASK 0xffff000000000000ull

static cudaStream_t make_handle(uint32_t index) {
    uint64_t v = HANDLE_TAG | ((uint64_t)(sim_streams_generation() & 0xffffu) << 32) | ((uint64_t)index << 4);
    return (cudaStream_t)(uintptr_t)v;
}

void sim_streams_restart(bool notify) { sim_streams_reset(notify, cudaStreamPerThread); }

bool sim_stream_resolve(cudaStream_t handle, uint32_t *index) {
    if (handle == NULL || handle == cudaStreamLegacy) {
        *index = SIM_STREAM_LEGACY;
        return true;
    }
    if (handle == cudaStreamPerThread) {
        *index = SIM_STREAM_PER_THREAD;
        return true;
    }
    uint64_t v = (uint64_t)(uintptr_t)handle;
    if ((v & HANDLE_TAG_MASK) != HANDLE_TAG || (v & 0xf)) return false;
    if (((v >> 32) & 0xffffu) != (sim_streams_generation() & 0xffffu)) return false;
    uint64_t i = (v & 0xffffffffull) >> 4;
    if (i < 2 || i >= sim_stream_count() || !sim_stream_at((uint32_t)i)->live) return false;
    *index = (uint32_t)i;
    return true;
}

const void *sim_stream_trace_handle(uint32_t index) {
    return index == SIM_STREAM_LEGACY ? NULL : sim_stream_at(index)->handle;
}

uint32_t sim_stream_add_internal(const char *name, int priority) {
    uint32_t i = sim_streams_add(NULL, cudaStreamNonBlocking, true, priority);
    sim_stream *st = sim_stream_at(i);
    st->handle = make_handle(i);
    /* Not live: sim_stream_resolve refuses it, and it does not count as the program's. */
    st->live = false;
    trace_stream_created(st->handle, cudaStreamNonBlocking, priority);
    trace_stream_set_name(st->handle, name);
    return i;
}

/* ---- the runtime calls -------------------------------------------------------------- */

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
    uint32_t i = sim_streams_add(NULL, flags, (flags & cudaStreamNonBlocking) != 0, priority);
    cudaStream_t handle = make_handle(i);
    sim_stream_at(i)->handle = handle;
    trace_stream_created(handle, flags, priority);
    *pStream = handle;
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
    if (i == SIM_STREAM_LEGACY)
        sim_sched_wait_blocking_streams(); /* the legacy stream's work waits for theirs */
    else
        sim_sched_wait_stream(i);
    trace_record_sync(TRACE_SYNC_STREAM, stream, "cudaStreamSynchronize", start, sim_host_now());
    return sim_call_end(&call, sim_error_sticky_or(cudaSuccess));
}

cudaError_t cudaStreamQuery(cudaStream_t stream) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, "cudaStreamQuery", 0);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    sim_host_charge(sim_prof()->query_ns);
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
    bool done = i == SIM_STREAM_LEGACY ? sim_sched_blocking_streams_idle() : st->done_seq == st->enq_seq;
    return sim_call_end(&call, done ? cudaSuccess : cudaErrorNotReady);
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
