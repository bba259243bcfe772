/* labs/07_cuda_graphs/testdata/variants.c: what students write on the way through lab 07,
 * for the tests (its lab_test.cc) and for checking the verdicts on a real GPU. One
 * variant per build, chosen with -DLAB_VARIANT_<NAME>; without one, the reference's shape
 * (step s on set s % SETS of streams, events, buffer and graph, each set's graph made once):
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
 *   COPIES_IN_GRAPH       the copies captured into each set's graph in setup(), with the
 *                         host buffers of steps 0, 1 and 2: every replay uploads and
 *                         writes one of those three; the other steps' outputs are never
 *                         written (incorrect).
 *   SETUP_GRAPH_SYNCED    the graphs made once in setup(), as the reference, and
 *                         cudaStreamSynchronize(A) after every upload and every step "to be
 *                         sure it is done": the host waits twice a step, and the device
 *                         waits for the host's next call each time (below target; both
 *                         TODOs done).
 *   STEP_SYNCED           the same with one wait a step, after its download: no step
 *                         overlaps the next, and the device idles through every round trip
 *                         (below target; both TODOs done).
 *   PAIR_SYNCED           the graphs made once, and cudaDeviceSynchronize after every
 *                         second step: two steps overlap, then the device drains and
 *                         waits for the host (below target).
 *   WAIT_BEFORE_REUSE     the graphs made once, and the host waits for a set's stream
 *                         before each upload into its buffer (for the step three back):
 *                         the other sets' steps are queued behind it, so the device does
 *                         not idle (correct, passes: a wait that costs little).
 *   ONE_SET               every step on set 0: one buffer, one graph, each step behind
 *                         the one before it on A0 (below target; both TODOs done).
 *   TWO_SETS              the reference with two sets instead of three (step s on set
 *                         s % 2): correct, and a step's upload waits on its stream for the
 *                         step two back to come down, so only two steps are ever on the
 *                         device (below target; both TODOs done).
 *   LAUNCH_ON_B           the graphs made once in setup(), each step's launched on the set's
 *                         stream B ("A is busy with the copies") with nothing ordering it
 *                         after the upload on A or before the download: the kernels read the
 *                         batch before it is up (racy, wrong). Every race's fix is to order
 *                         the launch on B with the copies on A; none names the fork event the
 *                         graph records and waits on between its own nodes, which the program
 *                         placed in the capture.
 *   INSTANTIATE_EACH_STEP each set's step captured once in setup() (the cudaGraph_t kept),
 *                         and an executable graph instantiated from it for every step of
 *                         run(), launched, and destroyed after the final wait: the capture
 *                         is made once, the instantiation every step (below target, TODO 1
 *                         not done).
 *   ONE_GRAPH             one graph, captured on set 0's buffer, launched for the steps of
 *                         every set: a graph works on the buffer it was captured with, so
 *                         the other sets' steps compute set 0's buffer again, beside set
 *                         0's own steps (incorrect).
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
 *   FREED_BEFORE_REPLAY   the graphs made once in setup(), and run() starts "from fresh
 *                         buffers": each set gets a new one and the one its graph was
 *                         captured with is freed, then the graph is launched. A graph keeps
 *                         the addresses it was captured with: the referee refuses the
 *                         launch, naming the buffer and the line that freed it (error; the
 *                         referee itself once crashed running the kernels on freed memory).
 *   RECAPTURED_AFTER_REALLOC  the same fresh buffers, and each set's graph captured again
 *                         on its new buffer (the old executable graph destroyed): correct,
 *                         and the graphs are made in every run (below target).
 *
 * (No variant name ends in _run: the launcher of a lab named NN_topic_run is the one
 * without the timeline, labs/lab.bzl.) */
#include <string.h>

#include "labs/harness/lab.h"

/* Three sets, step s on set s % SETS: while one step computes, the next ones' uploads run. */
#if defined(LAB_VARIANT_TWO_SETS)
enum { SETS = 2 }; /* "two are enough to overlap" */
#else
enum { SETS = 3 };
#endif
typedef struct step_set {
    cudaStream_t a, b;
    cudaEvent_t fork_ev, join_ev;
    uint32_t *d_buf;
    cudaGraphExec_t graph;
#if defined(LAB_VARIANT_INSTANTIATE_EACH_STEP)
    cudaGraph_t captured; /* the set's step, captured once in setup() */
#endif
#if defined(LAB_VARIANT_STAGED_GRAPH)
    uint32_t *stage_in, *stage_out; /* pinned: the graph's copies read and write them */
#endif
} step_set;
static step_set sets[SETS];
#if defined(LAB_VARIANT_INSTANTIATE_EACH_STEP)
enum { MAX_STEPS = 256 };
static cudaGraphExec_t execs[MAX_STEPS]; /* step s's executable graph */
#endif

/* The step's kernels, as the skeleton's queue_chains (with the variants' slips). */
static int queue_chains(lab_ctx *ctx, step_set *q, cudaStream_t second) {
    const lab_workload *w = lab_get_workload(ctx);
    size_t half = w->batch_elems / 2;
#if !defined(LAB_VARIANT_FORK_OUTSIDE_CAPTURE)
    LAB_CHECK(cudaEventRecord(q->fork_ev, q->a));
#endif
    LAB_CHECK(cudaStreamWaitEvent(second, q->fork_ev, 0));
    for (int k = 0; k < w->steps; k++) {
        LAB_CHECK(kernels_process(q->d_buf, q->d_buf, half, w->process, q->a));
        LAB_CHECK(kernels_process(q->d_buf + half, q->d_buf + half, w->batch_elems - half, w->process, second));
    }
#if defined(LAB_VARIANT_SYNC_IN_CAPTURE)
    LAB_CHECK(cudaStreamSynchronize(q->b)); /* refused: B is capturing */
#endif
    LAB_CHECK(cudaEventRecord(q->join_ev, second));
#if !defined(LAB_VARIANT_NOT_JOINED)
    LAB_CHECK(cudaStreamWaitEvent(q->a, q->join_ev, 0));
#endif
    return 0;
}

/* Captures the step of set `set` (with the copies of step `set`, for COPIES_IN_GRAPH) into its graph. */
static int make_graph(lab_ctx *ctx, int set) {
    const lab_workload *w = lab_get_workload(ctx);
    step_set *q = &sets[set];
    cudaStream_t second = q->b;
#if defined(LAB_VARIANT_ONE_STREAM_GRAPH)
    second = q->a;
#endif
    (void)w;
#if defined(LAB_VARIANT_FORK_OUTSIDE_CAPTURE)
    LAB_CHECK(cudaEventRecord(q->fork_ev, q->a)); /* too early: outside the capture */
#endif
    cudaGraph_t graph;
    LAB_CHECK(cudaStreamBeginCapture(q->a, cudaStreamCaptureModeGlobal));
#if defined(LAB_VARIANT_COPIES_IN_GRAPH)
    LAB_CHECK(cudaMemcpyAsync(q->d_buf, lab_input(ctx, set), w->batch_bytes, cudaMemcpyHostToDevice, q->a));
#elif defined(LAB_VARIANT_STAGED_GRAPH)
    LAB_CHECK(cudaMemcpyAsync(q->d_buf, q->stage_in, w->batch_bytes, cudaMemcpyHostToDevice, q->a));
#endif
    if (queue_chains(ctx, q, second) != 0) return 1;
#if defined(LAB_VARIANT_COPIES_IN_GRAPH)
    LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, set), q->d_buf, w->batch_bytes, cudaMemcpyDeviceToHost, q->a));
#elif defined(LAB_VARIANT_STAGED_GRAPH)
    LAB_CHECK(cudaMemcpyAsync(q->stage_out, q->d_buf, w->batch_bytes, cudaMemcpyDeviceToHost, q->a));
#endif
    LAB_CHECK(cudaStreamEndCapture(q->a, &graph)); /* the capture ends */
#if defined(LAB_VARIANT_INSTANTIATE_EACH_STEP)
    q->captured = graph; /* instantiated in run(), for every step */
    return 0;
#endif
    LAB_CHECK(cudaGraphInstantiate(&q->graph, graph, 0));
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
        LAB_CHECK(cudaMalloc((void **)&q->d_buf, w->batch_bytes));
#if defined(LAB_VARIANT_STAGED_GRAPH)
        LAB_CHECK(cudaMallocHost((void **)&q->stage_in, w->batch_bytes));
        LAB_CHECK(cudaMallocHost((void **)&q->stage_out, w->batch_bytes));
#endif
    }
    for (int i = 0; i < SETS; i++) {
#if defined(LAB_VARIANT_ONE_GRAPH)
        if (i > 0) continue; /* "the graph is the same for every set" */
#endif
        if (GRAPH_IN_SETUP && make_graph(ctx, i) != 0) return 1;
    }
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
#if defined(LAB_VARIANT_REBUILT_GRAPH)
    for (int i = 0; i < SETS; i++)
        if (make_graph(ctx, i) != 0) return 1;
#endif
#if defined(LAB_VARIANT_FREED_BEFORE_REPLAY) || defined(LAB_VARIANT_RECAPTURED_AFTER_REALLOC)
    for (int i = 0; i < SETS; i++) { /* start every run from fresh buffers */
        uint32_t *fresh;
        LAB_CHECK(cudaMalloc((void **)&fresh, w->batch_bytes));
        LAB_CHECK(cudaFree(sets[i].d_buf)); /* the graph's buffer, freed */
        sets[i].d_buf = fresh;
#if defined(LAB_VARIANT_RECAPTURED_AFTER_REALLOC)
        LAB_CHECK(cudaGraphExecDestroy(sets[i].graph));
        if (make_graph(ctx, i) != 0) return 1; /* on the fresh buffer */
#endif
    }
#endif
    for (int s = 0; s < w->batches; s++) {
#if defined(LAB_VARIANT_ONE_SET)
        step_set *q = &sets[0]; /* "one graph is enough" */
#else
        step_set *q = &sets[s % SETS];
#endif
#if defined(LAB_VARIANT_STAGED_GRAPH)
        memcpy(q->stage_in, lab_input(ctx, s), w->batch_bytes);
        LAB_CHECK(cudaGraphLaunch(q->graph, q->a));
        LAB_CHECK(cudaStreamSynchronize(q->a)); /* stage_out holds this step's result */
        memcpy(lab_output(ctx, s), q->stage_out, w->batch_bytes);
        continue;
#endif
#if defined(LAB_VARIANT_WAIT_BEFORE_REUSE)
        LAB_CHECK(cudaStreamSynchronize(q->a)); /* the set's last step is done: its buffer is free */
#endif
#if !defined(LAB_VARIANT_COPIES_IN_GRAPH)
        LAB_CHECK(cudaMemcpyAsync(q->d_buf, lab_input(ctx, s), w->batch_bytes, cudaMemcpyHostToDevice, q->a));
#endif
#if defined(LAB_VARIANT_SETUP_GRAPH_SYNCED)
        LAB_CHECK(cudaStreamSynchronize(q->a)); /* to be sure the upload is done */
#endif
#if defined(LAB_VARIANT_GRAPH_PER_STEP)
        if (make_graph(ctx, s % SETS) != 0) return 1;
#endif
#if defined(LAB_VARIANT_INSTANTIATE_EACH_STEP)
        if (s >= MAX_STEPS) return 1;
        LAB_CHECK(cudaGraphInstantiate(&execs[s], q->captured, 0)); /* an executable graph a step */
        q->graph = execs[s];
#endif
#if defined(LAB_VARIANT_ONE_GRAPH)
        LAB_CHECK(cudaGraphLaunch(sets[0].graph, q->a));
#elif defined(LAB_VARIANT_LAUNCH_ON_B)
        LAB_CHECK(cudaGraphLaunch(q->graph, q->b)); /* "copies on A, compute on B" */
#else
        LAB_CHECK(cudaGraphLaunch(q->graph, q->a)); /* the set's graph, on its A */
#endif
#if defined(LAB_VARIANT_GRAPH_PER_STEP)
        LAB_CHECK(cudaGraphExecDestroy(q->graph)); /* the launch already holds what it needs */
        q->graph = NULL;
#endif
#if !defined(LAB_VARIANT_COPIES_IN_GRAPH)
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, s), q->d_buf, w->batch_bytes, cudaMemcpyDeviceToHost, q->a));
#endif
#if defined(LAB_VARIANT_SETUP_GRAPH_SYNCED) || defined(LAB_VARIANT_STEP_SYNCED)
        LAB_CHECK(cudaStreamSynchronize(q->a)); /* to be sure the step is done */
#endif
#if defined(LAB_VARIANT_PAIR_SYNCED)
        if (s % 2 == 1) LAB_CHECK(cudaDeviceSynchronize()); /* the last two steps are done */
#endif
    }
    for (int i = 0; i < SETS; i++) LAB_CHECK(cudaStreamSynchronize(sets[i].a)); /* every step queued */
#if defined(LAB_VARIANT_LAUNCH_ON_B)
    for (int i = 0; i < SETS; i++) LAB_CHECK(cudaStreamSynchronize(sets[i].b));
#endif
#if defined(LAB_VARIANT_INSTANTIATE_EACH_STEP)
    for (int s = 0; s < w->batches && s < MAX_STEPS; s++) {
        LAB_CHECK(cudaGraphExecDestroy(execs[s]));
        execs[s] = NULL;
    }
    for (int i = 0; i < SETS; i++) sets[i].graph = NULL;
#endif
#if defined(LAB_VARIANT_REBUILT_GRAPH)
    for (int i = 0; i < SETS; i++) {
        LAB_CHECK(cudaGraphExecDestroy(sets[i].graph));
        sets[i].graph = NULL;
    }
#endif
    return 0;
}

static void teardown(lab_ctx *ctx) {
    (void)ctx;
    for (int i = 0; i < SETS; i++) {
        step_set *q = &sets[i];
        if (q->graph) cudaGraphExecDestroy(q->graph);
#if defined(LAB_VARIANT_INSTANTIATE_EACH_STEP)
        if (q->captured) cudaGraphDestroy(q->captured);
#endif
#if defined(LAB_VARIANT_STAGED_GRAPH)
        cudaFreeHost(q->stage_in);
        cudaFreeHost(q->stage_out);
#endif
        cudaEventDestroy(q->fork_ev);
        cudaEventDestroy(q->join_ev);
        cudaFree(q->d_buf);
        cudaStreamDestroy(q->a);
        cudaStreamDestroy(q->b);
    }
}

const lab_impl LAB_STUDENT = {setup, run, teardown};
