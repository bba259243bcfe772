/* sim/stream_capture.c: capture sequences (see stream_capture.h) and cudaStreamBeginCapture,
 * cudaStreamEndCapture and cudaStreamIsCapturing (and streamlab_sim.h's
 * sim_stream_capture_id, which asks what cudaStreamGetCaptureInfo would). What the runtime documents, and the
 * simulator models: the CUDA Runtime API reference (cudaStreamBeginCapture,
 * cudaStreamEndCapture, cudaStreamIsCapturing, cudaThreadExchangeStreamCaptureMode, the
 * cudaErrorStreamCapture* codes) and the Programming Guide's CUDA graphs section ("Cross-
 * stream dependencies and events", "Prohibited and unhandled operations", "Invalidation").
 * docs/simulator.md lists the cases and what is not modelled. */
#include "sim/stream_capture.h"

#include <streamlab_sim.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/call.h"
#include "sim/core/events.h"
#include "sim/graph.h"
#include "sim/stream_handles.h"
#include "trace/record/recorder.h"

/* A set of node indices, small and unordered. */
typedef struct idset {
    uint32_t *v;
    uint32_t n, cap;
} idset;

/* A stream taken into a capture, and the nodes its next node depends on. */
typedef struct member {
    uint32_t stream;
    idset tails;
} member;

/* An event recorded in a capture: the nodes it stands for. */
typedef struct captured_event {
    uint32_t event;
    idset nodes;
} captured_event;

typedef struct capture {
    bool used;
    bool invalid;
    uint64_t id; /* sim_stream_capture_id's: unique in the process */
    enum cudaStreamCaptureMode mode;
    sim_graph *graph;
    member *m; /* m[0] is the origin stream; a node's branch is its member's index */
    uint32_t nm, cm;
    captured_event *ev;
    uint32_t ne, ce;
} capture;

/* The last capture's id (sim_stream_capture_id): never reset, so that an id outlives no
 * reset to name another capture. */
static uint64_t last_capture_id;

static struct {
    capture *c;
    uint32_t n;
    uint32_t *stream_cap; /* per stream index: its capture's index + 1, 0 when none */
    uint32_t n_stream_cap;
    uint32_t *event_cap;  /* per event index: the capture it was last recorded in, + 1 */
    uint32_t n_event_cap;
} C;

static void *xrealloc(void *p, size_t n) {
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fprintf(stderr, "streamlab simulated GPU: out of memory (capture)\n");
        abort();
    }
    return q;
}

static void set_add(idset *s, uint32_t v) {
    for (uint32_t i = 0; i < s->n; i++)
        if (s->v[i] == v) return;
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 4;
        s->v = xrealloc(s->v, s->cap * sizeof(uint32_t));
    }
    s->v[s->n++] = v;
}

static void set_copy(idset *dst, const idset *src) {
    dst->n = 0;
    for (uint32_t i = 0; i < src->n; i++) set_add(dst, src->v[i]);
}

/* Grows a per-index table so that index fits (new entries 0). */
static void fit(uint32_t **table, uint32_t *n, uint32_t index) {
    if (index < *n) return;
    uint32_t nn = *n ? *n : 16;
    while (nn <= index) nn *= 2;
    *table = xrealloc(*table, nn * sizeof(uint32_t));
    memset(*table + *n, 0, (nn - *n) * sizeof(uint32_t));
    *n = nn;
}

static capture *capture_of_stream(uint32_t si) {
    if (si >= C.n_stream_cap || !C.stream_cap[si]) return NULL;
    return &C.c[C.stream_cap[si] - 1];
}

static capture *capture_of_event(uint32_t ei) {
    if (ei >= C.n_event_cap || !C.event_cap[ei]) return NULL;
    return &C.c[C.event_cap[ei] - 1];
}

static uint32_t id_of(const capture *c) { return (uint32_t)(c - C.c) + 1; }

static member *member_of(capture *c, uint32_t si) {
    for (uint32_t i = 0; i < c->nm; i++)
        if (c->m[i].stream == si) return &c->m[i];
    return NULL;
}

static member *add_member(capture *c, uint32_t si) {
    if (c->nm == c->cm) {
        c->cm = c->cm ? c->cm * 2 : 4;
        c->m = xrealloc(c->m, c->cm * sizeof(member));
    }
    member *m = &c->m[c->nm++];
    memset(m, 0, sizeof(*m));
    m->stream = si;
    fit(&C.stream_cap, &C.n_stream_cap, si);
    C.stream_cap[si] = id_of(c);
    return m;
}

static captured_event *event_entry(capture *c, uint32_t ei) {
    for (uint32_t i = 0; i < c->ne; i++)
        if (c->ev[i].event == ei) return &c->ev[i];
    if (c->ne == c->ce) {
        c->ce = c->ce ? c->ce * 2 : 4;
        c->ev = xrealloc(c->ev, c->ce * sizeof(captured_event));
    }
    captured_event *e = &c->ev[c->ne++];
    memset(e, 0, sizeof(*e));
    e->event = ei;
    return e;
}

/* Ends a capture: its streams and events leave it; returns its graph (the caller's). */
static sim_graph *finish(capture *c) {
    uint32_t id = id_of(c);
    for (uint32_t i = 0; i < c->nm; i++) {
        if (C.stream_cap[c->m[i].stream] == id) C.stream_cap[c->m[i].stream] = 0;
        free(c->m[i].tails.v);
    }
    for (uint32_t i = 0; i < c->ne; i++) {
        if (c->ev[i].event < C.n_event_cap && C.event_cap[c->ev[i].event] == id) C.event_cap[c->ev[i].event] = 0;
        free(c->ev[i].nodes.v);
    }
    free(c->m);
    free(c->ev);
    sim_graph *g = c->graph;
    memset(c, 0, sizeof(*c));
    return g;
}

static bool blocking_member(const capture *c) {
    for (uint32_t i = 0; i < c->nm; i++)
        if (sim_stream_at(c->m[i].stream)->blocking) return true;
    return false;
}

/* The legacy stream while a blocking stream captures: it would depend on captured work
 * ("the legacy stream is in an unusable state until the blocking stream capture is
 * terminated"). Invalidates those captures when invalidate. */
static bool legacy_implicit(bool invalidate) {
    bool hit = false;
    for (uint32_t i = 0; i < C.n; i++) {
        capture *c = &C.c[i];
        if (!c->used || !blocking_member(c)) continue;
        hit = true;
        if (invalidate) c->invalid = true;
    }
    return hit;
}

/* ---- what the other calls ask ------------------------------------------------------------- */

cudaError_t sim_capture_enqueue_check(uint32_t si, bool *captured) {
    *captured = false;
    if (si == SIM_STREAM_LEGACY) return legacy_implicit(true) ? cudaErrorStreamCaptureImplicit : cudaSuccess;
    capture *c = capture_of_stream(si);
    if (!c) return cudaSuccess;
    if (c->invalid) return cudaErrorStreamCaptureInvalidated;
    *captured = true;
    return cudaSuccess;
}

void sim_capture_add_op(uint32_t si, sim_op *op, const trace_op *t) {
    capture *c = capture_of_stream(si);
    member *m = member_of(c, si);
    trace_op rec = *t;
    /* The line that captured it: what a report of the launched node should name. */
    if (!rec.call_site) rec.call_site = trace_call_site();
    /* The program's stream that made it: a report names it, not the branch's own stream. */
    rec.graph_origin = trace_stream_id(sim_stream_trace_handle(si));
    uint32_t node = sim_graph_add(c->graph, op, &rec, (uint32_t)(m - c->m), m->tails.v, m->tails.n);
    m->tails.n = 0;
    set_add(&m->tails, node);
}

void sim_capture_invalidate_stream(uint32_t si) {
    capture *c = capture_of_stream(si);
    if (c) c->invalid = true;
}

void sim_capture_event_record(uint32_t ei, uint32_t si) {
    capture *c = capture_of_stream(si);
    captured_event *e = event_entry(c, ei);
    set_copy(&e->nodes, &member_of(c, si)->tails);
    fit(&C.event_cap, &C.n_event_cap, ei);
    C.event_cap[ei] = id_of(c);
}

void sim_capture_event_forget(uint32_t ei) {
    if (ei < C.n_event_cap) C.event_cap[ei] = 0;
}

cudaError_t sim_capture_wait_event(uint32_t si, uint32_t ei, bool *handled) {
    *handled = false;
    capture *ec = capture_of_event(ei), *sc = capture_of_stream(si);
    if (!ec && !sc) return cudaSuccess;
    *handled = true;
    if (ec) {
        if (si == SIM_STREAM_LEGACY) {
            /* The legacy stream cannot join a capture. */
            ec->invalid = true;
            return cudaErrorStreamCaptureImplicit;
        }
        if (sc && sc != ec) {
            sc->invalid = ec->invalid = true;
            return cudaErrorStreamCaptureMerge;
        }
        if (ec->invalid) return cudaErrorStreamCaptureInvalidated;
        const captured_event *e = event_entry(ec, ei);
        member *m = sc ? member_of(sc, si) : add_member(ec, si); /* a fork: si joins */
        for (uint32_t i = 0; i < e->nodes.n; i++) set_add(&m->tails, e->nodes.v[i]);
        return cudaSuccess;
    }
    if (sc->invalid) return cudaErrorStreamCaptureInvalidated;
    /* A capturing stream may not wait on work outside its capture; an event never
     * recorded stands for no work, and the wait is nothing. */
    if (sim_event_at(ei)->recorded) {
        sc->invalid = true;
        return cudaErrorStreamCaptureIsolation;
    }
    return cudaSuccess;
}

cudaError_t sim_capture_check_stream_sync(uint32_t si) {
    if (si == SIM_STREAM_LEGACY) return legacy_implicit(true) ? cudaErrorStreamCaptureImplicit : cudaSuccess;
    capture *c = capture_of_stream(si);
    if (!c) return cudaSuccess;
    c->invalid = true;
    return cudaErrorStreamCaptureUnsupported;
}

cudaError_t sim_capture_check_event_sync(uint32_t ei) {
    capture *c = capture_of_event(ei);
    if (!c) return cudaSuccess;
    c->invalid = true;
    return cudaErrorCapturedEvent;
}

cudaError_t sim_capture_check_device_sync(void) {
    bool hit = false;
    for (uint32_t i = 0; i < C.n; i++)
        if (C.c[i].used) hit = C.c[i].invalid = true;
    return hit ? cudaErrorStreamCaptureUnsupported : cudaSuccess;
}

cudaError_t sim_capture_check_unsafe(void) {
    bool hit = false;
    for (uint32_t i = 0; i < C.n; i++)
        if (C.c[i].used && C.c[i].mode != cudaStreamCaptureModeRelaxed) hit = C.c[i].invalid = true;
    return hit ? cudaErrorStreamCaptureUnsupported : cudaSuccess;
}

void sim_capture_reset(void) {
    for (uint32_t i = 0; i < C.n; i++)
        if (C.c[i].used) sim_graph_free(finish(&C.c[i]));
    free(C.c);
    free(C.stream_cap);
    free(C.event_cap);
    memset(&C, 0, sizeof(C));
}

/* ---- the runtime calls -------------------------------------------------------------------- */

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, "cudaStreamBeginCapture", 0);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    sim_host_charge(sim_prof()->api_min_ns);
    uint32_t si;
    if ((unsigned)mode > (unsigned)cudaStreamCaptureModeRelaxed) return sim_call_end(&call, cudaErrorInvalidValue);
    if (!sim_stream_resolve(stream, &si)) return sim_call_end(&call, cudaErrorInvalidResourceHandle);
    /* "Capture may not be initiated if stream is cudaStreamLegacy"; "it may only be
     * initiated if the stream is not already in capture mode". */
    if (si == SIM_STREAM_LEGACY) return sim_call_end(&call, cudaErrorStreamCaptureUnsupported);
    if (capture_of_stream(si)) return sim_call_end(&call, cudaErrorIllegalState);
    uint32_t slot = C.n;
    for (uint32_t i = 0; i < C.n; i++)
        if (!C.c[i].used) {
            slot = i;
            break;
        }
    if (slot == C.n) {
        C.c = xrealloc(C.c, (C.n + 1) * sizeof(capture));
        C.n++;
    }
    capture *c = &C.c[slot];
    memset(c, 0, sizeof(*c));
    c->used = true;
    c->id = ++last_capture_id;
    c->mode = mode;
    c->graph = sim_graph_new();
    add_member(c, si);
    return sim_call_end(&call, cudaSuccess);
}

/* Every node of the capture's other streams must be an ancestor of (or one of) the
 * nodes the origin stream's next node would depend on: "joined back". */
static bool all_joined(const capture *c) {
    const sim_graph *g = c->graph;
    if (c->nm < 2 || g->n == 0) return true;
    bool *mark = calloc(g->n, sizeof(bool));
    uint32_t *stack = malloc(g->n * sizeof(uint32_t));
    if (!mark || !stack) {
        fprintf(stderr, "streamlab simulated GPU: out of memory (capture)\n");
        abort();
    }
    uint32_t top = 0;
    const idset *t0 = &c->m[0].tails;
    for (uint32_t i = 0; i < t0->n; i++)
        if (!mark[t0->v[i]]) {
            mark[t0->v[i]] = true;
            stack[top++] = t0->v[i];
        }
    while (top) {
        const sim_graph_node *nd = &g->nodes[stack[--top]];
        for (uint32_t k = 0; k < nd->n_deps; k++)
            if (!mark[nd->deps[k]]) {
                mark[nd->deps[k]] = true;
                stack[top++] = nd->deps[k];
            }
    }
    bool ok = true;
    for (uint32_t i = 1; i < c->nm && ok; i++)
        for (uint32_t k = 0; k < c->m[i].tails.n; k++)
            if (!mark[c->m[i].tails.v[k]]) ok = false;
    free(mark);
    free(stack);
    return ok;
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, "cudaStreamEndCapture", 0);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    sim_host_charge(sim_prof()->api_min_ns);
    uint32_t si;
    if (!pGraph) return sim_call_end(&call, cudaErrorInvalidValue);
    if (!sim_stream_resolve(stream, &si)) return sim_call_end(&call, cudaErrorInvalidResourceHandle);
    capture *c = capture_of_stream(si);
    if (!c) return sim_call_end(&call, cudaErrorIllegalState);
    /* "Capture must be ended on the same stream in which it was initiated." */
    if (c->m[0].stream != si) {
        c->invalid = true;
        return sim_call_end(&call, cudaErrorStreamCaptureUnmatched);
    }
    *pGraph = NULL;
    bool invalid = c->invalid, joined = invalid || all_joined(c);
    sim_graph *g = finish(c);
    if (invalid || !joined) {
        sim_graph_free(g);
        return sim_call_end(&call, invalid ? cudaErrorStreamCaptureInvalidated : cudaErrorStreamCaptureUnjoined);
    }
    *pGraph = sim_graph_register(g);
    return sim_call_end(&call, cudaSuccess);
}

bool sim_stream_capture_id(cudaStream_t stream, uint64_t *id) {
    uint32_t si;
    const capture *c = sim_stream_resolve(stream, &si) ? capture_of_stream(si) : NULL;
    if (!c) return false;
    *id = c->id;
    return true;
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus *pCaptureStatus) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, "cudaStreamIsCapturing", 0);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    sim_host_charge(sim_prof()->api_min_ns);
    uint32_t si;
    if (!pCaptureStatus) return sim_call_end(&call, cudaErrorInvalidValue);
    if (!sim_stream_resolve(stream, &si)) return sim_call_end(&call, cudaErrorInvalidResourceHandle);
    /* The legacy stream while a blocking stream captures: ...Implicit, and "the blocking
     * stream capture is not invalidated". */
    if (si == SIM_STREAM_LEGACY && legacy_implicit(false)) return sim_call_end(&call, cudaErrorStreamCaptureImplicit);
    const capture *c = capture_of_stream(si);
    *pCaptureStatus = !c ? cudaStreamCaptureStatusNone
                         : (c->invalid ? cudaStreamCaptureStatusInvalidated : cudaStreamCaptureStatusActive);
    return sim_call_end(&call, cudaSuccess);
}
