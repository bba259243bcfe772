/* trace/gpu/real.h: the CUDA runtime's own entry points behind the interposer.
 *
 * Every binary linked with //trace/gpu:gpu is linked with -Wl,--wrap=X for each runtime
 * call X below (trace/gpu/BUILD, from the same list): the program's calls to X reach
 * __wrap_X (interpose.c), and __real_X is the runtime's X. The tracer's own CUDA calls (its
 * events and private stream) use __real_X so that they never appear in the trace. Internal
 * to trace/gpu/. */
#ifndef STREAMLAB_TRACE_GPU_REAL_H
#define STREAMLAB_TRACE_GPU_REAL_H

#include <cuda_runtime_api.h>

#include "cuda_calls/cuda_calls.h"

/* __real_X for each call X the list of CUDA calls marks wrapped (cuda_calls/cuda_calls.inc)
 * and for its per-thread entry point, which code compiled with
 * CUDA_API_PER_THREAD_DEFAULT_STREAM calls instead (the toolkit's header renames the call to
 * it there, and declares it only there); and __wrap_X, which interpose.c defines, declared
 * here so that a wrapper whose signature is not the call's fails to compile. */
#define CUDA_CALLS_ENTRY(name, ret, kind, sync, per_thread, gpu, params)                                  \
    CUDA_CALLS_IF_WRAPPED(gpu, ret __real_##name CUDA_CALLS_PARAMS(params);                               \
                          ret __wrap_##name CUDA_CALLS_PARAMS(params);                                    \
                          CUDA_CALLS_IF_PER_THREAD(per_thread,                                            \
                                                   ret __real_##name##_##per_thread CUDA_CALLS_PARAMS(params); \
                                                   ret __wrap_##name##_##per_thread CUDA_CALLS_PARAMS(params);))
#include "cuda_calls/cuda_calls.inc"
#undef CUDA_CALLS_ENTRY

/* After a call the tracer made on its own behalf: clears the error it left for
 * cudaGetLastError, unless the program already had one pending (which stays for the
 * program to read). pending is cudaPeekAtLastError() from before the call. */
static inline void trace_gpu_forget_error(cudaError_t err, cudaError_t pending) {
    if (err != cudaSuccess && pending == cudaSuccess) (void)cudaGetLastError();
}

#endif
