/* labs/04_priorities/testdata/variants.c: what students write in lab 04, for the tests
 * (its lab_test.cc) and for checking the verdicts on a real GPU. One variant per build,
 * chosen with -DLAB_VARIANT_<NAME>:
 *
 *   BACKGROUND_HIGH   the priorities the wrong way round: the background on the greatest,
 *                     the requests on the least (below target: as slow as the skeleton).
 *   ONE_STREAM        the requests queued on the background's stream (below target: each
 *                     waits for the whole background, in stream order).
 *   NO_BACKGROUND     the requests on the greatest priority, the background never queued
 *                     (fast, and below target: the background was not done).
 *   KERNEL_ON_BACKGROUND  the requests' copies on a stream of the greatest priority, their
 *                     kernel launched on the background's stream by mistake, ordered with
 *                     the copies by events (race-free, below target).
 *   BOTH_GREATEST     the requests on the greatest priority, and the background given the
 *                     greatest too (below target: equal priorities, the background first).
 *   DEVICE_SYNC_EACH  the requests on the greatest priority, and cudaDeviceSynchronize()
 *                     after each one, which waits for the background too (below target).
 *   ONE_ABOVE         the requests on the priority just above the background's (least - 1),
 *                     not the greatest: the GPU compares the two, so this is as good (pass,
 *                     TODO 1 done).
 *   BACKGROUND_LAST   every request served and waited for, and only then the background:
 *                     the requests are fast because nothing was in their way, and the
 *                     background is done late (below target: the background must start
 *                     with run()). */
#include "labs/harness/lab.h"

static cudaStream_t background_stream, request_stream;
static uint32_t *d_in, *d_out; /* one request's input and result on the device */
#if defined(LAB_VARIANT_KERNEL_ON_BACKGROUND)
static cudaEvent_t uploaded, computed;
#endif

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    int least, greatest;
    LAB_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
#if defined(LAB_VARIANT_BACKGROUND_HIGH)
    LAB_CHECK(cudaStreamCreateWithPriority(&background_stream, cudaStreamNonBlocking, greatest));
    LAB_CHECK(cudaStreamCreateWithPriority(&request_stream, cudaStreamNonBlocking, least));
#elif defined(LAB_VARIANT_BOTH_GREATEST)
    (void)least;
    LAB_CHECK(cudaStreamCreateWithPriority(&background_stream, cudaStreamNonBlocking, greatest));
    LAB_CHECK(cudaStreamCreateWithPriority(&request_stream, cudaStreamNonBlocking, greatest));
#elif defined(LAB_VARIANT_ONE_ABOVE)
    (void)greatest;
    LAB_CHECK(cudaStreamCreateWithPriority(&background_stream, cudaStreamNonBlocking, least));
    LAB_CHECK(cudaStreamCreateWithPriority(&request_stream, cudaStreamNonBlocking, least - 1));
#elif defined(LAB_VARIANT_ONE_STREAM)
    (void)greatest;
    LAB_CHECK(cudaStreamCreateWithPriority(&background_stream, cudaStreamNonBlocking, least));
    request_stream = background_stream;
#else
    LAB_CHECK(cudaStreamCreateWithPriority(&background_stream, cudaStreamNonBlocking, least));
    LAB_CHECK(cudaStreamCreateWithPriority(&request_stream, cudaStreamNonBlocking, greatest));
#endif
    lab_name_stream(ctx, background_stream, "background");
    if (request_stream != background_stream) lab_name_stream(ctx, request_stream, "requests");
#if defined(LAB_VARIANT_KERNEL_ON_BACKGROUND)
    LAB_CHECK(cudaEventCreateWithFlags(&uploaded, cudaEventDisableTiming));
    LAB_CHECK(cudaEventCreateWithFlags(&computed, cudaEventDisableTiming));
#endif
    LAB_CHECK(cudaMalloc((void **)&d_in, w->batch_bytes));
    LAB_CHECK(cudaMalloc((void **)&d_out, w->batch_bytes));
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
#if !defined(LAB_VARIANT_NO_BACKGROUND) && !defined(LAB_VARIANT_BACKGROUND_LAST)
    if (lab_background(ctx, background_stream) != 0) return 1;
#endif
    for (int i = 0; i < w->batches; i++) {
        lab_wait_request(ctx, i);
        LAB_CHECK(cudaMemcpyAsync(d_in, lab_input(ctx, i), w->batch_bytes, cudaMemcpyHostToDevice, request_stream));
#if defined(LAB_VARIANT_KERNEL_ON_BACKGROUND)
        LAB_CHECK(cudaEventRecord(uploaded, request_stream));
        LAB_CHECK(cudaStreamWaitEvent(background_stream, uploaded, 0));
        LAB_CHECK(kernels_process(d_out, d_in, w->batch_elems, w->process, background_stream));
        LAB_CHECK(cudaEventRecord(computed, background_stream));
        LAB_CHECK(cudaStreamWaitEvent(request_stream, computed, 0));
#else
        LAB_CHECK(kernels_process(d_out, d_in, w->batch_elems, w->process, request_stream));
#endif
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, i), d_out, w->batch_bytes, cudaMemcpyDeviceToHost, request_stream));
#if defined(LAB_VARIANT_DEVICE_SYNC_EACH)
        LAB_CHECK(cudaDeviceSynchronize()); /* waits for the background too */
#endif
    }
    LAB_CHECK(cudaStreamSynchronize(request_stream));
#if defined(LAB_VARIANT_BACKGROUND_LAST)
    if (lab_background(ctx, background_stream) != 0) return 1;
#endif
    LAB_CHECK(cudaStreamSynchronize(background_stream));
    return 0;
}

static void teardown(lab_ctx *ctx) {
    (void)ctx;
    cudaFree(d_in);
    cudaFree(d_out);
    cudaStreamDestroy(background_stream);
    if (request_stream != background_stream) cudaStreamDestroy(request_stream);
}

const lab_impl LAB_STUDENT = {setup, run, teardown};
