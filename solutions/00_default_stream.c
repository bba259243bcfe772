/* solutions/00_default_stream.c: the reference for lab 00, a non-blocking stream per task.
 *
 * The tasks share nothing, and each kernel fills only 8 of the GPU's SMs, so they can run
 * at once if each has its own stream. Streams from plain cudaStreamCreate would not be
 * enough: they are "blocking", so every operation on the legacy default stream (here the
 * statistics memset between tasks, which is not ours to move) waits for all of their
 * earlier work and holds back all of their later work, and the tasks run one by one.
 * cudaStreamNonBlocking streams do not synchronise with stream 0, so the memsets run
 * beside the tasks. For the same reason cudaStreamSynchronize(0) no longer waits for
 * them: run() waits for each task's stream. */
#include "labs/harness/lab.h"

#define MAX_TASKS 64
#define STATS_BYTES 4096

static cudaStream_t streams[MAX_TASKS];
static uint32_t *d_data[MAX_TASKS];
static uint32_t *d_stats;

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int t = 0; t < w->batches; t++) {
        LAB_CHECK(cudaMalloc((void **)&d_data[t], w->batch_bytes));
        LAB_CHECK(cudaStreamCreateWithFlags(&streams[t], cudaStreamNonBlocking));
        char name[16];
        snprintf(name, sizeof(name), "task %d", t);
        lab_name_stream(ctx, streams[t], name);
    }
    LAB_CHECK(cudaMalloc((void **)&d_stats, STATS_BYTES));
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int t = 0; t < w->batches; t++) {
        cudaStream_t s = streams[t];
        LAB_CHECK(cudaMemcpyAsync(d_data[t], lab_input(ctx, t), w->batch_bytes, cudaMemcpyHostToDevice, s));
        for (int k = 0; k < w->steps; k++)
            LAB_CHECK(kernels_process(d_data[t], d_data[t], w->batch_elems, w->process, s));
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, t), d_data[t], w->batch_bytes, cudaMemcpyDeviceToHost, s));
        LAB_CHECK(cudaMemsetAsync(d_stats, 0, STATS_BYTES, 0));
    }
    for (int t = 0; t < w->batches; t++) LAB_CHECK(cudaStreamSynchronize(streams[t]));
    return 0;
}

static void teardown(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int t = 0; t < w->batches; t++) {
        cudaFree(d_data[t]);
        cudaStreamDestroy(streams[t]);
    }
    cudaFree(d_stats);
}

const lab_impl LAB_STUDENT = {setup, run, teardown};
