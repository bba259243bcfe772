/* trace/gpu/real.h: the CUDA runtime's own entry points behind the interposer.
 *
 * Every binary linked with //trace/gpu:gpu is linked with -Wl,--wrap=X for each runtime
 * call X below: the program's calls to X reach __wrap_X (interpose.c), and __real_X is the
 * runtime's X. The tracer's own CUDA calls (its events and private stream) use __real_X so
 * that they never appear in the trace. Internal to trace/gpu/. */
#ifndef STREAMLAB_TRACE_GPU_REAL_H
#define STREAMLAB_TRACE_GPU_REAL_H

#include <cuda_runtime_api.h>

cudaError_t __real_cudaMalloc(void **devPtr, size_t size);
cudaError_t __real_cudaFree(void *devPtr);
cudaError_t __real_cudaMallocHost(void **ptr, size_t size);
cudaError_t __real_cudaHostAlloc(void **pHost, size_t size, unsigned int flags);
cudaError_t __real_cudaFreeHost(void *ptr);
cudaError_t __real_cudaHostRegister(void *ptr, size_t size, unsigned int flags);
cudaError_t __real_cudaHostUnregister(void *ptr);
cudaError_t __real_cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
cudaError_t __real_cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                                   cudaStream_t stream);
cudaError_t __real_cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count);
cudaError_t __real_cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice, size_t count,
                                       cudaStream_t stream);
cudaError_t __real_cudaMemset(void *devPtr, int value, size_t count);
cudaError_t __real_cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream);
cudaError_t __real_cudaStreamCreate(cudaStream_t *pStream);
cudaError_t __real_cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags);
cudaError_t __real_cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags, int priority);
cudaError_t __real_cudaStreamDestroy(cudaStream_t stream);
cudaError_t __real_cudaStreamSynchronize(cudaStream_t stream);
cudaError_t __real_cudaStreamQuery(cudaStream_t stream);
cudaError_t __real_cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags);
cudaError_t __real_cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData);
cudaError_t __real_cudaEventCreate(cudaEvent_t *event);
cudaError_t __real_cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
cudaError_t __real_cudaEventRecord(cudaEvent_t event, cudaStream_t stream);
cudaError_t __real_cudaEventQuery(cudaEvent_t event);
cudaError_t __real_cudaEventSynchronize(cudaEvent_t event);
cudaError_t __real_cudaEventDestroy(cudaEvent_t event);
cudaError_t __real_cudaDeviceSynchronize(void);
cudaError_t __real_cudaDeviceReset(void);
cudaError_t __real_cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph, unsigned long long flags);
cudaError_t __real_cudaGraphExecDestroy(cudaGraphExec_t graphExec);
cudaError_t __real_cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream);

/* The entry points that code compiled with CUDA_API_PER_THREAD_DEFAULT_STREAM calls instead
 * of the plain ones above (the toolkit's header renames them there, and declares them only
 * there); wrapped the same way. */
cudaError_t __real_cudaMemcpy_ptds(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
cudaError_t __real_cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                                        cudaStream_t stream);
cudaError_t __real_cudaMemset_ptds(void *devPtr, int value, size_t count);
cudaError_t __real_cudaMemsetAsync_ptsz(void *devPtr, int value, size_t count, cudaStream_t stream);
cudaError_t __real_cudaStreamSynchronize_ptsz(cudaStream_t stream);
cudaError_t __real_cudaStreamQuery_ptsz(cudaStream_t stream);
cudaError_t __real_cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event, unsigned int flags);
cudaError_t __real_cudaLaunchHostFunc_ptsz(cudaStream_t stream, cudaHostFn_t fn, void *userData);
cudaError_t __real_cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream);
cudaError_t __real_cudaGraphLaunch_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream);

/* After a call the tracer made on its own behalf: clears the error it left for
 * cudaGetLastError, unless the program already had one pending (which stays for the
 * program to read). pending is cudaPeekAtLastError() from before the call. */
static inline void trace_gpu_forget_error(cudaError_t err, cudaError_t pending) {
    if (err != cudaSuccess && pending == cudaSuccess) (void)cudaGetLastError();
}

#endif
