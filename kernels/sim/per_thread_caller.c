/* kernels/sim/per_thread_caller.c: see per_thread_caller.h. The macro renames the runtime
 * calls written here (cudaMemsetAsync becomes cudaMemsetAsync_ptsz) and kernels.h's launches
 * (kernels_spin becomes kernels_spin_ptsz, kernels/per_thread_launch.c), as a <<<...>>>
 * launch written here would reach cudaLaunchKernel_ptsz: stream 0 is the per-thread
 * stream for both. */
#include "kernels/sim/per_thread_caller.h"

#include "kernels/kernels.h"

#if !defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
#error "per_thread_caller.c must be compiled with -DCUDA_API_PER_THREAD_DEFAULT_STREAM"
#endif

cudaError_t kernels_ptds_spin(uint32_t *marks, uint64_t duration_ns, uint32_t mark) {
    return kernels_spin(marks, 1, 32, duration_ns, mark, 0);
}

cudaError_t kernels_ptds_memset(void *ptr, size_t bytes) { return cudaMemsetAsync(ptr, 0, bytes, 0); }
