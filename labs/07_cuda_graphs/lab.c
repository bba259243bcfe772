/* labs/07_cuda_graphs/lab.c: YOUR FILE for lab 07, CUDA graphs.
 *
 * A step of the workload is a batch that goes up on stream A, then through two chains of
 * tiny kernels, the first half of the batch on A and the second half on B (B starts after
 * the upload and A waits for B before the download, through two events), then comes down
 * on A. The steps take turns between three sets of streams, events and device buffer, so
 * that one step's upload can run while the steps before it compute. run() does that for
 * every step, launching each kernel on its own. It is correct, and each launch costs the
 * host more time than the kernel takes on the GPU: the GPU spends most of the run waiting
 * for the CPU.
 *
 * Your job: record each set's kernels into a CUDA graph once and replay it with one
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

/* What one step uses. Step s runs on sets[s % SETS]. */
enum { SETS = 3 };
typedef struct step_set {
    cudaStream_t a, b;
    cudaEvent_t fork_ev, join_ev; /* B waits for the upload; A waits for B's chain */
    uint32_t *d_buf;              /* the step's batch on the device, processed in place */
    /* TODO 2: the set's executable graph, kept from setup() to run(). */
} step_set;
static step_set sets[SETS];

/* The step's kernels on set q: `w->steps` launches on each half, in place, B forked from A
 * and joined back. Inside a capture, the same calls record the graph's nodes instead. */
static int queue_chains(lab_ctx *ctx, step_set *q) {
    const lab_workload *w = lab_get_workload(ctx);
    size_t half = w->batch_elems / 2;
    LAB_CHECK(cudaEventRecord(q->fork_ev, q->a));
    LAB_CHECK(cudaStreamWaitEvent(q->b, q->fork_ev, 0));
    for (int k = 0; k < w->steps; k++) {
        LAB_CHECK(kernels_process(q->d_buf, q->d_buf, half, w->process, q->a));
        LAB_CHECK(kernels_process(q->d_buf + half, q->d_buf + half, w->batch_elems - half, w->process, q->b));
    }
    LAB_CHECK(cudaEventRecord(q->join_ev, q->b));
    LAB_CHECK(cudaStreamWaitEvent(q->a, q->join_ev, 0));
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
    /* TODO 2: capture and instantiate each set's graph here, once, instead of in run(). */
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    /* TODO 1: record each set's step kernels (not the copies) into a graph of its own,
     * once, before the loop. */
    for (int s = 0; s < w->batches; s++) {
        step_set *q = &sets[s % SETS];
        LAB_CHECK(cudaMemcpyAsync(q->d_buf, lab_input(ctx, s), w->batch_bytes, cudaMemcpyHostToDevice, q->a));
        /* TODO 1: replace these launches with one cudaGraphLaunch of the set's graph on A. */
        if (queue_chains(ctx, q) != 0) return 1;
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, s), q->d_buf, w->batch_bytes, cudaMemcpyDeviceToHost, q->a));
    }
    for (int i = 0; i < SETS; i++) LAB_CHECK(cudaStreamSynchronize(sets[i].a));
    return 0;
}

static void teardown(lab_ctx *ctx) {
    (void)ctx;
    for (int i = 0; i < SETS; i++) {
        step_set *q = &sets[i];
        /* TODO 2: destroy the set's executable graph (cudaGraphExecDestroy). */
        cudaEventDestroy(q->fork_ev);
        cudaEventDestroy(q->join_ev);
        cudaFree(q->d_buf);
        cudaStreamDestroy(q->a);
        cudaStreamDestroy(q->b);
    }
}

const lab_impl LAB_STUDENT = {setup, run, teardown};
