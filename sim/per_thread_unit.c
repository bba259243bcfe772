/* sim/per_thread_unit.c: see per_thread_unit.h. Built with CUDA_API_PER_THREAD_DEFAULT_STREAM,
 * so every call below reaches its _ptds/_ptsz entry point (sim/per_thread_calls.c), as the
 * toolkit's header makes it in such a unit. */
#include "sim/per_thread_unit.h"

#include <string.h>

#include "streamlab_sim.h"

#if !defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
#error "per_thread_unit.c must be compiled with -DCUDA_API_PER_THREAD_DEFAULT_STREAM"
#endif

static cudaError_t spin(double ns, const char *name, cudaStream_t stream) {
    sim_kernel_launch l;
    memset(&l, 0, sizeof(l));
    l.name = name;
    l.grid = (dim3){1, 1, 1};
    l.block = (dim3){32, 1, 1};
    l.cost.fixed_ns = ns;
    return sim_launch_kernel(&l, stream);
}

cudaError_t sim_ptds_spin(double ns, const char *name) { return spin(ns, name, 0); }

cudaError_t sim_ptds_spin_legacy(double ns, const char *name) { return spin(ns, name, cudaStreamLegacy); }

cudaError_t sim_ptds_memcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind) {
    return cudaMemcpy(dst, src, count, kind);
}

cudaError_t sim_ptds_memcpy_async(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind) {
    return cudaMemcpyAsync(dst, src, count, kind, 0);
}

cudaError_t sim_ptds_memset(void *devPtr, int value, size_t count) { return cudaMemset(devPtr, value, count); }

cudaError_t sim_ptds_memset_async(void *devPtr, int value, size_t count) {
    return cudaMemsetAsync(devPtr, value, count, 0);
}

cudaError_t sim_ptds_event_record(cudaEvent_t event) { return cudaEventRecord(event, 0); }

cudaError_t sim_ptds_wait_event(cudaEvent_t event) { return cudaStreamWaitEvent(0, event, 0); }

cudaError_t sim_ptds_host_func(cudaHostFn_t fn, void *userData) { return cudaLaunchHostFunc(0, fn, userData); }

cudaError_t sim_ptds_synchronize(void) { return cudaStreamSynchronize(0); }

cudaError_t sim_ptds_query(void) { return cudaStreamQuery(0); }

cudaError_t sim_ptds_get_flags(unsigned int *flags) { return cudaStreamGetFlags(0, flags); }

cudaError_t sim_ptds_get_priority(int *priority) { return cudaStreamGetPriority(0, priority); }
