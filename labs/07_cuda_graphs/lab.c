/* labs/07_cuda_graphs/lab.c: YOUR FILE for lab 07, CUDA graphs.
 *
 * A step of the workload is a batch that goes up on stream A, then through two chains of
 * tiny kernels, the first half of the batch on A and the second half on B (B starts after
 * the upload and A waits for B before the download, through two events), then comes down
 * on A. run() does that for every step, launching each kernel on its own. It is correct,
 * and each launch costs the host more time than the kernel takes on the GPU: the GPU
 * spends most of the run waiting for the CPU.
 *
 * Your job: record the step's kernels into a CUDA graph once and replay it with one
 * launch per step.
 *
 * Run it:   bazel run //labs:07_cuda_graphs
 * Stuck?    bazel run //labs:07_cuda_graphs -- --hint   (a little more each time)
 * Lesson:   labs/07_cuda_graphs/README.md (the TODOs are numbered as there, and it says
 *           what you should see after each one)
 *
 * The rules the checker enforces: every output bit must match the CPU oracle, no two
 * operations may touch the same bytes without an order between them, and run() must
 * return with every result in lab_output(). */
#include "labs/harness/lab.h"

static cudaStream_t stream_a, stream_b;
static cudaEvent_t fork_ev, join_ev; /* B waits for the upload; A waits for B's chain */
static uint32_t *d_buf;              /* the step's batch on the device, processed in place */
/* TODO 2: the executable graph, kept from setup() to run(). */

/* The step's kernels: `w->steps` launches on each half, in place, B forked from A and
 * joined back. Inside a capture, the same calls record the graph's nodes instead. */
static int queue_chains(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    size_t half = w->batch_elems / 2;
    LAB_CHECK(cudaEventRecord(fork_ev, stream_a));
    LAB_CHECK(cudaStreamWaitEvent(stream_b, fork_ev, 0));
    for (int k = 0; k < w->steps; k++) {
        LAB_CHECK(kernels_process(d_buf, d_buf, half, w->process, stream_a));
        LAB_CHECK(kernels_process(d_buf + half, d_buf + half, w->batch_elems - half, w->process, stream_b));
    }
    LAB_CHECK(cudaEventRecord(join_ev, stream_b));
    LAB_CHECK(cudaStreamWaitEvent(stream_a, join_ev, 0));
    return 0;
}

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    LAB_CHECK(cudaStreamCreateWithFlags(&stream_a, cudaStreamNonBlocking));
    LAB_CHECK(cudaStreamCreateWithFlags(&stream_b, cudaStreamNonBlocking));
    lab_name_stream(ctx, stream_a, "A");
    lab_name_stream(ctx, stream_b, "B");
    LAB_CHECK(cudaEventCreateWithFlags(&fork_ev, cudaEventDisableTiming));
    LAB_CHECK(cudaEventCreateWithFlags(&join_ev, cudaEventDisableTiming));
    lab_name_event(ctx, fork_ev, "fork_ev");
    lab_name_event(ctx, join_ev, "join_ev");
    LAB_CHECK(cudaMalloc((void **)&d_buf, w->batch_bytes));
    /* TODO 2: capture and instantiate the graph here, once, instead of in run(). */
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    /* TODO 1: record the step's kernels (not the copies) into a graph once, before the loop. */
    for (int s = 0; s < w->batches; s++) {
        LAB_CHECK(cudaMemcpyAsync(d_buf, lab_input(ctx, s), w->batch_bytes, cudaMemcpyHostToDevice, stream_a));
        /* TODO 1: replace these launches with one cudaGraphLaunch of your graph on A. */
        if (queue_chains(ctx) != 0) return 1;
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, s), d_buf, w->batch_bytes, cudaMemcpyDeviceToHost, stream_a));
    }
    LAB_CHECK(cudaStreamSynchronize(stream_a));
    return 0;
}

static void teardown(lab_ctx *ctx) {
    (void)ctx;
    /* TODO 2: destroy the executable graph (cudaGraphExecDestroy). */
    cudaEventDestroy(fork_ev);
    cudaEventDestroy(join_ev);
    cudaFree(d_buf);
    cudaStreamDestroy(stream_a);
    cudaStreamDestroy(stream_b);
}

const lab_impl LAB_STUDENT = {setup, run, teardown};
