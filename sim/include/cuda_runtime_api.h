/* sim/include/cuda_runtime_api.h: the C functions of the CUDA runtime API that the
 * simulated runtime (//sim:cudart) implements, declared with the toolkit's names and
 * signatures from the one list of them, cuda_calls/cuda_calls.inc (C++ callers get the
 * toolkit's default arguments too). A program that uses only these links against the
 * simulator instead of libcudart without a change, also when it is compiled for per-thread
 * default streams (CUDA_API_PER_THREAD_DEFAULT_STREAM: see the end of this file). */
#ifndef STREAMLAB_SIM_CUDA_RUNTIME_API_H
#define STREAMLAB_SIM_CUDA_RUNTIME_API_H

#include <stddef.h>

#include "cuda_calls/cuda_calls.h"
#include "driver_types.h"

/* The toolkit release whose declarations these follow. */
#define CUDART_VERSION 13000
/* Set when the runtime is the simulator rather than the toolkit's libcudart. */
#define STREAMLAB_SIM_CUDART 1

#if defined(__cplusplus)
extern "C" {
#endif

/* The calls, from the one list of them (cuda_calls/cuda_calls.inc), with the toolkit's
 * default arguments for C++ callers. */
#define CUDA_CALLS_ENTRY(name, ret, kind, sync, per_thread, gpu, params) ret name CUDA_CALLS_PARAMS_DEFAULTS(params);
#include "cuda_calls/cuda_calls.inc"
#undef CUDA_CALLS_ENTRY

/* ---- the per-thread default stream --------------------------------------------------- */
/* What code compiled with CUDA_API_PER_THREAD_DEFAULT_STREAM defined (nvcc's
 * --default-stream per-thread defines it) calls instead: the toolkit renames these calls
 * (below) to entry points of their own, in which the NULL stream, and the implicit stream of
 * cudaMemcpy and cudaMemset, is the per-thread default stream cudaStreamPerThread instead of
 * the legacy default stream. The explicit handles cudaStreamLegacy and cudaStreamPerThread
 * mean the same in both modes. These are the renamed entry points of the calls above (the
 * list's per_thread field), which the simulator implements (per_thread.c);
 * cudaDeviceSynchronize and the rest are not renamed. */
#define CUDA_CALLS_ENTRY(name, ret, kind, sync, per_thread, gpu, params)                        \
    CUDA_CALLS_IF_PER_THREAD(per_thread, ret name##_##per_thread CUDA_CALLS_PARAMS_DEFAULTS(params);)
#include "cuda_calls/cuda_calls.inc"
#undef CUDA_CALLS_ENTRY

#if defined(__cplusplus)
}
#endif

/* The toolkit's renames (its cuda_runtime_api.h, __CUDART_API_PTDS / __CUDART_API_PTSZ),
 * for the calls above: a #define cannot come from the list, so these are written out, and
 * //sim:cuda_calls_test fails to build where they and the list's per_thread field differ. */
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
