/* trace/view/blame.c: the waits on a run's critical path (see blame.h). */
#include "trace/view/blame.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/view/polls.h"
#include "trace/view/stalls.h"

#define TOL TRACE_STALL_TOLERANCE_NS

typedef struct walk {
    trace_op *work;   /* the run's stream work, by id */
    size_t n_work;
    size_t *prev;     /* work[i]'s predecessor on its stream, or SIZE_MAX */
    trace_op *syncs;  /* the run's host waits, by end */
    size_t n_syncs;
    uint64_t *arrivals; /* requests' arrivals ("request arrives"), in any order */
    size_t n_arrivals;
    trace_poll *polls;  /* the host waits made by polling (polls.h), in host order */
    size_t n_polls;
} walk;

static int by_id(const void *a, const void *b) {
    const trace_op *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

static int by_end(const void *a, const void *b) {
    const trace_op *x = a, *y = b;
    if (x->end_ns != y->end_ns) return x->end_ns < y->end_ns ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

static uint64_t end_of(const trace_op *op) { return op->end_ns > op->start_ns ? op->end_ns : op->start_ns; }

static void walk_free(walk *w) {
    free(w->work);
    free(w->prev);
    free(w->syncs);
    free(w->arrivals);
    free(w->polls);
}

static int walk_load(trace_timeline *tl, int32_t run, walk *w) {
    memset(w, 0, sizeof(*w));
    size_t n = trace_timeline_count(tl);
    w->work = malloc((n + 1) * sizeof(trace_op));
    w->syncs = malloc((n + 1) * sizeof(trace_op));
    w->arrivals = malloc((n + 1) * sizeof(uint64_t));
    if (!w->work || !w->syncs || !w->arrivals) return -1;
    long polls = trace_polls_find(tl, run, &w->polls);
    if (polls < 0) return -1;
    w->n_polls = (size_t)polls;
    for (size_t i = 0; i < n; i++) {
        const trace_op *op = trace_timeline_get(tl, i);
        if (!trace_timeline_in_run(op, run)) continue;
        if (trace_op_kind_is_stream_work(op->kind) && op->stream >= 0) {
            w->work[w->n_work++] = *op;
        } else if (op->kind == TRACE_OP_SYNC) {
            /* A query's success is a wait when it ends a poll, held from the poll's first
             * query; one that found the work done at its first ask waited for nothing. */
            const trace_poll *p = trace_op_is_query(op) ? trace_poll_of(w->polls, w->n_polls, op->id) : NULL;
            if (trace_op_is_query(op) && !p) continue;
            trace_op *s = &w->syncs[w->n_syncs++];
            *s = *op;
            if (p) s->enqueue_ns = s->start_ns = p->start_ns;
        } else if (op->kind == TRACE_OP_HOST_ACCESS && !strcmp(op->name, "request arrives")) {
            w->arrivals[w->n_arrivals++] = op->start_ns;
        }
    }
    qsort(w->work, w->n_work, sizeof(trace_op), by_id);
    qsort(w->syncs, w->n_syncs, sizeof(trace_op), by_end);
    w->prev = malloc((w->n_work + 1) * sizeof(size_t));
    if (!w->prev) return -1;
    /* In id order, the last op seen on each stream is the next one's predecessor. */
    int32_t limit = trace_timeline_stream_limit(tl);
    size_t *last = malloc(((size_t)(limit > 0 ? limit : 0) + 1) * sizeof(size_t));
    if (!last) return -1;
    for (int32_t s = 0; s <= limit; s++) last[s] = SIZE_MAX;
    for (size_t i = 0; i < w->n_work; i++) {
        int32_t s = w->work[i].stream;
        if (s > limit) s = limit; /* cannot happen: the limit counts every op's stream */
        w->prev[i] = last[s];
        last[s] = i;
    }
    free(last);
    return 0;
}

/* The call a wait op was made by: a host wait's name, or a stream's wait's (an event
 * wait's name is its event's, not a call's). */
static const char *call_of(const trace_op *op, bool host) {
    if (host) return op->name;
    return op->kind == TRACE_OP_EVENT_WAIT || !op->name[0] ? "cudaStreamWaitEvent" : op->name;
}

/* The wait entry for op, found or added; NULL when the list is full (counted in more). */
static trace_blame_wait *entry_for(trace_blame *b, const trace_op *op, bool host) {
    int32_t stream = host ? (op->sync == TRACE_SYNC_STREAM ? op->stream : TRACE_STREAM_NONE) : op->stream;
    const char *call = call_of(op, host);
    for (size_t i = 0; i < b->n; i++) {
        trace_blame_wait *e = &b->wait[i];
        /* One line is one wait, whichever stream it concerned (a loop over a pool's streams);
         * without a line, each stream's is a wait of its own. */
        if (e->host != host || e->call_site != op->call_site || strcmp(e->call, call) != 0) continue;
        if (host && e->sync != op->sync) continue;
        if (!op->call_site && e->stream != stream) continue;
        bool seen = false;
        for (uint32_t k = 0; k < e->streams && k < TRACE_BLAME_STREAMS; k++) seen |= e->stream_ids[k] == stream;
        if (!seen && stream != TRACE_STREAM_NONE) {
            if (e->streams < TRACE_BLAME_STREAMS) e->stream_ids[e->streams] = stream;
            e->streams++;
        }
        return e;
    }
    if (b->n == TRACE_BLAME_MAX) {
        b->more++;
        return NULL;
    }
    trace_blame_wait *e = &b->wait[b->n++];
    memset(e, 0, sizeof(*e));
    e->host = host;
    snprintf(e->call, sizeof(e->call), "%s", call);
    e->sync = host ? op->sync : TRACE_SYNC_NONE;
    e->stream = stream;
    if (stream != TRACE_STREAM_NONE) {
        e->streams = 1;
        e->stream_ids[0] = stream;
    }
    e->record_stream = TRACE_STREAM_NONE;
    e->call_site = op->call_site;
    return e;
}

/* The record a wait or an event sync at host position id waits for: the latest record of
 * event before it. SIZE_MAX when the run has none. */
static size_t record_of(const walk *w, uint64_t event, uint64_t id) {
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < w->n_work && w->work[i].id < id; i++)
        if (w->work[i].kind == TRACE_OP_EVENT_RECORD && w->work[i].event == event) best = i;
    return best;
}

/* Whether two host waits are copies of one: a wait for the device on several devices is
 * recorded once per stream, at the same moment, by the same call (never a
 * cudaStreamSynchronize, which waits for one stream: a loop over streams whose waits
 * return at once makes waits of the same line at the same moment that are not copies). */
static bool same_wait(const trace_op *a, const trace_op *b) {
    return a->call_site == b->call_site && a->start_ns == b->start_ns && a->end_ns == b->end_ns &&
           !strcmp(a->name, b->name) && strcmp(a->name, "cudaStreamSynchronize") != 0;
}

/* The stream work a host wait waited for: the op among its targets, queued before it, that
 * ended last (no later than the wait, give or take). SIZE_MAX when none is in the run. */
static size_t waited_work(const walk *w, const trace_op *s) {
    size_t best = SIZE_MAX;
    uint64_t best_end = 0;
    for (size_t i = 0; i < w->n_work && w->work[i].id < s->id; i++) {
        const trace_op *op = &w->work[i];
        bool target;
        switch (s->sync) {
        case TRACE_SYNC_STREAM: {
            /* Every stream a wait of the same moment and line waited for (a device wait on
             * several devices is a stream wait per stream). */
            target = op->stream == s->stream;
            for (size_t j = 0; j < w->n_syncs && !target; j++)
                target = same_wait(&w->syncs[j], s) && w->syncs[j].stream == op->stream;
            break;
        }
        case TRACE_SYNC_DEVICE: target = true; break;
        case TRACE_SYNC_EVENT: target = op->kind == TRACE_OP_EVENT_RECORD && op->event == s->event; break;
        case TRACE_SYNC_OP: target = op->id == s->waited_op; break;
        default: target = false; break;
        }
        if (!target || end_of(op) > s->end_ns + TOL) continue;
        if (s->sync == TRACE_SYNC_EVENT) {
            best = i; /* the latest record */
            continue;
        }
        if (best == SIZE_MAX || end_of(op) >= best_end) {
            best = i;
            best_end = end_of(op);
        }
    }
    return best;
}

/* The latest host wait the host made before op id (in host order) that ended by t (give
 * or take), or SIZE_MAX. */
static size_t host_wait_before(const walk *w, uint64_t id, uint64_t t) {
    size_t best = SIZE_MAX;
    for (size_t j = 0; j < w->n_syncs && w->syncs[j].end_ns <= t + TOL; j++)
        if (w->syncs[j].id < id) best = j;
    return best;
}

/* Whether no work of the run ran on the device between t0 and t1 (give or take): an op
 * queued at t0 that started at t1 waited for nothing on the device, however long its
 * submission took (a GPU idle for a while starts its next work late). */
static bool device_idle_between(const walk *w, uint64_t t0, uint64_t t1) {
    for (size_t i = 0; i < w->n_work; i++) {
        const trace_op *op = &w->work[i];
        if (op->engine == TRACE_ENGINE_NONE || op->engine == TRACE_ENGINE_HOST) continue;
        if (op->start_ns + TOL < t1 && end_of(op) > t0 + TOL) return false;
    }
    return true;
}

static bool arrival_between(const walk *w, uint64_t after, uint64_t by) {
    for (size_t i = 0; i < w->n_arrivals; i++)
        if (w->arrivals[i] > after && w->arrivals[i] <= by + TOL) return true;
    return false;
}

/* The op on cur's engine (and device), not on its stream, that ended when cur started. A
 * kernel may also start while another still runs, on the SMs that kernel's last blocks
 * freed: when no op ended then, the kernel that held it back is the one of another stream
 * that was running when it started and had started last before it. Failing both, the op
 * of another engine that ended when cur started. */
static size_t engine_before(const walk *w, size_t cur) {
    const trace_op *c = &w->work[cur];
    if (c->engine == TRACE_ENGINE_NONE || c->engine == TRACE_ENGINE_HOST) return SIZE_MAX;
    size_t best = SIZE_MAX, running = SIZE_MAX;
    uint64_t best_end = 0, running_start = 0;
    for (size_t i = 0; i < w->n_work; i++) {
        const trace_op *op = &w->work[i];
        if (i == cur || op->engine != c->engine || op->device != c->device || op->stream == c->stream) continue;
        uint64_t e = end_of(op);
        if (c->kind == TRACE_OP_KERNEL && op->kind == TRACE_OP_KERNEL && op->start_ns < c->start_ns &&
            e > c->start_ns + TOL && (running == SIZE_MAX || op->start_ns > running_start)) {
            running = i;
            running_start = op->start_ns;
        }
        if (e + TOL < c->start_ns || e > c->start_ns + TOL || op->start_ns >= c->start_ns) continue;
        if (best == SIZE_MAX || e > best_end) {
            best = i;
            best_end = e;
        }
    }
    if (best != SIZE_MAX) return best;
    if (running != SIZE_MAX) return running;
    /* Nothing on its own engine: work on another engine that ended when it started (on a GPU
     * an upload may queue behind a download in the copy hardware). */
    for (size_t i = 0; i < w->n_work; i++) {
        const trace_op *op = &w->work[i];
        if (i == cur || op->engine == TRACE_ENGINE_NONE || op->engine == TRACE_ENGINE_HOST ||
            op->device != c->device || op->stream == c->stream)
            continue;
        uint64_t e = end_of(op);
        if (e + TOL < c->start_ns || e > c->start_ns + TOL || op->start_ns >= c->start_ns) continue;
        if (best == SIZE_MAX || e > best_end) {
            best = i;
            best_end = e;
        }
    }
    return best;
}

static void charge(trace_blame_wait *e, uint64_t ns) {
    if (!e) return;
    e->on_path++;
    e->cost_ns += ns;
}

/* Whether two host waits are parts of one call of the program (trace_op.as_call: the
 * referee's device synchronisation and unregistration that perform a cudaFreeHost each
 * record a wait): the call is one wait, counted once. */
static bool same_call(const trace_op *a, const trace_op *b) { return a->as_call && a->as_call == b->as_call; }

static void critical_path(const walk *w, trace_blame *b) {
    size_t cur = SIZE_MAX;
    uint64_t last_end = 0;
    for (size_t i = 0; i < w->n_work; i++)
        if (cur == SIZE_MAX || end_of(&w->work[i]) >= last_end) {
            cur = i;
            last_end = end_of(&w->work[i]);
        }
    uint64_t first = last_end;
    bool *charged_sync = calloc(w->n_syncs + 1, sizeof(bool));
    bool *charged_wait = calloc(w->n_work + 1, sizeof(bool));
    if (!charged_sync || !charged_wait) goto out;
    for (size_t steps = 0; cur != SIZE_MAX && steps < 4 * w->n_work + 16; steps++) {
        const trace_op *c = &w->work[cur];
        if (c->start_ns < first) first = c->start_ns;
        size_t p = w->prev[cur];
        uint64_t stream_ready = p != SIZE_MAX ? end_of(&w->work[p]) : 0;
        /* A stream's wait on an event ends when the work its record marks does: on a GPU the
         * wait has no device time of its own (it is recorded at its call). */
        if (p != SIZE_MAX && w->work[p].kind == TRACE_OP_EVENT_WAIT) {
            size_t r = record_of(w, w->work[p].event, w->work[p].id);
            if (r != SIZE_MAX && w->prev[r] != SIZE_MAX && end_of(&w->work[w->prev[r]]) > stream_ready)
                stream_ready = end_of(&w->work[w->prev[r]]);
        }
        uint64_t queued = c->enqueue_ns;
        bool by_stream = p != SIZE_MAX && stream_ready + TOL >= c->start_ns && stream_ready >= queued;
        bool by_host = !by_stream && (queued + TOL >= c->start_ns ||
                                      (queued < c->start_ns && device_idle_between(w, queued, c->start_ns)));
        if (by_stream) {
            const trace_op *pw = &w->work[p];
            if (pw->kind == TRACE_OP_EVENT_WAIT && stream_ready >= pw->start_ns + TOL) {
                if (!charged_wait[p]) {
                    charged_wait[p] = true;
                    charge(entry_for(b, pw, false), stream_ready - pw->start_ns);
                }
                size_t r = record_of(w, pw->event, pw->id);
                if (r != SIZE_MAX && w->prev[r] != SIZE_MAX) {
                    cur = w->prev[r]; /* the work the record marks */
                    continue;
                }
                cur = r;
                continue;
            }
            cur = p;
            continue;
        }
        if (by_host) {
            /* Back along the host from when it queued c: past waits that returned at once
             * (the host was busy, not waiting), to the wait that held it, or to a request's
             * arrival (the host was waiting for the world), or to the run's start. */
            uint64_t t = queued, before = c->id;
            size_t next = SIZE_MAX;
            for (;;) {
                size_t j = host_wait_before(w, before, t);
                if (j == SIZE_MAX) break;
                while (j > 0 && same_wait(&w->syncs[j - 1], &w->syncs[j])) j--; /* the first of its copies */
                const trace_op *s = &w->syncs[j];
                if (arrival_between(w, s->end_ns, t)) break; /* the host waited for a request */
                if (s->end_ns >= s->start_ns + TOL) {
                    if (!charged_sync[j]) {
                        charged_sync[j] = true;
                        bool part = false; /* of a call already on the path */
                        for (size_t k = 0; s->as_call && k < w->n_syncs && !part; k++)
                            part = k != j && charged_sync[k] && same_call(&w->syncs[k], s);
                        trace_blame_wait *e = entry_for(b, s, true);
                        charge(e, s->end_ns - s->start_ns);
                        if (e && part) e->on_path--;
                    }
                    next = waited_work(w, s);
                    /* A wait whose work was done before it began waited for nothing on the
                     * device: its time is the call's own (a cudaFree freeing what the one before
                     * it waited for), and what held the host before it is on the path too. */
                    if (next != SIZE_MAX && end_of(&w->work[next]) + TOL <= s->start_ns) {
                        t = s->start_ns;
                        before = s->id;
                        next = SIZE_MAX;
                        continue;
                    }
                    break;
                }
                t = s->start_ns;
                before = s->id;
            }
            cur = next;
            continue;
        }
        cur = engine_before(w, cur);
    }
out:
    b->path_ns = last_end > first ? last_end - first : 0;
    free(charged_sync);
    free(charged_wait);
}

static int by_cost(const void *a, const void *b) {
    const trace_blame_wait *x = a, *y = b;
    if (x->cost_ns != y->cost_ns) return x->cost_ns > y->cost_ns ? -1 : 1;
    if (x->held_ns != y->held_ns) return x->held_ns > y->held_ns ? -1 : 1;
    return (x->host < y->host) - (x->host > y->host);
}

int trace_blame_compute(trace_timeline *tl, int32_t run, trace_blame *out) {
    memset(out, 0, sizeof(*out));
    walk w;
    if (walk_load(tl, run, &w) != 0 || w.n_work == 0) {
        walk_free(&w);
        return -1;
    }
    (void)trace_timeline_span(tl, run, &out->t0_ns, &out->t1_ns);
    uint64_t last_enqueue = 0;
    for (size_t i = 0; i < w.n_work; i++)
        if (w.work[i].enqueue_ns > last_enqueue) last_enqueue = w.work[i].enqueue_ns;
    /* Every wait, with how often it ran and what it held: the parts of one call of the
     * program once, with the time they held the host together. */
    for (size_t j = 0; j < w.n_syncs; j++) {
        bool copy = false, part = false;
        uint64_t from = w.syncs[j].start_ns;
        for (size_t k = 0; k < j && !copy; k++) {
            copy = same_wait(&w.syncs[k], &w.syncs[j]);
            if (same_call(&w.syncs[k], &w.syncs[j])) {
                part = true;
                if (w.syncs[k].end_ns > from) from = w.syncs[k].end_ns; /* held already counted */
            }
        }
        if (copy) continue;
        const trace_op *s = &w.syncs[j];
        trace_blame_wait *e = entry_for(out, s, true);
        if (!e) continue;
        e->times += !part;
        e->held_ns += s->end_ns > from ? s->end_ns - from : 0;
        e->before_last_work |= s->end_ns <= last_enqueue;
        const trace_poll *p = trace_poll_of(w.polls, w.n_polls, s->id);
        if (p) e->not_ready += p->not_ready;
        if (s->sync == TRACE_SYNC_EVENT) {
            size_t r = record_of(&w, s->event, s->id);
            if (r != SIZE_MAX) e->record_stream = w.work[r].stream;
        }
    }
    for (size_t i = 0; i < w.n_work; i++) {
        const trace_op *op = &w.work[i];
        if (op->kind != TRACE_OP_EVENT_WAIT) continue;
        trace_blame_wait *e = entry_for(out, op, false);
        if (!e) continue;
        e->times++;
        e->held_ns += op->end_ns > op->start_ns ? op->end_ns - op->start_ns : 0;
        e->before_last_work |= op->enqueue_ns < last_enqueue;
        size_t r = record_of(&w, op->event, op->id);
        if (r != SIZE_MAX) e->record_stream = w.work[r].stream;
    }
    critical_path(&w, out);
    qsort(out->wait, out->n, sizeof(out->wait[0]), by_cost);
    walk_free(&w);
    return 0;
}

int trace_blame_call(const trace_blame_wait *w, const trace_timeline *tl, char *buf, size_t len) {
    if (!strstr(w->call, "Stream")) return snprintf(buf, len, "%s()", w->call); /* the device, an event, a copy */
    if (w->streams > 1) return snprintf(buf, len, "%s(one of %u streams)", w->call, w->streams);
    if (w->stream != TRACE_STREAM_NONE && (!w->host || w->sync == TRACE_SYNC_STREAM)) {
        const trace_stream *st = tl ? trace_timeline_stream(tl, w->stream) : NULL;
        char label[64];
        trace_stream_label(w->stream, st ? st->name : NULL, label, sizeof(label));
        return snprintf(buf, len, "%s(%s)", w->call, label);
    }
    return snprintf(buf, len, "%s()", w->call);
}
