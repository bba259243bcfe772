/* kernels/sim/per_thread_caller.h: kernels.h called from a unit compiled for per-thread
 * default streams (per_thread_caller.c is built with CUDA_API_PER_THREAD_DEFAULT_STREAM),
 * for launch_sim_test. */
#ifndef STREAMLAB_KERNELS_SIM_PER_THREAD_CALLER_H
#define STREAMLAB_KERNELS_SIM_PER_THREAD_CALLER_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* kernels_spin(marks, 1, 32, duration_ns, mark, 0), written in a per-thread unit. */
cudaError_t kernels_ptds_spin(uint32_t *marks, uint64_t duration_ns, uint32_t mark);
/* cudaMemsetAsync(ptr, 0, bytes, 0), written in the same unit. */
cudaError_t kernels_ptds_memset(void *ptr, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif
