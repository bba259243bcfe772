/* labs/05_cross_stream_races/testdata/variants.c: lab 05 on the way, for the tests
 * (its lab_test.cc) and for checking the verdicts on a real GPU. One variant per build,
 * chosen with -DLAB_VARIANT_<NAME>:
 *
 *   FIXED_2        TODOs 1 and 2 done: the kernel waits for its upload, the download for
 *                  an event recorded after the kernel; three planted races left (racy).
 *   FIXED_4        TODOs 1 to 4 done: only run()'s wait is wrong (racy, and the results
 *                  are read before they are written).
 *   OVER_SYNCED    the events of TODOs 1 and 2, and cudaDeviceSynchronize() after every
 *                  batch instead of the least synchronisation of TODOs 3 to 5 (correct,
 *                  race-free, below target: the streams no longer overlap across batches).
 *   BLOCKING_LEGACY_SYNC  the reference's events, with blocking streams (cudaStreamCreate)
 *                  and run() ending in cudaStreamSynchronize(0): the legacy default stream
 *                  waits for every blocking stream's earlier work, so the host waited for
 *                  the downloads (correct, race-free, pass).
 *   WRONG_STREAM_RECORD  the reference with the upload's event recorded on "compute" instead
 *                  of "up": the kernel's wait on it orders nothing with the upload (racy:
 *                  the report names the event, the stream it was recorded on, and the
 *                  lines of the record and of the wait).
 *   SYNC_COMPUTE   the events of TODOs 1, 2 and 4 and run()'s wait on "down", and
 *                  cudaStreamSynchronize(compute) after every kernel instead of TODO 3's
 *                  event: the upload two batches on is ordered by the host (correct,
 *                  race-free, below target; TODO 3 not done: the host orders it).
 *   WRONG_STREAM   the reference with computed[k] recorded on "up" instead of "compute":
 *                  the download (and TODO 3's upload) wait on an event that marks the
 *                  upload, not the kernel (racy; TODO 2 not done).
 * The reference with one wait misplaced, every event recorded where it should be (racy;
 * the race reports blame that wait, not a record):
 *   REUSE_WAIT_AFTER_KERNEL  TODO 4's wait on downloaded[k] issued after the kernel it
 *                  should hold back: it orders that kernel after nothing.
 *   REUSE_WAIT_WRONG_STREAM  TODO 4's wait on downloaded[k] issued on "down" (where the
 *                  event is recorded) instead of "compute".
 *   WRONG_EVENT_INDEX  the download waits on computed[(k + 1) % 2], the other buffer's
 *                  event, instead of computed[k] (results wrong too).
 *   WAIT_BEFORE_RECORD  the kernel's wait on uploaded[k] issued before the upload and its
 *                  record: it takes the previous record (two batches back), or none.
 *   ONE_EVENT_EACH  every wait of the reference, but one event per hand-over, re-recorded
 *                  every batch: a reuse wait can name only the latest record, so upload b
 *                  waits for kernel b - 1 and kernel b for download b - 1, where the two
 *                  buffers need only b - 2 (correct, race-free, below target).
 *   DOWNLOAD_ON_COMPUTE  every wait of the reference, but each download queued on "compute",
 *                  behind its kernel, "so that stream order hands the result over" (and
 *                  run() waits for "compute"): no race, and each kernel now waits there
 *                  for the batch before's download (correct, race-free, below target; the
 *                  Why says the two stages share a stream).
 *   UPLOAD_WAITS_DOWNLOAD  TODOs 3 and 4 as one wait: the upload of batch b waits for the
 *                  download of batch b - 2, which came after its kernel, so the kernel's
 *                  wait for its upload orders it after that download too. Race-free, and
 *                  the upload waits a stage longer than it must (correct, pass: the
 *                  pipeline still keeps two batches in flight).
 *   HOST_WAITS_REUSE  TODOs 1, 2 and 5 with events, and both reuses ordered from the host:
 *                  cudaEventSynchronize on the download of batch b - 2 before queuing batch
 *                  b. The device runs the same chain as UPLOAD_WAITS_DOWNLOAD, plus one
 *                  host round trip a batch (correct, pass). */
#include "labs/harness/lab.h"

#if defined(LAB_VARIANT_REUSE_WAIT_AFTER_KERNEL) || defined(LAB_VARIANT_REUSE_WAIT_WRONG_STREAM) || \
    defined(LAB_VARIANT_WRONG_EVENT_INDEX) || defined(LAB_VARIANT_WAIT_BEFORE_RECORD)
#define ONE_WAIT_MISPLACED 1 /* the reference, but for one wait */
#endif
#if defined(LAB_VARIANT_FIXED_4) || defined(LAB_VARIANT_BLOCKING_LEGACY_SYNC) || \
    defined(LAB_VARIANT_WRONG_STREAM_RECORD) || defined(LAB_VARIANT_WRONG_STREAM) || defined(ONE_WAIT_MISPLACED) || \
    defined(LAB_VARIANT_ONE_EVENT_EACH) || defined(LAB_VARIANT_DOWNLOAD_ON_COMPUTE)
#define ALL_WAITS 1 /* TODOs 1 to 4 */
#endif
#if (defined(ALL_WAITS) || defined(LAB_VARIANT_SYNC_COMPUTE)) && !defined(LAB_VARIANT_REUSE_WAIT_AFTER_KERNEL) && \
    !defined(LAB_VARIANT_REUSE_WAIT_WRONG_STREAM)
#define DOWNLOAD_WAIT 1 /* TODO 4: the kernel waits for the download of its buffer */
#endif
#if defined(LAB_VARIANT_UPLOAD_WAITS_DOWNLOAD) || defined(LAB_VARIANT_HOST_WAITS_REUSE)
#define WHOLE_SET_REUSE 1 /* batch b reuses both buffers once batch b - 2 is downloaded */
#endif

#define NBUF 2
#if defined(LAB_VARIANT_ONE_EVENT_EACH)
#define EV(k) 0      /* one event per hand-over, whatever the buffer */
#define REUSE_FROM 1 /* and so a reuse wait from the second batch on: on the batch before */
#else
#define EV(k) (k)
#define REUSE_FROM NBUF
#endif

static cudaStream_t up, compute, down;
static cudaEvent_t uploaded[NBUF], computed[NBUF], downloaded[NBUF];
static uint32_t *d_in[NBUF], *d_out[NBUF];

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
#if defined(LAB_VARIANT_BLOCKING_LEGACY_SYNC)
    LAB_CHECK(cudaStreamCreate(&up));
    LAB_CHECK(cudaStreamCreate(&compute));
    LAB_CHECK(cudaStreamCreate(&down));
#else
    LAB_CHECK(cudaStreamCreateWithFlags(&up, cudaStreamNonBlocking));
    LAB_CHECK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
    LAB_CHECK(cudaStreamCreateWithFlags(&down, cudaStreamNonBlocking));
#endif
    lab_name_stream(ctx, up, "up");
    lab_name_stream(ctx, compute, "compute");
    lab_name_stream(ctx, down, "down");
    for (int k = 0; k < NBUF; k++) {
        LAB_CHECK(cudaEventCreateWithFlags(&uploaded[k], cudaEventDisableTiming));
        LAB_CHECK(cudaEventCreateWithFlags(&computed[k], cudaEventDisableTiming));
        LAB_CHECK(cudaEventCreateWithFlags(&downloaded[k], cudaEventDisableTiming));
        char name[32];
        snprintf(name, sizeof(name), "uploaded[%d]", k);
        lab_name_event(ctx, uploaded[k], name);
        snprintf(name, sizeof(name), "computed[%d]", k);
        lab_name_event(ctx, computed[k], name);
        snprintf(name, sizeof(name), "downloaded[%d]", k);
        lab_name_event(ctx, downloaded[k], name);
        LAB_CHECK(cudaMalloc((void **)&d_in[k], w->batch_bytes));
        LAB_CHECK(cudaMalloc((void **)&d_out[k], w->batch_bytes));
    }
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int b = 0; b < w->batches; b++) {
        int k = b % NBUF;
#if defined(ALL_WAITS)
        if (b >= REUSE_FROM) LAB_CHECK(cudaStreamWaitEvent(up, computed[EV(k)], 0));
#elif defined(LAB_VARIANT_UPLOAD_WAITS_DOWNLOAD)
        if (b >= NBUF) LAB_CHECK(cudaStreamWaitEvent(up, downloaded[k], 0)); /* the set's download, b - 2 */
#elif defined(LAB_VARIANT_HOST_WAITS_REUSE)
        if (b >= NBUF) LAB_CHECK(cudaEventSynchronize(downloaded[k])); /* the host waits for b - 2 */
#endif
#if defined(LAB_VARIANT_WAIT_BEFORE_RECORD)
        cudaEvent_t this_upload = uploaded[k];
        LAB_CHECK(cudaStreamWaitEvent(compute, this_upload, 0)); /* wait before its record */
#endif
        LAB_CHECK(cudaMemcpyAsync(d_in[k], lab_input(ctx, b), w->batch_bytes, cudaMemcpyHostToDevice, up));
#if defined(LAB_VARIANT_WRONG_STREAM_RECORD)
        LAB_CHECK(cudaEventRecord(uploaded[k], compute)); /* wrong-stream record */
#else
        LAB_CHECK(cudaEventRecord(uploaded[EV(k)], up)); /* upload's record */
#endif
#if !defined(LAB_VARIANT_WAIT_BEFORE_RECORD)
        LAB_CHECK(cudaStreamWaitEvent(compute, uploaded[EV(k)], 0)); /* kernel waits for upload */
#endif
#if defined(DOWNLOAD_WAIT)
        if (b >= REUSE_FROM) LAB_CHECK(cudaStreamWaitEvent(compute, downloaded[EV(k)], 0));
#elif defined(LAB_VARIANT_REUSE_WAIT_WRONG_STREAM)
        if (b >= NBUF) LAB_CHECK(cudaStreamWaitEvent(down, downloaded[k], 0)); /* reuse wait on the wrong stream */
#endif
        LAB_CHECK(kernels_process(d_out[k], d_in[k], w->batch_elems, w->process, compute)); /* the kernel */
#if defined(LAB_VARIANT_REUSE_WAIT_AFTER_KERNEL)
        if (b >= NBUF) LAB_CHECK(cudaStreamWaitEvent(compute, downloaded[k], 0)); /* reuse wait after the kernel */
#endif
#if defined(LAB_VARIANT_WRONG_STREAM)
        LAB_CHECK(cudaEventRecord(computed[k], up)); /* the wrong stream: the kernel is on "compute" */
#else
        LAB_CHECK(cudaEventRecord(computed[EV(k)], compute)); /* kernel's record */
#endif
#if defined(LAB_VARIANT_SYNC_COMPUTE)
        LAB_CHECK(cudaStreamSynchronize(compute)); /* orders the next uploads after the kernel, from the host */
#endif
#if defined(LAB_VARIANT_DOWNLOAD_ON_COMPUTE)
        /* behind its kernel on "compute": stream order hands the result over */
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, b), d_out[k], w->batch_bytes, cudaMemcpyDeviceToHost, compute));
        LAB_CHECK(cudaEventRecord(downloaded[k], compute));
#else
#if defined(LAB_VARIANT_WRONG_EVENT_INDEX)
        LAB_CHECK(cudaStreamWaitEvent(down, computed[(k + 1) % NBUF], 0)); /* the other buffer's event */
#else
        LAB_CHECK(cudaStreamWaitEvent(down, computed[EV(k)], 0));
#endif
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, b), d_out[k], w->batch_bytes, cudaMemcpyDeviceToHost, down));
        LAB_CHECK(cudaEventRecord(downloaded[EV(k)], down)); /* download's record */
#endif
#if defined(LAB_VARIANT_OVER_SYNCED)
        LAB_CHECK(cudaDeviceSynchronize());
#endif
    }
#if defined(LAB_VARIANT_OVER_SYNCED) || defined(LAB_VARIANT_WRONG_STREAM_RECORD) || \
    defined(LAB_VARIANT_SYNC_COMPUTE) || defined(LAB_VARIANT_WRONG_STREAM) || defined(ONE_WAIT_MISPLACED) || \
    defined(LAB_VARIANT_ONE_EVENT_EACH) || defined(WHOLE_SET_REUSE)
    LAB_CHECK(cudaStreamSynchronize(down));
#elif defined(LAB_VARIANT_BLOCKING_LEGACY_SYNC)
    LAB_CHECK(cudaStreamSynchronize(0)); /* the legacy stream: it waits for the blocking streams */
#else
    LAB_CHECK(cudaStreamSynchronize(compute)); /* TODO 5 left: the downloads are on "down" */
#endif
    return 0;
}

static void teardown(lab_ctx *ctx) {
    (void)ctx;
    for (int k = 0; k < NBUF; k++) {
        cudaEventDestroy(uploaded[k]);
        cudaEventDestroy(computed[k]);
        cudaEventDestroy(downloaded[k]);
        cudaFree(d_in[k]);
        cudaFree(d_out[k]);
    }
    cudaStreamDestroy(up);
    cudaStreamDestroy(compute);
    cudaStreamDestroy(down);
}

const lab_impl LAB_STUDENT = {setup, run, teardown};
