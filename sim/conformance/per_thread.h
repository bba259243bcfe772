/* sim/conformance/per_thread.h: calls the conformance program makes from a unit built
 * for per-thread default streams, where stream 0 is the per-thread default stream.
 * per_thread.c (the runtime calls) is compiled with CUDA_API_PER_THREAD_DEFAULT_STREAM,
 * for the simulated and the real runtime alike; the launch is written in a unit of its
 * own per backend, built the same way: per_thread_launch_sim.c (sim_launch_kernel, which
 * is sim_launch_kernel_ptsz there) and per_thread_launch_gpu.cu (a <<<...>>> launch,
 * which reaches cudaLaunchKernel_ptsz there). */
#ifndef STREAMLAB_SIM_CONFORMANCE_PER_THREAD_H
#define STREAMLAB_SIM_CONFORMANCE_PER_THREAD_H

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* cudaStreamQuery(stream), as written in that unit: cudaStreamQuery_ptsz. */
cudaError_t conformance_ptds_query(cudaStream_t stream);
/* cudaStreamSynchronize(stream), as written in that unit: cudaStreamSynchronize_ptsz. */
cudaError_t conformance_ptds_synchronize(cudaStream_t stream);
/* The spin kernel of launch.h (one block busy for about ms milliseconds), launched on
 * stream as written in that unit: stream 0 is the per-thread stream. */
cudaError_t conformance_ptds_launch_spin(double ms, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
