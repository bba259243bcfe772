/* grading/testdata/refereed/cheap_kernels/labs/03_double_buffer/lab.c: the reference's
 * pipeline with a kernel that costs nothing. Each batch's result is computed on the host
 * with the program's own code and copied to the device; there the process kernel goes
 * over the whole batch, but with iters = 0 (f^0, the identity: a copy of its input), and
 * its output comes back to lab_output(). Every count of the lab's work is there, and every
 * result came out of a kernel; only the parameters are not the lab's.
 * Expected: the referee refuses a process kernel with other parameters than the lab's
 * (lab_get_workload(ctx)->process), so run() fails at the first launch (error), and the
 * report names the refusal. */
#include "labs/harness/lab.h"

#define NUM_STREAMS 3

static cudaStream_t streams[NUM_STREAMS];
static uint32_t *d_in[NUM_STREAMS];
static uint32_t *d_out[NUM_STREAMS];
static uint32_t *results; /* every batch's result, pinned */

static void host_process(const lab_workload *w, const uint32_t *in, uint32_t *out) {
    uint32_t a = 1, c = 0;
    for (uint32_t k = 0; k < w->process.iters; k++) {
        a *= w->process.mul;
        c = c * w->process.mul + w->process.add;
    }
    for (size_t i = 0; i < w->batch_elems; i++) out[i] = in[i] * a + c;
}

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int s = 0; s < NUM_STREAMS; s++) {
        LAB_CHECK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
        LAB_CHECK(cudaMalloc((void **)&d_in[s], w->batch_bytes));
        LAB_CHECK(cudaMalloc((void **)&d_out[s], w->batch_bytes));
    }
    LAB_CHECK(cudaMallocHost((void **)&results, w->batch_bytes * (size_t)w->batches));
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    kernels_process_params identity = w->process;
    identity.iters = 0;
    for (int i = 0; i < w->batches; i++) {
        int s = i % NUM_STREAMS;
        uint32_t *r = results + (size_t)i * w->batch_elems;
        host_process(w, lab_input(ctx, i), r);
        LAB_CHECK(cudaMemcpyAsync(d_in[s], r, w->batch_bytes, cudaMemcpyHostToDevice, streams[s]));
        LAB_CHECK(kernels_process(d_out[s], d_in[s], w->batch_elems, identity, streams[s]));
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, i), d_out[s], w->batch_bytes, cudaMemcpyDeviceToHost, streams[s]));
    }
    for (int s = 0; s < NUM_STREAMS; s++) LAB_CHECK(cudaStreamSynchronize(streams[s]));
    return 0;
}

static void teardown(lab_ctx *ctx) {
    (void)ctx;
    for (int s = 0; s < NUM_STREAMS; s++) {
        cudaFree(d_in[s]);
        cudaFree(d_out[s]);
        cudaStreamDestroy(streams[s]);
    }
    cudaFreeHost(results);
}

const lab_impl LAB_STUDENT = {setup, run, teardown};
