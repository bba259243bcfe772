/* trace/gpu/event_chain.c: start times from the ends before an op (see event_chain.h). */
#include "trace/gpu/event_chain.h"

#include <stdbool.h>
#include <stdlib.h>

typedef struct lane {
    const void *stream;
    trace_gpu_stream_sync sync;
    uint64_t last_end;
} lane;

struct trace_gpu_chain {
    lane *lanes;
    size_t n, cap;
};

trace_gpu_chain *trace_gpu_chain_create(void) { return calloc(1, sizeof(trace_gpu_chain)); }

void trace_gpu_chain_destroy(trace_gpu_chain *c) {
    if (!c) return;
    free(c->lanes);
    free(c);
}

/* The legacy stream has two handles (NULL and cudaStreamLegacy); one lane holds both. */
static const void *key_of(const void *stream, trace_gpu_stream_sync sync) {
    return sync == TRACE_GPU_STREAM_LEGACY ? NULL : stream;
}

static lane *find(const trace_gpu_chain *c, const void *key) {
    for (size_t i = 0; i < c->n; i++)
        if (c->lanes[i].stream == key) return &c->lanes[i];
    return NULL;
}

static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

uint64_t trace_gpu_chain_start(const trace_gpu_chain *c, const void *stream, trace_gpu_stream_sync sync,
                               uint64_t enqueue_ns) {
    const void *key = key_of(stream, sync);
    uint64_t start = enqueue_ns;
    for (size_t i = 0; i < c->n; i++) {
        const lane *l = &c->lanes[i];
        bool same = l->stream == key;
        bool barrier = (sync == TRACE_GPU_STREAM_LEGACY && l->sync == TRACE_GPU_STREAM_BLOCKING) ||
                       (sync == TRACE_GPU_STREAM_BLOCKING && l->sync == TRACE_GPU_STREAM_LEGACY);
        if (same || barrier) start = max_u64(start, l->last_end);
    }
    return start;
}

int trace_gpu_chain_end(trace_gpu_chain *c, const void *stream, trace_gpu_stream_sync sync, uint64_t end_ns) {
    const void *key = key_of(stream, sync);
    lane *l = find(c, key);
    if (!l) {
        if (c->n == c->cap) {
            size_t cap = c->cap ? c->cap * 2 : 8;
            lane *p = realloc(c->lanes, cap * sizeof(lane));
            if (!p) return -1;
            c->lanes = p;
            c->cap = cap;
        }
        l = &c->lanes[c->n++];
        l->stream = key;
        l->last_end = 0;
    }
    l->sync = sync;
    l->last_end = max_u64(l->last_end, end_ns);
    return 0;
}

void trace_gpu_chain_forget(trace_gpu_chain *c, const void *stream) {
    for (size_t i = 0; i < c->n; i++) {
        if (c->lanes[i].stream == stream && c->lanes[i].sync != TRACE_GPU_STREAM_LEGACY) {
            c->lanes[i] = c->lanes[--c->n];
            return;
        }
    }
}
