/* trace/gpu/classify.c: copy and memset records for the GPU interposer (see classify.h). */
#include "trace/gpu/classify.h"

#include <string.h>

static bool on_device(trace_gpu_mem m) { return m == TRACE_GPU_MEM_DEVICE || m == TRACE_GPU_MEM_MANAGED; }

static trace_copy_dir dir_of(trace_gpu_copy_kind kind, trace_gpu_mem src, trace_gpu_mem dst) {
    switch (kind) {
    case TRACE_GPU_COPY_H2H: return TRACE_COPY_H2H;
    case TRACE_GPU_COPY_H2D: return TRACE_COPY_H2D;
    case TRACE_GPU_COPY_D2H: return TRACE_COPY_D2H;
    case TRACE_GPU_COPY_D2D: return TRACE_COPY_D2D;
    case TRACE_GPU_COPY_DEFAULT: break;
    }
    if (on_device(src)) return on_device(dst) ? TRACE_COPY_D2D : TRACE_COPY_D2H;
    return on_device(dst) ? TRACE_COPY_H2D : TRACE_COPY_H2H;
}

trace_gpu_copy_class trace_gpu_classify_copy(trace_gpu_copy_kind kind, trace_gpu_mem src, trace_gpu_mem dst) {
    trace_gpu_copy_class c = {TRACE_COPY_NONE, TRACE_ENGINE_NONE, false};
    c.dir = dir_of(kind, src, dst);
    switch (c.dir) {
    case TRACE_COPY_H2D:
        c.engine = TRACE_ENGINE_H2D;
        c.pinned = src == TRACE_GPU_MEM_PINNED;
        break;
    case TRACE_COPY_D2H:
        c.engine = TRACE_ENGINE_D2H;
        c.pinned = dst == TRACE_GPU_MEM_PINNED;
        break;
    case TRACE_COPY_D2D:
        c.engine = TRACE_ENGINE_COMPUTE;
        break;
    case TRACE_COPY_H2H:
        c.engine = TRACE_ENGINE_HOST;
        c.pinned = src == TRACE_GPU_MEM_PINNED && dst == TRACE_GPU_MEM_PINNED;
        break;
    case TRACE_COPY_NONE:
        break;
    }
    return c;
}

trace_copy_rule trace_gpu_copy_op(trace_op *op, trace_gpu_copy_class cls, const void *dst, const void *src,
                                  uint64_t bytes, bool async) {
    trace_copy_rule rule = trace_copy_sync_rule(cls.dir, async, cls.pinned);
    memset(op, 0, sizeof(*op));
    op->kind = TRACE_OP_COPY;
    op->dir = cls.dir;
    op->engine = cls.engine;
    op->batch = -1;
    op->bytes = bytes;
    op->pinned = cls.pinned;
    trace_op_add_range(op, src, bytes, TRACE_RANGE_READ | (rule.host_staged_src ? TRACE_RANGE_HOST_ORDERED : 0u));
    trace_op_add_range(op, dst, bytes, TRACE_RANGE_WRITE);
    return rule;
}

void trace_gpu_peer_copy_op(trace_op *op, const void *dst, int dst_device, const void *src, int src_device,
                            uint64_t bytes) {
    memset(op, 0, sizeof(*op));
    op->kind = TRACE_OP_COPY;
    op->dir = TRACE_COPY_D2D;
    op->batch = -1;
    op->bytes = bytes;
    trace_op_set_peer(op, (uint32_t)src_device, (uint32_t)dst_device);
    trace_op_add_range(op, src, bytes, TRACE_RANGE_READ | TRACE_RANGE_DEVICE(src_device));
    trace_op_add_range(op, dst, bytes, TRACE_RANGE_WRITE | TRACE_RANGE_DEVICE(dst_device));
}

bool trace_gpu_memset_op(trace_op *op, trace_gpu_mem target, const void *dst, uint64_t bytes, bool async) {
    memset(op, 0, sizeof(*op));
    op->kind = TRACE_OP_MEMSET;
    op->engine = TRACE_ENGINE_COMPUTE;
    op->batch = -1;
    op->bytes = bytes;
    trace_op_add_range(op, dst, bytes, TRACE_RANGE_WRITE);
    return !async && target == TRACE_GPU_MEM_PINNED;
}
