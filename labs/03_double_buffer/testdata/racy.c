/* labs/03_double_buffer/testdata/racy.c: a fast but wrong lab 03, for the tests.
 *
 * Two planted races:
 *  1. Three streams share two device buffer sets (batch i uses buffers i % 2 on stream
 *     i % 3), so batch i+2's copy into d_in[i % 2] can run on another stream while batch
 *     i's kernel still reads it (write after read), and its kernel can overwrite d_out
 *     before batch i's copy out has read it.
 *  2. run() waits only for the last batch's stream, so the host (the harness) reads
 *     outputs that copies on the other streams may not have written yet.
 * The race checker must report both kinds, and the lab must exit with status 2. */
#include "labs/harness/lab.h"

#define NUM_STREAMS 3
#define NUM_BUFFERS 2

static cudaStream_t streams[NUM_STREAMS];
static uint32_t *d_in[NUM_BUFFERS];
static uint32_t *d_out[NUM_BUFFERS];

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int s = 0; s < NUM_STREAMS; s++)
        LAB_CHECK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
    for (int b = 0; b < NUM_BUFFERS; b++) {
        LAB_CHECK(cudaMalloc((void **)&d_in[b], w->batch_bytes));
        LAB_CHECK(cudaMalloc((void **)&d_out[b], w->batch_bytes));
    }
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int i = 0; i < w->batches; i++) {
        int s = i % NUM_STREAMS, b = i % NUM_BUFFERS;
        LAB_CHECK(cudaMemcpyAsync(d_in[b], lab_input(ctx, i), w->batch_bytes,
                                  cudaMemcpyHostToDevice, streams[s]));
        LAB_CHECK(kernels_process(d_out[b], d_in[b], w->batch_elems, w->process, streams[s]));
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, i), d_out[b], w->batch_bytes,
                                  cudaMemcpyDeviceToHost, streams[s]));
    }
    LAB_CHECK(cudaStreamSynchronize(streams[(w->batches - 1) % NUM_STREAMS]));
    return 0;
}

static void teardown(lab_ctx *ctx) {
    (void)ctx;
    for (int b = 0; b < NUM_BUFFERS; b++) {
        cudaFree(d_in[b]);
        cudaFree(d_out[b]);
    }
    for (int s = 0; s < NUM_STREAMS; s++) cudaStreamDestroy(streams[s]);
}

const lab_impl LAB_STUDENT = {setup, run, teardown};
