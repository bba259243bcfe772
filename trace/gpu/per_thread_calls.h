/* trace/gpu/per_thread_calls.h: runtime calls written in a unit compiled for per-thread
 * default streams (per_thread_calls.c is built with CUDA_API_PER_THREAD_DEFAULT_STREAM, so
 * they reach the runtime's _ptds/_ptsz entry points), for interpose_gpu_test. Each makes
 * one call with stream 0, or the call that names no stream. */
#ifndef STREAMLAB_TRACE_GPU_PER_THREAD_CALLS_H
#define STREAMLAB_TRACE_GPU_PER_THREAD_CALLS_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

cudaError_t trace_gpu_ptds_memcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
cudaError_t trace_gpu_ptds_memcpy_async(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
cudaError_t trace_gpu_ptds_memset(void *devPtr, int value, size_t count);
cudaError_t trace_gpu_ptds_memset_async(void *devPtr, int value, size_t count);
cudaError_t trace_gpu_ptds_event_record(cudaEvent_t event);
cudaError_t trace_gpu_ptds_wait_event(cudaEvent_t event);
cudaError_t trace_gpu_ptds_host_func(cudaHostFn_t fn, void *userData);
cudaError_t trace_gpu_ptds_synchronize(void);
cudaError_t trace_gpu_ptds_query(void);

#ifdef __cplusplus
}
#endif

#endif
