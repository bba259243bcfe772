/* sim/per_thread_calls.c: the entry points that code compiled for per-thread default streams
 * calls (CUDA_API_PER_THREAD_DEFAULT_STREAM: the _ptds and _ptsz names that
 * cuda_runtime_api.h and streamlab_sim.h rename the calls to). Each is the plain call with
 * a NULL stream read as cudaStreamPerThread; that is all the mode changes ("Stream
 * synchronization behavior" in the CUDA Runtime API). What the per-thread stream does, a
 * blocking stream that synchronises with the legacy stream and with no other, is the
 * stream table's and the scheduler's (sim/core/streams.h, scheduler.h) whichever name
 * reached it.
 * The simulator drives the device from one host thread, so there is one per-thread stream. */
#include <cuda_runtime.h>

#include "sim/copies.h"
#include "streamlab_sim.h"
#include "trace/record/recorder.h"

static cudaStream_t per_thread(cudaStream_t stream) { return stream ? stream : cudaStreamPerThread; }

cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind) {
    TRACE_CALL_SITE();
    return sim_memcpy_on(cudaStreamPerThread, dst, src, count, kind);
}

cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                                 cudaStream_t stream) {
    TRACE_CALL_SITE();
    return cudaMemcpyAsync(dst, src, count, kind, per_thread(stream));
}

cudaError_t cudaMemset_ptds(void *devPtr, int value, size_t count) {
    TRACE_CALL_SITE();
    return sim_memset_on(cudaStreamPerThread, devPtr, value, count);
}

cudaError_t cudaMemsetAsync_ptsz(void *devPtr, int value, size_t count, cudaStream_t stream) {
    TRACE_CALL_SITE();
    return cudaMemsetAsync(devPtr, value, count, per_thread(stream));
}

cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream) {
    TRACE_CALL_SITE();
    return cudaStreamSynchronize(per_thread(stream));
}

cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream) {
    TRACE_CALL_SITE();
    return cudaStreamQuery(per_thread(stream));
}

cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
    TRACE_CALL_SITE();
    return cudaStreamWaitEvent(per_thread(stream), event, flags);
}

cudaError_t cudaStreamGetPriority_ptsz(cudaStream_t hStream, int *priority) {
    TRACE_CALL_SITE();
    return cudaStreamGetPriority(per_thread(hStream), priority);
}

cudaError_t cudaStreamGetFlags_ptsz(cudaStream_t hStream, unsigned int *flags) {
    TRACE_CALL_SITE();
    return cudaStreamGetFlags(per_thread(hStream), flags);
}

cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t stream, cudaHostFn_t fn, void *userData) {
    TRACE_CALL_SITE();
    return cudaLaunchHostFunc(per_thread(stream), fn, userData);
}

cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream) {
    TRACE_CALL_SITE();
    return cudaEventRecord(event, per_thread(stream));
}

cudaError_t sim_launch_kernel_ptsz(const sim_kernel_launch *launch, cudaStream_t stream) {
    TRACE_CALL_SITE();
    return sim_launch_kernel(launch, per_thread(stream));
}

cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t stream, enum cudaStreamCaptureMode mode) {
    TRACE_CALL_SITE();
    return cudaStreamBeginCapture(per_thread(stream), mode);
}

cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t stream, cudaGraph_t *pGraph) {
    TRACE_CALL_SITE();
    return cudaStreamEndCapture(per_thread(stream), pGraph);
}

cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream, enum cudaStreamCaptureStatus *pCaptureStatus) {
    TRACE_CALL_SITE();
    return cudaStreamIsCapturing(per_thread(stream), pCaptureStatus);
}

cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream) {
    TRACE_CALL_SITE();
    return cudaGraphLaunch(graphExec, per_thread(stream));
}
