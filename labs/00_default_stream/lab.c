/* labs/00_default_stream/lab.c: YOUR FILE for lab 00, the default stream.
 *
 * As given, every task runs on the legacy default stream (stream 0: what a call given no
 * stream, or 0, uses): correct, and strictly one task after the other, although the tasks
 * share nothing and each one's kernels leave most of the GPU idle. Your job: let the
 * tasks run at the same time.
 *
 * Run it:   bazel run //labs:00_default_stream
 * Stuck?    bazel run //labs:00_default_stream -- --hint   (a little more each time)
 * Lesson:   labs/00_default_stream/README.md (the TODOs are numbered as there, and it says
 *           what you should see after each one)
 *
 * The rules the checker enforces: every output bit must match the CPU oracle, no two
 * operations may touch the same bytes without an order between them, and run() must
 * return with every result in lab_output(). */
#include "labs/harness/lab.h"

#define MAX_TASKS 64
#define STATS_BYTES 4096

static cudaStream_t streams[MAX_TASKS]; /* one per task, once you make them (TODO 1) */
static uint32_t *d_data[MAX_TASKS];     /* each task's values on the device */
static uint32_t *d_stats;               /* the program's statistics, cleared between tasks */

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int t = 0; t < w->batches; t++) {
        LAB_CHECK(cudaMalloc((void **)&d_data[t], w->batch_bytes));
        /* TODO 1: give task t a stream of its own in streams[t] (and a name on the
         *         timeline: lab_name_stream(ctx, streams[t], "task 0"), ...).
         * TODO 2: after TODO 1, run the lab and look at the stream 0 lane. Then choose how
         *         your streams are created so that stream 0 cannot hold them back. */
    }
    LAB_CHECK(cudaMalloc((void **)&d_stats, STATS_BYTES));
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int t = 0; t < w->batches; t++) {
        cudaStream_t s = 0; /* TODO 1: task t's work goes on task t's stream */
        LAB_CHECK(cudaMemcpyAsync(d_data[t], lab_input(ctx, t), w->batch_bytes, cudaMemcpyHostToDevice, s));
        for (int k = 0; k < w->steps; k++)
            LAB_CHECK(kernels_process(d_data[t], d_data[t], w->batch_elems, w->process, s));
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, t), d_data[t], w->batch_bytes, cudaMemcpyDeviceToHost, s));

        /* Bookkeeping between tasks: clear the statistics block, on stream 0. It stands for
         * code that is not yours (a library, a logger): leave it on stream 0. */
        LAB_CHECK(cudaMemsetAsync(d_stats, 0, STATS_BYTES, 0));
    }
    /* TODO 3: every result must be in lab_output() when run() returns. What does this
     *         wait for, once your streams no longer synchronise with stream 0? */
    LAB_CHECK(cudaStreamSynchronize(0));
    return 0;
}

static void teardown(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int t = 0; t < w->batches; t++) {
        cudaFree(d_data[t]);
        if (streams[t]) cudaStreamDestroy(streams[t]);
    }
    cudaFree(d_stats);
}

const lab_impl LAB_STUDENT = {setup, run, teardown};
