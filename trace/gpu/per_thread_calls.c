/* trace/gpu/per_thread_calls.c: see per_thread_calls.h. */
#include "trace/gpu/per_thread_calls.h"

#if !defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
#error "per_thread_calls.c must be compiled with -DCUDA_API_PER_THREAD_DEFAULT_STREAM"
#endif

cudaError_t trace_gpu_ptds_memcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind) {
    return cudaMemcpy(dst, src, count, kind);
}

cudaError_t trace_gpu_ptds_memcpy_async(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind) {
    return cudaMemcpyAsync(dst, src, count, kind, 0);
}

cudaError_t trace_gpu_ptds_memset(void *devPtr, int value, size_t count) { return cudaMemset(devPtr, value, count); }

cudaError_t trace_gpu_ptds_memset_async(void *devPtr, int value, size_t count) {
    return cudaMemsetAsync(devPtr, value, count, 0);
}

cudaError_t trace_gpu_ptds_event_record(cudaEvent_t event) { return cudaEventRecord(event, 0); }

cudaError_t trace_gpu_ptds_wait_event(cudaEvent_t event) { return cudaStreamWaitEvent(0, event, 0); }

cudaError_t trace_gpu_ptds_host_func(cudaHostFn_t fn, void *userData) { return cudaLaunchHostFunc(0, fn, userData); }

cudaError_t trace_gpu_ptds_synchronize(void) { return cudaStreamSynchronize(0); }

cudaError_t trace_gpu_ptds_query(void) { return cudaStreamQuery(0); }
