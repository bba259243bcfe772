/* trace/gpu/graphs.h: what the interposer remembers of executable CUDA graphs: how many
 * nodes each has and how many branches of kernels (at cudaGraphInstantiate), to name its
 * launches "graph (N nodes, K branches)" on the timeline. A launch is one op of the trace,
 * its nodes unseen: the name is what the lab's facts know of the graph's concurrency
 * (labs/harness/steps.c). Internal to trace/gpu/ but for that name's form. */
#ifndef STREAMLAB_TRACE_GPU_GRAPHS_H
#define STREAMLAB_TRACE_GPU_GRAPHS_H

#include <stddef.h>

/* exec was instantiated from a graph of nodes nodes, branches of them kernels that no
 * other kernel of the graph precedes (the chains that may run side by side: 2 for two
 * streams' chains forked from one, 1 for one stream's), 0 when not known (forget: it was
 * destroyed). */
void trace_gpu_graph_exec_add(const void *exec, size_t nodes, size_t branches);
void trace_gpu_graph_exec_forget(const void *exec);
/* Writes "graph (N nodes, K branches)" ("graph (N nodes)" when K is not known), or "graph"
 * for an exec not seen, into name. */
void trace_gpu_graph_name(const void *exec, char *name, size_t size);

#endif
