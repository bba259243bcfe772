/* sim/per_thread_unit.h: runtime calls made from a unit compiled for per-thread default
 * streams (per_thread_unit.c is built with CUDA_API_PER_THREAD_DEFAULT_STREAM), for the
 * default-stream tests, which are compiled without it and so see the legacy mode. Each
 * function makes one call with stream 0, or the call that names no stream, exactly as it
 * is written in a program built with nvcc --default-stream per-thread. */
#ifndef STREAMLAB_SIM_PER_THREAD_UNIT_H
#define STREAMLAB_SIM_PER_THREAD_UNIT_H

#include <stddef.h>

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A one-block kernel of 32 threads that spins for ns, launched with stream 0. */
cudaError_t sim_ptds_spin(double ns, const char *name);
/* The same on the explicit handle cudaStreamLegacy. */
cudaError_t sim_ptds_spin_legacy(double ns, const char *name);
cudaError_t sim_ptds_memcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
cudaError_t sim_ptds_memcpy_async(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
cudaError_t sim_ptds_memset(void *devPtr, int value, size_t count);
cudaError_t sim_ptds_memset_async(void *devPtr, int value, size_t count);
cudaError_t sim_ptds_event_record(cudaEvent_t event);
cudaError_t sim_ptds_wait_event(cudaEvent_t event);
cudaError_t sim_ptds_host_func(cudaHostFn_t fn, void *userData);
cudaError_t sim_ptds_synchronize(void);
cudaError_t sim_ptds_query(void);
cudaError_t sim_ptds_get_flags(unsigned int *flags);
cudaError_t sim_ptds_get_priority(int *priority);

#ifdef __cplusplus
}
#endif

#endif
