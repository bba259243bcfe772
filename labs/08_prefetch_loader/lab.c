/* labs/08_prefetch_loader/lab.c: YOUR FILE for lab 08, a prefetching loader.
 *
 * The host makes every batch itself: lab_load_batch(ctx, i, dst) stands for decoding or
 * reading files and writes batch i into dst, a pinned buffer of yours. Some batches load
 * quickly, some slowly (one of each pair, at random): on average the loader is a little
 * slower than the device, but faster than it on a quick batch. The device then uploads the
 * batch, processes it and downloads the result. As given, the two take turns: load, copy,
 * compute, copy back, wait for it all, then the next batch. Your job: let the loader run
 * ahead while the device works, with a ring of pinned buffers, each handed back to the
 * loader by an event once its upload is over, so that the batches loaded ahead keep the
 * device busy through the slow loads. That is what a framework's data loader does
 * (tf.data's prefetch, PyTorch's DataLoader with pin_memory).
 *
 * Run it:   bazel run //labs:08_prefetch_loader
 * Stuck?    bazel run //labs:08_prefetch_loader -- --hint   (a little more each time)
 * Lesson:   labs/08_prefetch_loader/README.md (the TODOs are numbered as there, and it says
 *           what you should see after each one)
 *
 * The rules the checker enforces: every output bit must match the CPU oracle, no two
 * operations may touch the same bytes without an order between them (the loader's write
 * of a buffer is one: it must come after the upload that read the buffer before), and
 * run() must return with every result in lab_output(). */
#include "labs/harness/lab.h"

/* TODO 2: how many pinned buffers the loader fills in turn (the ring's depth). */
#define RING 1

static cudaStream_t stream;
static uint32_t *staging[RING]; /* pinned: where the loader writes, and the upload reads */
static uint32_t *d_in, *d_out;
/* TODO 1: an event for each buffer, to say when its upload is over. */

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    LAB_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    lab_name_stream(ctx, stream, "device");
    for (int k = 0; k < RING; k++) LAB_CHECK(cudaMallocHost((void **)&staging[k], w->batch_bytes));
    LAB_CHECK(cudaMalloc((void **)&d_in, w->batch_bytes));
    LAB_CHECK(cudaMalloc((void **)&d_out, w->batch_bytes));
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int i = 0; i < w->batches; i++) {
        int k = i % RING;
        /* TODO 1: before writing staging[k] again, wait only until its last upload is over. */
        if (lab_load_batch(ctx, i, staging[k]) != 0) return 1;
        LAB_CHECK(cudaMemcpyAsync(d_in, staging[k], w->batch_bytes, cudaMemcpyHostToDevice, stream));
        /* TODO 1: mark the end of staging[k]'s upload here. */
        LAB_CHECK(kernels_process(d_out, d_in, w->batch_elems, w->process, stream));
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, i), d_out, w->batch_bytes, cudaMemcpyDeviceToHost, stream));
        /* TODO 1: the loader waits here for the whole batch, before it loads the next one. */
        LAB_CHECK(cudaStreamSynchronize(stream));
    }
    /* Results must be ready when run() returns. */
    LAB_CHECK(cudaStreamSynchronize(stream));
    return 0;
}

static void teardown(lab_ctx *ctx) {
    (void)ctx;
    for (int k = 0; k < RING; k++) cudaFreeHost(staging[k]);
    cudaFree(d_in);
    cudaFree(d_out);
    cudaStreamDestroy(stream);
}

const lab_impl LAB_STUDENT = {setup, run, teardown};
