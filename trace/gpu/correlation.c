/* trace/gpu/correlation.c: joining CUPTI records to recorder ops (see correlation.h). */
#include "trace/gpu/correlation.h"

#include <stdbool.h>
#include <stdlib.h>

typedef struct token_slot {
    uint64_t token;  /* 0: free */
    uint64_t op_id;  /* 0 until bound */
    uint64_t enqueue;
    uint64_t start;  /* span so far, valid when has_span */
    uint64_t end;
    bool has_span;
    bool untimed;    /* a record without times arrived */
    bool queued;     /* in the ready queue */
} token_slot;

/* A correlation id's token, or, before its token is known, the span of its device
 * records so far (an orphan). */
typedef struct link_slot {
    uint32_t correlation_id;
    bool used;
    bool orphan;     /* start/end hold device records that wait for their token */
    uint64_t token;
    uint64_t start;
    uint64_t end;
} link_slot;

struct trace_gpu_corr {
    token_slot *tokens;
    uint64_t token_mask;
    link_slot *links;
    uint64_t link_mask;
    uint64_t next_token;
    uint64_t *ready; /* tokens that may be ready, in the order they became so */
    size_t n_ready, cap_ready;
    trace_gpu_corr_stats stats;
};

trace_gpu_corr *trace_gpu_corr_create(unsigned log2_tokens, unsigned log2_links) {
    if (log2_tokens < 1 || log2_tokens > 24 || log2_links < 1 || log2_links > 24) return NULL;
    trace_gpu_corr *c = calloc(1, sizeof(*c));
    if (!c) return NULL;
    c->tokens = calloc((size_t)1 << log2_tokens, sizeof(token_slot));
    c->links = calloc((size_t)1 << log2_links, sizeof(link_slot));
    if (!c->tokens || !c->links) {
        trace_gpu_corr_destroy(c);
        return NULL;
    }
    c->token_mask = ((uint64_t)1 << log2_tokens) - 1;
    c->link_mask = ((uint64_t)1 << log2_links) - 1;
    c->next_token = 1;
    return c;
}

void trace_gpu_corr_destroy(trace_gpu_corr *c) {
    if (!c) return;
    free(c->tokens);
    free(c->links);
    free(c->ready);
    free(c);
}

static token_slot *live_token(trace_gpu_corr *c, uint64_t token) {
    if (token == 0) return NULL;
    token_slot *s = &c->tokens[token & c->token_mask];
    return s->token == token ? s : NULL;
}

static void queue_if_ready(trace_gpu_corr *c, token_slot *s) {
    if (s->queued || !s->op_id || !(s->has_span || s->untimed)) return;
    if (c->n_ready == c->cap_ready) {
        size_t cap = c->cap_ready ? c->cap_ready * 2 : 256;
        uint64_t *p = realloc(c->ready, cap * sizeof(uint64_t));
        if (!p) return; /* stays unqueued; a later record or bind retries */
        c->ready = p;
        c->cap_ready = cap;
    }
    c->ready[c->n_ready++] = s->token;
    s->queued = true;
}

static void merge_span(token_slot *s, uint64_t start, uint64_t end) {
    if (start == 0 && end == 0) {
        s->untimed = true;
        return;
    }
    if (!s->has_span) {
        s->start = start;
        s->end = end;
        s->has_span = true;
        return;
    }
    if (start < s->start) s->start = start;
    if (end > s->end) s->end = end;
}

uint64_t trace_gpu_corr_new_token(trace_gpu_corr *c) {
    uint64_t token = c->next_token++;
    token_slot *s = &c->tokens[token & c->token_mask];
    if (s->token != 0) c->stats.lost++;
    s->token = token;
    s->op_id = 0;
    s->has_span = false;
    s->untimed = false;
    s->queued = false;
    c->stats.tokens++;
    return token;
}

void trace_gpu_corr_bind(trace_gpu_corr *c, uint64_t token, uint64_t op_id, uint64_t enqueue_ns) {
    token_slot *s = live_token(c, token);
    if (!s || op_id == 0) return;
    s->op_id = op_id;
    s->enqueue = enqueue_ns;
    queue_if_ready(c, s);
}

void trace_gpu_corr_cancel(trace_gpu_corr *c, uint64_t token) {
    token_slot *s = live_token(c, token);
    if (s) s->token = 0;
}

static void add_span(trace_gpu_corr *c, uint64_t token, uint64_t start, uint64_t end) {
    token_slot *s = live_token(c, token);
    if (!s) {
        c->stats.late++;
        return;
    }
    c->stats.matched_records++;
    merge_span(s, start, end);
    queue_if_ready(c, s);
}

void trace_gpu_corr_link(trace_gpu_corr *c, uint32_t correlation_id, uint64_t token) {
    c->stats.links++;
    link_slot *l = &c->links[correlation_id & c->link_mask];
    if (l->used && l->correlation_id == correlation_id && l->orphan) {
        /* Device records came first: hand their span to the token now. */
        uint64_t start = l->start, end = l->end;
        l->orphan = false;
        l->token = token;
        add_span(c, token, start, end);
        return;
    }
    if (l->used && l->correlation_id != correlation_id && l->orphan) c->stats.lost++;
    l->used = true;
    l->orphan = false;
    l->correlation_id = correlation_id;
    l->token = token;
}

void trace_gpu_corr_device(trace_gpu_corr *c, uint32_t correlation_id, uint64_t start_ns, uint64_t end_ns) {
    c->stats.device_records++;
    if (end_ns < start_ns) end_ns = start_ns;
    link_slot *l = &c->links[correlation_id & c->link_mask];
    if (l->used && l->correlation_id == correlation_id) {
        if (!l->orphan) {
            add_span(c, l->token, start_ns, end_ns);
            return;
        }
        if (start_ns == 0 && end_ns == 0) return;
        if (l->start == 0 && l->end == 0) {
            l->start = start_ns;
            l->end = end_ns;
        } else {
            if (start_ns < l->start) l->start = start_ns;
            if (end_ns > l->end) l->end = end_ns;
        }
        return;
    }
    if (l->used && l->orphan) c->stats.lost++;
    l->used = true;
    l->orphan = true;
    l->correlation_id = correlation_id;
    l->token = 0;
    l->start = start_ns;
    l->end = end_ns;
}

void trace_gpu_corr_bind_correlation(trace_gpu_corr *c, uint32_t correlation_id, uint64_t op_id,
                                     uint64_t enqueue_ns) {
    if (op_id == 0) return;
    uint64_t token = trace_gpu_corr_new_token(c);
    trace_gpu_corr_bind(c, token, op_id, enqueue_ns);
    trace_gpu_corr_link(c, correlation_id, token);
}

bool trace_gpu_corr_knows(const trace_gpu_corr *c, uint32_t correlation_id) {
    const link_slot *l = &c->links[correlation_id & c->link_mask];
    return l->used && l->correlation_id == correlation_id && !l->orphan;
}

size_t trace_gpu_corr_take_ready(trace_gpu_corr *c, trace_gpu_timing *out, size_t max) {
    size_t n = 0, i = 0;
    for (; i < c->n_ready && n < max; i++) {
        token_slot *s = live_token(c, c->ready[i]);
        if (!s || !s->queued) continue; /* overwritten or cancelled since */
        out[n].op_id = s->op_id;
        out[n].start_ns = s->has_span ? s->start : s->enqueue;
        out[n].end_ns = s->has_span ? s->end : s->enqueue;
        n++;
        s->token = 0;
        c->stats.timed++;
    }
    /* Keep what did not fit. */
    size_t rest = c->n_ready - i;
    for (size_t k = 0; k < rest; k++) c->ready[k] = c->ready[i + k];
    c->n_ready = rest;
    return n;
}

trace_gpu_corr_stats trace_gpu_corr_get_stats(const trace_gpu_corr *c) { return c->stats; }
