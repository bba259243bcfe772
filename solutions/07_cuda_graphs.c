/* solutions/07_cuda_graphs.c: the reference for lab 07: each set's step captured once, replayed.
 *
 * Each kernel of the step runs for less time on the device than its launch costs the host,
 * so launching them one by one leaves the GPU waiting for the CPU. setup() records a step's
 * two chains into a graph once for each of the three sets: a capture begun on A takes in B
 * when B waits on an event recorded on A during the capture (the fork), and B must be
 * joined back (A waits on an event recorded on B) before the capture ends. run() then
 * submits a step's 64 kernels with one cudaGraphLaunch, and the graph runs the two chains
 * side by side, while the other sets' graphs run the steps before and after it.
 *
 * A graph freezes the arguments it was captured with. The kernels work in place on their
 * set's d_buf, which setup() allocated and which never moves, so one graph a set serves
 * every step of every run (three buffers, three graphs); the copies read and write a different
 * host buffer each step, so they stay outside the graph and bring the new input into d_buf
 * (and the result out) around each launch. */
#include "labs/harness/lab.h"

/* Three of everything a step uses: step s runs on set s % SETS, so that the next steps'
 * uploads run while this one computes. A graph freezes its buffer, so each set has its own. */
enum { SETS = 3 };
typedef struct step_set {
    cudaStream_t a, b;
    cudaEvent_t fork_ev, join_ev;
    uint32_t *d_buf;
    cudaGraphExec_t graph;
} step_set;
static step_set sets[SETS];

static int make_graph(lab_ctx *ctx, step_set *q) {
    const lab_workload *w = lab_get_workload(ctx);
    size_t half = w->batch_elems / 2;
    cudaGraph_t graph;
    LAB_CHECK(cudaStreamBeginCapture(q->a, cudaStreamCaptureModeGlobal));
    LAB_CHECK(cudaEventRecord(q->fork_ev, q->a));
    LAB_CHECK(cudaStreamWaitEvent(q->b, q->fork_ev, 0));
    for (int k = 0; k < w->steps; k++) {
        LAB_CHECK(kernels_process(q->d_buf, q->d_buf, half, w->process, q->a));
        LAB_CHECK(kernels_process(q->d_buf + half, q->d_buf + half, w->batch_elems - half, w->process, q->b));
    }
    LAB_CHECK(cudaEventRecord(q->join_ev, q->b));
    LAB_CHECK(cudaStreamWaitEvent(q->a, q->join_ev, 0));
    LAB_CHECK(cudaStreamEndCapture(q->a, &graph));
    LAB_CHECK(cudaGraphInstantiate(&q->graph, graph, 0));
    LAB_CHECK(cudaGraphDestroy(graph));
    return 0;
}

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int i = 0; i < SETS; i++) {
        step_set *q = &sets[i];
        LAB_CHECK(cudaStreamCreateWithFlags(&q->a, cudaStreamNonBlocking));
        LAB_CHECK(cudaStreamCreateWithFlags(&q->b, cudaStreamNonBlocking));
        char name[16];
        snprintf(name, sizeof(name), "A%d", i);
        lab_name_stream(ctx, q->a, name);
        snprintf(name, sizeof(name), "B%d", i);
        lab_name_stream(ctx, q->b, name);
        LAB_CHECK(cudaEventCreateWithFlags(&q->fork_ev, cudaEventDisableTiming));
        LAB_CHECK(cudaEventCreateWithFlags(&q->join_ev, cudaEventDisableTiming));
        snprintf(name, sizeof(name), "fork_ev %d", i);
        lab_name_event(ctx, q->fork_ev, name);
        snprintf(name, sizeof(name), "join_ev %d", i);
        lab_name_event(ctx, q->join_ev, name);
        LAB_CHECK(cudaMalloc((void **)&q->d_buf, w->batch_bytes));
    }
    for (int i = 0; i < SETS; i++)
        if (make_graph(ctx, &sets[i]) != 0) return 1;
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int s = 0; s < w->batches; s++) {
        step_set *q = &sets[s % SETS];
        LAB_CHECK(cudaMemcpyAsync(q->d_buf, lab_input(ctx, s), w->batch_bytes, cudaMemcpyHostToDevice, q->a));
        LAB_CHECK(cudaGraphLaunch(q->graph, q->a));
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, s), q->d_buf, w->batch_bytes, cudaMemcpyDeviceToHost, q->a));
    }
    for (int i = 0; i < SETS; i++) LAB_CHECK(cudaStreamSynchronize(sets[i].a));
    return 0;
}

static void teardown(lab_ctx *ctx) {
    (void)ctx;
    for (int i = 0; i < SETS; i++) {
        step_set *q = &sets[i];
        if (q->graph) cudaGraphExecDestroy(q->graph);
        cudaEventDestroy(q->fork_ev);
        cudaEventDestroy(q->join_ev);
        cudaFree(q->d_buf);
        cudaStreamDestroy(q->a);
        cudaStreamDestroy(q->b);
    }
}

const lab_impl LAB_STUDENT = {setup, run, teardown};
