/* sim/conformance/per_thread.c: see per_thread.h. Built with
 * CUDA_API_PER_THREAD_DEFAULT_STREAM, where stream 0 is the per-thread default stream. */
#include "sim/conformance/per_thread.h"

#if !defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
#error "per_thread.c must be compiled with -DCUDA_API_PER_THREAD_DEFAULT_STREAM"
#endif

cudaError_t conformance_ptds_query(cudaStream_t stream) { return cudaStreamQuery(stream); }

cudaError_t conformance_ptds_synchronize(cudaStream_t stream) { return cudaStreamSynchronize(stream); }
