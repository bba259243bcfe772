/* labs/harness/steps.c: findings, the student's next step and tiered hints (see steps.h). */
#define _POSIX_C_SOURCE 200809L
#include "labs/harness/steps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli/state.h"
#include "trace/view/blame.h"
#include "trace/view/polls.h"
#include "trace/view/stalls.h"

#define MAX_STREAMS 1024

typedef struct write_at {
    uint64_t addr;
    int32_t stream;
    trace_op_kind kind;
} write_at;

static int compare_write(const void *a, const void *b) {
    const write_at *x = a, *y = b;
    if (x->addr != y->addr) return x->addr < y->addr ? -1 : 1;
    return (x->stream > y->stream) - (x->stream < y->stream);
}

/* Buffers written by stream work of more than one stream in run, counted by start
 * address: what a pipeline that shares device buffers between its streams does. The kinds
 * of op that wrote them go into *writers, a bit (1u << kind) each. */
static int count_shared_buffers(trace_timeline *tl, int32_t run, unsigned *writers) {
    *writers = 0;
    size_t n = trace_timeline_count(tl), used = 0, cap = 64;
    write_at *w = malloc(cap * sizeof(*w));
    if (!w) return 0;
    for (size_t i = 0; i < n; i++) {
        const trace_op *op = trace_timeline_get(tl, i);
        if (!trace_timeline_in_run(op, run) || !trace_op_kind_is_stream_work(op->kind) || op->stream < 0) continue;
        for (uint32_t k = 0; k < op->n_ranges && k < TRACE_MAX_RANGES; k++) {
            if (!(op->ranges[k].flags & TRACE_RANGE_WRITE)) continue;
            if (used == cap) {
                write_at *more = realloc(w, 2 * cap * sizeof(*w));
                if (!more) break;
                w = more;
                cap *= 2;
            }
            w[used].addr = op->ranges[k].addr;
            w[used].stream = op->stream;
            w[used].kind = op->kind;
            used++;
        }
    }
    qsort(w, used, sizeof(*w), compare_write);
    int shared = 0;
    for (size_t i = 0; i < used;) {
        size_t j = i + 1;
        bool other = false;
        unsigned kinds = 1u << w[i].kind;
        while (j < used && w[j].addr == w[i].addr) {
            other |= w[j].stream != w[i].stream;
            kinds |= 1u << w[j].kind;
            j++;
        }
        shared += other;
        if (other) *writers |= kinds;
        i = j;
    }
    free(w);
    return shared;
}

/* Whether a and b share a byte, one of the two writing it. */
static bool conflict(const trace_op *a, const trace_op *b) {
    for (uint32_t i = 0; i < a->n_ranges && i < TRACE_MAX_RANGES; i++)
        for (uint32_t j = 0; j < b->n_ranges && j < TRACE_MAX_RANGES; j++) {
            const trace_range *x = &a->ranges[i], *y = &b->ranges[j];
            if (!((x->flags | y->flags) & TRACE_RANGE_WRITE)) continue;
            if (x->addr < y->addr + y->bytes && y->addr < x->addr + x->bytes) return true;
        }
    return false;
}

/* Stream-0 ops of run that touch bytes an earlier op of another stream touched, one of the
 * two writing: a hand-over that only the legacy stream's implicit wait orders. The first
 * one's kind and the other op's stream go into *kind and *other. */
static int count_legacy_handovers(trace_timeline *tl, int32_t run, trace_op_kind *kind, int32_t *other) {
    size_t n = trace_timeline_count(tl);
    int found = 0;
    for (size_t i = 0; i < n; i++) {
        const trace_op *op = trace_timeline_get(tl, i);
        if (!trace_timeline_in_run(op, run) || !trace_op_kind_is_stream_work(op->kind) ||
            op->stream != TRACE_STREAM_LEGACY)
            continue;
        for (size_t j = 0; j < i; j++) {
            const trace_op *o = trace_timeline_get(tl, j);
            if (!trace_timeline_in_run(o, run) || !trace_op_kind_is_stream_work(o->kind) || o->stream <= 0) continue;
            if (conflict(op, o)) {
                if (found++ == 0) {
                    *kind = op->kind;
                    *other = o->stream;
                }
                break;
            }
        }
    }
    return found;
}

/* Distinct start addresses of the ranges of run's copies (of direction dir, or peer copies
 * when peer) with the given flag (TRACE_RANGE_WRITE: destinations; 0: sources). */
static int count_copy_buffers(trace_timeline *tl, int32_t run, trace_copy_dir dir, bool peer, uint32_t write) {
    size_t n = trace_timeline_count(tl), used = 0;
    uint64_t *seen = malloc((n + 1) * sizeof(uint64_t));
    if (!seen) return 0;
    for (size_t i = 0; i < n; i++) {
        const trace_op *op = trace_timeline_get(tl, i);
        if (!trace_timeline_in_run(op, run) || op->kind != TRACE_OP_COPY) continue;
        if (peer ? op->engine != TRACE_ENGINE_LINK : (op->dir != dir || op->engine == TRACE_ENGINE_LINK)) continue;
        for (uint32_t k = 0; k < op->n_ranges && k < TRACE_MAX_RANGES; k++) {
            if ((op->ranges[k].flags & TRACE_RANGE_WRITE) != write) continue;
            bool known = false;
            for (size_t j = 0; j < used && !known; j++) known = seen[j] == op->ranges[k].addr;
            if (!known) seen[used++] = op->ranges[k].addr;
        }
    }
    free(seen);
    return (int)used;
}

static int compare_id(const void *a, const void *b) {
    const trace_op *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

static bool marks_work(const trace_op *op) {
    return op->kind != TRACE_OP_EVENT_RECORD && op->kind != TRACE_OP_EVENT_WAIT;
}

/* Every order an event gave in run: for each stream's wait, the record it waits for (the
 * latest of that event before it), the work that record marks and the work after the wait,
 * how many batches apart those two are, and for a wait before any record of its
 * event, whether the event is recorded later in the run. */
static void find_orders(lab_findings *f, trace_timeline *tl, int32_t run) {
    size_t n = trace_timeline_count(tl), m = 0;
    trace_op *w = malloc((n + 1) * sizeof(trace_op));
    if (!w) return;
    for (size_t i = 0; i < n; i++) {
        const trace_op *op = trace_timeline_get(tl, i);
        if (trace_timeline_in_run(op, run) && trace_op_kind_is_stream_work(op->kind) && op->stream >= 0) w[m++] = *op;
    }
    qsort(w, m, sizeof(trace_op), compare_id);
    for (size_t i = 0; i < m; i++) {
        if (w[i].kind != TRACE_OP_EVENT_WAIT) continue;
        lab_order_fact o = {.record_stream = -1, .wait_stream = w[i].stream, .marks = TRACE_OP_KIND_COUNT,
                            .then = TRACE_OP_KIND_COUNT};
        int32_t marks_batch = -1, then_batch = -1;
        size_t rec = SIZE_MAX;
        for (size_t j = 0; j < i; j++)
            if (w[j].kind == TRACE_OP_EVENT_RECORD && w[j].event == w[i].event) rec = j;
        if (rec != SIZE_MAX) {
            o.record_stream = w[rec].stream;
            o.record_site = w[rec].call_site;
            for (size_t j = rec; j-- > 0;)
                if (w[j].stream == w[rec].stream && marks_work(&w[j])) {
                    o.marks = w[j].kind;
                    o.marks_dir = w[j].dir;
                    marks_batch = w[j].batch;
                    break;
                }
        } else {
            for (size_t j = i + 1; j < m && !o.recorded_later; j++)
                o.recorded_later = w[j].kind == TRACE_OP_EVENT_RECORD && w[j].event == w[i].event;
        }
        for (size_t j = i + 1; j < m; j++)
            if (w[j].stream == w[i].stream && marks_work(&w[j])) {
                o.then = w[j].kind;
                o.then_dir = w[j].dir;
                then_batch = w[j].batch;
                break;
            }
        o.batch_known = marks_batch >= 0 && then_batch >= 0;
        o.batch_gap = o.batch_known ? then_batch - marks_batch : 0;
        bool known = false;
        for (int k = 0; k < f->n_orders && !known; k++) {
            lab_order_fact *e = &f->orders[k];
            if (e->record_stream == o.record_stream && e->wait_stream == o.wait_stream && e->marks == o.marks &&
                e->marks_dir == o.marks_dir && e->then == o.then && e->then_dir == o.then_dir &&
                e->record_site == o.record_site && e->batch_known == o.batch_known && e->batch_gap == o.batch_gap &&
                e->recorded_later == o.recorded_later) {
                e->times++;
                known = true;
            }
        }
        if (!known && f->n_orders < LAB_FACT_ORDERS) {
            o.times = 1;
            f->orders[f->n_orders++] = o;
        }
    }
    free(w);
}

/* The streams that carried the run's work, what each carried, and the graph calls. */
static void find_streams(lab_findings *f, const lab_spec *spec, trace_timeline *tl, int32_t run) {
    size_t n = trace_timeline_count(tl);
    bool kernel_on[MAX_STREAMS] = {false};
    int graph_branches = 0;
    /* The host copies' lines, for the one whose copies took longest. */
    enum { MAX_COPY_SITES = 8 };
    struct {
        uint64_t site;
        double ms;
    } copy_sites[MAX_COPY_SITES];
    int n_copy_sites = 0;
    memset(copy_sites, 0, sizeof(copy_sites));
    for (size_t i = 0; i < n; i++) {
        const trace_op *op = trace_timeline_get(tl, i);
        if (!trace_timeline_in_run(op, run)) continue;
        if (op->kind == TRACE_OP_API) {
            if (!strncmp(op->name, "cudaGraphInstantiate", 20) && f->graphs_made++ == 0)
                f->graph_made_site = op->call_site;
            if (!strncmp(op->name, "cudaStreamEndCapture", 20) && f->graphs_captured++ == 0)
                f->graph_captured_site = op->call_site;
            f->graph_launches += !strcmp(op->name, "cudaGraphLaunch");
            f->copy_calls += !strncmp(op->name, "cudaMemcpy", 10);
            f->device_allocs += !strcmp(op->name, "cudaMalloc");
            if (!strcmp(op->name, LAB_HOST_COPY_SPAN)) {
                double ms = (double)(op->end_ns - op->start_ns) / 1e6;
                f->host_copies++;
                f->host_copy_ms += ms;
                int k = 0;
                while (k < n_copy_sites && copy_sites[k].site != op->call_site) k++;
                if (k == n_copy_sites && n_copy_sites < MAX_COPY_SITES) copy_sites[n_copy_sites++].site = op->call_site;
                if (k < n_copy_sites) copy_sites[k].ms += ms;
            }
            continue;
        }
        if (!trace_op_kind_is_stream_work(op->kind) || op->stream < 0) continue;
        if (op->kind == TRACE_OP_KERNEL && op->stream < MAX_STREAMS && !kernel_on[op->stream]) {
            kernel_on[op->stream] = true;
            f->kernel_streams++;
            /* The simulator runs a graph's branch N (N >= 1) on a stream of its own, beside
             * the launch stream's branch 0: the graph spans N + 1 chains. */
            const trace_stream *st = trace_timeline_stream(tl, op->stream);
            if (st && st->graph_branch > 0 && (int)st->graph_branch + 1 > f->graph_width)
                f->graph_width = (int)st->graph_branch + 1;
        }
        /* A graph launched as one op (a GPU's trace): its kernels ran on as many chains as
         * the graph has branches, whatever stream launched it. */
        int branches = trace_graph_op_branches(op);
        if (branches > graph_branches) graph_branches = branches;
        lab_stream_fact *s = (lab_stream_fact *)lab_fact_stream(f, op->stream);
        if (!s) {
            if (f->n_streams >= LAB_FACT_STREAMS) continue;
            s = &f->streams[f->n_streams++];
            memset(s, 0, sizeof(*s));
            s->id = op->stream;
            s->priority = op->priority;
            const trace_stream *st = trace_timeline_stream(tl, op->stream);
            trace_stream_label(op->stream, st ? st->name : NULL, s->label, sizeof(s->label));
            s->device = st ? st->device : 0;
            s->per_thread = st && st->per_thread;
        }
        bool peer = op->kind == TRACE_OP_COPY && op->engine == TRACE_ENGINE_LINK;
        s->kernels += op->kind == TRACE_OP_KERNEL;
        s->h2d += op->kind == TRACE_OP_COPY && op->dir == TRACE_COPY_H2D && !peer;
        s->d2h += op->kind == TRACE_OP_COPY && op->dir == TRACE_COPY_D2H && !peer;
        s->peer += peer;
        bool background = spec && spec->is_background && spec->is_background(op);
        s->background += background;
        bool request = !background && op->batch >= 0 && (op->kind == TRACE_OP_KERNEL || op->kind == TRACE_OP_COPY);
        s->requests += request;
        s->request_kernels += request && op->kind == TRACE_OP_KERNEL;
    }
    int most = 0;
    for (int k = 1; k < n_copy_sites; k++)
        if (copy_sites[k].ms > copy_sites[most].ms) most = k;
    if (n_copy_sites) f->host_copy_site = copy_sites[most].site;
    if (graph_branches > f->kernel_streams) f->kernel_streams = graph_branches;
    if (graph_branches > f->graph_width) f->graph_width = graph_branches;
    /* A graph whose kernels all ran on its launch stream: one chain. */
    if (f->graph_launches > 0 && f->graph_width == 0 && f->kernel_streams > 0) f->graph_width = 1;
}

/* A batch's time on the device: from its first upload's start to its last download's
 * end, on average over the batches of run that had both. */
static double batch_time_us(trace_timeline *tl, int32_t run) {
    size_t n = trace_timeline_count(tl), cap = 0;
    for (size_t i = 0; i < n; i++) {
        const trace_op *op = trace_timeline_get(tl, i);
        if (trace_timeline_in_run(op, run) && op->kind == TRACE_OP_COPY && op->batch >= 0 &&
            (size_t)op->batch + 1 > cap)
            cap = (size_t)op->batch + 1;
    }
    uint64_t *up = calloc(cap + 1, sizeof(uint64_t)), *down = calloc(cap + 1, sizeof(uint64_t));
    double sum = 0;
    int counted = 0;
    if (!up || !down) goto out;
    for (size_t i = 0; i < n; i++) {
        const trace_op *op = trace_timeline_get(tl, i);
        if (!trace_timeline_in_run(op, run) || op->kind != TRACE_OP_COPY || op->batch < 0 || !op->timed) continue;
        size_t b = (size_t)op->batch;
        if (op->dir == TRACE_COPY_H2D && (!up[b] || op->start_ns < up[b])) up[b] = op->start_ns;
        if (op->dir == TRACE_COPY_D2H && op->end_ns > down[b]) down[b] = op->end_ns;
    }
    for (size_t b = 0; b < cap; b++)
        if (up[b] && down[b] > up[b]) {
            sum += (double)(down[b] - up[b]) / 1e3;
            counted++;
        }
out:
    free(up);
    free(down);
    return counted ? sum / counted : 0;
}

/* Every wait of the run and what it cost (trace/view/blame.h); their lines are the
 * runner's to fill in (it knows the program's binary). */
static void find_waits(lab_findings *f, trace_timeline *tl, int32_t run) {
    trace_blame b;
    if (trace_blame_compute(tl, run, &b) != 0) return;
    f->run_ms = (double)(b.t1_ns - b.t0_ns) / 1e6;
    for (size_t i = 0; i < b.n && f->n_waits < LAB_FACT_WAITS; i++) {
        const trace_blame_wait *bw = &b.wait[i];
        lab_wait_fact *w = &f->waits[f->n_waits++];
        memset(w, 0, sizeof(*w));
        w->host = bw->host;
        trace_blame_call(bw, tl, w->call, sizeof(w->call));
        w->call_site = bw->call_site;
        w->sync = bw->sync;
        w->stream = bw->stream;
        w->record_stream = bw->record_stream;
        w->streams = (int)bw->streams;
        w->times = (int)bw->times;
        w->on_path = (int)bw->on_path;
        w->held_ms = (double)bw->held_ns / 1e6;
        w->cost_ms = (double)bw->cost_ns / 1e6;
        w->in_loop = bw->before_last_work;
        w->not_ready = (int)bw->not_ready;
    }
}

void lab_findings_compute(lab_findings *f, const lab_result *r, trace_timeline *tl, int32_t run, uint64_t returned_ns) {
    memset(f, 0, sizeof(*f));
    f->peer_access = -1; /* the runner asks the runtime (two-device labs) */
    f->correct = r->correct && r->status != LAB_STATUS_ERROR;
    f->race_free = r->races == 0;
    f->reached = r->status == LAB_STATUS_PASS;
    f->bound_fraction = r->bound_fraction;
    f->elapsed_calls = r->measurement.event_reads;
    for (size_t i = 0; i < r->races_shown && i < LAB_MAX_RACES_SHOWN; i++) {
        const trace_race *race = &r->race[i];
        if (race->early_event && f->early_records++ == 0) {
            snprintf(f->early_event, sizeof(f->early_event), "%s", race->early_event_name);
            snprintf(f->early_record_line, sizeof(f->early_record_line), "%s", race->early_record_line);
        }
        if (race->wait_fault == TRACE_WAIT_FAULT_LATE && f->late_waits++ == 0)
            snprintf(f->late_wait_line, sizeof(f->late_wait_line), "%s", race->wait_line);
    }
    if (!tl || run <= 0) return;
    static bool used[MAX_STREAMS];
    memset(used, 0, sizeof(used));
    size_t n = trace_timeline_count(tl);
    for (size_t i = 0; i < n; i++) {
        const trace_op *op = trace_timeline_get(tl, i);
        if (!trace_timeline_in_run(op, run) || !trace_op_kind_is_stream_work(op->kind)) continue;
        if (op->stream == TRACE_STREAM_LEGACY)
            f->stream0_work = true;
        else if (op->stream > 0 && op->stream < MAX_STREAMS && !used[op->stream]) {
            used[op->stream] = true;
            f->streams_used++;
        }
    }
    f->shared_buffers = count_shared_buffers(tl, run, &f->shared_writers);
    f->h2d_buffers = count_copy_buffers(tl, run, TRACE_COPY_H2D, false, TRACE_RANGE_WRITE);
    f->h2d_sources = count_copy_buffers(tl, run, TRACE_COPY_H2D, false, 0);
    f->peer_buffers = count_copy_buffers(tl, run, TRACE_COPY_NONE, true, TRACE_RANGE_WRITE);
    find_orders(f, tl, run);
    find_streams(f, r->spec, tl, run);
    find_waits(f, tl, run);
    f->batch_us = batch_time_us(tl, run);
    /* Host waits before the run's last piece of stream work was queued: a host round trip
     * between stages, where an event would have ordered the streams. */
    uint64_t last_enqueue = 0;
    for (size_t i = 0; i < n; i++) {
        const trace_op *op = trace_timeline_get(tl, i);
        if (trace_timeline_in_run(op, run) && trace_op_kind_is_stream_work(op->kind) && op->enqueue_ns > last_enqueue)
            last_enqueue = op->enqueue_ns;
    }
    uint64_t counted_call = 0; /* the program's call whose waits were counted last (trace_op.as_call) */
    /* A query's success counts when it ends a poll (trace/view/polls.h): one that found the
     * work done at its first ask did not wait. */
    trace_poll *polls = NULL;
    long n_polls = trace_polls_find(tl, run, &polls);
    for (size_t i = 0; i < n; i++) {
        const trace_op *op = trace_timeline_get(tl, i);
        if (!trace_timeline_in_run(op, run) || op->kind != TRACE_OP_SYNC || op->end_ns > last_enqueue) continue;
        if (trace_op_is_query(op) && !trace_poll_of(polls, n_polls > 0 ? (size_t)n_polls : 0, op->id)) continue;
        if (op->as_call && op->as_call == counted_call) continue; /* one call, several waits */
        counted_call = op->as_call;
        f->host_syncs++;
        if (op->sync == TRACE_SYNC_STREAM || op->sync == TRACE_SYNC_DEVICE) f->stream_syncs++;
        f->free_syncs += !strcmp(op->name, "cudaFree");
    }
    free(polls);
    /* Peer copies (the link lane): their rate says whether they went over the link or were
     * staged through the host. */
    double peer_bytes = 0, peer_ns = 0;
    for (size_t i = 0; i < n; i++) {
        const trace_op *op = trace_timeline_get(tl, i);
        if (!trace_timeline_in_run(op, run) || op->kind != TRACE_OP_COPY || op->engine != TRACE_ENGINE_LINK) continue;
        f->peer_copies++;
        if (op->timed && op->end_ns > op->start_ns) {
            peer_bytes += (double)op->bytes;
            peer_ns += (double)(op->end_ns - op->start_ns);
        }
    }
    if (peer_ns > 0) f->peer_gbps = peer_bytes / peer_ns;
    /* The runner described run's stream-0 ops before (lab_result.stalls, stalls_held). */
    f->stalls = (int)r->stalls;
    f->stalls_held = (int)r->stalls_held;
    if (f->stalls > 0) f->legacy_handovers = count_legacy_handovers(tl, run, &f->handover_kind, &f->handover_stream);
    int32_t busy[64];
    size_t nb = trace_streams_busy_at(tl, run, returned_ns, busy, sizeof(busy) / sizeof(busy[0]));
    for (size_t i = 0; i < nb && i < sizeof(busy) / sizeof(busy[0]); i++)
        if (busy[i] != TRACE_STREAM_LEGACY) f->busy_at_return++;
}

static int compare_cost(const void *a, const void *b) {
    const lab_wait_fact *x = a, *y = b;
    if (x->cost_ms != y->cost_ms) return x->cost_ms > y->cost_ms ? -1 : 1;
    if (x->held_ms != y->held_ms) return x->held_ms > y->held_ms ? -1 : 1;
    return (x->host < y->host) - (x->host > y->host);
}

void lab_findings_merge_lines(lab_findings *f) {
    for (int i = 0; i < f->n_waits; i++) {
        lab_wait_fact *a = &f->waits[i];
        if (!a->line[0]) continue;
        size_t base = strcspn(a->call, "(");
        for (int j = i + 1; j < f->n_waits;) {
            lab_wait_fact *b = &f->waits[j];
            if (b->host != a->host || strcmp(b->line, a->line) != 0 || strncmp(b->call, a->call, base) != 0 ||
                b->call[base] != '(') {
                j++;
                continue;
            }
            a->times += b->times;
            a->on_path += b->on_path;
            a->held_ms += b->held_ms;
            a->cost_ms += b->cost_ms;
            a->in_loop |= b->in_loop;
            a->not_ready += b->not_ready;
            if (b->stream != a->stream && b->stream >= 0) a->streams += b->streams > 0 ? b->streams : 1;
            memmove(b, b + 1, (size_t)(f->n_waits - j - 1) * sizeof(*b));
            f->n_waits--;
        }
        if (a->streams > 1 && strstr(a->call, "Stream"))
            snprintf(a->call + base, sizeof(a->call) - base, "(one of %d streams)", a->streams);
    }
    qsort(f->waits, (size_t)f->n_waits, sizeof(f->waits[0]), compare_cost);
}

int lab_steps_first_open(const lab_spec *spec, const lab_findings *f) {
    for (int i = 0; i < spec->n_steps; i++)
        if (!spec->steps[i].done(f, &spec->workload)) return i;
    return -1;
}

/* When every step is done and the lab still fails or misses its target, what the
 * findings say about it, whatever the lab, into buf. 0 when they say nothing. */
static int beyond_the_steps(const lab_findings *f, char *buf, size_t len) {
    if (f->busy_at_return > 0 && !f->correct)
        return snprintf(buf, len,
                        "run() returned while some of your streams still had work (the \"returned\" line above): "
                        "wait for every stream you used before run() returns.");
    if (f->stalls > 0 && f->legacy_handovers > 0) {
        /* Making the streams non-blocking would take away the one order the hand-over has. */
        const lab_stream_fact *s = lab_fact_stream(f, f->handover_stream);
        const char *how = f->handover_kind == TRACE_OP_COPY     ? "cudaMemcpyAsync on that stream, not cudaMemcpy"
                          : f->handover_kind == TRACE_OP_KERNEL ? "launch it on that stream"
                                                                : "queue it on that stream";
        return snprintf(buf, len,
                        "your code puts work on stream 0, the legacy default stream, and each such operation waits "
                        "for your other streams or holds them back (the \"stream 0\" lines above). Some of it uses "
                        "bytes your streams' work wrote (or writes what it read), and only that wait orders the two: "
                        "making your streams non-blocking would leave them unordered, a race. Put that work on the "
                        "stream whose work it uses (%s%s%s), where the stream's order hands the bytes over (lab 00 "
                        "is about stream 0).",
                        s ? s->label : "", s ? ": " : "", how);
    }
    if (f->stalls > 0)
        return snprintf(buf, len,
                        "your code puts work on stream 0, the legacy default stream, and each such operation waits "
                        "for your other streams or holds them back (the \"stream 0\" lines above). Put that work on "
                        "one of your streams, or make your streams non-blocking (lab 00 is about this).");
    return 0;
}

int lab_steps_why(const lab_spec *spec, const lab_findings *f, char *buf, size_t len) {
    buf[0] = '\0';
    int i = lab_steps_first_open(spec, f);
    if (i < 0 || !spec->steps[i].why) return 0;
    int n = spec->steps[i].why(f, &spec->workload, buf, len);
    if (n <= 0) buf[0] = '\0';
    return n > 0 ? n : 0;
}

int lab_steps_beyond(const lab_spec *spec, const lab_findings *f, char *buf, size_t len) {
    buf[0] = '\0';
    if (f->reached || lab_steps_first_open(spec, f) >= 0) return 0;
    if (f->busy_at_return > 0 && !f->correct) return beyond_the_steps(f, buf, len);
    /* A call that allocates or frees memory waits for the whole device, whatever the lab:
     * what to do is the same in every lab, and no event or stream takes its wait away. */
    const lab_wait_fact *w = lab_fact_costly_wait(f);
    const char *fix = lab_fact_allocation_fix(w);
    if (fix) {
        char said[320];
        lab_fact_wait_text(f, w, said, sizeof(said));
        int call = (int)strcspn(w->call, "(");
        return snprintf(buf, len,
                        "%s, before your run had queued all its work: %.*s waits for all the work on the device "
                        "before it returns, so nothing you queue after it overlaps what you queued before it. "
                        "Instead, %s.",
                        said, call, w->call, fix);
    }
    /* Stream-0 work that a stream's work hands bytes to (a cudaMemcpy of a result): what
     * holds the host is that work itself, and the fix is its stream, not fewer waits. */
    if (f->stalls > 0 && f->legacy_handovers > 0 &&
        (!w || !strncmp(w->call, "cudaMemcpy(", 11) || !strncmp(w->call, "cudaMemset(", 11)))
        return beyond_the_steps(f, buf, len);
    /* Host copies that take a large part of the run: the host copies where the copy
     * engines could have read the memory itself. */
    if (f->host_copies > 0 && f->run_ms > 0 && f->host_copy_ms >= LAB_HOST_COPY_SHARE * f->run_ms) {
        char at[160];
        lab_fact_line_note(f->host_copy_line, " at ", "", at, sizeof(at));
        return snprintf(buf, len,
                        "your run copies memory on the host %d time%s (the most%s), %.1f ms of the run's %.1f ms: "
                        "while the host copies, it queues nothing, and the host of a GPU machine copies 6-10 GB/s "
                        "(the less where no cache holds the data), a sixth to a ninth of what a copy engine moves. "
                        "The copy engines read and write pinned memory "
                        "themselves: have the data in pinned memory where it is made (register the buffer it is in, "
                        "or load it into a pinned buffer) and give that address to cudaMemcpyAsync, instead of "
                        "copying it on the host first.",
                        f->host_copies, f->host_copies == 1 ? "" : "s", at, f->host_copy_ms, f->run_ms);
    }
    int n = spec->beyond ? spec->beyond(f, &spec->workload, buf, len) : 0;
    if (n > 0) return n;
    if (w) {
        char said[320];
        lab_fact_wait_text(f, w, said, sizeof(said));
        return snprintf(buf, len,
                        "%s, before your run had queued all its work: while the host waits, nothing new reaches the "
                        "GPU. Wait only where the host needs a result, and order the streams with events "
                        "(cudaStreamWaitEvent) instead.",
                        said);
    }
    return beyond_the_steps(f, buf, len);
}

void lab_steps_print_next(const lab_spec *spec, const lab_findings *f, bool passed, FILE *out) {
    char text[1024];
    int i = lab_steps_first_open(spec, f);
    if (i < 0) {
        if (!passed && lab_steps_beyond(spec, f, text, sizeof(text)) > 0) fprintf(out, "Next: %s\n", text);
        return;
    }
    const lab_step *st = &spec->steps[i];
    if (passed && !st->beyond_target) return;
    char why[640];
    if (lab_steps_why(spec, f, why, sizeof(why)) > 0) {
        snprintf(text, sizeof(text), "%s.", why);
        fprintf(out, "Why: %s\n", text);
    }
    snprintf(text, sizeof(text), "%s: %s", st->todo, st->next);
    fprintf(out, "%s%s\n", passed ? "Further: " : "Next: ", text);
    fprintf(out, "      Stuck? --hint gives a hint, a little more each time.\n");
}

bool lab_hints_path(char *buf, size_t len) { return cli_state_path("hints.json", buf, len); }

static const char *const tier_name[LAB_HINT_TIERS] = {"a question", "the idea", "the shape of the code"};

void lab_hints_print_next(const lab_spec *spec, const lab_findings *f, bool passed, const char *path, FILE *out) {
    int i = lab_steps_first_open(spec, f);
    /* A program that passes by another road than the lesson's is not sent back to a step:
     * the report says nothing of it either (lab_steps_print_next). */
    if (i >= 0 && passed && !spec->steps[i].beyond_target) {
        fprintf(out, "No hint needed: your program passes, in its own way (the lesson's road: %s).\n", spec->lesson);
        return;
    }
    if (i < 0) {
        char why[1024];
        if (lab_steps_beyond(spec, f, why, sizeof(why)) > 0)
            fprintf(out, "Every step of this lab is done, and still: %s\n", why);
        else
            fprintf(out, "No hint needed: every step of this lab is done%s.\n",
                    f->reached ? "" : "; run without --hint for the report");
        return;
    }
    const lab_step *st = &spec->steps[i];
    cJSON *state = cli_state_load(path);
    cJSON *lab = cJSON_GetObjectItemCaseSensitive(state, spec->id);
    if (!cJSON_IsObject(lab)) {
        cJSON_DeleteItemFromObjectCaseSensitive(state, spec->id);
        lab = cJSON_AddObjectToObject(state, spec->id);
    }
    const cJSON *last_step = cJSON_GetObjectItemCaseSensitive(lab, "step");
    const cJSON *last_tier = cJSON_GetObjectItemCaseSensitive(lab, "tier");
    int tier = 0;
    if (cJSON_IsNumber(last_step) && last_step->valueint == i && cJSON_IsNumber(last_tier))
        tier = last_tier->valueint + 1;
    if (tier >= LAB_HINT_TIERS) tier = LAB_HINT_TIERS - 1;
    if (tier < 0) tier = 0;
    fprintf(out, "You are at %s.\n", st->todo);
    char why[640], text[1024];
    if (lab_steps_why(spec, f, why, sizeof(why)) > 0) {
        snprintf(text, sizeof(text), "%s.", why);
        fprintf(out, "Why: %s\n", text);
    }
    fprintf(out, "%s\n\nHint %d of %d (%s):\n  %s\n", st->next, tier + 1, LAB_HINT_TIERS, tier_name[tier],
            st->hints[tier]);
    if (tier + 1 < LAB_HINT_TIERS)
        fprintf(out, "\nAsk again (--hint) for %s. The lesson has every hint: %s\n", tier_name[tier + 1], spec->lesson);
    else
        fprintf(out, "\nThat was the last hint for this step. The lesson: %s\n", spec->lesson);
    cJSON_DeleteItemFromObjectCaseSensitive(lab, "step");
    cJSON_DeleteItemFromObjectCaseSensitive(lab, "tier");
    cJSON_AddNumberToObject(lab, "step", i);
    cJSON_AddNumberToObject(lab, "tier", tier);
    (void)cli_state_save(path, state);
    cJSON_Delete(state);
}
