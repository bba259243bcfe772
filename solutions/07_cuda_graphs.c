/* solutions/07_cuda_graphs.c: the reference for lab 07: the step captured once, replayed.
 *
 * Each kernel of the step runs for less time on the device than its launch costs the host,
 * so launching them one by one leaves the GPU waiting for the CPU. setup() records the
 * step's two chains into a graph once: a capture begun on A takes in B when B waits on an
 * event recorded on A during the capture (the fork), and B must be joined back (A waits on
 * an event recorded on B) before the capture ends. run() then submits the 64 kernels with
 * one cudaGraphLaunch a step, and the graph runs the two chains side by side.
 *
 * A graph freezes the arguments it was captured with. The kernels work in place on d_buf,
 * which setup() allocated and which never moves, so one graph serves every step of every
 * run; the copies read and write a different host buffer each step, so they stay outside
 * the graph and bring the new input into d_buf (and the result out) around each launch. */
#include "labs/harness/lab.h"

static cudaStream_t stream_a, stream_b;
static cudaEvent_t fork_ev, join_ev;
static uint32_t *d_buf;
static cudaGraphExec_t step_graph;

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    size_t half = w->batch_elems / 2;
    LAB_CHECK(cudaStreamCreateWithFlags(&stream_a, cudaStreamNonBlocking));
    LAB_CHECK(cudaStreamCreateWithFlags(&stream_b, cudaStreamNonBlocking));
    lab_name_stream(ctx, stream_a, "A");
    lab_name_stream(ctx, stream_b, "B");
    LAB_CHECK(cudaEventCreateWithFlags(&fork_ev, cudaEventDisableTiming));
    LAB_CHECK(cudaEventCreateWithFlags(&join_ev, cudaEventDisableTiming));
    lab_name_event(ctx, fork_ev, "fork_ev");
    lab_name_event(ctx, join_ev, "join_ev");
    LAB_CHECK(cudaMalloc((void **)&d_buf, w->batch_bytes));

    cudaGraph_t graph;
    LAB_CHECK(cudaStreamBeginCapture(stream_a, cudaStreamCaptureModeGlobal));
    LAB_CHECK(cudaEventRecord(fork_ev, stream_a));
    LAB_CHECK(cudaStreamWaitEvent(stream_b, fork_ev, 0));
    for (int k = 0; k < w->steps; k++) {
        LAB_CHECK(kernels_process(d_buf, d_buf, half, w->process, stream_a));
        LAB_CHECK(kernels_process(d_buf + half, d_buf + half, w->batch_elems - half, w->process, stream_b));
    }
    LAB_CHECK(cudaEventRecord(join_ev, stream_b));
    LAB_CHECK(cudaStreamWaitEvent(stream_a, join_ev, 0));
    LAB_CHECK(cudaStreamEndCapture(stream_a, &graph));
    LAB_CHECK(cudaGraphInstantiate(&step_graph, graph, 0));
    LAB_CHECK(cudaGraphDestroy(graph));
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int s = 0; s < w->batches; s++) {
        LAB_CHECK(cudaMemcpyAsync(d_buf, lab_input(ctx, s), w->batch_bytes, cudaMemcpyHostToDevice, stream_a));
        LAB_CHECK(cudaGraphLaunch(step_graph, stream_a));
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, s), d_buf, w->batch_bytes, cudaMemcpyDeviceToHost, stream_a));
    }
    LAB_CHECK(cudaStreamSynchronize(stream_a));
    return 0;
}

static void teardown(lab_ctx *ctx) {
    (void)ctx;
    if (step_graph) cudaGraphExecDestroy(step_graph);
    cudaEventDestroy(fork_ev);
    cudaEventDestroy(join_ev);
    cudaFree(d_buf);
    cudaStreamDestroy(stream_a);
    cudaStreamDestroy(stream_b);
}

const lab_impl LAB_STUDENT = {setup, run, teardown};
