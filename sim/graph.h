/* sim/graph.h: CUDA graphs as the simulator keeps them. A graph (cudaGraph_t) is a list of
 * nodes in the order capture made them, which is a topological order: each node holds
 * the op it stands for, prepared but never enqueued (sim/core/ops.h), the op's record for
 * the trace (trace/record/op.h) and the nodes it depends on. Each node also remembers its
 * branch: which stream of the capture made it (0: the stream the capture began on), and a
 * branch's nodes form a chain. An executable graph (cudaGraphExec_t) is a copy of the
 * nodes with, per branch after the first, an internal stream it runs on
 * (sim/graph_launch.c). Handles are tagged table entries, never addresses. */
#ifndef STREAMLAB_SIM_GRAPH_H
#define STREAMLAB_SIM_GRAPH_H

#include <stdbool.h>
#include <stdint.h>

#include <cuda_runtime.h>

#include "sim/core/ops.h"
#include "trace/record/op.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sim_graph_node {
    sim_op *proto;   /* the op, prepared and never enqueued (owned) */
    trace_op trace;  /* its record, without id and times */
    uint32_t branch; /* the capture's stream that made it: 0 for the origin stream */
    uint32_t *deps;  /* the nodes it depends on (smaller indices) */
    uint32_t n_deps;
} sim_graph_node;

typedef struct sim_graph {
    sim_graph_node *nodes;
    uint32_t n, cap;
    uint32_t n_branches; /* streams the capture took in (1 + those that joined) */
} sim_graph;

typedef struct sim_graph_exec {
    sim_graph g;            /* its own copy of the nodes */
    uint32_t *branch_stream; /* per branch: the internal stream it runs on (0 unused) */
    bool *branch_used;      /* per branch: it has nodes */
    bool *needs_record;     /* per node: a node of another branch depends on it */
    char *tokens;           /* the trace's handles of its internal events: node i's
                               record is tokens + i, the fork tokens + n, branch b's join
                               tokens + n + b */
    uint32_t kernel_nodes;
    bool launched;
    uint32_t last_stream;   /* the stream of its latest launch, and the op there that */
    uint64_t last_seq;      /* ends it (a later launch elsewhere waits for it) */
} sim_graph_exec;

/* An empty graph. */
sim_graph *sim_graph_new(void);
/* Appends a node (takes proto); returns its index. */
uint32_t sim_graph_add(sim_graph *g, sim_op *proto, const trace_op *t, uint32_t branch,
                       const uint32_t *deps, uint32_t n_deps);
void sim_graph_free(sim_graph *g);

/* The handle the program gets for a graph (the table takes it). */
cudaGraph_t sim_graph_register(sim_graph *g);
/* The graph or exec a handle names, or NULL. */
sim_graph *sim_graph_resolve(cudaGraph_t handle);
sim_graph_exec *sim_graph_exec_resolve(cudaGraphExec_t handle);
/* Graphs and executable graphs alive. */
uint32_t sim_graphs_live(void);
/* Frees every graph and executable graph (a reset); the recorder hears of their internal
 * streams and events when notify. */
void sim_graphs_reset(bool notify);

#ifdef __cplusplus
}
#endif

#endif
