/* solutions/04_priorities.c: the reference for lab 04: the requests on the greatest priority.
 *
 * The background is one kernel of many waves of blocks. On equal-priority streams the GPU
 * dispatches pending blocks in the order they became ready, so a request's kernel queues
 * behind every block the background has not started yet: milliseconds. Priority changes
 * which pending blocks go first when an SM frees a slot, so the request's blocks start as
 * soon as a few background blocks retire, and the background loses a few microseconds per
 * request. Priority never preempts a running block: behind kernels of a single wave it
 * could do nothing, and splitting the background into shorter kernels would be the fix. */
#include "labs/harness/lab.h"

static cudaStream_t background_stream, request_stream;
static uint32_t *d_in, *d_out; /* one request's input and result on the device */

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    int least, greatest;
    LAB_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    LAB_CHECK(cudaStreamCreateWithPriority(&background_stream, cudaStreamNonBlocking, least));
    LAB_CHECK(cudaStreamCreateWithPriority(&request_stream, cudaStreamNonBlocking, greatest));
    lab_name_stream(ctx, background_stream, "background");
    lab_name_stream(ctx, request_stream, "requests");
    LAB_CHECK(cudaMalloc((void **)&d_in, w->batch_bytes));
    LAB_CHECK(cudaMalloc((void **)&d_out, w->batch_bytes));
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    if (lab_background(ctx, background_stream) != 0) return 1;
    for (int i = 0; i < w->batches; i++) {
        lab_wait_request(ctx, i);
        LAB_CHECK(cudaMemcpyAsync(d_in, lab_input(ctx, i), w->batch_bytes, cudaMemcpyHostToDevice, request_stream));
        LAB_CHECK(kernels_process(d_out, d_in, w->batch_elems, w->process, request_stream));
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, i), d_out, w->batch_bytes, cudaMemcpyDeviceToHost, request_stream));
    }
    LAB_CHECK(cudaStreamSynchronize(request_stream));
    LAB_CHECK(cudaStreamSynchronize(background_stream));
    return 0;
}

static void teardown(lab_ctx *ctx) {
    (void)ctx;
    cudaFree(d_in);
    cudaFree(d_out);
    cudaStreamDestroy(background_stream);
    cudaStreamDestroy(request_stream);
}

const lab_impl LAB_STUDENT = {setup, run, teardown};
