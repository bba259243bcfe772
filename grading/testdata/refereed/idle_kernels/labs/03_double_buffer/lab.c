/* grading/testdata/refereed/idle_kernels/labs/03_double_buffer/lab.c: every count of the
 * lab's work done, none of it for the results. Each batch's result is computed on the host
 * with the program's own code, copied host-to-device and back into lab_output() (as many
 * bytes each way as the lab's inputs and outputs); beside that, on a stream of their own,
 * process kernels with the lab's parameters go over a whole batch's worth of elements each,
 * of a device buffer that holds nothing of the inputs, whose output nobody reads. Every
 * output is right and nothing races; the copies and the kernels add up to what the
 * baseline's do.
 * Expected: correct and race-free, and no speed: the counts are there, but no output byte
 * came from memory a kernel of the run wrote (the results were computed on the host). */
#include "labs/harness/lab.h"

#define NUM_STREAMS 3

static cudaStream_t streams[NUM_STREAMS], busy;
static uint32_t *d_buf[NUM_STREAMS];
static uint32_t *d_junk_in, *d_junk_out;
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
    LAB_CHECK(cudaStreamCreateWithFlags(&busy, cudaStreamNonBlocking));
    LAB_CHECK(cudaMalloc((void **)&d_junk_in, w->batch_bytes));
    LAB_CHECK(cudaMalloc((void **)&d_junk_out, w->batch_bytes));
    LAB_CHECK(cudaMemsetAsync(d_junk_in, 0, w->batch_bytes, busy));
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
        LAB_CHECK(kernels_process(d_junk_out, d_junk_in, w->batch_elems, w->process, busy));
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, i), d_buf[s], w->batch_bytes, cudaMemcpyDeviceToHost, streams[s]));
    }
    for (int s = 0; s < NUM_STREAMS; s++) LAB_CHECK(cudaStreamSynchronize(streams[s]));
    LAB_CHECK(cudaStreamSynchronize(busy));
    return 0;
}

static void teardown(lab_ctx *ctx) {
    (void)ctx;
    for (int s = 0; s < NUM_STREAMS; s++) {
        cudaFree(d_buf[s]);
        cudaStreamDestroy(streams[s]);
    }
    cudaFree(d_junk_in);
    cudaFree(d_junk_out);
    cudaStreamDestroy(busy);
    cudaFreeHost(results);
}

const lab_impl LAB_STUDENT = {setup, run, teardown};
