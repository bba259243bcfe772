/* trace/gpu/stream_order.c: device records matched to ops by their order on each stream
 * (see stream_order.h). */
#include "trace/gpu/stream_order.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct waiting_op {
    uint64_t op_id;
    uint64_t enqueue_ns;
} waiting_op;

/* The ops of one (stream, class) waiting for their records, oldest first. */
typedef struct queue {
    uint32_t stream_id;
    trace_gpu_rec_class cls;
    waiting_op *ops;
    size_t head, count, cap; /* waiting ops are ops[head .. head + count) */
    bool matched_any;
    uint32_t last_corr;      /* correlation id of the last record that took an op */
    uint64_t last_seq;       /* that op's place in the ready sequence */
} queue;

/* An op that has its record, until it is taken. */
typedef struct ready_op {
    uint64_t op_id;
    uint64_t enqueue_ns;
    uint64_t start_ns, end_ns;
    bool has_span;
} ready_op;

struct trace_gpu_sorder {
    queue *queues;
    size_t n_queues, cap_queues;
    size_t last_queue; /* the queue found last, tried first */
    ready_op *ready;
    size_t n_ready, cap_ready;
    uint64_t ready_base; /* sequence number of ready[0] */
    trace_gpu_sorder_stats stats;
};

trace_gpu_sorder *trace_gpu_sorder_create(void) { return calloc(1, sizeof(trace_gpu_sorder)); }

void trace_gpu_sorder_destroy(trace_gpu_sorder *s) {
    if (!s) return;
    for (size_t i = 0; i < s->n_queues; i++) free(s->queues[i].ops);
    free(s->queues);
    free(s->ready);
    free(s);
}

static bool grow(void **p, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return true;
    size_t ncap = *cap ? *cap * 2 : 16;
    while (ncap < need) ncap *= 2;
    void *q = realloc(*p, ncap * elem);
    if (!q) return false;
    *p = q;
    *cap = ncap;
    return true;
}

/* The queue of (stream_id, cls); created when create is true, else NULL when absent. */
static queue *find_queue(trace_gpu_sorder *s, uint32_t stream_id, trace_gpu_rec_class cls, bool create) {
    if (s->last_queue < s->n_queues) {
        queue *q = &s->queues[s->last_queue];
        if (q->stream_id == stream_id && q->cls == cls) return q;
    }
    for (size_t i = 0; i < s->n_queues; i++) {
        if (s->queues[i].stream_id == stream_id && s->queues[i].cls == cls) {
            s->last_queue = i;
            return &s->queues[i];
        }
    }
    if (!create || !grow((void **)&s->queues, &s->cap_queues, s->n_queues + 1, sizeof(queue))) return NULL;
    queue *q = &s->queues[s->n_queues];
    memset(q, 0, sizeof(*q));
    q->stream_id = stream_id;
    q->cls = cls;
    s->last_queue = s->n_queues++;
    return q;
}

int trace_gpu_sorder_op(trace_gpu_sorder *s, uint32_t stream_id, trace_gpu_rec_class cls, uint64_t op_id,
                        uint64_t enqueue_ns) {
    if ((unsigned)cls >= TRACE_GPU_REC_CLASSES || op_id == 0) return -1;
    queue *q = find_queue(s, stream_id, cls, true);
    if (!q) return -1;
    if (q->head > 0 && q->head + q->count == q->cap) {
        /* Slide the waiting ops to the front before growing. */
        memmove(q->ops, q->ops + q->head, q->count * sizeof(waiting_op));
        q->head = 0;
    }
    if (!grow((void **)&q->ops, &q->cap, q->head + q->count + 1, sizeof(waiting_op))) return -1;
    q->ops[q->head + q->count].op_id = op_id;
    q->ops[q->head + q->count].enqueue_ns = enqueue_ns;
    q->count++;
    s->stats.ops++;
    return 0;
}

static void merge(ready_op *r, uint64_t start_ns, uint64_t end_ns) {
    if (start_ns == 0 && end_ns == 0) return; /* an untimed piece adds nothing */
    if (!r->has_span) {
        r->start_ns = start_ns;
        r->end_ns = end_ns;
        r->has_span = true;
        return;
    }
    if (start_ns < r->start_ns) r->start_ns = start_ns;
    if (end_ns > r->end_ns) r->end_ns = end_ns;
}

void trace_gpu_sorder_record(trace_gpu_sorder *s, uint32_t stream_id, trace_gpu_rec_class cls,
                             uint32_t correlation_id, uint64_t start_ns, uint64_t end_ns) {
    s->stats.records++;
    if (end_ns < start_ns) end_ns = start_ns;
    queue *q = (unsigned)cls < TRACE_GPU_REC_CLASSES ? find_queue(s, stream_id, cls, false) : NULL;
    if (!q) {
        s->stats.extra++;
        return;
    }
    if (q->matched_any && correlation_id == q->last_corr) {
        /* Another piece of the op the previous record took. */
        if (q->last_seq < s->ready_base) {
            s->stats.late_pieces++;
            return;
        }
        merge(&s->ready[q->last_seq - s->ready_base], start_ns, end_ns);
        s->stats.pieces++;
        return;
    }
    if (q->matched_any && correlation_id < q->last_corr) {
        s->stats.out_of_order++;
        return;
    }
    if (q->count == 0) {
        s->stats.extra++;
        return;
    }
    const waiting_op *w = &q->ops[q->head];
    bool timed = start_ns != 0 || end_ns != 0;
    if (timed && start_ns + TRACE_GPU_SORDER_SLACK_NS < w->enqueue_ns) {
        s->stats.too_early++;
        return;
    }
    if (!grow((void **)&s->ready, &s->cap_ready, s->n_ready + 1, sizeof(ready_op))) return;
    ready_op *r = &s->ready[s->n_ready];
    memset(r, 0, sizeof(*r));
    r->op_id = w->op_id;
    r->enqueue_ns = w->enqueue_ns;
    merge(r, start_ns, end_ns);
    q->last_seq = s->ready_base + s->n_ready;
    s->n_ready++;
    q->head++;
    q->count--;
    if (q->count == 0) q->head = 0;
    q->matched_any = true;
    q->last_corr = correlation_id;
    s->stats.matched++;
}

size_t trace_gpu_sorder_take_ready(trace_gpu_sorder *s, trace_gpu_timing *out, size_t max) {
    size_t n = s->n_ready < max ? s->n_ready : max;
    if (n == 0) return 0;
    for (size_t i = 0; i < n; i++) {
        const ready_op *r = &s->ready[i];
        out[i].op_id = r->op_id;
        out[i].start_ns = r->has_span ? r->start_ns : r->enqueue_ns;
        out[i].end_ns = r->has_span ? r->end_ns : r->enqueue_ns;
    }
    memmove(s->ready, s->ready + n, (s->n_ready - n) * sizeof(ready_op));
    s->n_ready -= n;
    s->ready_base += n;
    s->stats.timed += n;
    return n;
}

uint64_t trace_gpu_sorder_waiting(const trace_gpu_sorder *s) {
    uint64_t n = 0;
    for (size_t i = 0; i < s->n_queues; i++) n += s->queues[i].count;
    return n;
}

trace_gpu_sorder_stats trace_gpu_sorder_get_stats(const trace_gpu_sorder *s) { return s->stats; }
