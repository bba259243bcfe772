/* trace/view/metrics.c: makespan, busy time, overlap, idle gaps and the pipeline bound (see
 * metrics.h). */
#include "trace/view/metrics.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct interval {
    uint64_t lo, hi;
} interval;

/* Busy intervals of one lane, merged as ops arrive in start order. */
typedef struct lane_acc {
    interval *merged;
    size_t n, cap;
    uint64_t ops;
} lane_acc;

static void *xrealloc(void *p, size_t size) {
    void *q = realloc(p, size ? size : 1);
    if (!q) {
        fprintf(stderr, "streamlab metrics: out of memory\n");
        abort();
    }
    return q;
}

static void lane_add(lane_acc *l, uint64_t lo, uint64_t hi) {
    l->ops++;
    if (hi <= lo) return;
    if (l->n > 0 && lo <= l->merged[l->n - 1].hi) {
        if (hi > l->merged[l->n - 1].hi) l->merged[l->n - 1].hi = hi;
        return;
    }
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        l->merged = xrealloc(l->merged, l->cap * sizeof(interval));
    }
    l->merged[l->n++] = (interval){lo, hi};
}

static void insert_gap(trace_busy *b, uint64_t lo, uint64_t hi) {
    if (hi <= lo) return;
    uint64_t len = hi - lo;
    size_t at = b->n_gaps;
    while (at > 0 && b->gaps[at - 1].end_ns - b->gaps[at - 1].start_ns < len) at--;
    if (at >= TRACE_METRICS_GAPS) return;
    size_t n = b->n_gaps < TRACE_METRICS_GAPS ? b->n_gaps : TRACE_METRICS_GAPS - 1;
    memmove(&b->gaps[at + 1], &b->gaps[at], (n - at) * sizeof(trace_gap));
    b->gaps[at] = (trace_gap){lo, hi};
    if (b->n_gaps < TRACE_METRICS_GAPS) b->n_gaps++;
}

static void lane_finish(const lane_acc *l, uint64_t t0, uint64_t t1, trace_busy *out) {
    memset(out, 0, sizeof(*out));
    out->ops = l->ops;
    uint64_t cursor = t0;
    for (size_t i = 0; i < l->n; i++) {
        out->busy_ns += l->merged[i].hi - l->merged[i].lo;
        insert_gap(out, cursor, l->merged[i].lo);
        cursor = l->merged[i].hi;
    }
    insert_gap(out, cursor, t1);
    out->utilisation = t1 > t0 ? (double)out->busy_ns / (double)(t1 - t0) : 0.0;
}

typedef struct edge {
    uint64_t t;
    int delta;
} edge;

/* By time; at the same instant ends come before starts (touching is not overlapping). */
static int cmp_edge(const void *a, const void *b) {
    const edge *x = a, *y = b;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    return x->delta - y->delta;
}

/* Time during which the (each already merged) intervals of at least two lanes overlap. */
static uint64_t overlap_of(const lane_acc *const *lanes, size_t n_lanes) {
    size_t total = 0;
    for (size_t i = 0; i < n_lanes; i++) total += lanes[i]->n;
    if (total == 0) return 0;
    edge *edges = xrealloc(NULL, 2 * total * sizeof(edge));
    size_t k = 0;
    for (size_t i = 0; i < n_lanes; i++)
        for (size_t j = 0; j < lanes[i]->n; j++) {
            edges[k++] = (edge){lanes[i]->merged[j].lo, +1};
            edges[k++] = (edge){lanes[i]->merged[j].hi, -1};
        }
    qsort(edges, k, sizeof(edge), cmp_edge);
    uint64_t result = 0;
    int busy = 0;
    for (size_t i = 0; i < k; i++) {
        if (i > 0 && busy >= 2) result += edges[i].t - edges[i - 1].t;
        busy += edges[i].delta;
    }
    free(edges);
    return result;
}

int trace_metrics_compute(trace_timeline *tl, int32_t run, trace_metrics *out) {
    memset(out, 0, sizeof(*out));
    out->run = run;
    uint64_t t0, t1;
    if (!trace_timeline_span(tl, run, &t0, &t1)) return -1;
    out->t0_ns = t0;
    out->t1_ns = t1;
    out->makespan_ns = t1 - t0;
    int32_t ns = trace_timeline_stream_limit(tl);
    lane_acc engines[TRACE_ENGINE_HOST + 1];
    memset(engines, 0, sizeof(engines));
    lane_acc dev[TRACE_MAX_DEVICES][TRACE_ENGINE_COMPUTE + 1];
    memset(dev, 0, sizeof(dev));
    lane_acc link[TRACE_MAX_DEVICES][TRACE_MAX_DEVICES];
    memset(link, 0, sizeof(link));
    out->devices = 1;
    lane_acc *streams = calloc((size_t)ns + 1, sizeof(lane_acc));
    out->stream = calloc((size_t)ns + 1, sizeof(trace_busy));
    if (!streams || !out->stream) {
        fprintf(stderr, "streamlab metrics: out of memory\n");
        abort();
    }
    out->n_streams = ns;
    size_t n = trace_timeline_count(tl);
    for (size_t i = 0; i < n; i++) {
        const trace_op *op = trace_timeline_get(tl, i);
        if (op->kind == TRACE_OP_PHASE || !trace_timeline_in_run(op, run)) continue;
        out->ops++;
        uint64_t end = op->end_ns > op->start_ns ? op->end_ns : op->start_ns;
        if ((unsigned)op->engine <= TRACE_ENGINE_HOST && op->engine != TRACE_ENGINE_NONE)
            lane_add(&engines[op->engine], op->start_ns, end);
        uint32_t d = op->device < TRACE_MAX_DEVICES ? op->device : TRACE_MAX_DEVICES - 1;
        if (op->engine >= TRACE_ENGINE_H2D && op->engine <= TRACE_ENGINE_COMPUTE) {
            lane_add(&dev[d][op->engine], op->start_ns, end);
            if (d + 1 > out->devices) out->devices = d + 1;
        }
        if (op->engine == TRACE_ENGINE_LINK) {
            uint32_t to = op->dst_device < TRACE_MAX_DEVICES ? op->dst_device : TRACE_MAX_DEVICES - 1;
            lane_add(&link[d][to], op->start_ns, end);
            if (d + 1 > out->devices) out->devices = d + 1;
            if (to + 1 > out->devices) out->devices = to + 1;
        }
        if (trace_op_kind_is_stream_work(op->kind) && op->stream >= 0 && op->stream < ns)
            lane_add(&streams[op->stream], op->start_ns, end);
    }
    for (int e = TRACE_ENGINE_H2D; e <= TRACE_ENGINE_HOST; e++) lane_finish(&engines[e], t0, t1, &out->engine[e]);
    for (int32_t s = 0; s < ns; s++) lane_finish(&streams[s], t0, t1, &out->stream[s]);
    const lane_acc *device[3] = {&engines[TRACE_ENGINE_H2D], &engines[TRACE_ENGINE_D2H], &engines[TRACE_ENGINE_COMPUTE]};
    out->overlap_ns = overlap_of(device, 3);
    out->overlap = out->makespan_ns ? (double)out->overlap_ns / (double)out->makespan_ns : 0.0;
    for (uint32_t d = 0; d < TRACE_MAX_DEVICES; d++) {
        for (int e = TRACE_ENGINE_H2D; e <= TRACE_ENGINE_COMPUTE; e++)
            lane_finish(&dev[d][e], t0, t1, &out->device_engine[d][e]);
        const lane_acc *three[3] = {&dev[d][TRACE_ENGINE_H2D], &dev[d][TRACE_ENGINE_D2H], &dev[d][TRACE_ENGINE_COMPUTE]};
        out->device_overlap_ns[d] = overlap_of(three, 3);
        out->device_overlap[d] =
            out->makespan_ns ? (double)out->device_overlap_ns[d] / (double)out->makespan_ns : 0.0;
        for (uint32_t to = 0; to < TRACE_MAX_DEVICES; to++) {
            lane_finish(&link[d][to], t0, t1, &out->link[d][to]);
            free(link[d][to].merged);
        }
        for (int e = 0; e <= TRACE_ENGINE_COMPUTE; e++) free(dev[d][e].merged);
    }
    for (int e = 0; e <= TRACE_ENGINE_HOST; e++) free(engines[e].merged);
    for (int32_t s = 0; s < ns; s++) free(streams[s].merged);
    free(streams);
    return 0;
}

void trace_metrics_free(trace_metrics *m) {
    free(m->stream);
    m->stream = NULL;
    m->n_streams = 0;
}

const trace_busy *trace_metrics_lane(const trace_metrics *m, const trace_lane *lane) {
    if (lane->heading) return NULL;
    if (lane->is_stream)
        return lane->stream >= 0 && lane->stream < m->n_streams ? &m->stream[lane->stream] : NULL;
    uint32_t d = lane->device;
    if (lane->engine == TRACE_ENGINE_LINK)
        return d < TRACE_MAX_DEVICES && lane->dst_device < TRACE_MAX_DEVICES ? &m->link[d][lane->dst_device] : NULL;
    if (lane->engine == TRACE_ENGINE_NONE || (unsigned)lane->engine > TRACE_ENGINE_HOST) return NULL;
    /* The host lane, and every engine lane of a run on one device: engine[]. */
    if (lane->engine == TRACE_ENGINE_HOST || m->devices <= 1) return &m->engine[lane->engine];
    return d < TRACE_MAX_DEVICES ? &m->device_engine[d][lane->engine] : NULL;
}

/* ---- the pipeline bound ------------------------------------------------------------------ */

double trace_pipeline_time_ns(const trace_pipeline *p, double bidir_factor) {
    if (p->batches <= 0) return 0.0;
    double f = (p->h2d_ns > 0 && p->d2h_ns > 0 && bidir_factor > 0) ? bidir_factor : 1.0;
    double phase[3] = {p->h2d_ns, p->kernel_ns, p->d2h_ns};
    double steady[3] = {p->h2d_ns / f, p->kernel_ns, p->d2h_ns / f};
    int m = 0;
    for (int i = 1; i < 3; i++)
        if (steady[i] > steady[m]) m = i;
    double sum = phase[0] + phase[1] + phase[2];
    return (double)p->batches * steady[m] + sum - phase[m];
}

double trace_pipeline_bound(const trace_pipeline *p, double bidir_factor) {
    double t = trace_pipeline_time_ns(p, bidir_factor);
    if (t <= 0) return 0.0;
    return (p->h2d_ns + p->kernel_ns + p->d2h_ns) * (double)p->batches / t;
}

int trace_pipeline_from_timeline(trace_timeline *tl, int32_t run, trace_pipeline *out) {
    memset(out, 0, sizeof(*out));
    double total[3] = {0, 0, 0};
    uint64_t h2d_ops = 0, any = 0;
    /* Distinct batch numbers: a small sorted set grown as needed. */
    int32_t *seen = NULL;
    size_t n_seen = 0, cap_seen = 0;
    size_t n = trace_timeline_count(tl);
    for (size_t i = 0; i < n; i++) {
        const trace_op *op = trace_timeline_get(tl, i);
        if (!trace_timeline_in_run(op, run)) continue;
        int phase = -1;
        if (op->kind == TRACE_OP_COPY && op->dir == TRACE_COPY_H2D) phase = 0;
        if (op->kind == TRACE_OP_KERNEL) phase = 1;
        if (op->kind == TRACE_OP_COPY && op->dir == TRACE_COPY_D2H) phase = 2;
        if (phase < 0) continue;
        any++;
        if (phase == 0) h2d_ops++;
        total[phase] += op->end_ns > op->start_ns ? (double)(op->end_ns - op->start_ns) : 0.0;
        if (op->batch < 0) continue;
        size_t lo = 0, hi = n_seen;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (seen[mid] < op->batch)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < n_seen && seen[lo] == op->batch) continue;
        if (n_seen == cap_seen) {
            cap_seen = cap_seen ? cap_seen * 2 : 64;
            seen = xrealloc(seen, cap_seen * sizeof(int32_t));
        }
        memmove(&seen[lo + 1], &seen[lo], (n_seen - lo) * sizeof(int32_t));
        seen[lo] = op->batch;
        n_seen++;
    }
    free(seen);
    if (!any) return -1;
    uint64_t nb = n_seen ? n_seen : h2d_ops;
    if (nb == 0) return -1;
    out->batches = (int32_t)nb;
    out->h2d_ns = total[0] / (double)nb;
    out->kernel_ns = total[1] / (double)nb;
    out->d2h_ns = total[2] / (double)nb;
    return 0;
}
