/* labs/05_cross_stream_races/lab.c: YOUR FILE for lab 05, cross-stream races.
 *
 * A three-stream pipeline: each batch goes up on "up", through the kernel on "compute",
 * and down on "down", two pairs of device buffers used in turn. It is as fast as such a
 * pipeline gets, and it is wrong: five hand-overs between streams have no order, or the
 * wrong one. Run it: the report lists the races (each with both operations, their streams
 * and the lines of this file that issued them), the timeline shows them, and on the
 * simulator the results come out wrong under some schedules, or all of them. Your job:
 * the least synchronisation that makes it right, and keeps it fast.
 * cudaDeviceSynchronize() after every batch is right, and too slow to pass.
 *
 * Run it:   bazel run //labs:05_cross_stream_races
 * Stuck?    bazel run //labs:05_cross_stream_races -- --hint   (a little more each time)
 * Lesson:   labs/05_cross_stream_races/README.md (the TODOs are numbered as there)
 *
 * The rules the checker enforces: every output bit must match the CPU oracle, in every
 * run and perturbed schedule; no two operations may touch the same bytes without an order
 * between them; run() must return with every result in lab_output(). */
#include "labs/harness/lab.h"

#define NBUF 2

static cudaStream_t up, compute, down;
static cudaEvent_t computed[NBUF];
static uint32_t *d_in[NBUF], *d_out[NBUF];
/* TODO 1, TODO 4: more events (one per buffer for each hand-over that needs one). */

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    LAB_CHECK(cudaStreamCreateWithFlags(&up, cudaStreamNonBlocking));
    LAB_CHECK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
    LAB_CHECK(cudaStreamCreateWithFlags(&down, cudaStreamNonBlocking));
    lab_name_stream(ctx, up, "up");
    lab_name_stream(ctx, compute, "compute");
    lab_name_stream(ctx, down, "down");
    for (int k = 0; k < NBUF; k++) {
        LAB_CHECK(cudaEventCreateWithFlags(&computed[k], cudaEventDisableTiming));
        char name[32]; /* the race reports then say event "computed[0]", not event 1 */
        snprintf(name, sizeof(name), "computed[%d]", k);
        lab_name_event(ctx, computed[k], name);
        LAB_CHECK(cudaMalloc((void **)&d_in[k], w->batch_bytes));
        LAB_CHECK(cudaMalloc((void **)&d_out[k], w->batch_bytes));
    }
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int b = 0; b < w->batches; b++) {
        int k = b % NBUF;
        /* TODO 3: d_in[k] was read by the kernel of batch b - 2. */
        LAB_CHECK(cudaMemcpyAsync(d_in[k], lab_input(ctx, b), w->batch_bytes, cudaMemcpyHostToDevice, up));
        /* TODO 1: the kernel reads d_in[k], which the upload on "up" writes. */
        /* TODO 4: d_out[k] was read by the download of batch b - 2. */
        LAB_CHECK(cudaEventRecord(computed[k], compute)); /* TODO 2: is this the right place? */
        LAB_CHECK(kernels_process(d_out[k], d_in[k], w->batch_elems, w->process, compute));
        LAB_CHECK(cudaStreamWaitEvent(down, computed[k], 0));
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, b), d_out[k], w->batch_bytes, cudaMemcpyDeviceToHost, down));
    }
    /* TODO 5: every result must be in lab_output() when run() returns. */
    LAB_CHECK(cudaStreamSynchronize(compute));
    return 0;
}

static void teardown(lab_ctx *ctx) {
    (void)ctx;
    for (int k = 0; k < NBUF; k++) {
        cudaEventDestroy(computed[k]);
        cudaFree(d_in[k]);
        cudaFree(d_out[k]);
    }
    cudaStreamDestroy(up);
    cudaStreamDestroy(compute);
    cudaStreamDestroy(down);
}

const lab_impl LAB_STUDENT = {setup, run, teardown};
