/* sim/conformance/launch.h: the three kernels the conformance program launches, behind
 * one C interface with two implementations: launch_sim.c (the simulated runtime,
 * through sim_launch_kernel) and launch_gpu.cu (real kernels, through <<<...>>>). */
#ifndef STREAMLAB_SIM_CONFORMANCE_LAUNCH_H
#define STREAMLAB_SIM_CONFORMANCE_LAUNCH_H

#include <stddef.h>

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An empty kernel with this shape; returns what the launch returns. */
cudaError_t conformance_launch_empty(dim3 grid, dim3 block, size_t shared_bytes, cudaStream_t stream);
/* One block that keeps its SM busy for about ms milliseconds. */
cudaError_t conformance_launch_spin(double ms, cudaStream_t stream);
/* One thread that writes an int to addr. */
cudaError_t conformance_launch_poke(int *addr, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
