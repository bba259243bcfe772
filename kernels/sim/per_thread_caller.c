/* kernels/sim/per_thread_caller.c: see per_thread_caller.h. The macro renames the runtime
 * calls written here (cudaMemsetAsync becomes cudaMemsetAsync_ptsz), not kernels_spin, whose
 * launch is written in launch_sim.c (launch_gpu.c and its .cu files on a GPU), compiled
 * without it: there stream 0 stays the legacy stream. */
#include "kernels/sim/per_thread_caller.h"

#include "kernels/kernels.h"

#if !defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
#error "per_thread_caller.c must be compiled with -DCUDA_API_PER_THREAD_DEFAULT_STREAM"
#endif

cudaError_t kernels_ptds_spin(uint32_t *marks, uint64_t duration_ns, uint32_t mark) {
    return kernels_spin(marks, 1, 32, duration_ns, mark, 0);
}

cudaError_t kernels_ptds_memset(void *ptr, size_t bytes) { return cudaMemsetAsync(ptr, 0, bytes, 0); }
