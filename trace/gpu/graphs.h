/* trace/gpu/graphs.h: what the interposer remembers of executable CUDA graphs: how many
 * nodes each has (cudaGraphGetNodes at cudaGraphInstantiate), to name its launches
 * "graph (N nodes)" on the timeline. Internal to trace/gpu/. */
#ifndef STREAMLAB_TRACE_GPU_GRAPHS_H
#define STREAMLAB_TRACE_GPU_GRAPHS_H

#include <stddef.h>

/* exec was instantiated from a graph of nodes nodes (forget: it was destroyed). */
void trace_gpu_graph_exec_add(const void *exec, size_t nodes);
void trace_gpu_graph_exec_forget(const void *exec);
/* Writes "graph (N nodes)", or "graph" for an exec not seen, into name. */
void trace_gpu_graph_name(const void *exec, char *name, size_t size);

#endif
