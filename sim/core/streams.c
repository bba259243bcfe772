/* sim/core/streams.c: the stream table (see streams.h). */
#include "sim/core/streams.h"

#include "sim/core/connections.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/record/recorder.h"

static struct {
    sim_stream *items;
    uint32_t count, cap;
    uint32_t generation; /* bumped by every reset */
    uint32_t defaults[SIM_CONN_MAX_DEVICES][2]; /* devices' default streams (0: none yet) */
} T;

static void grow(void) {
    if (T.count < T.cap) return;
    uint32_t ncap = T.cap ? T.cap * 2 : 16;
    sim_stream *n = realloc(T.items, ncap * sizeof(sim_stream));
    if (!n) {
        fprintf(stderr, "streamlab simulated GPU: out of memory (streams)\n");
        abort();
    }
    T.items = n;
    T.cap = ncap;
}

static uint32_t add(const void *handle, unsigned flags, int32_t priority, bool legacy, bool nonblocking) {
    grow();
    uint32_t i = T.count++;
    sim_stream *st = &T.items[i];
    memset(st, 0, sizeof(*st));
    st->handle = handle;
    st->flags = flags;
    st->priority = priority;
    st->live = true;
    st->legacy = legacy;
    st->blocking = !legacy && !nonblocking;
    return i;
}

void sim_streams_init(const void *per_thread_handle) {
    T.count = 0;
    memset(T.defaults, 0, sizeof(T.defaults));
    add(NULL, 0, 0, true, false);              /* SIM_STREAM_LEGACY */
    add(per_thread_handle, 0, 0, false, false); /* SIM_STREAM_PER_THREAD */
}

void sim_streams_reset(bool notify, const void *per_thread_handle) {
    if (notify)
        for (uint32_t i = 2; i < T.count; i++)
            if (T.items[i].live && !T.items[i].builtin) trace_stream_destroyed(T.items[i].handle);
    T.generation++;
    sim_streams_init(per_thread_handle);
}

uint32_t sim_streams_add(const void *handle, unsigned flags, bool nonblocking, int32_t priority) {
    return add(handle, flags, priority, false, nonblocking);
}

uint32_t sim_streams_find_default(uint32_t device, bool per_thread) {
    if (device == 0) return per_thread ? SIM_STREAM_PER_THREAD : SIM_STREAM_LEGACY;
    if (device >= SIM_CONN_MAX_DEVICES) return SIM_STREAM_NONE;
    uint32_t i = T.defaults[device][per_thread];
    return i ? i : SIM_STREAM_NONE;
}

uint32_t sim_streams_add_default(uint32_t device, bool per_thread, const void *handle) {
    uint32_t i = sim_streams_find_default(device, per_thread);
    if (i != SIM_STREAM_NONE || device >= SIM_CONN_MAX_DEVICES) return i;
    i = add(handle, 0, 0, !per_thread, false);
    T.items[i].device = device;
    T.items[i].builtin = true;
    T.defaults[device][per_thread] = i;
    return i;
}

sim_stream *sim_stream_at(uint32_t index) { return &T.items[index]; }
uint32_t sim_stream_count(void) { return T.count; }
uint32_t sim_streams_generation(void) { return T.generation; }

uint32_t sim_streams_live(void) {
    uint32_t n = 0;
    for (uint32_t i = 2; i < T.count; i++) n += T.items[i].live && !T.items[i].builtin;
    return n;
}
