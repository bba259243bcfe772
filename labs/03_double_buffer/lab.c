/* labs/03_double_buffer/lab.c: YOUR FILE for lab 03, double buffering.
 *
 * As given, this is the sequential pipeline: every batch goes host -> device, through
 * the process kernel, and back, all on one stream, so the copy engines and the SMs take
 * turns and two of the three are always idle. Your job: keep all three busy at once by
 * spreading the batches over several streams, each with its own device buffers.
 *
 * Run it:   bazel run //labs:03_double_buffer
 * Lesson:   labs/03_double_buffer/README.md (read it first: the tasks are numbered there
 *           as they are below, with hints).
 *
 * The rules the checker enforces: every output bit must match the CPU oracle, no two
 * operations may touch the same bytes without an order between them (events, stream
 * order or synchronisation), and run() must return with every result in lab_output(). */
#include "labs/harness/lab.h"

/* TODO 1: how many streams (and buffer sets) to use. One is sequential; try 2, then 3. */
#define NUM_STREAMS 1

static cudaStream_t streams[NUM_STREAMS];
static uint32_t *d_in[NUM_STREAMS];
static uint32_t *d_out[NUM_STREAMS];

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int s = 0; s < NUM_STREAMS; s++) {
        /* TODO 2: create streams that do not synchronise with the legacy default stream:
         * cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking). */
        LAB_CHECK(cudaStreamCreate(&streams[s]));
        char name[16];
        snprintf(name, sizeof(name), "buf %c", 'A' + s);
        lab_name_stream(ctx, streams[s], name);
        /* Each stream gets its own input and output buffer on the device. */
        LAB_CHECK(cudaMalloc((void **)&d_in[s], w->batch_bytes));
        LAB_CHECK(cudaMalloc((void **)&d_out[s], w->batch_bytes));
    }
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int i = 0; i < w->batches; i++) {
        /* TODO 3: give batch i its own stream and buffers, round robin, so batch i+1's
         * copy in can run while batch i computes and batch i-1 copies out. */
        int s = 0;
        LAB_CHECK(cudaMemcpyAsync(d_in[s], lab_input(ctx, i), w->batch_bytes,
                                  cudaMemcpyHostToDevice, streams[s]));
        LAB_CHECK(kernels_process(d_out[s], d_in[s], w->batch_elems, w->process, streams[s]));
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, i), d_out[s], w->batch_bytes,
                                  cudaMemcpyDeviceToHost, streams[s]));
    }
    /* TODO 4: results must be ready when run() returns: wait for every stream you used. */
    LAB_CHECK(cudaStreamSynchronize(streams[0]));
    return 0;
}

static void teardown(lab_ctx *ctx) {
    (void)ctx;
    for (int s = 0; s < NUM_STREAMS; s++) {
        cudaFree(d_in[s]);
        cudaFree(d_out[s]);
        cudaStreamDestroy(streams[s]);
    }
}

const lab_impl LAB_STUDENT = {setup, run, teardown};
