/* sim/conformance/per_thread_launch_sim.c: conformance_ptds_launch_spin (per_thread.h) on
 * the simulated runtime. Built with CUDA_API_PER_THREAD_DEFAULT_STREAM, so
 * sim_launch_kernel is sim_launch_kernel_ptsz here, as a <<<...>>> launch reaches
 * cudaLaunchKernel_ptsz in such a unit: stream 0 is the per-thread stream. */
#include <string.h>

#include "sim/conformance/per_thread.h"
#include "streamlab_sim.h"

#if !defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
#error "per_thread_launch_sim.c must be compiled with -DCUDA_API_PER_THREAD_DEFAULT_STREAM"
#endif

cudaError_t conformance_ptds_launch_spin(double ms, cudaStream_t stream) {
    sim_kernel_launch l;
    memset(&l, 0, sizeof(l));
    l.name = "spin";
    l.grid = (dim3){1, 1, 1};
    l.block = (dim3){32, 1, 1};
    l.cost.fixed_ns = ms * 1e6;
    return sim_launch_kernel(&l, stream);
}
