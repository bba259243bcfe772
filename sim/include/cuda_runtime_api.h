/* sim/include/cuda_runtime_api.h: the C functions of the CUDA runtime API that the
 * simulated runtime (//sim:cudart) implements, declared with the toolkit's names and
 * signatures (C++ callers get the toolkit's default arguments too). A program that uses
 * only these links against the simulator instead of libcudart without a change, also when
 * it is compiled for per-thread default streams (CUDA_API_PER_THREAD_DEFAULT_STREAM: see
 * the end of this file). */
#ifndef STREAMLAB_SIM_CUDA_RUNTIME_API_H
#define STREAMLAB_SIM_CUDA_RUNTIME_API_H

#include <stddef.h>

#include "driver_types.h"

/* The toolkit release whose declarations these follow. */
#define CUDART_VERSION 13000
/* Set when the runtime is the simulator rather than the toolkit's libcudart. */
#define STREAMLAB_SIM_CUDART 1

#if defined(__cplusplus)
#define STREAMLAB_SIM_DEFAULT(v) = v
extern "C" {
#else
#define STREAMLAB_SIM_DEFAULT(v)
#endif

/* ---- devices ------------------------------------------------------------------------ */
cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaGetDevice(int *device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice);
cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags);
cudaError_t cudaDeviceDisablePeerAccess(int peerDevice);
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device);
cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device);
cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaDeviceReset(void);

/* ---- errors ------------------------------------------------------------------------- */
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorString(cudaError_t error);
const char *cudaGetErrorName(cudaError_t error);

/* ---- memory ------------------------------------------------------------------------- */
cudaError_t cudaMalloc(void **devPtr, size_t size);
cudaError_t cudaFree(void *devPtr);
cudaError_t cudaMallocHost(void **ptr, size_t size);
cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags);
cudaError_t cudaFreeHost(void *ptr);
cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags);
cudaError_t cudaHostUnregister(void *ptr);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream STREAMLAB_SIM_DEFAULT(0));
/* Peer copies between devices (a profile of two devices; docs/simulator.md). */
cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count);
cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice, size_t count,
                                cudaStream_t stream STREAMLAB_SIM_DEFAULT(0));
cudaError_t cudaMemset(void *devPtr, int value, size_t count);
cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count,
                            cudaStream_t stream STREAMLAB_SIM_DEFAULT(0));

/* ---- streams ------------------------------------------------------------------------ */
cudaError_t cudaStreamCreate(cudaStream_t *pStream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags);
cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags, int priority);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamQuery(cudaStream_t stream);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
                                unsigned int flags STREAMLAB_SIM_DEFAULT(0));
cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int *priority);
cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags);
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData);

/* ---- events ------------------------------------------------------------------------- */
cudaError_t cudaEventCreate(cudaEvent_t *event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream STREAMLAB_SIM_DEFAULT(0));
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaEventDestroy(cudaEvent_t event);

/* ---- stream capture and graphs -------------------------------------------------------- */
cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph);
cudaError_t cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus *pCaptureStatus);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                 unsigned long long flags STREAMLAB_SIM_DEFAULT(0));
cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec);
cudaError_t cudaGraphDestroy(cudaGraph_t graph);
cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *numNodes);

/* ---- the per-thread default stream --------------------------------------------------- */
/* What code compiled with CUDA_API_PER_THREAD_DEFAULT_STREAM defined (nvcc's
 * --default-stream per-thread defines it) calls instead: the toolkit renames these calls
 * (below) to entry points of their own, in which the NULL stream, and the implicit stream of
 * cudaMemcpy and cudaMemset, is the per-thread default stream cudaStreamPerThread instead of
 * the legacy default stream. The explicit handles cudaStreamLegacy and cudaStreamPerThread
 * mean the same in both modes. Of the toolkit's renamed calls these are the ones the
 * simulator implements (per_thread.c); cudaDeviceSynchronize and the rest are not renamed. */
cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                                 cudaStream_t stream STREAMLAB_SIM_DEFAULT(0));
cudaError_t cudaMemset_ptds(void *devPtr, int value, size_t count);
cudaError_t cudaMemsetAsync_ptsz(void *devPtr, int value, size_t count, cudaStream_t stream STREAMLAB_SIM_DEFAULT(0));
cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream);
cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream);
cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event,
                                     unsigned int flags STREAMLAB_SIM_DEFAULT(0));
cudaError_t cudaStreamGetPriority_ptsz(cudaStream_t hStream, int *priority);
cudaError_t cudaStreamGetFlags_ptsz(cudaStream_t hStream, unsigned int *flags);
cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t stream, cudaHostFn_t fn, void *userData);
cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream STREAMLAB_SIM_DEFAULT(0));
cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t stream, enum cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t stream, cudaGraph_t *pGraph);
cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream, enum cudaStreamCaptureStatus *pCaptureStatus);
cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream);

#if defined(__cplusplus)
}
#endif

/* The toolkit's renames (its cuda_runtime_api.h, __CUDART_API_PTDS / __CUDART_API_PTSZ),
 * for the calls above. */
#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
#define cudaMemcpy cudaMemcpy_ptds
#define cudaMemcpyAsync cudaMemcpyAsync_ptsz
#define cudaMemset cudaMemset_ptds
#define cudaMemsetAsync cudaMemsetAsync_ptsz
#define cudaStreamSynchronize cudaStreamSynchronize_ptsz
#define cudaStreamQuery cudaStreamQuery_ptsz
#define cudaStreamWaitEvent cudaStreamWaitEvent_ptsz
#define cudaStreamGetPriority cudaStreamGetPriority_ptsz
#define cudaStreamGetFlags cudaStreamGetFlags_ptsz
#define cudaLaunchHostFunc cudaLaunchHostFunc_ptsz
#define cudaEventRecord cudaEventRecord_ptsz
#define cudaStreamBeginCapture cudaStreamBeginCapture_ptsz
#define cudaStreamEndCapture cudaStreamEndCapture_ptsz
#define cudaStreamIsCapturing cudaStreamIsCapturing_ptsz
#define cudaGraphLaunch cudaGraphLaunch_ptsz
#endif

#endif
