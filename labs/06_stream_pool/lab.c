/* labs/06_stream_pool/lab.c: YOUR FILE for lab 06, a stream pool.
 *
 * A server on the GPU: independent inference-like requests arrive while run() runs
 * (lab_wait_request(ctx, i) waits until request i is there; the harness decides when, and
 * its input exists only from then on). Each request goes up, through a few kernels, and
 * comes down. As given, one stream serves them one at a time with one set of device
 * buffers: correct, and a request takes longer than the gap between two arrivals, so the
 * requests queue and the last ones wait milliseconds. Your job: serve several requests at
 * once, so each takes about as long as it would alone.
 *
 * Run it:   bazel run //labs:06_stream_pool
 * Stuck?    bazel run //labs:06_stream_pool -- --hint   (a little more each time)
 * Lesson:   labs/06_stream_pool/README.md (the TODOs are numbered as there, and it says
 *           what you should see after each one)
 *
 * The rules the checker enforces: every output bit must match the CPU oracle, no two
 * operations may touch the same bytes without an order between them, and run() must
 * return with every request's result in lab_output(). */
#include "labs/harness/lab.h"

/* TODO 1: a pool of streams (how many requests are in flight at once?). */
static cudaStream_t stream;
/* TODO 2: a set of buffers for each stream of the pool. */
static uint32_t *d_in, *d_out; /* one request's input and result on the device */

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    LAB_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    lab_name_stream(ctx, stream, "server");
    LAB_CHECK(cudaMalloc((void **)&d_in, w->batch_bytes));
    LAB_CHECK(cudaMalloc((void **)&d_out, w->batch_bytes));
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int i = 0; i < w->batches; i++) {
        lab_wait_request(ctx, i);
        /* TODO 1: queue request i on the next stream of the pool. TODO 2: with that
         * stream's buffers. */
        LAB_CHECK(cudaMemcpyAsync(d_in, lab_input(ctx, i), w->batch_bytes, cudaMemcpyHostToDevice, stream));
        LAB_CHECK(kernels_process(d_out, d_in, w->batch_elems, w->process, stream));
        for (int k = 1; k < w->steps; k++) LAB_CHECK(kernels_process(d_out, d_out, w->batch_elems, w->process, stream));
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, i), d_out, w->batch_bytes, cudaMemcpyDeviceToHost, stream));
    }
    /* TODO 1: wait for every stream of the pool. */
    LAB_CHECK(cudaStreamSynchronize(stream));
    return 0;
}

static void teardown(lab_ctx *ctx) {
    (void)ctx;
    cudaFree(d_in);
    cudaFree(d_out);
    cudaStreamDestroy(stream);
}

const lab_impl LAB_STUDENT = {setup, run, teardown};
