/* trace/gpu/allocations.h: which device allocation an address lies in, from the
 * allocations the interposer has seen (interpose.c registers every cudaMalloc and forgets
 * it at cudaFree or cudaDeviceReset). For a crash report: a host read or write through a
 * device pointer faults (SIGSEGV) on a real GPU, and the report can then say that the
 * faulting address is device memory, which buffer, and how big. */
#ifndef STREAMLAB_TRACE_GPU_ALLOCATIONS_H
#define STREAMLAB_TRACE_GPU_ALLOCATIONS_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* True when addr lies in a live cudaMalloc allocation, with where it starts and its size
 * in bytes (base and bytes may be NULL). Callable from a signal handler: it only tries the
 * interposer's lock, and answers false when another thread holds it. */
bool trace_gpu_device_allocation_of(const void *addr, const void **base, size_t *bytes);

#ifdef __cplusplus
}
#endif

#endif
