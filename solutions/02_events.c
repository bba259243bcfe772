/* solutions/02_events.c: the reference for lab 02: events to time, events to order.
 *
 * A launch returns once the kernel is queued, so a host clock around it measures the
 * queuing. A pair of events around each combine kernel is timestamped by the GPU as the
 * stream reaches it; their elapsed times, read after the final synchronisation, add up to
 * what the kernels took. Ordering needs no host at all: stream B waits (on the device) for
 * an event recorded after the upload on A, and A waits for one recorded after producer B.
 * Those two are created with cudaEventDisableTiming, which makes recording them cheaper.
 * The host queues every batch without waiting, and the device runs them back to back. */
#include "labs/harness/lab.h"

#define MAX_BATCHES 256

static cudaStream_t stream_a, stream_b;
static uint32_t *d_in, *d_mid, *d_out;
static cudaEvent_t start[MAX_BATCHES], stop[MAX_BATCHES];
static cudaEvent_t uploaded, produced;

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    if (w->batches > MAX_BATCHES) return 1;
    LAB_CHECK(cudaStreamCreateWithFlags(&stream_a, cudaStreamNonBlocking));
    LAB_CHECK(cudaStreamCreateWithFlags(&stream_b, cudaStreamNonBlocking));
    lab_name_stream(ctx, stream_a, "A");
    lab_name_stream(ctx, stream_b, "B");
    LAB_CHECK(cudaMalloc((void **)&d_in, w->batch_bytes));
    LAB_CHECK(cudaMalloc((void **)&d_mid, w->batch_bytes));
    LAB_CHECK(cudaMalloc((void **)&d_out, w->batch_bytes));
    for (int b = 0; b < w->batches; b++) {
        LAB_CHECK(cudaEventCreate(&start[b]));
        LAB_CHECK(cudaEventCreate(&stop[b]));
    }
    LAB_CHECK(cudaEventCreateWithFlags(&uploaded, cudaEventDisableTiming));
    LAB_CHECK(cudaEventCreateWithFlags(&produced, cudaEventDisableTiming));
    lab_name_event(ctx, uploaded, "uploaded");
    lab_name_event(ctx, produced, "produced");
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    size_t half = w->batch_elems / 2;
    for (int b = 0; b < w->batches; b++) {
        LAB_CHECK(cudaMemcpyAsync(d_in, lab_input(ctx, b), w->batch_bytes, cudaMemcpyHostToDevice, stream_a));
        LAB_CHECK(cudaEventRecord(uploaded, stream_a));
        LAB_CHECK(cudaStreamWaitEvent(stream_b, uploaded, 0));
        LAB_CHECK(kernels_process(d_mid, d_in, half, w->process, stream_a));
        LAB_CHECK(kernels_process(d_mid + half, d_in + half, w->batch_elems - half, w->process, stream_b));
        LAB_CHECK(cudaEventRecord(produced, stream_b));
        LAB_CHECK(cudaStreamWaitEvent(stream_a, produced, 0));
        LAB_CHECK(cudaEventRecord(start[b], stream_a));
        LAB_CHECK(kernels_process(d_out, d_mid, w->batch_elems, w->process, stream_a));
        LAB_CHECK(cudaEventRecord(stop[b], stream_a));
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, b), d_out, w->batch_bytes, cudaMemcpyDeviceToHost, stream_a));
    }
    LAB_CHECK(cudaStreamSynchronize(stream_a));
    double combine_ms = 0;
    for (int b = 0; b < w->batches; b++) {
        float ms;
        LAB_CHECK(cudaEventElapsedTime(&ms, start[b], stop[b]));
        combine_ms += ms;
    }
    lab_report_ms(ctx, "combine", combine_ms);
    return 0;
}

static void teardown(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int b = 0; b < w->batches; b++) {
        cudaEventDestroy(start[b]);
        cudaEventDestroy(stop[b]);
    }
    cudaEventDestroy(uploaded);
    cudaEventDestroy(produced);
    cudaFree(d_in);
    cudaFree(d_mid);
    cudaFree(d_out);
    cudaStreamDestroy(stream_a);
    cudaStreamDestroy(stream_b);
}

const lab_impl LAB_STUDENT = {setup, run, teardown};
