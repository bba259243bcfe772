/* sim/include/cuda_runtime.h: what `#include <cuda_runtime.h>` gives a program built
 * against the simulated runtime: the runtime API subset (cuda_runtime_api.h) and, for
 * C++ callers, the toolkit's typed convenience overloads (cudaMalloc(&float_ptr, n), the
 * two-argument cudaEventCreate, ...). Kernels are launched through streamlab_sim.h's
 * sim_launch_kernel, not with <<<...>>>, which only nvcc understands. */
#ifndef STREAMLAB_SIM_CUDA_RUNTIME_H
#define STREAMLAB_SIM_CUDA_RUNTIME_H

#include "cuda_runtime_api.h"

#if defined(__cplusplus)
template <class T>
static inline cudaError_t cudaMalloc(T **devPtr, size_t size) {
    return ::cudaMalloc((void **)(void *)devPtr, size);
}
template <class T>
static inline cudaError_t cudaMallocHost(T **ptr, size_t size) {
    return ::cudaMallocHost((void **)(void *)ptr, size);
}
template <class T>
static inline cudaError_t cudaHostAlloc(T **ptr, size_t size, unsigned int flags) {
    return ::cudaHostAlloc((void **)(void *)ptr, size, flags);
}
static inline cudaError_t cudaEventCreate(cudaEvent_t *event, unsigned int flags) {
    return ::cudaEventCreateWithFlags(event, flags);
}
#endif

#endif
