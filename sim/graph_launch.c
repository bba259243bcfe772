/* sim/graph_launch.c: cudaGraphLaunch. The whole graph runs in the launch stream's order:
 * after the work before it there, and the stream's later work waits for all of it. The
 * nodes of the capture's origin stream run on the launch stream; each other branch (a
 * stream that joined the capture) runs on an internal stream of the executable graph,
 * which the trace names "graph branch N", so branches run concurrently as the graph
 * allows. Every node's op is a copy of the captured one, enqueued and recorded to the
 * trace now. Dependencies between branches are zero-time event records and waits on
 * internal events (the trace sees them, so the race checker orders the branches as the
 * graph does): a fork from the launch stream to each branch, a record after each node
 * another branch depends on and a wait before that node, and each branch's join back.
 * The host pays graph_launch_ns for the call; a kernel node (and a memset or
 * device-to-device copy node) pays graph_kernel_overhead_ns on the device in place of
 * kernel_overhead_ns. Launches of one executable graph are ordered, as the runtime
 * documents: a launch waits for the previous launch of the same graph.
 *
 * The memory a node uses is checked at every launch, not only at capture: a graph replays
 * raw pointers, and the program may have freed what they point to since. A kernel node (a
 * memset, a device-to-device copy) whose memory is no longer the device's faults the device
 * as a direct launch of it would (an illegal address, sticky); a copy node whose device side
 * is gone is refused with the launch (cudaErrorInvalidValue), before anything is queued: the
 * simulator's copies would move host bytes where the device memory used to be. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/call.h"
#include "sim/core/memory.h"
#include "sim/stream_capture.h"
#include "sim/core/scheduler.h"
#include "sim/errors.h"
#include "sim/graph.h"
#include "sim/stream_handles.h"
#include "trace/record/recorder.h"

/* No event of the table: a record op that only marks a point of its stream. */
#define NO_EVENT 0xffffffffu

typedef struct launch {
    uint64_t host_ns;    /* the call's start: the ops' enqueue time */
    uint64_t visible_ns; /* when the device sees them */
    uint32_t serial;     /* which launch of the process: 1, 2, ... (trace_op.graph_launch) */
    int32_t stream;      /* the launch stream's trace id (trace_op.graph_stream) */
} launch;

/* An internal event's record or wait, for the trace: a node of this launch, as the graph's
 * other nodes are (trace_op.graph_launch), so that a reader tells the graph's own forks and
 * joins from the program's records and waits. */
static uint64_t record_internal(const launch *l, trace_op_kind kind, uint32_t stream, const void *token) {
    trace_op t;
    memset(&t, 0, sizeof(t));
    t.kind = kind;
    t.batch = -1;
    t.enqueue_ns = l->host_ns;
    t.event = trace_event_id(token);
    t.graph_launch = l->serial;
    t.graph_stream = l->stream;
    return trace_record(&t, sim_stream_trace_handle(stream));
}

static uint64_t enqueue_record(const launch *l, uint32_t stream, const void *token) {
    sim_op *op = sim_op_new(SIM_OP_EVENT_RECORD);
    op->u.record.event = NO_EVENT;
    op->visible_ns = l->visible_ns;
    op->trace_id = record_internal(l, TRACE_OP_EVENT_RECORD, stream, token);
    sim_sched_enqueue(op, stream);
    return op->seq;
}

static void enqueue_wait(const launch *l, uint32_t stream, const void *token, uint32_t on_stream, uint64_t on_seq) {
    sim_op *op = sim_op_new(SIM_OP_EVENT_WAIT);
    sim_op_add_dep(op, on_stream, on_seq);
    op->visible_ns = l->visible_ns;
    op->trace_id = token ? record_internal(l, TRACE_OP_EVENT_WAIT, stream, token) : 0;
    sim_sched_enqueue(op, stream);
}

/* A copy node whose device side is no longer device memory, or whose pinned host side is
 * no longer pinned (freed with cudaFreeHost): the launch is refused. */
static bool copy_node_stale(const sim_graph_node *nd) {
    if (nd->proto->kind != SIM_OP_COPY) return false;
    const sim_copy_state *c = &nd->proto->u.copy;
    const void *device = c->dir == TRACE_COPY_H2D ? c->dst : c->src;
    const void *host = c->dir == TRACE_COPY_H2D ? c->src : c->dst;
    if (!sim_mem_device_accessible(device, c->bytes)) return true;
    return c->pinned && !c->staged && !sim_mem_range_is(host, c->bytes, SIM_MEM_PINNED);
}

static void run(sim_graph_exec *x, uint32_t ls, const launch *l, const sim_profile *p) {
    const sim_graph *g = &x->g;
    int32_t priority = sim_stream_at(ls)->priority;
    /* After the previous launch of this graph, wherever it ran. */
    if (x->launched && x->last_stream != ls) enqueue_wait(l, ls, NULL, x->last_stream, x->last_seq);
    bool forked = false;
    for (uint32_t b = 1; b < g->n_branches; b++) forked |= x->branch_used[b];
    if (forked) {
        uint64_t fork = enqueue_record(l, ls, x->tokens + g->n);
        for (uint32_t b = 1; b < g->n_branches; b++) {
            if (!x->branch_used[b]) continue;
            sim_stream_at(x->branch_stream[b])->priority = priority;
            enqueue_wait(l, x->branch_stream[b], x->tokens + g->n, ls, fork);
        }
    }
    uint64_t *record_seq = NULL;
    if (forked) {
        record_seq = calloc(g->n, sizeof(uint64_t));
        if (!record_seq) {
            fprintf(stderr, "streamlab simulated GPU: out of memory (graph launch)\n");
            abort();
        }
    }
    for (uint32_t i = 0; i < g->n; i++) {
        const sim_graph_node *nd = &g->nodes[i];
        uint32_t st = nd->branch ? x->branch_stream[nd->branch] : ls;
        for (uint32_t k = 0; k < nd->n_deps; k++) {
            const sim_graph_node *d = &g->nodes[nd->deps[k]];
            if (d->branch == nd->branch) continue;
            uint32_t ds = d->branch ? x->branch_stream[d->branch] : ls;
            enqueue_wait(l, st, x->tokens + nd->deps[k], ds, record_seq[nd->deps[k]]);
        }
        sim_op *op = sim_op_clone(nd->proto);
        if (op->kind == SIM_OP_COMPUTE) {
            op->u.kernel.overhead_ns = p->graph_kernel_overhead_ns;
            op->u.kernel.priority = priority;
            /* Freed since the capture: faults as a launch on it would (sim/kernels.c). */
            op->u.kernel.illegal = !sim_mem_ranges_accessible(nd->trace.ranges, nd->trace.n_ranges);
        }
        trace_op t = nd->trace;
        t.id = 0;
        t.enqueue_ns = l->host_ns;
        t.graph_launch = l->serial;
        t.graph_stream = l->stream;
        op->trace_id = trace_record(&t, sim_stream_trace_handle(st));
        op->visible_ns = l->visible_ns;
        sim_sched_enqueue(op, st);
        if (x->needs_record[i]) record_seq[i] = enqueue_record(l, st, x->tokens + i);
    }
    if (forked) {
        for (uint32_t b = 1; b < g->n_branches; b++) {
            if (!x->branch_used[b]) continue;
            uint64_t end = enqueue_record(l, x->branch_stream[b], x->tokens + g->n + b);
            enqueue_wait(l, ls, x->tokens + g->n + b, x->branch_stream[b], end);
        }
    }
    free(record_seq);
    x->launched = true;
    x->last_stream = ls;
    x->last_seq = sim_stream_at(ls)->enq_seq;
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, "cudaGraphLaunch", 0);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    const sim_profile *p = sim_prof();
    sim_host_charge(p->graph_launch_ns);
    sim_graph_exec *x = sim_graph_exec_resolve(graphExec);
    if (!x) return sim_call_end(&call, cudaErrorInvalidValue);
    uint32_t ls;
    if (!sim_stream_resolve(stream, &ls)) return sim_call_end(&call, cudaErrorInvalidResourceHandle);
    bool captured;
    err = sim_capture_enqueue_check(ls, &captured);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    if (captured) {
        /* Capturing a launch would add the graph as a child node: not modelled. */
        sim_capture_invalidate_stream(ls);
        return sim_call_end(&call, cudaErrorStreamCaptureUnsupported);
    }
    for (uint32_t i = 0; i < x->g.n; i++)
        if (copy_node_stale(&x->g.nodes[i])) return sim_call_end(&call, cudaErrorInvalidValue);
    static uint32_t launches; /* the process's launches, for trace_op.graph_launch */
    launch l = {call.start_ns, sim_host_now() + (uint64_t)p->graph_submit_latency_ns, ++launches,
                trace_stream_id(sim_stream_trace_handle(ls))};
    run(x, ls, &l, p);
    return sim_call_end(&call, sim_error_sticky_or(cudaSuccess));
}
