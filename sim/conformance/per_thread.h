/* sim/conformance/per_thread.h: calls the conformance program makes from a unit built
 * for per-thread default streams (per_thread.c is compiled with
 * CUDA_API_PER_THREAD_DEFAULT_STREAM, for the simulated and the real runtime alike). */
#ifndef STREAMLAB_SIM_CONFORMANCE_PER_THREAD_H
#define STREAMLAB_SIM_CONFORMANCE_PER_THREAD_H

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* cudaStreamQuery(stream), as written in that unit: cudaStreamQuery_ptsz. */
cudaError_t conformance_ptds_query(cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
