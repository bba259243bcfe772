/* labs/07_cuda_graphs/testdata/variants.c: what students write on the way through lab 07,
 * for the tests (its lab_test.cc) and for checking the verdicts on a real GPU. One
 * variant per build, chosen with -DLAB_VARIANT_<NAME>; without one, the reference's shape:
 *
 *   GRAPH_PER_STEP        the step captured, instantiated and launched anew in every step
 *                         of run(): correct, and the capture and instantiation cost more
 *                         host time than they save (below target, TODO 1 not done).
 *   REBUILT_GRAPH         TODO 1 only: the graph captured once per run(), before the loop,
 *                         and replayed every step; its instantiation is paid in every timed
 *                         run (below target: the expected state after TODO 1).
 *   ONE_STREAM_GRAPH      the graph made once in setup(), but both chains captured on
 *                         stream A: a graph keeps only the concurrency it was captured
 *                         with, so the chains run one after the other (below target).
 *   COPIES_IN_GRAPH       the copies captured into the graph in setup(), with step 0's
 *                         host buffers: every replay uploads step 0 and writes step 0's
 *                         result; the other steps' outputs are never written (incorrect).
 *   SETUP_GRAPH_SYNCED    the graph made once in setup(), as the reference, and
 *                         cudaStreamSynchronize(A) after every upload and every step "to be
 *                         sure it is done": the host waits twice a step, and the device
 *                         waits for the host's next call each time (below target; both
 *                         TODOs done).
 *   STAGED_GRAPH          the copies captured into the graph too, made in setup() through
 *                         two pinned staging buffers of its own: every step memcpy()s the
 *                         step's input into the upload's buffer, launches the graph, waits
 *                         for it (cudaStreamSynchronize) and memcpy()s the result out of the
 *                         download's buffer into lab_output. A result must be the device's
 *                         work: the host's store into lab_output is refused, and run()
 *                         crashes with a message that names the batch (error).
 *   SYNC_IN_CAPTURE       cudaStreamSynchronize on a capturing stream, "to be sure B is
 *                         done": the capture refuses it (cudaErrorStreamCaptureUnsupported)
 *                         and setup() fails (error).
 *   NOT_JOINED            B forked into the capture but never joined back (A does not wait
 *                         on an event recorded on B): cudaStreamEndCapture fails with
 *                         cudaErrorStreamCaptureUnjoined (error).
 *   FORK_OUTSIDE_CAPTURE  the fork event recorded before cudaStreamBeginCapture: B never
 *                         joins the capture, its kernels run at once, and A's wait on B's
 *                         event depends on work outside the capture:
 *                         cudaErrorStreamCaptureIsolation (error).
 *
 * (No variant name ends in _run: the launcher of a lab named NN_topic_run is the one
 * without the timeline, labs/lab.bzl.) */
#include <string.h>

#include "labs/harness/lab.h"

static cudaStream_t stream_a, stream_b;
static cudaEvent_t fork_ev, join_ev;
static uint32_t *d_buf;
static cudaGraphExec_t step_graph;
#if defined(LAB_VARIANT_STAGED_GRAPH)
static uint32_t *stage_in, *stage_out; /* pinned: the graph's copies read and write them */
#endif

/* The step's kernels, as the skeleton's queue_chains (with the variants' slips). */
static int queue_chains(lab_ctx *ctx, cudaStream_t second) {
    const lab_workload *w = lab_get_workload(ctx);
    size_t half = w->batch_elems / 2;
#if !defined(LAB_VARIANT_FORK_OUTSIDE_CAPTURE)
    LAB_CHECK(cudaEventRecord(fork_ev, stream_a));
#endif
    LAB_CHECK(cudaStreamWaitEvent(second, fork_ev, 0));
    for (int k = 0; k < w->steps; k++) {
        LAB_CHECK(kernels_process(d_buf, d_buf, half, w->process, stream_a));
        LAB_CHECK(kernels_process(d_buf + half, d_buf + half, w->batch_elems - half, w->process, second));
    }
#if defined(LAB_VARIANT_SYNC_IN_CAPTURE)
    LAB_CHECK(cudaStreamSynchronize(stream_b)); /* refused: B is capturing */
#endif
    LAB_CHECK(cudaEventRecord(join_ev, second));
#if !defined(LAB_VARIANT_NOT_JOINED)
    LAB_CHECK(cudaStreamWaitEvent(stream_a, join_ev, 0));
#endif
    return 0;
}

/* Captures the step (with the copies of step 0, for COPIES_IN_GRAPH) into step_graph. */
static int make_graph(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    cudaStream_t second = stream_b;
#if defined(LAB_VARIANT_ONE_STREAM_GRAPH)
    second = stream_a;
#endif
    (void)w;
#if defined(LAB_VARIANT_FORK_OUTSIDE_CAPTURE)
    LAB_CHECK(cudaEventRecord(fork_ev, stream_a)); /* too early: outside the capture */
#endif
    cudaGraph_t graph;
    LAB_CHECK(cudaStreamBeginCapture(stream_a, cudaStreamCaptureModeGlobal));
#if defined(LAB_VARIANT_COPIES_IN_GRAPH)
    LAB_CHECK(cudaMemcpyAsync(d_buf, lab_input(ctx, 0), w->batch_bytes, cudaMemcpyHostToDevice, stream_a));
#elif defined(LAB_VARIANT_STAGED_GRAPH)
    LAB_CHECK(cudaMemcpyAsync(d_buf, stage_in, w->batch_bytes, cudaMemcpyHostToDevice, stream_a));
#endif
    if (queue_chains(ctx, second) != 0) return 1;
#if defined(LAB_VARIANT_COPIES_IN_GRAPH)
    LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, 0), d_buf, w->batch_bytes, cudaMemcpyDeviceToHost, stream_a));
#elif defined(LAB_VARIANT_STAGED_GRAPH)
    LAB_CHECK(cudaMemcpyAsync(stage_out, d_buf, w->batch_bytes, cudaMemcpyDeviceToHost, stream_a));
#endif
    LAB_CHECK(cudaStreamEndCapture(stream_a, &graph));
    LAB_CHECK(cudaGraphInstantiate(&step_graph, graph, 0));
    LAB_CHECK(cudaGraphDestroy(graph));
    return 0;
}

#if defined(LAB_VARIANT_GRAPH_PER_STEP) || defined(LAB_VARIANT_REBUILT_GRAPH)
#define GRAPH_IN_SETUP 0
#else
#define GRAPH_IN_SETUP 1
#endif

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    LAB_CHECK(cudaStreamCreateWithFlags(&stream_a, cudaStreamNonBlocking));
    LAB_CHECK(cudaStreamCreateWithFlags(&stream_b, cudaStreamNonBlocking));
    lab_name_stream(ctx, stream_a, "A");
    lab_name_stream(ctx, stream_b, "B");
    LAB_CHECK(cudaEventCreateWithFlags(&fork_ev, cudaEventDisableTiming));
    LAB_CHECK(cudaEventCreateWithFlags(&join_ev, cudaEventDisableTiming));
    LAB_CHECK(cudaMalloc((void **)&d_buf, w->batch_bytes));
#if defined(LAB_VARIANT_STAGED_GRAPH)
    LAB_CHECK(cudaMallocHost((void **)&stage_in, w->batch_bytes));
    LAB_CHECK(cudaMallocHost((void **)&stage_out, w->batch_bytes));
#endif
    if (GRAPH_IN_SETUP && make_graph(ctx) != 0) return 1;
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
#if defined(LAB_VARIANT_REBUILT_GRAPH)
    if (make_graph(ctx) != 0) return 1;
#endif
    for (int s = 0; s < w->batches; s++) {
#if defined(LAB_VARIANT_STAGED_GRAPH)
        memcpy(stage_in, lab_input(ctx, s), w->batch_bytes);
        LAB_CHECK(cudaGraphLaunch(step_graph, stream_a));
        LAB_CHECK(cudaStreamSynchronize(stream_a)); /* stage_out holds this step's result */
        memcpy(lab_output(ctx, s), stage_out, w->batch_bytes);
        continue;
#endif
#if !defined(LAB_VARIANT_COPIES_IN_GRAPH)
        LAB_CHECK(cudaMemcpyAsync(d_buf, lab_input(ctx, s), w->batch_bytes, cudaMemcpyHostToDevice, stream_a));
#endif
#if defined(LAB_VARIANT_SETUP_GRAPH_SYNCED)
        LAB_CHECK(cudaStreamSynchronize(stream_a)); /* to be sure the upload is done */
#endif
#if defined(LAB_VARIANT_GRAPH_PER_STEP)
        if (make_graph(ctx) != 0) return 1;
#endif
        LAB_CHECK(cudaGraphLaunch(step_graph, stream_a));
#if defined(LAB_VARIANT_GRAPH_PER_STEP)
        LAB_CHECK(cudaGraphExecDestroy(step_graph)); /* the launch already holds what it needs */
        step_graph = NULL;
#endif
#if !defined(LAB_VARIANT_COPIES_IN_GRAPH)
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, s), d_buf, w->batch_bytes, cudaMemcpyDeviceToHost, stream_a));
#endif
#if defined(LAB_VARIANT_SETUP_GRAPH_SYNCED)
        LAB_CHECK(cudaStreamSynchronize(stream_a)); /* to be sure the step is done */
#endif
    }
    LAB_CHECK(cudaStreamSynchronize(stream_a)); /* every step queued */
#if defined(LAB_VARIANT_REBUILT_GRAPH)
    LAB_CHECK(cudaGraphExecDestroy(step_graph));
    step_graph = NULL;
#endif
    return 0;
}

static void teardown(lab_ctx *ctx) {
    (void)ctx;
    if (step_graph) cudaGraphExecDestroy(step_graph);
#if defined(LAB_VARIANT_STAGED_GRAPH)
    cudaFreeHost(stage_in);
    cudaFreeHost(stage_out);
#endif
    cudaEventDestroy(fork_ev);
    cudaEventDestroy(join_ev);
    cudaFree(d_buf);
    cudaStreamDestroy(stream_a);
    cudaStreamDestroy(stream_b);
}

const lab_impl LAB_STUDENT = {setup, run, teardown};
