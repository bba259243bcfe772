/* labs/02_events/lab.c: YOUR FILE for lab 02, events.
 *
 * Each batch is a small graph: upload on stream A; two producers, one per half, on A and
 * on B (B must not start before the upload is done); a combine kernel over the whole
 * batch on A (it must not start before both producers are done); download on A. As given,
 * the host enforces that order itself: it waits for a stream (cudaStreamSynchronize)
 * before queuing the next stage. It is correct, and the device sits idle at every wait.
 * The code also reports how long the combine kernels took, timed with a host clock.
 *
 * Your job: report the combine's real GPU time, and order the stages without stopping
 * the host.
 *
 * Run it:   bazel run //labs:02_events
 * Stuck?    bazel run //labs:02_events -- --hint   (a little more each time)
 * Lesson:   labs/02_events/README.md (the TODOs are numbered as there, and it says what
 *           you should see after each one)
 *
 * The rules the checker enforces: every output bit must match the CPU oracle, no two
 * operations may touch the same bytes without an order between them, run() must return
 * with every result in lab_output(), and the time you give lab_report_ms must be what the
 * GPU did. */
#include "labs/harness/lab.h"

static cudaStream_t stream_a, stream_b;
static uint32_t *d_in, *d_mid, *d_out; /* the batch, the producers' results, the combine's */
/* TODO 1: events to time each batch's combine kernel (a start and a stop per batch). */
/* TODO 2: events to order the streams. */

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    LAB_CHECK(cudaStreamCreateWithFlags(&stream_a, cudaStreamNonBlocking));
    LAB_CHECK(cudaStreamCreateWithFlags(&stream_b, cudaStreamNonBlocking));
    lab_name_stream(ctx, stream_a, "A");
    lab_name_stream(ctx, stream_b, "B");
    LAB_CHECK(cudaMalloc((void **)&d_in, w->batch_bytes));
    LAB_CHECK(cudaMalloc((void **)&d_mid, w->batch_bytes));
    LAB_CHECK(cudaMalloc((void **)&d_out, w->batch_bytes));
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    size_t half = w->batch_elems / 2;
    double combine_ms = 0;
    for (int b = 0; b < w->batches; b++) {
        LAB_CHECK(cudaMemcpyAsync(d_in, lab_input(ctx, b), w->batch_bytes, cudaMemcpyHostToDevice, stream_a));
        /* TODO 2: stream B must not start before the upload is done. */
        LAB_CHECK(cudaStreamSynchronize(stream_a));
        LAB_CHECK(kernels_process(d_mid, d_in, half, w->process, stream_a));
        LAB_CHECK(kernels_process(d_mid + half, d_in + half, w->batch_elems - half, w->process, stream_b));
        /* TODO 2: the combine must not start before both producers are done. */
        LAB_CHECK(cudaStreamSynchronize(stream_a));
        LAB_CHECK(cudaStreamSynchronize(stream_b));
        /* TODO 1: this measures the launch, on the host. Time the kernel on the GPU. */
        double t0 = lab_host_ms();
        LAB_CHECK(kernels_process(d_out, d_mid, w->batch_elems, w->process, stream_a));
        combine_ms += lab_host_ms() - t0;
        /* TODO 2: the download must not start before the combine is done. */
        LAB_CHECK(cudaStreamSynchronize(stream_a));
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, b), d_out, w->batch_bytes, cudaMemcpyDeviceToHost, stream_a));
    }
    LAB_CHECK(cudaStreamSynchronize(stream_a));
    lab_report_ms(ctx, "combine", combine_ms);
    return 0;
}

static void teardown(lab_ctx *ctx) {
    (void)ctx;
    cudaFree(d_in);
    cudaFree(d_mid);
    cudaFree(d_out);
    cudaStreamDestroy(stream_a);
    cudaStreamDestroy(stream_b);
}

const lab_impl LAB_STUDENT = {setup, run, teardown};
