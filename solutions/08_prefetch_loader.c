/* solutions/08_prefetch_loader.c: the reference for lab 08, a loader that prefetches into
 * a ring of three pinned buffers.
 *
 * Batch i is loaded into buffer i % RING. The only thing the loader must wait for before
 * it writes a buffer again is the end of that buffer's last upload (the copy engine reads
 * pinned memory while it copies): an event recorded right after each upload says when,
 * and cudaEventSynchronize on it just before the load waits for that and nothing more.
 * The kernel and the download use device memory and the output, so the loader does not
 * wait for them, and with three buffers it is up to three batches ahead of the uploads:
 * during quick loads (faster than the device) it fills the ring, and during a slow load
 * the device works through what it filled instead of waiting. One stream is enough: on
 * average the loader is the slower side, and the stream's order keeps d_in and d_out
 * safe from one batch to the next. */
#include "labs/harness/lab.h"

#define RING 3

static cudaStream_t stream;
static uint32_t *staging[RING];
static cudaEvent_t uploaded[RING];
static uint32_t *d_in, *d_out;

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    LAB_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    lab_name_stream(ctx, stream, "device");
    for (int k = 0; k < RING; k++) {
        LAB_CHECK(cudaMallocHost((void **)&staging[k], w->batch_bytes));
        LAB_CHECK(cudaEventCreateWithFlags(&uploaded[k], cudaEventDisableTiming));
        char name[32];
        snprintf(name, sizeof(name), "uploaded[%d]", k);
        lab_name_event(ctx, uploaded[k], name);
    }
    LAB_CHECK(cudaMalloc((void **)&d_in, w->batch_bytes));
    LAB_CHECK(cudaMalloc((void **)&d_out, w->batch_bytes));
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int i = 0; i < w->batches; i++) {
        int k = i % RING;
        LAB_CHECK(cudaEventSynchronize(uploaded[k])); /* buffer k's last upload is over */
        if (lab_load_batch(ctx, i, staging[k]) != 0) return 1;
        LAB_CHECK(cudaMemcpyAsync(d_in, staging[k], w->batch_bytes, cudaMemcpyHostToDevice, stream));
        LAB_CHECK(cudaEventRecord(uploaded[k], stream));
        LAB_CHECK(kernels_process(d_out, d_in, w->batch_elems, w->process, stream));
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, i), d_out, w->batch_bytes, cudaMemcpyDeviceToHost, stream));
    }
    LAB_CHECK(cudaStreamSynchronize(stream));
    return 0;
}

static void teardown(lab_ctx *ctx) {
    (void)ctx;
    for (int k = 0; k < RING; k++) {
        cudaFreeHost(staging[k]);
        cudaEventDestroy(uploaded[k]);
    }
    cudaFree(d_in);
    cudaFree(d_out);
    cudaStreamDestroy(stream);
}

const lab_impl LAB_STUDENT = {setup, run, teardown};
