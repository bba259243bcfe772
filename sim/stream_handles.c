/* sim/stream_handles.c: stream handles (see stream_handles.h). The runtime's stream calls
 * that use them are in stream_calls.c. */
#include "sim/stream_handles.h"

#include <stdio.h>

#include "sim/devices.h"
#include "trace/record/recorder.h"

/* Created streams get handles that are not addresses: a tag, the reset generation and
 * the table index. They are never dereferenced, so a stale or made-up handle is caught
 * by the table lookup instead of crashing. */
#define HANDLE_TAG 0x5e57000000000000ull
#define HANDLE_TAG_MASK 0xffff000000000000ull

static cudaStream_t make_handle(uint32_t index) {
    uint64_t v = HANDLE_TAG | ((uint64_t)(sim_streams_generation() & 0xffffu) << 32) | ((uint64_t)index << 4);
    return (cudaStream_t)(uintptr_t)v;
}

void sim_streams_restart(bool notify) { sim_streams_reset(notify, cudaStreamPerThread); }

/* A default stream of a device other than 0, made on first use: the recorder knows it as
 * a stream named for its device. */
static uint32_t device_default(uint32_t device, bool per_thread) {
    uint32_t i = sim_streams_find_default(device, per_thread);
    if (i != SIM_STREAM_NONE) return i;
    i = sim_streams_add_default(device, per_thread, NULL);
    sim_stream *st = sim_stream_at(i);
    st->handle = make_handle(i);
    trace_stream_created_on(st->handle, 0, 0, device);
    if (!per_thread) trace_stream_set_legacy(st->handle);
    char name[32];
    snprintf(name, sizeof(name), per_thread ? "GPU %u per-thread" : "GPU %u stream 0", device);
    trace_stream_set_name(st->handle, name);
    return i;
}

bool sim_stream_resolve(cudaStream_t handle, uint32_t *index) {
    if (handle == NULL || handle == cudaStreamLegacy || handle == cudaStreamPerThread) {
        bool per_thread = handle == cudaStreamPerThread;
        uint32_t device = sim_current_device();
        *index = device == 0 ? (per_thread ? SIM_STREAM_PER_THREAD : SIM_STREAM_LEGACY)
                             : device_default(device, per_thread);
        return true;
    }
    uint64_t v = (uint64_t)(uintptr_t)handle;
    if ((v & HANDLE_TAG_MASK) != HANDLE_TAG || (v & 0xf)) return false;
    if (((v >> 32) & 0xffffu) != (sim_streams_generation() & 0xffffu)) return false;
    uint64_t i = (v & 0xffffffffull) >> 4;
    if (i < 2 || i >= sim_stream_count() || !sim_stream_at((uint32_t)i)->live) return false;
    *index = (uint32_t)i;
    return true;
}

const void *sim_stream_trace_handle(uint32_t index) {
    return index == SIM_STREAM_LEGACY ? NULL : sim_stream_at(index)->handle;
}

uint32_t sim_stream_add(unsigned flags, int priority) {
    uint32_t i = sim_streams_add(NULL, flags, (flags & cudaStreamNonBlocking) != 0, priority);
    sim_stream *st = sim_stream_at(i);
    st->handle = make_handle(i);
    st->device = sim_current_device();
    trace_stream_created_on(st->handle, flags, priority, st->device);
    return i;
}

uint32_t sim_stream_add_graph_branch(uint32_t branch, int32_t origin, int priority) {
    uint32_t i = sim_stream_add(cudaStreamNonBlocking, priority);
    sim_stream *st = sim_stream_at(i);
    /* Not live: sim_stream_resolve refuses it, and it does not count as the program's. */
    st->live = false;
    char name[32];
    const trace_stream *from = origin != TRACE_STREAM_NONE ? trace_stream_get(origin) : NULL;
    if (from && from->name[0])
        snprintf(name, sizeof(name), "%.23s (graph)", from->name);
    else
        snprintf(name, sizeof(name), "graph branch %u", branch);
    trace_stream_set_name(st->handle, name);
    trace_stream_set_graph_branch(st->handle, branch);
    return i;
}

void sim_streams_record_device_sync(uint32_t device, const char *api, uint64_t start_ns, uint64_t end_ns) {
    if (sim_device_count() == 1) {
        trace_record_sync(TRACE_SYNC_DEVICE, NULL, api, start_ns, end_ns);
        return;
    }
    uint32_t n = sim_stream_count();
    for (uint32_t i = 0; i < n; i++) {
        const sim_stream *st = sim_stream_at(i);
        /* The program's streams and the device's default streams that have had work
         * (not the simulator's own graph branches, which are not live). */
        bool program = st->live || st->builtin || i == SIM_STREAM_LEGACY || i == SIM_STREAM_PER_THREAD;
        if (st->device == device && program && st->enq_seq > 0)
            trace_record_sync(TRACE_SYNC_STREAM, sim_stream_trace_handle(i), api, start_ns, end_ns);
    }
}
