/* trace/gpu/interpose.c: the GPU build's API interposer.
 *
 * Binaries linked with //trace/gpu:gpu are linked with -Wl,--wrap=X for each runtime call
 * X that the list of CUDA calls marks wrapped (cuda_calls/cuda_calls.inc; real.h), so the
 * program's calls land here. Most wrappers are one line on a frame (WRAP_TRACED,
 * WRAP_KEEPING, WRAP_FREE below) that takes the call's signature from the list.
 * Each wrapper calls the runtime (__real_X) and reports what happened to the recorder
 * (trace/record/recorder.h) as the simulator does for the same call:
 *   - streams and events are registered when created and forgotten when destroyed, always
 *     (so that handles map to ids even before a sink is installed);
 *   - copies, memsets, event records and waits and host functions become ops on their
 *     stream, recorded only when the call succeeded, with their memory ranges, and are
 *     bracketed for the collector (collector.h) so their device times arrive later;
 *   - the host waits that the runtime documents (trace/record/copy_rules.h, synchronising calls,
 *     successful queries) become sync records;
 *   - each call puts one span on the host lane: its sync record when it has one, else an
 *     API span (trace_record_api).
 * With no sink installed (trace_active() false) a wrapper only registers handles and
 * allocations and calls the runtime. The device allocations seen also answer
 * allocations.h (what a crash handler asks of a faulting address). Copies are classified from the allocations seen
 * (mem_cache.h), so that a copy between known buffers costs no driver query.
 * Code compiled for per-thread default streams (CUDA_API_PER_THREAD_DEFAULT_STREAM, nvcc
 * --default-stream per-thread) calls the _ptds/_ptsz entry points instead: each of those is
 * wrapped too, through the same helper as its plain twin, with a NULL stream (and the implicit
 * stream of cudaMemcpy_ptds and cudaMemset_ptds) recorded, bracketed and synchronised as
 * cudaStreamPerThread, and the span named as the program wrote the call. cudaEventElapsedTime
 * orders nothing and is only an API span: what a lab reads to know the program timed with
 * events (the tracer's own reads call the real one). */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "cuda_calls/cuda_calls_by_name.h"
#include "trace/gpu/allocations.h"
#include "trace/gpu/capture.h"
#include "trace/gpu/classify.h"
#include "trace/gpu/collector.h"
#include "trace/gpu/device_streams.h"
#include "trace/gpu/graphs.h"
#include "trace/gpu/host_fn.h"
#include "trace/gpu/mem_cache.h"
#include "trace/gpu/nvtx.h"
#include "trace/gpu/real.h"
#include "trace/record/recorder.h"

_Static_assert((int)cudaMemcpyHostToHost == (int)TRACE_GPU_COPY_H2H, "cudaMemcpyKind");
_Static_assert((int)cudaMemcpyHostToDevice == (int)TRACE_GPU_COPY_H2D, "cudaMemcpyKind");
_Static_assert((int)cudaMemcpyDeviceToHost == (int)TRACE_GPU_COPY_D2H, "cudaMemcpyKind");
_Static_assert((int)cudaMemcpyDeviceToDevice == (int)TRACE_GPU_COPY_D2D, "cudaMemcpyKind");
_Static_assert((int)cudaMemcpyDefault == (int)TRACE_GPU_COPY_DEFAULT, "cudaMemcpyKind");

static bool tracing(void) { return trace_active(); }

static uint64_t now(void) { return trace_gpu_now_ns(); }

/* The stream a _ptsz call works on: its NULL is the per-thread default stream. */
static cudaStream_t per_thread(cudaStream_t stream) { return stream ? stream : cudaStreamPerThread; }

/* ---- the wrappers' frames ------------------------------------------------------------------ */

/* Most wrappers are written with one of these frames. Each defines __wrap_X with X's
 * parameters as the list of CUDA calls names them (cuda_calls/cuda_calls.inc, by name
 * through cuda_calls_by_name.h; real.h declares __wrap_X from the same list, so a wrapper
 * whose signature is not the call's fails to compile), marks the program's call site in the
 * wrapper itself (TRACE_CALL_SITE) and calls the runtime's X. What a call records is the
 * part written out below each frame: an expression or statements on those parameters. */

/* A call recorded only while a sink is installed: without one, the runtime's X and nothing
 * else; with one, `traced`, which calls the runtime itself and records what happened. */
#define WRAP_TRACED(name, traced)                                                                            \
    cudaError_t __wrap_##name CUDA_CALLS_PARAMS_##name {                                                     \
        TRACE_CALL_SITE();                                                                                   \
        if (!tracing()) return __real_##name CUDA_CALLS_ARGS_##name;                                         \
        return traced;                                                                                       \
    }

/* A call that is only an API span while a sink is installed, named api as the program wrote
 * it (a _ptsz entry point by its plain twin's name). */
#define WRAP_SPAN(name, api)                                                                                 \
    cudaError_t __wrap_##name CUDA_CALLS_PARAMS_##name {                                                     \
        TRACE_CALL_SITE();                                                                                   \
        if (!tracing()) return __real_##name CUDA_CALLS_ARGS_##name;                                         \
        uint64_t t0_ = now();                                                                                \
        cudaError_t err_ = __real_##name CUDA_CALLS_ARGS_##name;                                             \
        trace_record_api(api, t0_, now());                                                                   \
        return err_;                                                                                         \
    }

/* A call that makes or ends something the tracer keeps track of (an allocation, a stream, an
 * event, an executable graph): `kept` (statements) runs whenever the call succeeded, traced
 * or not; while a sink is installed the call is an API span named X. */
#define WRAP_KEEPING(name, kept)                                                                             \
    cudaError_t __wrap_##name CUDA_CALLS_PARAMS_##name {                                                     \
        TRACE_CALL_SITE();                                                                                   \
        bool on_ = tracing();                                                                                \
        uint64_t t0_ = on_ ? now() : 0;                                                                      \
        cudaError_t err_ = __real_##name CUDA_CALLS_ARGS_##name;                                             \
        if (err_ == cudaSuccess) {                                                                           \
            kept;                                                                                            \
        }                                                                                                    \
        if (on_) trace_record_api(#name, t0_, now());                                                        \
        return err_;                                                                                         \
    }

/* ---- what memory a pointer is ------------------------------------------------------------ */

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static trace_gpu_mem_cache *cache; /* under cache_lock; made at the first allocation */

static void cache_add(const void *base, size_t bytes, trace_gpu_mem kind) {
    pthread_mutex_lock(&cache_lock);
    if (!cache) cache = trace_gpu_mem_cache_create();
    if (cache) trace_gpu_mem_cache_add(cache, base, bytes, kind);
    pthread_mutex_unlock(&cache_lock);
}

static void cache_remove(const void *base) {
    pthread_mutex_lock(&cache_lock);
    if (cache) trace_gpu_mem_cache_remove(cache, base);
    pthread_mutex_unlock(&cache_lock);
}

static void cache_clear(void) {
    pthread_mutex_lock(&cache_lock);
    if (cache) trace_gpu_mem_cache_clear(cache);
    pthread_mutex_unlock(&cache_lock);
}

bool trace_gpu_device_allocation_of(const void *addr, const void **base, size_t *bytes) {
    /* Only tried: the caller may be a signal handler that interrupted this thread (or
     * another) inside the lock. */
    if (pthread_mutex_trylock(&cache_lock) != 0) return false;
    trace_gpu_mem kind = TRACE_GPU_MEM_PAGEABLE;
    const void *start = NULL;
    uint64_t size = 0;
    bool found = cache && trace_gpu_mem_cache_find(cache, addr, &kind, &start, &size);
    pthread_mutex_unlock(&cache_lock);
    if (!found || kind != TRACE_GPU_MEM_DEVICE) return false;
    if (base) *base = start;
    if (bytes) *bytes = (size_t)size;
    return true;
}

/* What ptr points at: from the allocations seen, else from the runtime. An unknown pointer
 * counts as pageable host memory. */
static trace_gpu_mem mem_of(const void *ptr) {
    trace_gpu_mem kind = TRACE_GPU_MEM_PAGEABLE;
    pthread_mutex_lock(&cache_lock);
    bool known = cache && trace_gpu_mem_cache_lookup(cache, ptr, &kind);
    pthread_mutex_unlock(&cache_lock);
    if (known) return kind;
    struct cudaPointerAttributes attr;
    memset(&attr, 0, sizeof(attr));
    cudaError_t pending = cudaPeekAtLastError();
    cudaError_t err = cudaPointerGetAttributes(&attr, ptr);
    trace_gpu_forget_error(err, pending);
    if (err != cudaSuccess) return TRACE_GPU_MEM_PAGEABLE;
    switch (attr.type) {
    case cudaMemoryTypeHost: return TRACE_GPU_MEM_PINNED;
    case cudaMemoryTypeDevice: return TRACE_GPU_MEM_DEVICE;
    case cudaMemoryTypeManaged: return TRACE_GPU_MEM_MANAGED;
    case cudaMemoryTypeUnregistered: break;
    }
    return TRACE_GPU_MEM_PAGEABLE;
}

/* ---- memory ------------------------------------------------------------------------- */

/* Allocations are remembered when they succeed, and forgotten when they are released. */
WRAP_KEEPING(cudaMalloc, cache_add(*devPtr, size, TRACE_GPU_MEM_DEVICE))
WRAP_KEEPING(cudaMallocHost, cache_add(*ptr, size, TRACE_GPU_MEM_PINNED))
WRAP_KEEPING(cudaHostAlloc, cache_add(*pHost, size, TRACE_GPU_MEM_PINNED))
WRAP_KEEPING(cudaHostRegister, cache_add(ptr, size, TRACE_GPU_MEM_PINNED))
WRAP_KEEPING(cudaHostUnregister, cache_remove(ptr))

/* A release that waits for the device first: cudaFree and cudaFreeHost returned only once a
 * kernel running on a non-blocking stream had ended (H200, sim/conformance/), so the trace
 * gets a device sync, as the simulator records one, and the race checker orders what
 * follows after everything before. Freeing NULL waits for nothing. The allocation at ptr is
 * forgotten when the call succeeded, as in WRAP_KEEPING. */
#define WRAP_FREE(name, ptr)                                                                                 \
    cudaError_t __wrap_##name CUDA_CALLS_PARAMS_##name {                                                     \
        TRACE_CALL_SITE();                                                                                   \
        bool on_ = tracing();                                                                                \
        uint64_t t0_ = on_ ? now() : 0;                                                                      \
        cudaError_t err_ = __real_##name CUDA_CALLS_ARGS_##name;                                             \
        if (err_ == cudaSuccess) cache_remove(ptr);                                                          \
        if (on_) {                                                                                           \
            uint64_t t1_ = now();                                                                            \
            if (err_ == cudaSuccess && (ptr)) trace_record_sync(TRACE_SYNC_DEVICE, NULL, #name, t0_, t1_);  \
            trace_record_api(#name, t0_, t1_);                                                               \
        }                                                                                                    \
        return err_;                                                                                         \
    }

WRAP_FREE(cudaFree, devPtr)
WRAP_FREE(cudaFreeHost, ptr)

/* ---- copies and memsets ------------------------------------------------------------------ */

/* The runtime's copy and memset entry points behind one signature each; the synchronous
 * ones ignore the stream argument (theirs is implied: legacy, or per-thread for _ptds). */
typedef cudaError_t (*copy_fn)(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                               cudaStream_t stream);
typedef cudaError_t (*memset_fn)(void *ptr, int value, size_t count, cudaStream_t stream);

static cudaError_t real_memcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                               cudaStream_t implied) {
    (void)implied;
    return __real_cudaMemcpy(dst, src, count, kind);
}

static cudaError_t real_memcpy_ptds(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                                    cudaStream_t implied) {
    (void)implied;
    return __real_cudaMemcpy_ptds(dst, src, count, kind);
}

static cudaError_t real_memset(void *ptr, int value, size_t count, cudaStream_t implied) {
    (void)implied;
    return __real_cudaMemset(ptr, value, count);
}

static cudaError_t real_memset_ptds(void *ptr, int value, size_t count, cudaStream_t implied) {
    (void)implied;
    return __real_cudaMemset_ptds(ptr, value, count);
}

/* A copy through the runtime entry point real, on stream: the stream it works on, so
 * cudaStreamPerThread and never NULL for a _ptds/_ptsz call. api names the call as the
 * program wrote it. */
static cudaError_t traced_copy(const char *api, copy_fn real, void *dst, const void *src, size_t count,
                               enum cudaMemcpyKind kind, cudaStream_t stream, bool async) {
    /* Only the sides the classification reads: the host side of an H2D or D2H copy, both of
     * an H2H or cudaMemcpyDefault copy, neither of a D2D copy. */
    bool need_src = count && kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice;
    bool need_dst = count && kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice;
    trace_gpu_mem src_mem = need_src ? mem_of(src) : TRACE_GPU_MEM_PAGEABLE;
    trace_gpu_mem dst_mem = need_dst ? mem_of(dst) : TRACE_GPU_MEM_PAGEABLE;
    trace_gpu_copy_class cls = trace_gpu_classify_copy((trace_gpu_copy_kind)kind, src_mem, dst_mem);
    /* A host-to-host copy is done by the host inside the call: its span is the call's. */
    bool on_device = count > 0 && cls.dir != TRACE_COPY_H2H;
    uint64_t t0 = now();
    uint64_t token = on_device ? trace_gpu_copy_op_begin(stream, cls.dir) : 0;
    cudaError_t err = real(dst, src, count, kind, stream);
    trace_gpu_op_end(token, stream);
    uint64_t t1 = now();
    /* A copy captured into a graph never runs as such: no op. */
    if (err != cudaSuccess || count == 0 || (async && trace_gpu_stream_capturing(stream))) {
        trace_gpu_op_cancel(token);
        trace_record_api(api, t0, t1);
        return err;
    }
    trace_op op;
    trace_copy_rule rule = trace_gpu_copy_op(&op, cls, dst, src, count, async);
    op.enqueue_ns = t0;
    if (!on_device) {
        op.start_ns = t0;
        op.end_ns = t1;
        op.timed = true;
    }
    if (rule.sync_before) trace_record_sync(TRACE_SYNC_STREAM, trace_gpu_record_stream(stream), api, t0, t1);
    uint64_t id = trace_record(&op, trace_gpu_record_stream(stream));
    trace_gpu_op_bind(token, id, t0);
    if (rule.host_waits) {
        trace_record_sync_op(id, api, t0, t1);
        trace_gpu_sync_point(false);
    } else if (!rule.sync_before) {
        trace_record_api(api, t0, t1);
    }
    return err;
}

WRAP_TRACED(cudaMemcpy, traced_copy("cudaMemcpy", real_memcpy, dst, src, count, kind, NULL, false))
WRAP_TRACED(cudaMemcpy_ptds,
            traced_copy("cudaMemcpy", real_memcpy_ptds, dst, src, count, kind, cudaStreamPerThread, false))
WRAP_TRACED(cudaMemcpyAsync,
            traced_copy("cudaMemcpyAsync", __real_cudaMemcpyAsync, dst, src, count, kind, stream, true))
WRAP_TRACED(cudaMemcpyAsync_ptsz, traced_copy("cudaMemcpyAsync", __real_cudaMemcpyAsync_ptsz, dst, src, count, kind,
                                              per_thread(stream), true))

/* A peer copy (cudaMemcpyPeerAsync, cudaMemcpyPeer): device memory of src_dev to device
 * memory of dst_dev, on the link lane as the simulator records it (sim/copies.c). The
 * runtime checks the devices and pointers; an op is recorded only when it succeeded. The
 * synchronous form is serialized with all work of the current device and both devices
 * (its reference): a device-wide wait before it, and the host waits for the copy. */
static cudaError_t traced_peer_copy(const char *api, void *dst, int dst_dev, const void *src, int src_dev,
                                    size_t count, cudaStream_t stream, bool async) {
    uint64_t t0 = now();
    uint64_t token = count ? trace_gpu_op_begin(stream, TRACE_GPU_OP_COPY) : 0;
    cudaError_t err = async ? __real_cudaMemcpyPeerAsync(dst, dst_dev, src, src_dev, count, stream)
                            : __real_cudaMemcpyPeer(dst, dst_dev, src, src_dev, count);
    trace_gpu_op_end(token, stream);
    uint64_t t1 = now();
    if (err != cudaSuccess || count == 0 || (async && trace_gpu_stream_capturing(stream))) {
        trace_gpu_op_cancel(token);
        trace_record_api(api, t0, t1);
        return err;
    }
    trace_op op;
    trace_gpu_peer_copy_op(&op, dst, dst_dev, src, src_dev, count);
    op.enqueue_ns = t0;
    if (!async) trace_record_sync(TRACE_SYNC_DEVICE, NULL, api, t0, t0);
    uint64_t id = trace_record(&op, trace_gpu_record_stream(stream));
    trace_gpu_op_bind(token, id, t0);
    if (async) {
        trace_record_api(api, t0, t1);
    } else {
        trace_record_sync_op(id, api, t0, t1);
        trace_gpu_sync_point(false);
    }
    return err;
}

WRAP_TRACED(cudaMemcpyPeerAsync,
            traced_peer_copy("cudaMemcpyPeerAsync", dst, dstDevice, src, srcDevice, count, stream, true))
WRAP_TRACED(cudaMemcpyPeer, traced_peer_copy("cudaMemcpyPeer", dst, dstDevice, src, srcDevice, count, NULL, false))

static cudaError_t traced_memset(const char *api, memset_fn real, void *ptr, int value, size_t count,
                                 cudaStream_t stream, bool async) {
    trace_gpu_mem target = (!async && count) ? mem_of(ptr) : TRACE_GPU_MEM_DEVICE;
    uint64_t t0 = now();
    uint64_t token = count ? trace_gpu_op_begin(stream, TRACE_GPU_OP_MEMSET) : 0;
    cudaError_t err = real(ptr, value, count, stream);
    trace_gpu_op_end(token, stream);
    uint64_t t1 = now();
    if (err != cudaSuccess || count == 0 || trace_gpu_stream_capturing(stream)) {
        trace_gpu_op_cancel(token);
        trace_record_api(api, t0, t1);
        return err;
    }
    trace_op op;
    bool host_waits = trace_gpu_memset_op(&op, target, ptr, count, async);
    op.enqueue_ns = t0;
    uint64_t id = trace_record(&op, trace_gpu_record_stream(stream));
    trace_gpu_op_bind(token, id, t0);
    if (host_waits) {
        trace_record_sync_op(id, api, t0, t1);
        trace_gpu_sync_point(false);
    } else {
        trace_record_api(api, t0, t1);
    }
    return err;
}

WRAP_TRACED(cudaMemset, traced_memset("cudaMemset", real_memset, devPtr, value, count, NULL, false))
WRAP_TRACED(cudaMemset_ptds,
            traced_memset("cudaMemset", real_memset_ptds, devPtr, value, count, cudaStreamPerThread, false))
WRAP_TRACED(cudaMemsetAsync,
            traced_memset("cudaMemsetAsync", __real_cudaMemsetAsync, devPtr, value, count, stream, true))
WRAP_TRACED(cudaMemsetAsync_ptsz, traced_memset("cudaMemsetAsync", __real_cudaMemsetAsync_ptsz, devPtr, value, count,
                                                per_thread(stream), true))

/* ---- streams ------------------------------------------------------------------------------ */

static void stream_created(cudaStream_t stream, unsigned flags) {
    int priority = 0;
    cudaError_t pending = cudaPeekAtLastError();
    cudaError_t err = cudaStreamGetPriority(stream, &priority); /* the runtime clamps it */
    trace_gpu_forget_error(err, pending);
    int device = 0;
    pending = cudaPeekAtLastError();
    err = cudaGetDevice(&device); /* a stream belongs to the device current when it is made */
    trace_gpu_forget_error(err, pending);
    if (err != cudaSuccess || device < 0) device = 0;
    trace_gpu_stream_created(stream, flags);
    int32_t id = trace_stream_created_on(stream, flags, priority, (uint32_t)device);
    const trace_stream *info = trace_stream_get(id);
    if (info) trace_gpu_nvtx_name_stream(stream, info->name);
}

WRAP_KEEPING(cudaStreamCreate, stream_created(*pStream, cudaStreamDefault))
WRAP_KEEPING(cudaStreamCreateWithFlags, stream_created(*pStream, flags))
WRAP_KEEPING(cudaStreamCreateWithPriority, stream_created(*pStream, flags))
WRAP_KEEPING(cudaStreamDestroy, trace_stream_destroyed(stream); trace_gpu_stream_destroyed(stream))

/* The host waited in `api` from t0 to t1 for target: when the call succeeded that orders
 * what it waited for before what the host does next (a SYNC record) and, for the
 * synchronising calls (not the queries), is a point where device times may be delivered;
 * a query that answered not ready is a span that names what it asked about; any other
 * failure is only an API span. Returns err. */
typedef enum wait_kind { WAIT_QUERY, WAIT_SYNC, WAIT_SYNC_DEVICE } wait_kind;

static cudaError_t host_waited(cudaError_t err, wait_kind kind, trace_sync_target target, const void *handle,
                               const char *api, uint64_t t0, uint64_t t1) {
    bool asked = err == cudaSuccess || (kind == WAIT_QUERY && err == cudaErrorNotReady);
    const void *traced = asked && target == TRACE_SYNC_STREAM ? trace_gpu_record_stream(handle) : handle;
    if (err != cudaSuccess) {
        /* A query that answered not ready names what it asked about: a loop of them on one
         * event or stream is a wait (trace/view/polls.h). */
        if (asked)
            trace_record_query(target, traced, api, t0, t1);
        else
            trace_record_api(api, t0, t1);
        return err;
    }
    trace_record_sync(target, traced, api, t0, t1);
    if (kind != WAIT_QUERY) trace_gpu_sync_point(kind == WAIT_SYNC_DEVICE);
    return err;
}

/* A synchronise (WAIT_SYNC) or query (WAIT_QUERY) of stream by real. A successful query
 * means everything enqueued on the stream has finished, which orders it before what the
 * host does next, as a synchronize would. */
static cudaError_t traced_stream_wait(const char *api, cudaError_t (*real)(cudaStream_t), wait_kind kind,
                                      cudaStream_t stream) {
    uint64_t t0 = now();
    cudaError_t err = real(stream);
    return host_waited(err, kind, TRACE_SYNC_STREAM, stream, api, t0, now());
}

WRAP_TRACED(cudaStreamSynchronize,
            traced_stream_wait("cudaStreamSynchronize", __real_cudaStreamSynchronize, WAIT_SYNC, stream))
WRAP_TRACED(cudaStreamSynchronize_ptsz, traced_stream_wait("cudaStreamSynchronize", __real_cudaStreamSynchronize_ptsz,
                                                           WAIT_SYNC, per_thread(stream)))
WRAP_TRACED(cudaStreamQuery, traced_stream_wait("cudaStreamQuery", __real_cudaStreamQuery, WAIT_QUERY, stream))
WRAP_TRACED(cudaStreamQuery_ptsz,
            traced_stream_wait("cudaStreamQuery", __real_cudaStreamQuery_ptsz, WAIT_QUERY, per_thread(stream)))

static cudaError_t traced_wait_event(cudaError_t (*real)(cudaStream_t, cudaEvent_t, unsigned int),
                                     cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
    uint64_t t0 = now();
    uint64_t token = trace_gpu_op_begin(stream, TRACE_GPU_OP_EVENT_WAIT);
    cudaError_t err = real(stream, event, flags);
    trace_gpu_op_end(token, stream);
    uint64_t t1 = now();
    /* A wait in a capture (or one that joined the stream to a capture) is a graph edge. */
    if (err == cudaSuccess && !trace_gpu_stream_capturing(stream)) {
        uint64_t id = trace_record_stream_wait(trace_gpu_record_stream(stream), event, t0);
        trace_gpu_op_bind(token, id, t0);
    } else {
        trace_gpu_op_cancel(token);
    }
    trace_record_api("cudaStreamWaitEvent", t0, t1);
    return err;
}

WRAP_TRACED(cudaStreamWaitEvent, traced_wait_event(__real_cudaStreamWaitEvent, stream, event, flags))
WRAP_TRACED(cudaStreamWaitEvent_ptsz,
            traced_wait_event(__real_cudaStreamWaitEvent_ptsz, per_thread(stream), event, flags))

static cudaError_t traced_host_func(cudaError_t (*real)(cudaStream_t, cudaHostFn_t, void *), cudaStream_t stream,
                                    cudaHostFn_t fn, void *userData) {
    if (trace_gpu_stream_capturing(stream)) {
        /* Captured: the function runs at each launch of the graph, unrecorded. */
        uint64_t t0 = now();
        cudaError_t err = real(stream, fn, userData);
        trace_record_api("cudaLaunchHostFunc", t0, now());
        return err;
    }
    trace_gpu_host_call *call = fn ? trace_gpu_host_call_new(fn, userData) : NULL;
    if (!call) return real(stream, fn, userData);
    uint64_t t0 = now();
    cudaError_t err = real(stream, trace_gpu_host_call_trampoline(), call);
    uint64_t t1 = now();
    if (err != cudaSuccess) {
        trace_gpu_host_call_cancel(call);
        trace_record_api("cudaLaunchHostFunc", t0, t1);
        return err;
    }
    trace_op op;
    memset(&op, 0, sizeof(op));
    op.kind = TRACE_OP_HOST_FN;
    op.engine = TRACE_ENGINE_HOST;
    op.batch = -1;
    op.enqueue_ns = t0;
    strcpy(op.name, "host function");
    trace_gpu_host_call_bind(call, trace_record(&op, trace_gpu_record_stream(stream)));
    trace_record_api("cudaLaunchHostFunc", t0, t1);
    return err;
}

WRAP_TRACED(cudaLaunchHostFunc, traced_host_func(__real_cudaLaunchHostFunc, stream, fn, userData))
WRAP_TRACED(cudaLaunchHostFunc_ptsz,
            traced_host_func(__real_cudaLaunchHostFunc_ptsz, per_thread(stream), fn, userData))

/* ---- events ------------------------------------------------------------------------------- */

WRAP_KEEPING(cudaEventCreate, trace_event_created(*event, cudaEventDefault))
WRAP_KEEPING(cudaEventCreateWithFlags, trace_event_created(*event, flags))
WRAP_KEEPING(cudaEventDestroy, trace_event_destroyed(event))

static cudaError_t traced_event_record(cudaError_t (*real)(cudaEvent_t, cudaStream_t), cudaEvent_t event,
                                       cudaStream_t stream) {
    uint64_t t0 = now();
    uint64_t token = trace_gpu_op_begin(stream, TRACE_GPU_OP_EVENT_RECORD);
    cudaError_t err = real(event, stream);
    trace_gpu_op_end(token, stream);
    uint64_t t1 = now();
    if (err == cudaSuccess && !trace_gpu_stream_capturing(stream)) {
        uint64_t id = trace_record_event_record(event, trace_gpu_record_stream(stream), t0);
        trace_gpu_op_bind(token, id, t0);
    } else {
        trace_gpu_op_cancel(token);
    }
    trace_record_api("cudaEventRecord", t0, t1);
    return err;
}

WRAP_TRACED(cudaEventRecord, traced_event_record(__real_cudaEventRecord, event, stream))
WRAP_TRACED(cudaEventRecord_ptsz, traced_event_record(__real_cudaEventRecord_ptsz, event, per_thread(stream)))

/* A synchronise (WAIT_SYNC) or query (WAIT_QUERY) of event by real. cudaSuccess from a query:
 * the event's last record has completed, which orders it before what the host does next, as
 * cudaEventSynchronize would. */
static cudaError_t traced_event_wait(const char *api, cudaError_t (*real)(cudaEvent_t), wait_kind kind,
                                     cudaEvent_t event) {
    uint64_t t0 = now();
    cudaError_t err = real(event);
    return host_waited(err, kind, TRACE_SYNC_EVENT, event, api, t0, now());
}

WRAP_TRACED(cudaEventQuery, traced_event_wait("cudaEventQuery", __real_cudaEventQuery, WAIT_QUERY, event))
WRAP_TRACED(cudaEventSynchronize,
            traced_event_wait("cudaEventSynchronize", __real_cudaEventSynchronize, WAIT_SYNC, event))

WRAP_SPAN(cudaEventElapsedTime, "cudaEventElapsedTime")

/* ---- the device --------------------------------------------------------------------------- */

static cudaError_t traced_device_sync(void) {
    uint64_t t0 = now();
    cudaError_t err = __real_cudaDeviceSynchronize();
    return host_waited(err, WAIT_SYNC_DEVICE, TRACE_SYNC_DEVICE, NULL, "cudaDeviceSynchronize", t0, now());
}

WRAP_TRACED(cudaDeviceSynchronize, traced_device_sync())

cudaError_t __wrap_cudaDeviceReset(void) {
    TRACE_CALL_SITE();
    bool on = tracing();
    uint64_t t0 = on ? now() : 0;
    trace_gpu_before_device_reset();
    cudaError_t err = __real_cudaDeviceReset();
    if (err == cudaSuccess) cache_clear(); /* the reset frees every allocation */
    trace_gpu_after_device_reset();
    if (!on) return err;
    uint64_t t1 = now();
    /* The reset ends all of the device's work and destroys its streams and events. */
    if (err == cudaSuccess)
        trace_record_sync(TRACE_SYNC_DEVICE, NULL, "cudaDeviceReset", t0, t1);
    else
        trace_record_api("cudaDeviceReset", t0, t1);
    return err;
}

/* ---- graphs ------------------------------------------------------------------------------ */

/* Graphs larger than this are named by their node count alone. */
#define GRAPH_BRANCHES_MAX_NODES 4096

static size_t node_index(const cudaGraphNode_t *nodes, size_t n, cudaGraphNode_t node) {
    for (size_t i = 0; i < n; i++)
        if (nodes[i] == node) return i;
    return n;
}

/* How many of graph's kernel nodes no other kernel node precedes (graphs.h: its branches),
 * 0 when it cannot be told. A pass in topological order (Kahn's) carries "a kernel is
 * before me" along the edges. */
static size_t graph_branches(cudaGraph_t graph, size_t n, cudaError_t pending) {
    if (n == 0 || n > GRAPH_BRANCHES_MAX_NODES) return 0;
    size_t n_edges = 0, branches = 0, done = 0;
    cudaGraphNode_t *nodes = calloc(n, sizeof(*nodes));
    unsigned char *kernel = calloc(n, 1), *after_kernel = calloc(n, 1);
    size_t *indegree = calloc(n, sizeof(size_t)), *queue = calloc(n, sizeof(size_t));
    cudaGraphNode_t *from = NULL, *to = NULL;
    size_t got = n;
    cudaError_t err = cudaSuccess;
    if (!nodes || !kernel || !after_kernel || !indegree || !queue) goto out;
    if ((err = cudaGraphGetNodes(graph, nodes, &got)) != cudaSuccess || got != n) goto out;
    if ((err = cudaGraphGetEdges(graph, NULL, NULL, NULL, &n_edges)) != cudaSuccess) goto out;
    if (n_edges) {
        from = calloc(n_edges, sizeof(*from));
        to = calloc(n_edges, sizeof(*to));
        if (!from || !to || (err = cudaGraphGetEdges(graph, from, to, NULL, &n_edges)) != cudaSuccess) goto out;
    }
    for (size_t i = 0; i < n; i++) {
        enum cudaGraphNodeType type;
        if ((err = cudaGraphNodeGetType(nodes[i], &type)) != cudaSuccess) goto out;
        kernel[i] = type == cudaGraphNodeTypeKernel;
    }
    for (size_t e = 0; e < n_edges; e++) {
        size_t t = node_index(nodes, n, to[e]);
        if (t < n) indegree[t]++;
    }
    size_t head = 0, tail = 0;
    for (size_t i = 0; i < n; i++)
        if (!indegree[i]) queue[tail++] = i;
    while (head < tail) {
        size_t v = queue[head++];
        done++;
        if (kernel[v] && !after_kernel[v]) branches++;
        for (size_t e = 0; e < n_edges; e++) {
            if (from[e] != nodes[v]) continue;
            size_t t = node_index(nodes, n, to[e]);
            if (t >= n) continue;
            if (kernel[v] || after_kernel[v]) after_kernel[t] = 1;
            if (--indegree[t] == 0) queue[tail++] = t;
        }
    }
    if (done != n) branches = 0; /* not a DAG as read: say nothing */
out:
    trace_gpu_forget_error(err, pending);
    free(nodes);
    free(kernel);
    free(after_kernel);
    free(indegree);
    free(queue);
    free(from);
    free(to);
    return branches;
}

/* An executable graph is remembered with its node and branch counts, for its launches'
 * names. */
static void graph_instantiated(cudaGraphExec_t exec, cudaGraph_t graph) {
    size_t nodes = 0;
    cudaError_t pending = cudaPeekAtLastError();
    cudaError_t qerr = cudaGraphGetNodes(graph, NULL, &nodes);
    size_t branches = qerr == cudaSuccess ? graph_branches(graph, nodes, pending) : 0;
    trace_gpu_forget_error(qerr, pending);
    if (qerr == cudaSuccess) trace_gpu_graph_exec_add(exec, nodes, branches);
}

/* A capture's beginning and end, spans on the host lane: a lab counts the graphs a run
 * captures by them, as it counts the instantiations and launches. */
WRAP_SPAN(cudaStreamBeginCapture, "cudaStreamBeginCapture")
WRAP_SPAN(cudaStreamBeginCapture_ptsz, "cudaStreamBeginCapture")
WRAP_SPAN(cudaStreamEndCapture, "cudaStreamEndCapture")
WRAP_SPAN(cudaStreamEndCapture_ptsz, "cudaStreamEndCapture")

WRAP_KEEPING(cudaGraphInstantiate, graph_instantiated(*pGraphExec, graph))
WRAP_KEEPING(cudaGraphExecDestroy, trace_gpu_graph_exec_forget(graphExec))

/* A graph launch is one KERNEL op on its stream, named "graph (N nodes, K branches)", with no memory
 * ranges (the race checker does not see what the graph's nodes touch). With CUDA-event
 * timing, events around the launch time it; under CUPTI, whose records are per node, the
 * op gets the launch call's host span instead (docs/gpu-tracing.md). */
static cudaError_t traced_graph_launch(cudaError_t (*real)(cudaGraphExec_t, cudaStream_t), cudaGraphExec_t exec,
                                       cudaStream_t stream) {
    bool capturing = trace_gpu_stream_capturing(stream);
    bool events = !capturing && trace_gpu_status() == TRACE_GPU_EVENTS;
    uint64_t t0 = now();
    uint64_t token = events ? trace_gpu_op_begin(stream, TRACE_GPU_OP_DEVICE) : 0;
    cudaError_t err = real(exec, stream);
    trace_gpu_op_end(token, stream);
    uint64_t t1 = now();
    if (err != cudaSuccess || capturing) {
        trace_gpu_op_cancel(token);
        trace_record_api("cudaGraphLaunch", t0, t1);
        return err;
    }
    trace_op op;
    memset(&op, 0, sizeof(op));
    op.kind = TRACE_OP_KERNEL;
    op.engine = TRACE_ENGINE_COMPUTE;
    op.batch = -1;
    op.enqueue_ns = t0;
    trace_gpu_graph_name(exec, op.name, sizeof(op.name));
    if (!events) { /* CUPTI times the nodes: the launch's host span */
        op.start_ns = t0;
        op.end_ns = t1;
        op.timed = true;
    }
    uint64_t id = trace_record(&op, trace_gpu_record_stream(stream));
    trace_gpu_op_bind(token, id, t0);
    trace_record_api("cudaGraphLaunch", t0, t1);
    return err;
}

WRAP_TRACED(cudaGraphLaunch, traced_graph_launch(__real_cudaGraphLaunch, graphExec, stream))
WRAP_TRACED(cudaGraphLaunch_ptsz, traced_graph_launch(__real_cudaGraphLaunch_ptsz, graphExec, per_thread(stream)))
