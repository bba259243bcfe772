/* grading/testdata/refereed/host_results/labs/03_double_buffer/lab.c: the results computed
 * on the host with the program's own code (the process kernel is an affine map, so
 * f^iters is one multiply-add an element), then routed through the device the only way
 * the referee lets a result reach lab_output(): each batch's result goes host-to-device
 * into a device buffer and device-to-host into its output, on three streams, with no
 * kernel at all. Every output is right and nothing races.
 * Expected: correct and race-free, and no speed: the run did not do the lab's work on the
 * device (no process kernel; no result a kernel computed), which the report and --json
 * name. */
#include "labs/harness/lab.h"

#define NUM_STREAMS 3

static cudaStream_t streams[NUM_STREAMS];
static uint32_t *d_buf[NUM_STREAMS];
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
        LAB_CHECK(cudaMalloc((void **)&d_buf[s], w->batch_bytes));
    }
    LAB_CHECK(cudaMallocHost((void **)&results, w->batch_bytes * (size_t)w->batches));
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int i = 0; i < w->batches; i++) {
        int s = i % NUM_STREAMS;
        uint32_t *r = results + (size_t)i * w->batch_elems;
        host_process(w, lab_input(ctx, i), r);
        LAB_CHECK(cudaMemcpyAsync(d_buf[s], r, w->batch_bytes, cudaMemcpyHostToDevice, streams[s]));
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, i), d_buf[s], w->batch_bytes, cudaMemcpyDeviceToHost, streams[s]));
    }
    for (int s = 0; s < NUM_STREAMS; s++) LAB_CHECK(cudaStreamSynchronize(streams[s]));
    return 0;
}

static void teardown(lab_ctx *ctx) {
    (void)ctx;
    for (int s = 0; s < NUM_STREAMS; s++) {
        cudaFree(d_buf[s]);
        cudaStreamDestroy(streams[s]);
    }
    cudaFreeHost(results);
}

const lab_impl LAB_STUDENT = {setup, run, teardown};
