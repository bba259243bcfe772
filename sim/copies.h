/* sim/copies.h: the copy and memset calls that take no stream (cudaMemcpy, cudaMemset),
 * on the default stream they imply: the legacy stream for the plain calls, the per-thread
 * stream for their _ptds variants (per_thread.c). copies.c implements both. */
#ifndef STREAMLAB_SIM_COPIES_H
#define STREAMLAB_SIM_COPIES_H

#include <stddef.h>

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What cudaMemcpy does, on stream (NULL or cudaStreamPerThread). */
cudaError_t sim_memcpy_on(cudaStream_t stream, void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
/* What cudaMemset does, on stream (NULL or cudaStreamPerThread). */
cudaError_t sim_memset_on(cudaStream_t stream, void *devPtr, int value, size_t count);

#ifdef __cplusplus
}
#endif

#endif
