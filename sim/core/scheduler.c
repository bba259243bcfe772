/* sim/core/scheduler.c: the discrete-event loop (see scheduler.h): stream heads, their
 * dependencies, completion, and the host's waits. */
#include "sim/core/scheduler.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/core/clock.h"
#include "sim/core/compute.h"
#include "sim/core/connections.h"
#include "sim/core/copy_engine.h"
#include "sim/core/events.h"
#include "sim/core/memory.h"
#include "sim/core/perturb.h"
#include "sim/core/streams.h"
#include "trace/record/recorder.h"

/* A device's copies and kernels (sim_profile_wake_ns): how many are in flight, when the
 * last one ended or the device last woke, and until when it is waking up. */
typedef struct {
    uint32_t busy;
    uint64_t last_ns;
    uint64_t awake_ns;
} device_wake;

static struct {
    const sim_profile *prof;
    sim_eventq q;
    uint64_t now;
    uint64_t next_order;
    uint64_t outstanding;
    uint32_t *active; /* streams with queued ops */
    size_t n_active, cap_active;
    sim_op **cand;    /* scratch: heads ready to start */
    size_t cap_cand;
    bool dirty;       /* something changed: look at the stream heads again */
    uint64_t host_fn_free_ns; /* when the host-function thread finishes what it runs */
    bool failed;
    device_wake dev[SIM_MAX_DEVICES];
} S;

static void *xrealloc(void *p, size_t n) {
    void *q = realloc(p, n);
    if (!q) {
        fprintf(stderr, "streamlab simulated GPU: out of memory (scheduler)\n");
        abort();
    }
    return q;
}

static uint64_t ns_of(double ns) {
    if (!(ns > 0)) return 0;
    return (uint64_t)llround(ns);
}

uint64_t sim_sched_now(void) { return S.now; }
uint64_t sim_sched_outstanding(void) { return S.outstanding; }
bool sim_sched_device_failed(void) { return S.failed; }

void sim_sched_push(uint64_t t, sim_ev_type type, uint32_t index, uint64_t gen, void *ptr) {
    sim_eventq_push(&S.q, t, type, index, gen, ptr);
}

/* ---- the active-stream list ----------------------------------------------------------- */

static void activate(uint32_t index) {
    sim_stream *st = sim_stream_at(index);
    if (st->active) return;
    if (S.n_active == S.cap_active) {
        S.cap_active = S.cap_active ? S.cap_active * 2 : 16;
        S.active = xrealloc(S.active, S.cap_active * sizeof(uint32_t));
    }
    S.active[S.n_active++] = index;
    st->active = true;
}

static void deactivate(uint32_t index) {
    sim_stream *st = sim_stream_at(index);
    if (!st->active) return;
    for (size_t i = 0; i < S.n_active; i++) {
        if (S.active[i] == index) {
            /* Keep the order: it decides nothing, but it keeps runs comparable. */
            memmove(&S.active[i], &S.active[i + 1], (S.n_active - i - 1) * sizeof(uint32_t));
            S.n_active--;
            break;
        }
    }
    st->active = false;
}

/* ---- set-up ------------------------------------------------------------------------- */

static void discard_queues(void) {
    for (uint32_t i = 0; i < sim_stream_count(); i++) {
        sim_stream *st = sim_stream_at(i);
        sim_op *op = st->head;
        while (op) {
            sim_op *n = op->next;
            sim_op_free(op);
            op = n;
        }
        st->head = st->tail = NULL;
        st->active = false;
    }
}

void sim_sched_reset(void) {
    discard_queues();
    /* Block groups still in flight belong to the SMs' pool: give them back. */
    for (size_t i = 0; i < S.q.count; i++)
        if (S.q.items[i].type == SIM_EV_GROUP) sim_compute_discard_group(S.q.items[i].ptr);
    sim_copy_reset();
    sim_compute_reset();
    sim_eventq_free(&S.q);
    sim_conn_init(sim_conn_count());
    free(S.active);
    free(S.cand);
    const sim_profile *p = S.prof;
    memset(&S, 0, sizeof(S));
    S.prof = p;
}

void sim_sched_init(const sim_profile *profile) {
    sim_sched_reset();
    S.prof = profile;
    sim_conn_init((uint32_t)profile->max_connections);
    static const sim_engine_env env = {
        .push = sim_sched_push,
        .complete = sim_sched_complete,
        .fault = sim_sched_fault,
        .failed = sim_sched_device_failed,
    };
    sim_copy_init(profile, &env);
    sim_compute_init(profile, &env);
}

/* ---- enqueue ------------------------------------------------------------------------ */

void sim_sched_set_connections(uint32_t n) { sim_conn_init(n); }

/* Whether an op waits for its stream at the head of its hardware queue, holding it, or
 * steps aside (connections.h). Measured on an H200 with one queue: kernels, memsets,
 * device-to-device copies, host functions and records of timing events held it;
 * host-device copies and records of events without timing did not. Stream waits are
 * taken to hold it (what they wait for is an event, like a timing record's). Host-to-host
 * copies, done by the host, are taken not to. */
static bool holds_queue(const sim_op *op) {
    switch ((sim_op_kind)op->kind) {
    case SIM_OP_COMPUTE:
    case SIM_OP_HOST_FN:
    case SIM_OP_EVENT_WAIT:
        return true;
    case SIM_OP_EVENT_RECORD:
        return op->u.record.timing;
    case SIM_OP_COPY:
    case SIM_OP_HOST_COPY:
        return false;
    }
    return true;
}
uint32_t sim_sched_connections(void) { return sim_conn_count(); }

void sim_sched_enqueue(sim_op *op, uint32_t stream) {
    sim_stream *st = sim_stream_at(stream);
    /* A stream with no outstanding work is bound to a hardware queue afresh; its work
     * goes through that queue until all of it has completed. */
    if (st->enq_seq == st->done_seq) st->conn = sim_conn_pick_on(st->device);
    op->stream = stream;
    op->device = st->device;
    op->conn_holds = holds_queue(op);
    sim_conn_push(st->conn, op);
    op->seq = ++st->enq_seq;
    op->order = S.next_order++;
    op->tiebreak = sim_perturb_key();
    op->jitter = sim_perturb_factor();
    /* The legacy default stream (each device has its own): its work waits for all earlier
     * work in the streams of its device that synchronise with it, and their later work
     * waits for it. */
    if (st->legacy) {
        uint32_t n = sim_stream_count();
        for (uint32_t i = 0; i < n; i++) {
            if (i == stream) continue;
            const sim_stream *t = sim_stream_at(i);
            if (t->blocking && t->device == st->device && t->enq_seq > t->done_seq)
                sim_op_add_dep(op, i, t->enq_seq);
        }
    } else if (st->blocking) {
        uint32_t li = sim_streams_find_default(st->device, false);
        const sim_stream *legacy = li == SIM_STREAM_NONE ? NULL : sim_stream_at(li);
        if (legacy && legacy->enq_seq > legacy->done_seq) sim_op_add_dep(op, li, legacy->enq_seq);
    }
    op->next = NULL;
    if (st->tail)
        st->tail->next = op;
    else
        st->head = op;
    st->tail = op;
    activate(stream);
    S.outstanding++;
    S.dirty = true;
}

/* ---- starting and completing ops ---------------------------------------------------- */

/* Copies and kernels are the device's work; event records and waits, host functions and
 * host copies are not (they keep no engine busy). */
static bool device_work(const sim_op *op) { return op->kind == SIM_OP_COPY || op->kind == SIM_OP_COMPUTE; }

/* When op, device work ready now, may start: now, or when its device has woken up. The
 * first copy or kernel after the device idled starts sim_profile_wake_ns later; work that
 * reaches the device meanwhile waits for the same moment. */
static uint64_t device_ready_at(const sim_op *op) {
    if (op->device >= SIM_MAX_DEVICES) return S.now;
    device_wake *d = &S.dev[op->device];
    if (d->awake_ns > S.now) return d->awake_ns;
    if (d->busy > 0 || d->awake_ns == S.now) return S.now;
    uint64_t wake = ns_of(sim_profile_wake_ns(S.prof, (double)(S.now - d->last_ns)) * op->jitter);
    if (wake == 0) return S.now;
    d->awake_ns = d->last_ns = S.now + wake;
    return d->awake_ns;
}

static bool deps_met(const sim_op *op) {
    for (uint32_t i = 0; i < op->n_deps; i++)
        if (sim_stream_at(op->deps[i].stream)->done_seq < op->deps[i].seq) return false;
    return true;
}

void sim_sched_fault(sim_fault_kind kind, uint64_t t) {
    (void)t;
    S.failed = true;
    sim_fault_raise(kind);
}

void sim_sched_complete(sim_op *op, uint64_t t) {
    sim_stream *st = sim_stream_at(op->stream);
    op->end_ns = t;
    switch ((sim_op_kind)op->kind) {
    case SIM_OP_COPY:
        /* The bytes move when the copy completes (a faulted device moves nothing), in the
         * simulator's view of device memory (the program's is inaccessible). */
        if (!S.failed)
            memmove(sim_mem_view(op->u.copy.dst),
                    op->u.copy.staged ? op->u.copy.staged : sim_mem_view(op->u.copy.src), op->u.copy.bytes);
        break;
    case SIM_OP_HOST_COPY:
        if (!S.failed)
            memmove(sim_mem_view(op->u.host_copy.dst), sim_mem_view(op->u.host_copy.src), op->u.host_copy.bytes);
        break;
    case SIM_OP_EVENT_RECORD:
        sim_events_record_done(op->u.record.event, op->u.record.gen, t);
        break;
    case SIM_OP_HOST_FN: /* its body ran when it started */
    case SIM_OP_COMPUTE:
    case SIM_OP_EVENT_WAIT:
        break;
    }
    if (op->trace_id) trace_op_timed(op->trace_id, op->start_ns, op->end_ns);
    if (device_work(op) && op->device < SIM_MAX_DEVICES) {
        S.dev[op->device].busy--;
        if (t > S.dev[op->device].last_ns) S.dev[op->device].last_ns = t;
    }
    sim_conn_done(op->conn);
    st->head = op->next;
    if (!st->head) {
        st->tail = NULL;
        deactivate(op->stream);
    }
    st->done_seq = op->seq;
    st->last_end_ns = t;
    st->last_was_kernel = op->kind == SIM_OP_COMPUTE;
    S.outstanding--;
    S.dirty = true;
    sim_op_free(op);
}

static void start(sim_op *op) {
    sim_stream *st = sim_stream_at(op->stream);
    op->started = true;
    if (device_work(op) && op->device < SIM_MAX_DEVICES) S.dev[op->device].busy++;
    /* It leaves its hardware queue (unless it left it already). The next op there may
     * start now unless it is this stream's own next op, which waits for this one to
     * complete anyway. */
    if (!op->conn_passed && sim_conn_pop(op->conn)) S.dirty = true;
    switch ((sim_op_kind)op->kind) {
    case SIM_OP_EVENT_RECORD:
        op->start_ns = S.now;
        sim_sched_complete(op, S.now);
        break;
    case SIM_OP_EVENT_WAIT:
        /* On the timeline it spans from reaching the head of its stream to release. */
        op->start_ns = op->visible_ns > st->last_end_ns ? op->visible_ns : st->last_end_ns;
        if (op->start_ns > S.now) op->start_ns = S.now;
        sim_sched_complete(op, S.now);
        break;
    case SIM_OP_HOST_FN: {
        /* The runtime's one host-function thread wakes up, waits until it is done with any
         * other stream's function (functions without an order between them may be
         * serialised), then runs the body; the stream goes on when the body returns, after
         * the work it did (sim_host_work inside it). */
        op->start_ns = S.now;
        uint64_t begin = S.now + ns_of(S.prof->host_fn_latency_ns * op->jitter);
        if (S.host_fn_free_ns > begin) begin = S.host_fn_free_ns;
        sim_host_fn_enter();
        op->u.host_fn.fn(op->u.host_fn.data);
        uint64_t work = sim_host_fn_work();
        sim_host_fn_leave();
        S.host_fn_free_ns = begin + work;
        sim_sched_push(begin + work, SIM_EV_OP_DONE, op->stream, 0, op);
        break;
    }
    case SIM_OP_HOST_COPY:
        op->start_ns = S.now;
        sim_sched_push(S.now + ns_of(sim_profile_host_copy_ns(S.prof, (double)op->u.host_copy.bytes) * op->jitter),
                       SIM_EV_OP_DONE, op->stream, 0, op);
        break;
    case SIM_OP_COPY:
        sim_copy_start(op, S.now);
        break;
    case SIM_OP_COMPUTE:
        /* Queued behind a kernel of its stream (visible to the device before that one
         * ended), its set-up overlapped that kernel's run. */
        sim_compute_start(op, S.now, st->last_was_kernel && op->visible_ns <= st->last_end_ns);
        break;
    }
}

static int cand_cmp(const void *a, const void *b) {
    const sim_op *x = *(sim_op *const *)a, *y = *(sim_op *const *)b;
    if (x->tiebreak != y->tiebreak) return x->tiebreak < y->tiebreak ? -1 : 1;
    return x->order < y->order ? -1 : (x->order > y->order);
}

/* Starts every stream head that can start now, in enqueue order (random order under a
 * perturbation), until nothing changes. */
static void pass(void) {
    while (S.dirty) {
        S.dirty = false;
        size_t n = 0;
        for (size_t i = 0; i < S.n_active; i++) {
            sim_stream *st = sim_stream_at(S.active[i]);
            sim_op *head = st->head;
            if (!head || head->started) continue;
            /* Only the head of its hardware queue can start (connections.h). */
            if (!head->conn_passed && sim_conn_head(head->conn) != head) continue;
            if (head->visible_ns > S.now) {
                if (st->wake_at != head->visible_ns) {
                    st->wake_at = head->visible_ns;
                    sim_sched_push(head->visible_ns, SIM_EV_WAKE, S.active[i], 0, NULL);
                }
                continue;
            }
            if (!deps_met(head)) continue;
            if (device_work(head)) {
                uint64_t ready = device_ready_at(head);
                if (ready > S.now) {
                    if (st->wake_at != ready) {
                        st->wake_at = ready;
                        sim_sched_push(ready, SIM_EV_WAKE, S.active[i], 0, NULL);
                    }
                    continue;
                }
            }
            if (n == S.cap_cand) {
                S.cap_cand = S.cap_cand ? S.cap_cand * 2 : 16;
                S.cand = xrealloc(S.cand, S.cap_cand * sizeof(sim_op *));
            }
            S.cand[n++] = head;
        }
        if (n > 1) qsort(S.cand, n, sizeof(sim_op *), cand_cmp);
        for (size_t i = 0; i < n; i++) start(S.cand[i]);
    }
}

static void process(const sim_ev *ev) {
    S.now = ev->time;
    switch ((sim_ev_type)ev->type) {
    case SIM_EV_WAKE: {
        sim_stream *st = sim_stream_at(ev->index);
        if (st->wake_at == ev->time) st->wake_at = 0;
        S.dirty = true;
        break;
    }
    case SIM_EV_ENGINE:
        sim_copy_event(ev);
        break;
    case SIM_EV_GROUP:
        sim_compute_group_done(ev);
        break;
    case SIM_EV_KERNEL_READY:
        sim_compute_ready((sim_op *)ev->ptr, S.now);
        break;
    case SIM_EV_OP_DONE:
        sim_sched_complete((sim_op *)ev->ptr, S.now);
        break;
    }
}

void sim_sched_advance(uint64_t t) {
    pass();
    sim_ev ev;
    for (;;) {
        const sim_ev *top = sim_eventq_peek(&S.q);
        if (!top || top->time > t) break;
        sim_eventq_pop(&S.q, &ev);
        process(&ev);
        pass();
    }
    if (t > S.now) S.now = t;
}

/* ---- host waits ----------------------------------------------------------------------- */

typedef bool (*done_fn)(uint32_t a, uint64_t b);

/* Runs the device until done(a, b); moves the host clock to the completion time plus the
 * wake-up latency when the completion is later than the host. */
static void host_wait(done_fn done, uint32_t a, uint64_t b) {
    pass();
    if (done(a, b)) return;
    sim_ev ev;
    while (!done(a, b)) {
        if (!sim_eventq_pop(&S.q, &ev)) {
            /* Every wait is for work already queued, which always completes; reaching
             * here would be a simulator bug, so say so instead of hanging. */
            fprintf(stderr, "streamlab simulated GPU: internal error: a wait can never finish\n");
            return;
        }
        process(&ev);
        pass();
    }
    uint64_t wake = S.now + ns_of(S.prof->sync_wake_ns * sim_perturb_factor());
    sim_host_advance_to(wake);
}

static bool stream_idle(uint32_t stream, uint64_t unused) {
    (void)unused;
    const sim_stream *st = sim_stream_at(stream);
    return st->done_seq == st->enq_seq;
}

static bool seq_done(uint32_t stream, uint64_t seq) { return sim_stream_at(stream)->done_seq >= seq; }

static bool device_idle(uint32_t a, uint64_t b) {
    (void)a;
    (void)b;
    return S.outstanding == 0;
}

/* Every stream of device a has finished what it was given. */
static bool one_device_idle(uint32_t a, uint64_t b) {
    (void)b;
    uint32_t n = sim_stream_count();
    for (uint32_t i = 0; i < n; i++) {
        const sim_stream *st = sim_stream_at(i);
        if (st->device == a && st->done_seq != st->enq_seq) return false;
    }
    return true;
}

/* The legacy stream of device a and the streams of that device that synchronise with it. */
static bool blocking_idle(uint32_t a, uint64_t b) {
    (void)b;
    uint32_t n = sim_stream_count();
    for (uint32_t i = 0; i < n; i++) {
        const sim_stream *st = sim_stream_at(i);
        if (st->device == a && (st->legacy || st->blocking) && st->done_seq != st->enq_seq) return false;
    }
    return true;
}

void sim_sched_wait_stream(uint32_t stream) { host_wait(stream_idle, stream, 0); }
void sim_sched_wait_seq(uint32_t stream, uint64_t seq) { host_wait(seq_done, stream, seq); }
void sim_sched_wait_device(void) { host_wait(device_idle, 0, 0); }
void sim_sched_wait_device_of(uint32_t device) { host_wait(one_device_idle, device, 0); }
void sim_sched_wait_blocking_streams(void) { host_wait(blocking_idle, 0, 0); }
void sim_sched_wait_blocking_streams_of(uint32_t device) { host_wait(blocking_idle, device, 0); }
bool sim_sched_blocking_streams_idle(void) { return blocking_idle(0, 0); }
bool sim_sched_blocking_streams_idle_of(uint32_t device) { return blocking_idle(device, 0); }
