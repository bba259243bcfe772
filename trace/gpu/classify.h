/* trace/gpu/classify.h: what a CUDA copy or memset is, for the timeline and the race
 * checker: its direction, the engine that runs it, whether its host side is pinned, the
 * op record with its memory ranges, and which host waits the runtime adds
 * (trace/record/copy_rules.h).
 *
 * Plain C over the interposer's view of the memory involved, with no CUDA header, so the
 * logic is tested on machines without a GPU. The values of trace_gpu_copy_kind are those
 * of cudaMemcpyKind. */
#ifndef STREAMLAB_TRACE_GPU_CLASSIFY_H
#define STREAMLAB_TRACE_GPU_CLASSIFY_H

#include <stdbool.h>
#include <stdint.h>

#include "trace/record/copy_rules.h"
#include "trace/record/op.h"

#ifdef __cplusplus
extern "C" {
#endif

/* cudaMemcpyKind. */
typedef enum trace_gpu_copy_kind {
    TRACE_GPU_COPY_H2H = 0,
    TRACE_GPU_COPY_H2D = 1,
    TRACE_GPU_COPY_D2H = 2,
    TRACE_GPU_COPY_D2D = 3,
    TRACE_GPU_COPY_DEFAULT = 4 /* direction inferred from the pointers (unified addressing) */
} trace_gpu_copy_kind;

/* What a pointer points at (from cudaPointerGetAttributes). */
typedef enum trace_gpu_mem {
    TRACE_GPU_MEM_PAGEABLE = 0, /* ordinary host memory (cudaMemoryTypeUnregistered) */
    TRACE_GPU_MEM_PINNED,       /* page-locked host memory (cudaMemoryTypeHost) */
    TRACE_GPU_MEM_DEVICE,       /* device memory (cudaMemoryTypeDevice) */
    TRACE_GPU_MEM_MANAGED       /* managed memory (cudaMemoryTypeManaged) */
} trace_gpu_mem;

typedef struct trace_gpu_copy_class {
    trace_copy_dir dir;
    trace_engine engine; /* H2D, D2H engine; COMPUTE for D2D; HOST for H2H */
    bool pinned;         /* the host side is pinned (H2H: both sides) */
} trace_gpu_copy_class;

/* An explicit kind is taken as given (the runtime accepted it); cudaMemcpyDefault is
 * resolved from the pointers, managed memory counting as device memory. */
trace_gpu_copy_class trace_gpu_classify_copy(trace_gpu_copy_kind kind, trace_gpu_mem src, trace_gpu_mem dst);

/* Fills *op (zeroed first) with the COPY record of a copy of `bytes` from src to dst: kind,
 * dir, engine, bytes, pinned, batch -1, the source as a READ range (HOST_ORDERED when the
 * runtime stages it before returning) and the destination as a WRITE range. Returns the
 * host synchronisation rule for the copy (async: cudaMemcpyAsync). */
trace_copy_rule trace_gpu_copy_op(trace_op *op, trace_gpu_copy_class cls, const void *dst, const void *src,
                                  uint64_t bytes, bool async);

/* Fills op with a peer copy of bytes from src (device memory of src_device) to dst (device
 * memory of dst_device): a device-to-device copy on the link lane between the two, reading
 * src and writing dst, each range marked with its device, as the simulator records
 * cudaMemcpyPeer(Async). */
void trace_gpu_peer_copy_op(trace_op *op, const void *dst, int dst_device, const void *src, int src_device,
                            uint64_t bytes);

/* Fills *op (zeroed first) with the MEMSET record of `bytes` at dst. Returns true when the
 * call blocks the host until the memset is done: cudaMemset (not Async) on pinned host
 * memory, as the runtime documents. */
bool trace_gpu_memset_op(trace_op *op, trace_gpu_mem target, const void *dst, uint64_t bytes, bool async);

#ifdef __cplusplus
}
#endif

#endif
