/* labs/harness/graph_memory.h: the memory each of the student's CUDA graphs reaches, so
 * that the referee can check it again at every cudaGraphLaunch (docs/referee.md).
 *
 * The referee checks the memory a command names when it serves the command (remote.c): a
 * kernel's buffers must be the program's device memory, a copy's or memset's the program's
 * memory. A command served while its stream captures is not run then: it becomes a node of
 * a graph, which keeps the addresses it was captured with and runs them at every launch.
 * A program that frees a buffer after capturing it and launches the graph would have the
 * referee run the node on memory that is no longer the program's: on the simulator the
 * referee's own memory (its oracle, the baseline's buffers, or unmapped: the referee
 * crashes), on a GPU an illegal address. So the referee notes here each captured
 * command's ranges under its capture (lab_backend_capture_id), hands them to the graph
 * cudaStreamEndCapture makes and to each executable graph instantiated from it, and at
 * every cudaGraphLaunch checks each range again with the checks it served the command
 * with. Bookkeeping only: no CUDA call; the checks are the caller's. */
#ifndef STREAMLAB_LAB_GRAPH_MEMORY_H
#define STREAMLAB_LAB_GRAPH_MEMORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a range must still be when a graph that reaches it is launched. */
typedef enum lab_graph_need {
    LAB_GRAPH_NEED_DEVICE = 0, /* the program's device memory: a kernel's buffers, and the
                                  source of a copy into a lab output */
    LAB_GRAPH_NEED_MEMORY = 1, /* any memory a copy or memset of the program's may touch:
                                  its device memory or the shared memory */
} lab_graph_need;

/* One range a captured command reaches. */
typedef struct lab_graph_use {
    uint64_t start, bytes;
    lab_graph_need need;
    const char *call; /* the call that captured it ("kernels_process", "cudaMemcpyAsync"):
                         a string that outlives the table (a literal) */
} lab_graph_use;

/* The most distinct ranges kept for one capture, graph or executable graph (a range noted
 * again is kept once: lab 07's graphs reach 1 to 4). A capture that reaches more makes a
 * graph the referee cannot check: its launches are refused (LAB_GRAPH_UNCHECKED). */
#define LAB_GRAPH_MEMORY_MAX_USES 4096u

typedef struct lab_graph_memory lab_graph_memory;

/* An empty table; NULL when out of memory. */
lab_graph_memory *lab_graph_memory_new(void);
void lab_graph_memory_free(lab_graph_memory *m);
/* Forgets every capture, graph and executable graph (the student's cudaDeviceReset). */
void lab_graph_memory_clear(lab_graph_memory *m);

/* A command of capture (lab_backend_capture_id's id) reaches u's range. */
void lab_graph_memory_note(lab_graph_memory *m, uint64_t capture, const lab_graph_use *u);
/* cudaStreamEndCapture ended capture: graph is the graph it made (its ranges are the
 * capture's), or 0 where it made none (the capture was invalidated or unjoined). */
void lab_graph_memory_captured(lab_graph_memory *m, uint64_t capture, uint64_t graph);
/* cudaGraphInstantiate made exec from graph: exec reaches what graph reaches, for as long
 * as it lives (the graph may be destroyed first). */
void lab_graph_memory_instantiated(lab_graph_memory *m, uint64_t graph, uint64_t exec);
/* cudaGraphDestroy or cudaGraphExecDestroy ended handle. */
void lab_graph_memory_forget_graph(lab_graph_memory *m, uint64_t graph);
void lab_graph_memory_forget_exec(lab_graph_memory *m, uint64_t exec);

typedef enum lab_graph_check {
    LAB_GRAPH_OK = 0,    /* every range passed */
    LAB_GRAPH_BAD,       /* one did not: the first such, in the order noted, in *bad */
    LAB_GRAPH_UNCHECKED, /* the table cannot say: the graph reaches more than
                            LAB_GRAPH_MEMORY_MAX_USES ranges, the table ran out of memory
                            once, or exec was never instantiated here */
} lab_graph_check;

/* Checks every range exec reaches with ok (the caller's checks of a command's memory).
 * Never LAB_GRAPH_OK for a range it did not check: an exec the table does not know, or
 * one whose ranges it could not all keep, is LAB_GRAPH_UNCHECKED. */
lab_graph_check lab_graph_memory_check(const lab_graph_memory *m, uint64_t exec, bool (*ok)(const lab_graph_use *u),
                                       lab_graph_use *bad);

/* How many distinct ranges a capture, graph or executable graph reaches now (tests). */
size_t lab_graph_memory_uses_of_exec(const lab_graph_memory *m, uint64_t exec);
size_t lab_graph_memory_uses_of_graph(const lab_graph_memory *m, uint64_t graph);
size_t lab_graph_memory_uses_of_capture(const lab_graph_memory *m, uint64_t capture);

#ifdef __cplusplus
}
#endif

#endif
