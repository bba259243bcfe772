/* trace/view/stalls.c: what stream-0 ops waited for and held back, and which streams were busy
 * at a moment (see stalls.h for the definitions). */
#include "trace/view/stalls.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOL ((uint64_t)TRACE_STALL_TOLERANCE_NS)

static void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fprintf(stderr, "streamlab stalls: out of memory\n");
        abort();
    }
    return p;
}

static uint64_t end_of(const trace_op *op) { return op->end_ns > op->start_ns ? op->end_ns : op->start_ns; }
static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }
static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }
/* a - b, or 0 when b is later. */
static uint64_t minus(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

static bool counts(const trace_op *op, int32_t run, int32_t n_streams) {
    return trace_timeline_in_run(op, run) && trace_op_kind_is_stream_work(op->kind) && op->stream >= 0 &&
           op->stream < n_streams;
}

static bool is_blocking(const trace_timeline *tl, int32_t id) {
    if (id == TRACE_STREAM_LEGACY) return false; /* it is the one the others block with */
    const trace_stream *s = trace_timeline_stream(tl, id);
    if (!s) return true;
    return s->per_thread || !(s->flags & 0x1u);
}

/* Host order: by id (then stream and start, for hand-made timelines with repeated ids). */
static int cmp_host_order(const void *a, const void *b) {
    const trace_op *x = *(const trace_op *const *)a, *y = *(const trace_op *const *)b;
    if (x->id != y->id) return x->id < y->id ? -1 : 1;
    if (x->stream != y->stream) return x->stream < y->stream ? -1 : 1;
    if (x->start_ns != y->start_ns) return x->start_ns < y->start_ns ? -1 : 1;
    return 0;
}

/* The run's stream work grouped by stream, each stream's ops in host order:
 * ops[first[s] .. first[s + 1]) are stream s's. */
typedef struct by_stream {
    const trace_op **ops;
    size_t *first;
    int32_t n_streams;
} by_stream;

/* Fills bs; returns the run's stream work in host order (free it), its count in *n. */
static const trace_op **group(trace_timeline *tl, int32_t run, by_stream *bs, size_t *n) {
    int32_t ns = trace_timeline_stream_limit(tl);
    size_t total = trace_timeline_count(tl), k = 0;
    const trace_op **host = xcalloc(total, sizeof(*host));
    for (size_t i = 0; i < total; i++) {
        const trace_op *op = trace_timeline_get(tl, i);
        if (counts(op, run, ns)) host[k++] = op;
    }
    qsort(host, k, sizeof(*host), cmp_host_order);
    bs->n_streams = ns;
    bs->first = xcalloc((size_t)ns + 1, sizeof(size_t));
    bs->ops = xcalloc(k, sizeof(*bs->ops));
    for (size_t i = 0; i < k; i++) bs->first[host[i]->stream + 1]++;
    for (int32_t s = 0; s < ns; s++) bs->first[s + 1] += bs->first[s];
    size_t *fill = xcalloc((size_t)ns + 1, sizeof(size_t));
    memcpy(fill, bs->first, ((size_t)ns + 1) * sizeof(size_t));
    for (size_t i = 0; i < k; i++) bs->ops[fill[host[i]->stream]++] = host[i]; /* stable: host order kept */
    free(fill);
    *n = k;
    return host;
}

static void by_stream_free(by_stream *bs) {
    free(bs->ops);
    free(bs->first);
}

/* The index in bs->ops of stream s's first op that comes after `op` in host order (the end
 * of s's range when none does). */
static size_t first_after(const by_stream *bs, int32_t s, const trace_op *op) {
    size_t lo = bs->first[s], hi = bs->first[s + 1];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_host_order(&bs->ops[mid], &op) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void list_add(int32_t *list, uint32_t *n, int32_t s) {
    if (*n < TRACE_STALL_MAX_STREAMS) list[*n] = s;
    (*n)++;
}

/* Fills everything of st but op and after_batch for the stream-0 op bs->ops[li]. */
static void measure(const trace_timeline *tl, const by_stream *bs, size_t li, trace_stall *st) {
    const trace_op *L = bs->ops[li];
    const trace_op *prev0 = li > bs->first[0] ? bs->ops[li - 1] : NULL;
    const trace_op *next0 = li + 1 < bs->first[1] ? bs->ops[li + 1] : NULL;
    uint64_t ready = prev0 ? max_u64(L->enqueue_ns, end_of(prev0)) : L->enqueue_ns;
    uint64_t l_end = end_of(L), waited_until = 0;
    for (int32_t s = 1; s < bs->n_streams; s++) {
        if (bs->first[s] == bs->first[s + 1] || !is_blocking(tl, s)) continue;
        size_t after = first_after(bs, s, L);
        /* Waited: S's last op before L, if it came after prev0. */
        if (after > bs->first[s]) {
            const trace_op *P = bs->ops[after - 1];
            bool since_prev0 = !prev0 || cmp_host_order(&P, &prev0) > 0;
            uint64_t p_end = end_of(P);
            if (since_prev0 && L->start_ns + TOL >= p_end && minus(min_u64(L->start_ns, p_end), ready) >= TOL) {
                list_add(st->waited, &st->n_waited, s);
                waited_until = max_u64(waited_until, p_end);
            }
        }
        /* Held back: S's first op after L, if it came before next0. */
        if (after < bs->first[s + 1]) {
            const trace_op *X = bs->ops[after];
            if (next0 && cmp_host_order(&X, &next0) > 0) continue;
            /* When X could have started without L: its stream done with what came before
             * it, and (blocking as it is) prev0 done too. */
            uint64_t x_ready = X->enqueue_ns;
            if (after > bs->first[s]) x_ready = max_u64(x_ready, end_of(bs->ops[after - 1]));
            if (prev0) x_ready = max_u64(x_ready, end_of(prev0));
            uint64_t delay = minus(min_u64(X->start_ns, l_end), x_ready);
            if (X->start_ns + TOL >= l_end && delay >= TOL) {
                list_add(st->held, &st->n_held, s);
                st->held_ns = max_u64(st->held_ns, delay);
            }
        }
    }
    if (st->n_waited) st->waited_ns = minus(min_u64(L->start_ns, waited_until), ready);
}

size_t trace_stalls_find(trace_timeline *tl, int32_t run, trace_stall *out, size_t max) {
    size_t held;
    return trace_stalls_find_held(tl, run, out, max, &held);
}

size_t trace_stalls_find_held(trace_timeline *tl, int32_t run, trace_stall *out, size_t max, size_t *held) {
    *held = 0;
    by_stream bs;
    size_t n = 0, found = 0;
    const trace_op **host = group(tl, run, &bs, &n);
    int32_t last_batch = -1; /* of the last op on another stream that carries one */
    size_t li = 0;           /* the stream-0 op's index in bs.ops */
    for (size_t i = 0; i < n; i++) {
        const trace_op *op = host[i];
        if (op->stream != TRACE_STREAM_LEGACY) {
            if (op->batch >= 0) last_batch = op->batch;
            continue;
        }
        trace_stall st;
        memset(&st, 0, sizeof(st));
        measure(tl, &bs, li++, &st);
        if (st.n_waited == 0 && st.n_held == 0) continue;
        st.op = *op;
        st.after_batch = last_batch;
        *held += st.n_held > 0;
        if (found < max) out[found] = st;
        found++;
    }
    free(host);
    by_stream_free(&bs);
    return found;
}

/* ---- the line for a student --------------------------------------------------------------- */

typedef struct text {
    char *buf;
    size_t len;
    int n; /* what the whole line needs, as snprintf counts */
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(text *t, const char *fmt, ...) {
    if (t->n < 0) return;
    size_t at = (size_t)t->n;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(at < t->len ? t->buf + at : NULL, at < t->len ? t->len - at : 0, fmt, ap);
    va_end(ap);
    t->n = k < 0 ? k : t->n + k;
}

static void put_op(text *t, const trace_op *op) {
    const char *sep = op->name[0] ? " " : "";
    switch (op->kind) {
    case TRACE_OP_COPY: {
        const char *dir = trace_copy_dir_name(op->dir);
        put(t, "%s%s%s", dir[0] ? dir : "copy", sep, op->name);
        break;
    }
    case TRACE_OP_MEMSET: put(t, "memset%s%s", sep, op->name); break;
    case TRACE_OP_KERNEL: put(t, "kernel %s", op->name[0] ? op->name : "(unnamed)"); break;
    case TRACE_OP_HOST_FN: put(t, "host function%s%s", sep, op->name); break;
    case TRACE_OP_EVENT_RECORD: put(t, "event record%s%s", sep, op->name); break;
    case TRACE_OP_EVENT_WAIT: put(t, "event wait%s%s", sep, op->name); break;
    default: put(t, "%s%s%s", trace_op_kind_name(op->kind), sep, op->name); break;
    }
}

/* "task 1" for a named stream, s2 otherwise (trace_stream_label, as race reports). */
static void put_stream(text *t, const trace_timeline *tl, int32_t id) {
    const trace_stream *s = tl ? trace_timeline_stream(tl, id) : NULL;
    char label[64];
    trace_stream_label(id, s ? s->name : NULL, label, sizeof(label));
    put(t, "%s", label);
}

/* "A", "A and B", "A, B and C"; "A, B and 3 other streams" past the listed ones. */
static void put_streams(text *t, const trace_timeline *tl, const int32_t *ids, uint32_t n) {
    uint32_t listed = n < TRACE_STALL_MAX_STREAMS ? n : TRACE_STALL_MAX_STREAMS;
    uint32_t more = n - listed;
    uint32_t items = listed + (more ? 1 : 0);
    for (uint32_t i = 0; i < listed; i++) {
        if (i > 0) put(t, i + 1 == items ? " and " : ", ");
        put_stream(t, tl, ids[i]);
    }
    if (more) put(t, " and %u other stream%s", more, more == 1 ? "" : "s");
}

static void put_duration(text *t, uint64_t ns) {
    if (ns >= 1000000u)
        put(t, "%.1f ms", (double)ns / 1e6);
    else if (ns >= 1000u)
        put(t, "%.0f us", (double)ns / 1e3);
    else
        put(t, "%llu ns", (unsigned long long)ns);
}

int trace_stall_format(const trace_stall *s, const trace_timeline *tl, const char *item, char *buf, size_t len) {
    text t = {buf, buf ? len : 0, 0};
    if (t.len) buf[0] = '\0';
    put(&t, "stream 0 ");
    put_op(&t, &s->op);
    if (s->after_batch >= 0) put(&t, " after %s %d", item ? item : "batch", (int)s->after_batch);
    if (s->n_waited) {
        put(&t, " waited ");
        put_duration(&t, s->waited_ns);
        put(&t, " for ");
        put_streams(&t, tl, s->waited, s->n_waited);
    }
    if (s->n_held) {
        put(&t, s->n_waited ? ", and held back " : " held back ");
        put_streams(&t, tl, s->held, s->n_held);
        put(&t, " for ");
        put_duration(&t, s->held_ns);
    }
    return t.n;
}

/* ---- busy streams -------------------------------------------------------------------------- */

size_t trace_streams_busy_at(trace_timeline *tl, int32_t run, uint64_t t_ns, int32_t *streams, size_t max) {
    int32_t ns = trace_timeline_stream_limit(tl);
    bool *busy = xcalloc((size_t)ns, sizeof(bool));
    size_t total = trace_timeline_count(tl);
    /* An op not yet started at t_ns ends after it too: it is work still to do. */
    for (size_t i = 0; i < total; i++) {
        const trace_op *op = trace_timeline_get(tl, i);
        if (counts(op, run, ns) && op->enqueue_ns < t_ns && end_of(op) > t_ns) busy[op->stream] = true;
    }
    size_t n = 0;
    for (int32_t s = 0; s < ns; s++) {
        if (!busy[s]) continue;
        if (n < max) streams[n] = s;
        n++;
    }
    free(busy);
    return n;
}
