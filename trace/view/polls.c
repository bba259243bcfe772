/* trace/view/polls.c: host waits made by polling (see polls.h). */
#include "trace/view/polls.h"

#include <stdlib.h>
#include <string.h>

/* The events and streams one loop of queries keeps apart; a loop over more (a pool of more
 * than this many) counts the first ASKED_MAX. */
#define ASKED_MAX 64

/* An event or stream the loop asked about, and its not-ready answers since its last
 * success. */
typedef struct asked {
    trace_sync_target target;
    int32_t stream;
    uint64_t event;
    uint64_t first_ns; /* the first of those answers' start */
    uint32_t not_ready;
} asked;

static bool query_call(const char *name) { return !strcmp(name, "cudaEventQuery") || !strcmp(name, "cudaStreamQuery"); }

bool trace_op_is_query(const trace_op *op) { return op->kind == TRACE_OP_SYNC && query_call(op->name); }

/* A query that answered not ready (trace_record_query). */
static bool not_ready(const trace_op *op) {
    return op->kind == TRACE_OP_API && op->sync != TRACE_SYNC_NONE && query_call(op->name);
}

/* Whether op belongs to a loop of the queries of name made at site: an answer either way,
 * or the plain span of a call that answered cudaSuccess (the simulator records one beside
 * the host wait). */
static bool of_loop(const trace_op *op, uint64_t site, const char *name) {
    return (op->kind == TRACE_OP_SYNC || op->kind == TRACE_OP_API) && op->call_site == site && !strcmp(op->name, name);
}

static asked *find(asked *a, size_t *n, const trace_op *op, bool add) {
    for (size_t i = 0; i < *n; i++)
        if (a[i].target == op->sync && (op->sync == TRACE_SYNC_EVENT ? a[i].event == op->event : a[i].stream == op->stream))
            return &a[i];
    if (!add || *n == ASKED_MAX) return NULL;
    asked *e = &a[(*n)++];
    memset(e, 0, sizeof(*e));
    e->target = op->sync;
    e->stream = op->stream;
    e->event = op->event;
    return e;
}

static int by_id(const void *a, const void *b) {
    const trace_op *x = *(const trace_op *const *)a, *y = *(const trace_op *const *)b;
    return (x->id > y->id) - (x->id < y->id);
}

long trace_polls_find(trace_timeline *tl, int32_t run, trace_poll **out) {
    *out = NULL;
    size_t n = trace_timeline_count(tl), m = 0, found = 0, cap = 0;
    const trace_op **ops = malloc((n + 1) * sizeof(*ops));
    if (!ops) return -1;
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        const trace_op *op = trace_timeline_get(tl, i);
        if (!trace_timeline_in_run(op, run)) continue;
        ops[m++] = op;
        any |= not_ready(op);
    }
    if (!any) { /* no query answered not ready: no poll */
        free(ops);
        return 0;
    }
    qsort(ops, m, sizeof(*ops), by_id);
    asked loop[ASKED_MAX];
    size_t n_asked = 0;
    const trace_op *first = NULL; /* the loop's first query, which gives its site and call */
    trace_poll *polls = NULL;
    for (size_t i = 0; i < m; i++) {
        const trace_op *op = ops[i];
        if (!first || !of_loop(op, first->call_site, first->name)) {
            first = NULL;
            n_asked = 0;
            if (!not_ready(op) && !trace_op_is_query(op)) continue;
            first = op;
        }
        if (not_ready(op)) {
            asked *e = find(loop, &n_asked, op, true);
            if (e && e->not_ready++ == 0) e->first_ns = op->start_ns;
        } else if (trace_op_is_query(op)) {
            asked *e = find(loop, &n_asked, op, false);
            if (!e || e->not_ready == 0) continue; /* answered at its first ask: no wait */
            if (found == cap) {
                size_t more = cap ? 2 * cap : 16;
                trace_poll *p = realloc(polls, more * sizeof(*p));
                if (!p) {
                    free(polls);
                    free(ops);
                    return -1;
                }
                polls = p;
                cap = more;
            }
            polls[found++] = (trace_poll){.sync_id = op->id, .start_ns = e->first_ns, .not_ready = e->not_ready};
            e->not_ready = 0;
        }
    }
    free(ops);
    *out = polls;
    return (long)found;
}

const trace_poll *trace_poll_of(const trace_poll *polls, size_t n, uint64_t sync_id) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (polls[mid].sync_id < sync_id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && polls[lo].sync_id == sync_id ? &polls[lo] : NULL;
}
