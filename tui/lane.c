/* tui/lane.c: a lane's sorted bars (see lane.h). */
#include "tui/lane.h"

#include <stdlib.h>
#include <string.h>

void tui_lane_init_engine(tui_lane *lane, trace_engine engine) {
    memset(lane, 0, sizeof(*lane));
    lane->engine = engine;
    lane->stream = TRACE_STREAM_NONE;
    lane->sorted = true;
}

void tui_lane_init_engine_on(tui_lane *lane, trace_engine engine, uint32_t device, uint32_t dst_device) {
    tui_lane_init_engine(lane, engine);
    lane->device = device;
    lane->dst_device = engine == TRACE_ENGINE_LINK ? dst_device : device;
}

void tui_lane_init_heading(tui_lane *lane, trace_engine engine, uint32_t device) {
    tui_lane_init_engine_on(lane, engine, device, device);
    lane->heading = true;
}

void tui_lane_init_stream(tui_lane *lane, int32_t stream) {
    memset(lane, 0, sizeof(*lane));
    lane->is_stream = true;
    lane->stream = stream;
    lane->sorted = true;
}

void tui_lane_free(tui_lane *lane) {
    free(lane->bars);
    lane->bars = NULL;
    lane->n = lane->cap = 0;
}

trace_lane tui_lane_as_trace(const tui_lane *lane) {
    trace_lane l;
    memset(&l, 0, sizeof(l));
    l.is_stream = lane->is_stream;
    l.heading = lane->heading;
    l.engine = lane->engine;
    l.device = lane->device;
    l.dst_device = lane->dst_device;
    l.stream = lane->stream;
    return l;
}

bool tui_lane_wants(const tui_lane *lane, const trace_op *op) {
    trace_lane l = tui_lane_as_trace(lane);
    return trace_lane_has(&l, op);
}

static bool before(const tui_bar *a, const tui_bar *b) {
    return a->start_ns < b->start_ns || (a->start_ns == b->start_ns && a->id < b->id);
}

int tui_lane_add(tui_lane *lane, const tui_bar *bar) {
    if (lane->n == lane->cap) {
        size_t cap = lane->cap ? lane->cap * 2 : 64;
        tui_bar *b = realloc(lane->bars, cap * sizeof(tui_bar));
        if (!b) return -1;
        lane->bars = b;
        lane->cap = cap;
    }
    if (lane->sorted && lane->n > 0 && before(bar, &lane->bars[lane->n - 1])) lane->sorted = false;
    lane->bars[lane->n++] = *bar;
    uint64_t len = bar->end_ns > bar->start_ns ? bar->end_ns - bar->start_ns : 0;
    if (len > lane->max_len) lane->max_len = len;
    return 0;
}

static int cmp_bar(const void *a, const void *b) {
    const tui_bar *x = a, *y = b;
    if (before(x, y)) return -1;
    if (before(y, x)) return 1;
    return 0;
}

void tui_lane_sort(tui_lane *lane) {
    if (lane->sorted) return;
    qsort(lane->bars, lane->n, sizeof(tui_bar), cmp_bar);
    lane->sorted = true;
}

/* The first bar whose start is at or after t. */
static size_t lower_bound(const tui_lane *lane, uint64_t t) {
    size_t lo = 0, hi = lane->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (lane->bars[mid].start_ns < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

size_t tui_lane_first_reaching(const tui_lane *lane, uint64_t t) {
    uint64_t from = t > lane->max_len ? t - lane->max_len : 0;
    return lower_bound(lane, from);
}

long tui_lane_find(const tui_lane *lane, uint64_t start_ns, uint64_t id) {
    for (size_t i = lower_bound(lane, start_ns); i < lane->n && lane->bars[i].start_ns == start_ns; i++)
        if (lane->bars[i].id == id) return (long)i;
    return -1;
}
