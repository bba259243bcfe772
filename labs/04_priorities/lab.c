/* labs/04_priorities/lab.c: YOUR FILE for lab 04, priorities.
 *
 * A long background job fills the GPU (lab_background queues it: thousands of blocks
 * that keep every SM busy for about 5 ms), and urgent requests arrive while it runs:
 * lab_wait_request(ctx, i) waits until request i is there (the harness decides when; its
 * input exists only from then on). As given, the requests go on a stream of their own,
 * created like the background's: correct, and every request waits milliseconds for the
 * background, though it needs tens of microseconds. Your job: keep the requests fast,
 * and the background done.
 *
 * Run it:   bazel run //labs:04_priorities
 * Stuck?    bazel run //labs:04_priorities -- --hint   (a little more each time)
 * Lesson:   labs/04_priorities/README.md (it says what you should see)
 *
 * The rules the checker enforces: every output bit must match the CPU oracle, no two
 * operations may touch the same bytes without an order between them, run() must return
 * with every request's result in lab_output(), and the background must be done in every
 * run, not much slower than the baseline's. */
#include "labs/harness/lab.h"

static cudaStream_t background_stream, request_stream;
static uint32_t *d_in, *d_out; /* one request's input and result on the device */

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    LAB_CHECK(cudaStreamCreateWithFlags(&background_stream, cudaStreamNonBlocking));
    /* TODO 1: the requests' stream, of the greatest priority this device offers. */
    LAB_CHECK(cudaStreamCreateWithFlags(&request_stream, cudaStreamNonBlocking));
    lab_name_stream(ctx, background_stream, "background");
    lab_name_stream(ctx, request_stream, "requests");
    LAB_CHECK(cudaMalloc((void **)&d_in, w->batch_bytes));
    LAB_CHECK(cudaMalloc((void **)&d_out, w->batch_bytes));
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    if (lab_background(ctx, background_stream) != 0) return 1;
    for (int i = 0; i < w->batches; i++) {
        lab_wait_request(ctx, i);
        LAB_CHECK(cudaMemcpyAsync(d_in, lab_input(ctx, i), w->batch_bytes, cudaMemcpyHostToDevice, request_stream));
        LAB_CHECK(kernels_process(d_out, d_in, w->batch_elems, w->process, request_stream));
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, i), d_out, w->batch_bytes, cudaMemcpyDeviceToHost, request_stream));
    }
    LAB_CHECK(cudaStreamSynchronize(request_stream));
    LAB_CHECK(cudaStreamSynchronize(background_stream));
    return 0;
}

static void teardown(lab_ctx *ctx) {
    (void)ctx;
    cudaFree(d_in);
    cudaFree(d_out);
    cudaStreamDestroy(background_stream);
    cudaStreamDestroy(request_stream);
}

const lab_impl LAB_STUDENT = {setup, run, teardown};
