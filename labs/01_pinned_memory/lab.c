/* labs/01_pinned_memory/lab.c: YOUR FILE for lab 01, pinned memory.
 *
 * The harness keeps each batch's input and output in ordinary pageable memory (malloc),
 * as data read from a file or handed over by a framework is. As given, every batch is
 * copied straight from and to that memory on one stream: correct, and slow, because the
 * driver stages every pageable copy through a small pinned buffer of its own, and the
 * call may hold the host until it is done (it did on an H200). Your job: move the data at
 * the rate the link can carry.
 *
 * Run it:   bazel run //labs:01_pinned_memory
 * Stuck?    bazel run //labs:01_pinned_memory -- --hint   (a little more each time)
 * Lesson:   labs/01_pinned_memory/README.md (the TODOs are numbered as there, and it says
 *           what you should see after each one)
 *
 * The rules the checker enforces: every output bit must match the CPU oracle, no two
 * operations may touch the same bytes without an order between them, and run() must
 * return with every result in lab_output(). setup() and teardown() are not timed; run() is. */
#include "labs/harness/lab.h"

static cudaStream_t stream;
static uint32_t *d_in, *d_out; /* one batch's input and result on the device */

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    LAB_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    lab_name_stream(ctx, stream, "copies");
    LAB_CHECK(cudaMalloc((void **)&d_in, w->batch_bytes));
    LAB_CHECK(cudaMalloc((void **)&d_out, w->batch_bytes));
    /* TODO 1: the harness's buffers, lab_input(ctx, b) and lab_output(ctx, b) for every
     *         batch b, are pageable. Page-lock them here, once (and undo it in teardown). */
    /* TODO 2: after TODO 1, give each batch a stream and device buffers of its own. */
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int b = 0; b < w->batches; b++) {
        /* TODO 2: batch b's work on batch b's stream, with batch b's device buffers. */
        LAB_CHECK(cudaMemcpyAsync(d_in, lab_input(ctx, b), w->batch_bytes, cudaMemcpyHostToDevice, stream));
        LAB_CHECK(kernels_process(d_out, d_in, w->batch_elems, w->process, stream));
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, b), d_out, w->batch_bytes, cudaMemcpyDeviceToHost, stream));
    }
    /* TODO 2: wait for every stream you used. */
    LAB_CHECK(cudaStreamSynchronize(stream));
    return 0;
}

static void teardown(lab_ctx *ctx) {
    (void)ctx;
    /* TODO 1: unpin what setup() pinned. */
    cudaFree(d_in);
    cudaFree(d_out);
    cudaStreamDestroy(stream);
}

const lab_impl LAB_STUDENT = {setup, run, teardown};
