/* sim/graph.c: graphs and executable graphs (see graph.h): building and freeing them,
 * their handles, and cudaGraphInstantiate, cudaGraphExecDestroy, cudaGraphDestroy and
 * cudaGraphGetNodes. Launching is graph_launch.c's; capture, which builds graphs, is
 * stream_capture.c's. */
#include "sim/graph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/call.h"
#include "sim/stream_handles.h"
#include "trace/record/recorder.h"

#define GRAPH_TAG 0x5e6a000000000000ull
#define EXEC_TAG 0x5e6e000000000000ull
#define NODE_TAG 0x5e6b000000000000ull
#define TAG_MASK 0xffff000000000000ull

static void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fprintf(stderr, "streamlab simulated GPU: out of memory (graphs)\n");
        abort();
    }
    return p;
}

static void *xrealloc(void *p, size_t n) {
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fprintf(stderr, "streamlab simulated GPU: out of memory (graphs)\n");
        abort();
    }
    return q;
}

/* ---- graphs --------------------------------------------------------------------------- */

sim_graph *sim_graph_new(void) {
    sim_graph *g = xcalloc(1, sizeof(*g));
    g->n_branches = 1;
    return g;
}

uint32_t sim_graph_add(sim_graph *g, sim_op *proto, const trace_op *t, uint32_t branch,
                       const uint32_t *deps, uint32_t n_deps) {
    if (g->n == g->cap) {
        g->cap = g->cap ? g->cap * 2 : 16;
        g->nodes = xrealloc(g->nodes, g->cap * sizeof(sim_graph_node));
    }
    sim_graph_node *nd = &g->nodes[g->n];
    memset(nd, 0, sizeof(*nd));
    nd->proto = proto;
    nd->trace = *t;
    nd->branch = branch;
    if (branch + 1 > g->n_branches) g->n_branches = branch + 1;
    if (n_deps) {
        nd->deps = xcalloc(n_deps, sizeof(uint32_t));
        memcpy(nd->deps, deps, n_deps * sizeof(uint32_t));
    }
    nd->n_deps = n_deps;
    return g->n++;
}

void sim_graph_free(sim_graph *g) {
    if (!g) return;
    for (uint32_t i = 0; i < g->n; i++) {
        sim_op_free(g->nodes[i].proto);
        free(g->nodes[i].deps);
    }
    free(g->nodes);
    free(g);
}

/* ---- executable graphs ------------------------------------------------------------------ */

/* The program's stream whose captured calls made branch b's nodes (trace_op.graph_origin),
 * TRACE_STREAM_NONE when none says. */
static int32_t branch_origin(const sim_graph *g, uint32_t b) {
    for (uint32_t i = 0; i < g->n; i++)
        if (g->nodes[i].branch == b) return g->nodes[i].trace.graph_origin;
    return TRACE_STREAM_NONE;
}

static sim_graph_exec *exec_new(const sim_graph *src, int priority) {
    sim_graph_exec *x = xcalloc(1, sizeof(*x));
    sim_graph *g = &x->g;
    g->n_branches = src->n_branches;
    g->n = g->cap = src->n;
    g->nodes = xcalloc(src->n, sizeof(sim_graph_node));
    x->needs_record = xcalloc(src->n, sizeof(bool));
    x->branch_used = xcalloc(src->n_branches, sizeof(bool));
    x->branch_stream = xcalloc(src->n_branches, sizeof(uint32_t));
    x->tokens = xcalloc((size_t)src->n + src->n_branches, 1);
    for (uint32_t i = 0; i < src->n; i++) {
        const sim_graph_node *s = &src->nodes[i];
        sim_graph_node *d = &g->nodes[i];
        *d = *s;
        d->proto = sim_op_clone(s->proto);
        d->deps = NULL;
        if (s->n_deps) {
            d->deps = xcalloc(s->n_deps, sizeof(uint32_t));
            memcpy(d->deps, s->deps, s->n_deps * sizeof(uint32_t));
        }
        x->branch_used[s->branch] = true;
        if (s->proto->kind == SIM_OP_COMPUTE && s->trace.kind == TRACE_OP_KERNEL) x->kernel_nodes++;
        for (uint32_t k = 0; k < s->n_deps; k++)
            if (src->nodes[s->deps[k]].branch != s->branch) x->needs_record[s->deps[k]] = true;
    }
    /* The internal events the trace sees at a launch: a record after each node another
     * branch waits for, the fork from the launch stream, and each branch's join back. */
    for (uint32_t i = 0; i < src->n; i++)
        if (x->needs_record[i]) trace_event_created(x->tokens + i, cudaEventDisableTiming);
    bool forked = false;
    for (uint32_t b = 1; b < src->n_branches; b++) {
        if (!x->branch_used[b]) continue;
        x->branch_stream[b] = sim_stream_add_graph_branch(b, branch_origin(src, b), priority);
        trace_event_created(x->tokens + src->n + b, cudaEventDisableTiming);
        forked = true;
    }
    if (forked) trace_event_created(x->tokens + src->n, cudaEventDisableTiming);
    return x;
}

static void exec_free(sim_graph_exec *x, bool notify) {
    if (!x) return;
    sim_graph *g = &x->g;
    if (notify) {
        bool forked = false;
        for (uint32_t i = 0; i < g->n; i++)
            if (x->needs_record[i]) trace_event_destroyed(x->tokens + i);
        for (uint32_t b = 1; b < g->n_branches; b++) {
            if (!x->branch_used[b]) continue;
            trace_event_destroyed(x->tokens + g->n + b);
            trace_stream_destroyed(sim_stream_trace_handle(x->branch_stream[b]));
            forked = true;
        }
        if (forked) trace_event_destroyed(x->tokens + g->n);
    }
    for (uint32_t i = 0; i < g->n; i++) {
        sim_op_free(g->nodes[i].proto);
        free(g->nodes[i].deps);
    }
    free(g->nodes);
    free(x->needs_record);
    free(x->branch_used);
    free(x->branch_stream);
    free(x->tokens);
    free(x);
}

/* ---- handles ------------------------------------------------------------------------------ */

/* One table per kind; entries are never reused, and a reset bumps the generation. */
typedef struct table {
    void **items;
    uint32_t count, cap;
    uint32_t live;
} table;

static table g_graphs, g_execs;
static uint32_t g_generation;

static uint64_t make_handle(uint64_t tag, uint32_t index) {
    return tag | ((uint64_t)(g_generation & 0xffffu) << 32) | ((uint64_t)index << 4);
}

static uint32_t table_add(table *t, void *item) {
    if (t->count == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 16;
        t->items = xrealloc(t->items, t->cap * sizeof(void *));
    }
    t->items[t->count] = item;
    t->live++;
    return t->count++;
}

static bool table_index(const table *t, uint64_t tag, const void *handle, uint32_t *index) {
    uint64_t v = (uint64_t)(uintptr_t)handle;
    if ((v & TAG_MASK) != tag || (v & 0xf)) return false;
    if (((v >> 32) & 0xffffu) != (g_generation & 0xffffu)) return false;
    uint64_t i = (v & 0xffffffffull) >> 4;
    if (i >= t->count || !t->items[i]) return false;
    *index = (uint32_t)i;
    return true;
}

cudaGraph_t sim_graph_register(sim_graph *g) {
    return (cudaGraph_t)(uintptr_t)make_handle(GRAPH_TAG, table_add(&g_graphs, g));
}

sim_graph *sim_graph_resolve(cudaGraph_t handle) {
    uint32_t i;
    return table_index(&g_graphs, GRAPH_TAG, handle, &i) ? g_graphs.items[i] : NULL;
}

sim_graph_exec *sim_graph_exec_resolve(cudaGraphExec_t handle) {
    uint32_t i;
    return table_index(&g_execs, EXEC_TAG, handle, &i) ? g_execs.items[i] : NULL;
}

uint32_t sim_graphs_live(void) { return g_graphs.live + g_execs.live; }

void sim_graphs_reset(bool notify) {
    for (uint32_t i = 0; i < g_graphs.count; i++) sim_graph_free(g_graphs.items[i]);
    for (uint32_t i = 0; i < g_execs.count; i++) exec_free(g_execs.items[i], notify);
    free(g_graphs.items);
    free(g_execs.items);
    memset(&g_graphs, 0, sizeof(g_graphs));
    memset(&g_execs, 0, sizeof(g_execs));
    g_generation++;
}

/* ---- the runtime calls ---------------------------------------------------------------------- */

/* cudaGraphInstantiateFlagAutoFreeOnLaunch, ...Upload, ...DeviceLaunch, ...UseNodePriority:
 * accepted, and change nothing here. */
#define KNOWN_INSTANTIATE_FLAGS 0xfull

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph, unsigned long long flags) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, "cudaGraphInstantiate", 0);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    const sim_profile *p = sim_prof();
    sim_host_charge(p->api_min_ns);
    if (!pGraphExec || (flags & ~KNOWN_INSTANTIATE_FLAGS)) return sim_call_end(&call, cudaErrorInvalidValue);
    sim_graph *g = sim_graph_resolve(graph);
    if (!g) return sim_call_end(&call, cudaErrorInvalidValue);
    sim_host_charge(p->graph_instantiate_ns_per_node * g->n);
    sim_graph_exec *x = exec_new(g, 0);
    *pGraphExec = (cudaGraphExec_t)(uintptr_t)make_handle(EXEC_TAG, table_add(&g_execs, x));
    return sim_call_end(&call, cudaSuccess);
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, "cudaGraphExecDestroy", 0);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    sim_host_charge(sim_prof()->api_min_ns);
    uint32_t i;
    if (!table_index(&g_execs, EXEC_TAG, graphExec, &i)) return sim_call_end(&call, cudaErrorInvalidValue);
    /* Ops of a launch already enqueued are copies: they still run. */
    exec_free(g_execs.items[i], true);
    g_execs.items[i] = NULL;
    g_execs.live--;
    return sim_call_end(&call, cudaSuccess);
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, "cudaGraphDestroy", 0);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    sim_host_charge(sim_prof()->api_min_ns);
    uint32_t i;
    if (!table_index(&g_graphs, GRAPH_TAG, graph, &i)) return sim_call_end(&call, cudaErrorInvalidValue);
    /* Executable graphs made from it have their own copy of the nodes. */
    sim_graph_free(g_graphs.items[i]);
    g_graphs.items[i] = NULL;
    g_graphs.live--;
    return sim_call_end(&call, cudaSuccess);
}

cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *numNodes) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, "cudaGraphGetNodes", 0);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    sim_host_charge(sim_prof()->api_min_ns);
    uint32_t gi;
    if (!numNodes || !table_index(&g_graphs, GRAPH_TAG, graph, &gi)) return sim_call_end(&call, cudaErrorInvalidValue);
    const sim_graph *g = g_graphs.items[gi];
    if (!nodes) {
        *numNodes = g->n;
        return sim_call_end(&call, cudaSuccess);
    }
    /* As documented: *numNodes entries are filled in, NULL past the last node, and
     * *numNodes becomes the number obtained. The handles name a node and are good for
     * nothing else here. */
    size_t got = 0;
    for (size_t i = 0; i < *numNodes; i++) {
        nodes[i] = i < g->n ? (cudaGraphNode_t)(uintptr_t)(NODE_TAG | ((uint64_t)gi << 32) | ((uint64_t)i << 4))
                            : NULL;
        got += i < g->n;
    }
    *numNodes = got;
    return sim_call_end(&call, cudaSuccess);
}
