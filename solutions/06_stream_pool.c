/* solutions/06_stream_pool.c: the reference for lab 06, a pool of four streams.
 *
 * One request takes about 2.5 times the gap between arrivals, so two or three are in
 * flight at once; four streams leave room for a device that runs them a little slower
 * side by side (two streams serve slower than the requests arrive).
 * Request i runs on stream i % POOL with that stream's own buffers: within a stream, the
 * order (request i's download before request i + POOL's upload) keeps a buffer from being
 * overwritten while still in use, so no event is needed, and across streams nothing is
 * shared. A request's kernels use half of the SMs, so the pool's kernels run side by side
 * and its copies go between them: each request takes about as long as it would alone. */
#include <stdio.h>

#include "labs/harness/lab.h"

#define POOL 4

static cudaStream_t streams[POOL];
static uint32_t *d_in[POOL], *d_out[POOL];

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int s = 0; s < POOL; s++) {
        LAB_CHECK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
        char name[16];
        snprintf(name, sizeof(name), "pool %d", s);
        lab_name_stream(ctx, streams[s], name);
        LAB_CHECK(cudaMalloc((void **)&d_in[s], w->batch_bytes));
        LAB_CHECK(cudaMalloc((void **)&d_out[s], w->batch_bytes));
    }
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int i = 0; i < w->batches; i++) {
        lab_wait_request(ctx, i);
        int s = i % POOL;
        LAB_CHECK(cudaMemcpyAsync(d_in[s], lab_input(ctx, i), w->batch_bytes, cudaMemcpyHostToDevice, streams[s]));
        LAB_CHECK(kernels_process(d_out[s], d_in[s], w->batch_elems, w->process, streams[s]));
        for (int k = 1; k < w->steps; k++)
            LAB_CHECK(kernels_process(d_out[s], d_out[s], w->batch_elems, w->process, streams[s]));
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, i), d_out[s], w->batch_bytes, cudaMemcpyDeviceToHost, streams[s]));
    }
    for (int s = 0; s < POOL; s++) LAB_CHECK(cudaStreamSynchronize(streams[s]));
    return 0;
}

static void teardown(lab_ctx *ctx) {
    (void)ctx;
    for (int s = 0; s < POOL; s++) {
        cudaFree(d_in[s]);
        cudaFree(d_out[s]);
        cudaStreamDestroy(streams[s]);
    }
}

const lab_impl LAB_STUDENT = {setup, run, teardown};
