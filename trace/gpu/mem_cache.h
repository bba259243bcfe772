/* trace/gpu/mem_cache.h: what the interposer knows of the program's allocations, so that
 * classifying a copy (pinned or pageable host side, device memory) needs no driver query.
 *
 * The interposer adds every allocation it sees succeed: cudaMalloc (device memory),
 * cudaMallocHost, cudaHostAlloc and cudaHostRegister (pinned host memory), and removes it
 * when cudaFree, cudaFreeHost or cudaHostUnregister succeeds, and all of them at
 * cudaDeviceReset. A pointer inside a known allocation is classified from the cache; any
 * other pointer (pageable memory, or memory from calls the interposer does not wrap, such
 * as cudaMallocManaged) is not known, and the interposer asks the runtime
 * (cudaPointerGetAttributes) as before. Unknown answers are never cached: memory can be
 * registered later. Plain C, not thread-safe: the interposer holds a lock around it. */
#ifndef STREAMLAB_TRACE_GPU_MEM_CACHE_H
#define STREAMLAB_TRACE_GPU_MEM_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "trace/gpu/classify.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct trace_gpu_mem_cache trace_gpu_mem_cache;

/* NULL when out of memory. */
trace_gpu_mem_cache *trace_gpu_mem_cache_create(void);
void trace_gpu_mem_cache_destroy(trace_gpu_mem_cache *c);

/* An allocation of bytes at base of this kind (it replaces what overlapped it). */
void trace_gpu_mem_cache_add(trace_gpu_mem_cache *c, const void *base, uint64_t bytes, trace_gpu_mem kind);
/* The allocation that starts at base is gone (nothing happens when none starts there). */
void trace_gpu_mem_cache_remove(trace_gpu_mem_cache *c, const void *base);
/* Every allocation is gone. */
void trace_gpu_mem_cache_clear(trace_gpu_mem_cache *c);

/* True, with *kind, when ptr lies in a known allocation. */
bool trace_gpu_mem_cache_lookup(const trace_gpu_mem_cache *c, const void *ptr, trace_gpu_mem *kind);
/* The same, also with where the allocation starts and the bytes it still holds (those of
 * its base up to its end, less any part a later allocation replaced). kind, base and
 * bytes may be NULL. Reads only: safe in a signal handler while nothing changes c. */
bool trace_gpu_mem_cache_find(const trace_gpu_mem_cache *c, const void *ptr, trace_gpu_mem *kind, const void **base,
                              uint64_t *bytes);

/* Allocations known. */
uint64_t trace_gpu_mem_cache_count(const trace_gpu_mem_cache *c);

#ifdef __cplusplus
}
#endif

#endif
