/* trace/view/timeline.c: the timeline store (see timeline.h). */
#include "trace/view/timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct order_key {
    uint64_t start;
    uint64_t id;
    size_t index;
} order_key;

typedef struct stream_entry {
    bool known;
    trace_stream info;
} stream_entry;

struct trace_timeline {
    trace_op *ops;
    size_t n, cap;
    order_key *order; /* valid for the first n_sorted ops when sorted */
    size_t cap_order;
    bool sorted;
    int32_t *runs;
    size_t n_runs;
    stream_entry *streams;
    int32_t n_streams;
};

static void *xrealloc(void *p, size_t size) {
    void *q = realloc(p, size ? size : 1);
    if (!q) {
        fprintf(stderr, "streamlab timeline: out of memory\n");
        abort();
    }
    return q;
}

trace_timeline *trace_timeline_create(void) {
    trace_timeline *tl = calloc(1, sizeof(*tl));
    if (tl) tl->sorted = true;
    return tl;
}

void trace_timeline_clear(trace_timeline *tl) {
    free(tl->ops);
    free(tl->order);
    free(tl->streams);
    tl->ops = NULL;
    tl->order = NULL;
    tl->streams = NULL;
    tl->n = tl->cap = tl->cap_order = 0;
    tl->n_streams = 0;
    tl->sorted = true;
}

void trace_timeline_destroy(trace_timeline *tl) {
    if (!tl) return;
    trace_timeline_uninstall(tl);
    trace_timeline_clear(tl);
    free(tl->runs);
    free(tl);
}

void trace_timeline_keep_run(trace_timeline *tl, int32_t run) {
    tl->runs = xrealloc(tl->runs, (tl->n_runs + 1) * sizeof(int32_t));
    tl->runs[tl->n_runs++] = run;
}

static bool kept_run(const trace_timeline *tl, int32_t run) {
    if (tl->n_runs == 0) return true;
    for (size_t i = 0; i < tl->n_runs; i++)
        if (tl->runs[i] == run) return true;
    return false;
}

static stream_entry *stream_slot(trace_timeline *tl, int32_t id) {
    if (id < 0 || id > 65535) return NULL; /* the event stream's bound too */
    if (id >= tl->n_streams) {
        int32_t n = id + 1;
        tl->streams = xrealloc(tl->streams, (size_t)n * sizeof(stream_entry));
        memset(tl->streams + tl->n_streams, 0, (size_t)(n - tl->n_streams) * sizeof(stream_entry));
        tl->n_streams = n;
    }
    return &tl->streams[id];
}

void trace_timeline_add_stream(trace_timeline *tl, const trace_stream *stream) {
    stream_entry *e = stream_slot(tl, stream->id);
    if (!e) return;
    e->known = true;
    e->info = *stream;
    e->info.name[sizeof(e->info.name) - 1] = '\0';
}

void trace_timeline_add_op(trace_timeline *tl, const trace_op *op) {
    if (!op->timed || !kept_run(tl, op->run)) return;
    if (tl->n == tl->cap) {
        tl->cap = tl->cap ? tl->cap * 2 : 1024;
        tl->ops = xrealloc(tl->ops, tl->cap * sizeof(trace_op));
    }
    if (tl->sorted && tl->n > 0) {
        const trace_op *last = &tl->ops[tl->order[tl->n - 1].index];
        if (op->start_ns < last->start_ns || (op->start_ns == last->start_ns && op->id < last->id))
            tl->sorted = false;
    }
    tl->ops[tl->n] = *op;
    tl->ops[tl->n].name[TRACE_NAME_MAX - 1] = '\0';
    if (tl->n == tl->cap_order) {
        tl->cap_order = tl->cap;
        tl->order = xrealloc(tl->order, tl->cap_order * sizeof(order_key));
    }
    tl->order[tl->n] = (order_key){op->start_ns, op->id, tl->n};
    tl->n++;
    if (op->stream >= 0) stream_slot(tl, op->stream);
}

static int cmp_key(const void *a, const void *b) {
    const order_key *x = a, *y = b;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    if (x->id != y->id) return x->id < y->id ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

static void ensure_sorted(trace_timeline *tl) {
    if (tl->sorted) return;
    qsort(tl->order, tl->n, sizeof(order_key), cmp_key);
    tl->sorted = true;
}

size_t trace_timeline_count(trace_timeline *tl) { return tl->n; }

const trace_op *trace_timeline_get(trace_timeline *tl, size_t i) {
    if (i >= tl->n) return NULL;
    ensure_sorted(tl);
    return &tl->ops[tl->order[i].index];
}

const trace_stream *trace_timeline_stream(const trace_timeline *tl, int32_t id) {
    if (id < 0 || id >= tl->n_streams || !tl->streams[id].known) return NULL;
    return &tl->streams[id].info;
}

int32_t trace_timeline_stream_limit(const trace_timeline *tl) { return tl->n_streams; }

bool trace_timeline_in_run(const trace_op *op, int32_t run) { return run == TRACE_RUN_ANY || op->run == run; }

bool trace_timeline_span(trace_timeline *tl, int32_t run, uint64_t *t0, uint64_t *t1) {
    bool any = false;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t i = 0; i < tl->n; i++) {
        const trace_op *op = &tl->ops[i];
        if (op->kind == TRACE_OP_PHASE || !trace_timeline_in_run(op, run)) continue;
        any = true;
        if (op->start_ns < lo) lo = op->start_ns;
        uint64_t end = op->end_ns > op->start_ns ? op->end_ns : op->start_ns;
        if (end > hi) hi = end;
    }
    if (any) {
        *t0 = lo;
        *t1 = hi;
    }
    return any;
}

bool trace_lane_has(const trace_lane *lane, const trace_op *op) {
    if (op->kind == TRACE_OP_PHASE || lane->heading) return false;
    if (lane->is_stream) return op->stream == lane->stream && trace_op_kind_is_stream_work(op->kind);
    if (op->engine != lane->engine || op->engine == TRACE_ENGINE_NONE) return false;
    if (op->engine == TRACE_ENGINE_HOST) return true;
    if (op->engine == TRACE_ENGINE_LINK) return op->device == lane->device && op->dst_device == lane->dst_device;
    return op->device == lane->device;
}

static const trace_engine ENGINE_ORDER[] = {TRACE_ENGINE_H2D, TRACE_ENGINE_COMPUTE, TRACE_ENGINE_D2H,
                                            TRACE_ENGINE_HOST};

static uint32_t device_index(uint32_t device) { return device < TRACE_MAX_DEVICES ? device : TRACE_MAX_DEVICES - 1; }

/* The device of stream s as the store knows it (0 when unknown). */
static uint32_t stream_device(const trace_timeline *tl, int32_t s) {
    const trace_stream *info = trace_timeline_stream(tl, s);
    return info ? device_index(info->device) : 0;
}

bool trace_timeline_multi_device(trace_timeline *tl, int32_t run) {
    for (size_t i = 0; i < tl->n; i++) {
        const trace_op *op = &tl->ops[i];
        if (op->kind == TRACE_OP_PHASE || !trace_timeline_in_run(op, run)) continue;
        if (op->device != 0 || op->engine == TRACE_ENGINE_LINK) return true;
        if (trace_op_kind_is_stream_work(op->kind) && op->stream >= 0 && stream_device(tl, op->stream) != 0)
            return true;
    }
    return false;
}

/* Writes lane n when there is room; returns n + 1. */
static size_t put_lane(trace_lane *out, size_t max, size_t n, const trace_lane *lane) {
    if (n < max) out[n] = *lane;
    return n + 1;
}

static trace_lane engine_lane(trace_engine engine, uint32_t device) {
    trace_lane l;
    memset(&l, 0, sizeof(l));
    l.engine = engine;
    l.device = l.dst_device = device;
    l.stream = TRACE_STREAM_NONE;
    snprintf(l.label, sizeof(l.label), "%s", trace_engine_name(engine));
    return l;
}

static trace_lane heading_lane(const char *label, uint32_t device) {
    trace_lane l;
    memset(&l, 0, sizeof(l));
    l.heading = true;
    l.device = l.dst_device = device;
    l.stream = TRACE_STREAM_NONE;
    snprintf(l.label, sizeof(l.label), "%s", label);
    return l;
}

static trace_lane stream_lane(const trace_timeline *tl, int32_t s) {
    trace_lane l;
    memset(&l, 0, sizeof(l));
    l.is_stream = true;
    l.stream = s;
    const trace_stream *info = trace_timeline_stream(tl, s);
    l.priority = info ? info->priority : 0;
    l.device = l.dst_device = info ? info->device : 0;
    char id[16];
    snprintf(id, sizeof(id), s == TRACE_STREAM_LEGACY ? "stream 0" : "s%d", (int)s);
    if (s != TRACE_STREAM_LEGACY && info && info->name[0] && strcmp(info->name, id) != 0)
        snprintf(l.label, sizeof(l.label), "%s \"%.24s\"", id, info->name);
    else
        snprintf(l.label, sizeof(l.label), "%s", id);
    if (l.priority != 0) {
        size_t len = strlen(l.label);
        snprintf(l.label + len, sizeof(l.label) - len, " p%d", (int)l.priority);
    }
    return l;
}

size_t trace_timeline_lanes(trace_timeline *tl, int32_t run, trace_lane *out, size_t max) {
    bool engine_used[TRACE_MAX_DEVICES][TRACE_ENGINE_HOST + 1];
    bool link_used[TRACE_MAX_DEVICES][TRACE_MAX_DEVICES];
    memset(engine_used, 0, sizeof(engine_used));
    memset(link_used, 0, sizeof(link_used));
    int32_t ns = tl->n_streams;
    bool *stream_used = calloc((size_t)ns + 1, sizeof(bool));
    if (!stream_used) return 0;
    bool multi = trace_timeline_multi_device(tl, run);
    for (size_t i = 0; i < tl->n; i++) {
        const trace_op *op = &tl->ops[i];
        if (op->kind == TRACE_OP_PHASE || !trace_timeline_in_run(op, run)) continue;
        uint32_t d = device_index(op->device);
        if ((unsigned)op->engine <= TRACE_ENGINE_HOST) engine_used[op->engine == TRACE_ENGINE_HOST ? 0 : d][op->engine] = true;
        if (op->engine == TRACE_ENGINE_LINK) link_used[d][device_index(op->dst_device)] = true;
        if (trace_op_kind_is_stream_work(op->kind) && op->stream >= 0 && op->stream < ns) stream_used[op->stream] = true;
    }
    size_t n = 0;
    trace_lane l;
    if (!multi) {
        for (size_t e = 0; e < sizeof(ENGINE_ORDER) / sizeof(ENGINE_ORDER[0]); e++) {
            if (!engine_used[0][ENGINE_ORDER[e]]) continue;
            l = engine_lane(ENGINE_ORDER[e], 0);
            n = put_lane(out, max, n, &l);
        }
        for (int32_t s = 0; s < ns; s++) {
            if (!stream_used[s]) continue;
            l = stream_lane(tl, s);
            n = put_lane(out, max, n, &l);
        }
        free(stream_used);
        return n;
    }
    if (engine_used[0][TRACE_ENGINE_HOST]) {
        l = engine_lane(TRACE_ENGINE_HOST, 0);
        n = put_lane(out, max, n, &l);
    }
    for (uint32_t d = 0; d < TRACE_MAX_DEVICES; d++) {
        bool any = false;
        for (int e = TRACE_ENGINE_H2D; e <= TRACE_ENGINE_COMPUTE; e++) any = any || engine_used[d][e];
        for (int32_t s = 0; s < ns && !any; s++) any = stream_used[s] && stream_device(tl, s) == d;
        if (!any) continue;
        char head[16];
        trace_device_label(d, head, sizeof(head));
        l = heading_lane(head, d);
        n = put_lane(out, max, n, &l);
        for (size_t e = 0; e < 3; e++) {
            if (!engine_used[d][ENGINE_ORDER[e]]) continue;
            l = engine_lane(ENGINE_ORDER[e], d);
            n = put_lane(out, max, n, &l);
        }
        for (int32_t s = 0; s < ns; s++) {
            if (!stream_used[s] || stream_device(tl, s) != d) continue;
            l = stream_lane(tl, s);
            n = put_lane(out, max, n, &l);
        }
    }
    bool any_link = false;
    for (uint32_t a = 0; a < TRACE_MAX_DEVICES; a++)
        for (uint32_t b = 0; b < TRACE_MAX_DEVICES; b++) any_link = any_link || link_used[a][b];
    if (any_link) {
        l = heading_lane(trace_engine_name(TRACE_ENGINE_LINK), 0);
        l.engine = TRACE_ENGINE_LINK;
        n = put_lane(out, max, n, &l);
        for (uint32_t a = 0; a < TRACE_MAX_DEVICES; a++)
            for (uint32_t b = 0; b < TRACE_MAX_DEVICES; b++) {
                if (!link_used[a][b]) continue;
                l = engine_lane(TRACE_ENGINE_LINK, a);
                l.dst_device = b;
                snprintf(l.label, sizeof(l.label), "GPU %u -> GPU %u", a, b);
                n = put_lane(out, max, n, &l);
            }
    }
    free(stream_used);
    return n;
}

/* ---- sink --------------------------------------------------------------------------------- */

static void sink_stream(void *ctx, const trace_stream *stream) { trace_timeline_add_stream(ctx, stream); }
static void sink_timed(void *ctx, const trace_op *op) { trace_timeline_add_op(ctx, op); }

trace_sink trace_timeline_sink(trace_timeline *tl) {
    trace_sink s;
    memset(&s, 0, sizeof(s));
    s.ctx = tl;
    s.on_stream = sink_stream;
    s.on_timed = sink_timed;
    return s;
}

int trace_timeline_install(trace_timeline *tl) {
    if (trace_has_sink(tl)) return 0;
    /* Streams created before the store was installed. */
    int32_t n = trace_stream_count();
    for (int32_t i = 0; i < n; i++) {
        const trace_stream *s = trace_stream_get(i);
        if (s) trace_timeline_add_stream(tl, s);
    }
    trace_sink s = trace_timeline_sink(tl);
    return trace_add_sink(&s);
}

void trace_timeline_uninstall(trace_timeline *tl) { trace_remove_sink(tl); }
