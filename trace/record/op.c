/* trace/record/op.c: names for op kinds, copy directions and engines, and range building. */
#include "trace/record/op.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

const char *trace_op_kind_name(trace_op_kind kind) {
    switch (kind) {
    case TRACE_OP_COPY: return "copy";
    case TRACE_OP_MEMSET: return "memset";
    case TRACE_OP_KERNEL: return "kernel";
    case TRACE_OP_HOST_FN: return "host_fn";
    case TRACE_OP_EVENT_RECORD: return "event_record";
    case TRACE_OP_EVENT_WAIT: return "event_wait";
    case TRACE_OP_SYNC: return "sync";
    case TRACE_OP_HOST_ACCESS: return "host_access";
    case TRACE_OP_API: return "api";
    case TRACE_OP_PHASE: return "phase";
    case TRACE_OP_KIND_COUNT: break;
    }
    return "unknown";
}

const char *trace_copy_dir_name(trace_copy_dir dir) {
    switch (dir) {
    case TRACE_COPY_H2D: return "H2D";
    case TRACE_COPY_D2H: return "D2H";
    case TRACE_COPY_D2D: return "D2D";
    case TRACE_COPY_H2H: return "H2H";
    case TRACE_COPY_NONE: break;
    }
    return "";
}

const char *trace_engine_name(trace_engine engine) {
    switch (engine) {
    case TRACE_ENGINE_H2D: return "H2D engine";
    case TRACE_ENGINE_D2H: return "D2H engine";
    case TRACE_ENGINE_COMPUTE: return "compute";
    case TRACE_ENGINE_HOST: return "host";
    case TRACE_ENGINE_LINK: return "link";
    case TRACE_ENGINE_NONE: break;
    }
    return "";
}

bool trace_op_kind_is_stream_work(trace_op_kind kind) {
    switch (kind) {
    case TRACE_OP_COPY:
    case TRACE_OP_MEMSET:
    case TRACE_OP_KERNEL:
    case TRACE_OP_HOST_FN:
    case TRACE_OP_EVENT_RECORD:
    case TRACE_OP_EVENT_WAIT:
        return true;
    default:
        return false;
    }
}

void trace_op_set_device(trace_op *op, uint32_t device) {
    op->device = device;
    op->dst_device = device;
    op->device_set = true;
}

void trace_op_set_peer(trace_op *op, uint32_t src_device, uint32_t dst_device) {
    op->engine = TRACE_ENGINE_LINK;
    op->device = src_device;
    op->dst_device = dst_device;
    op->device_set = true;
}

int trace_range_device(const trace_range *range) {
    if (!(range->flags & TRACE_RANGE_ON_DEVICE)) return -1;
    return (int)((range->flags >> 8) & 0xffu);
}

void trace_device_label(uint32_t device, char *buf, size_t len) { snprintf(buf, len, "GPU %u", device); }

void trace_op_add_range(trace_op *op, const void *addr, uint64_t bytes, uint32_t flags) {
    if (bytes == 0 || op->n_ranges >= TRACE_MAX_RANGES) return;
    trace_range *r = &op->ranges[op->n_ranges++];
    r->addr = (uint64_t)(uintptr_t)addr;
    r->bytes = bytes;
    r->flags = flags;
}

void trace_stream_label(int32_t id, const char *name, char *buf, size_t len) {
    char plain[16];
    snprintf(plain, sizeof(plain), "s%d", (int)id);
    if (id == TRACE_STREAM_LEGACY)
        snprintf(buf, len, "stream 0");
    else if (id > 0 && name && name[0] && strcmp(name, plain) != 0)
        snprintf(buf, len, "\"%.31s\"", name);
    else if (id > 0)
        snprintf(buf, len, "%s", plain);
    else
        snprintf(buf, len, "%.31s", name && name[0] ? name : "its stream");
}

void trace_graph_op_name(char *buf, size_t len, long nodes, long branches) {
    if (branches <= 0)
        snprintf(buf, len, "graph (%ld node%s)", nodes, nodes == 1 ? "" : "s");
    else
        snprintf(buf, len, "graph (%ld node%s, %ld branch%s)", nodes, nodes == 1 ? "" : "s", branches,
                 branches == 1 ? "" : "es");
}

int trace_graph_op_branches(const trace_op *op) {
    if (op->kind != TRACE_OP_KERNEL || strncmp(op->name, "graph (", 7) != 0) return 0;
    const char *comma = strchr(op->name, ',');
    int k = 0;
    if (!comma || sscanf(comma + 1, " %d branch", &k) != 1 || k < 0) return 0;
    return k;
}

void trace_event_label(uint64_t id, const char *name, char *buf, size_t len) {
    if (name && name[0])
        snprintf(buf, len, "event \"%.31s\"", name);
    else
        snprintf(buf, len, "event %" PRIu64, id);
}
