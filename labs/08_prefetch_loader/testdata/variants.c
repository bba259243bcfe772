/* labs/08_prefetch_loader/testdata/variants.c: what students write on the way through lab
 * 08, for the tests (its lab_test.cc) and for checking the verdicts on a real GPU. One
 * variant per build, chosen with -DLAB_VARIANT_<NAME>; without one, the reference's shape
 * (a ring of three buffers, each freed by an event):
 *
 *   ONE_BUFFER          TODO 1 only: an event after the upload and a wait on it before the
 *                       next load, with one pinned buffer: the loader overlaps the kernel
 *                       and the download but is never more than a batch ahead, so the
 *                       device waits through every slow load (below target: the expected
 *                       state after TODO 1).
 *   RING_OF_TWO         the reference with two buffers: the quick loads put a batch ahead,
 *                       enough for the slow load that follows on this workload (pass).
 *   PAGEABLE_RING       the reference's ring of three, each freed by an event, but of
 *                       pageable buffers (malloc) instead of pinned ones: each upload's
 *                       cudaMemcpyAsync stages the batch through the driver's staging
 *                       memory before it returns, so the loader pays for every upload on
 *                       top of every load (below target).
 *   RING_WAIT_AT_ONCE   a ring of three buffers and their events, but the loader waits on
 *                       the upload's event just after queueing it, "to be sure the buffer
 *                       is free": it is never ahead of the device (below target; both
 *                       TODOs done, the wait named).
 *   SYNC_EACH_BATCH     the ring and its events, but the stream still synchronised after
 *                       every batch, "to be safe": the loader and the device take turns as
 *                       in the skeleton (below target, TODO 1 not done).
 *   NO_WAIT             the ring without the waits: the loader writes buffer k while the
 *                       upload that read it may not have finished. In the plain runs each
 *                       upload happens to be over in time, so the results are right and
 *                       the race checker reports each write as unordered with the upload
 *                       (racy); on the simulator's perturbed schedules a late device
 *                       uploads a batch already overwritten by a later one (incorrect).
 *   MALLOC_REGISTERED   the reference's ring allocated with aligned_alloc and pinned with
 *                       cudaHostRegister, as a program pins memory it already has: this
 *                       kit runs the program in a process of its own, where only memory it
 *                       shares with the lab (cudaMallocHost, cudaHostAlloc, the lab's own
 *                       buffers) reaches the GPU, so the referee refuses the registration
 *                       and setup() stops on its error (error, the refusal saying why).
 *   UPLOAD_IN_HOST_FN   the upload queued from a host function (cudaLaunchHostFunc) "so
 *                       that it starts when the stream gets there": a host function must not
 *                       call CUDA, the call fails (cudaErrorNotPermitted), and run() reports
 *                       it (error).
 *   LOAD_INTO_DEVICE    lab_load_batch given the device buffer to write: the loader runs on
 *                       the host and refuses device memory (error).
 *   FREED_TWICE         the reference whose teardown frees d_in twice, ignoring the error: the
 *                       referee refuses the second cudaFree (memory that is no longer the
 *                       program's), and a program that was refused a command failed,
 *                       whatever its results: not correct (incorrect).
 *   WAIT_AFTER_LOAD     the reference with the loader's cudaEventSynchronize issued after
 *                       lab_load_batch instead of before it: the load may overwrite a buffer
 *                       the upload three batches back still reads (racy; the race report
 *                       blames that wait, which comes after the write it should order).
 *   EVENT_POLL          the reference with cudaEventQuery polled until it returns
 *                       cudaSuccess instead of cudaEventSynchronize before each load, and
 *                       cudaStreamQuery polled instead of the cudaStreamSynchronize at the
 *                       end: a query that succeeded orders the host after the work it asked
 *                       about, as the synchronising call would (correct, race-free, pass).
 *   RECORD_BEFORE_UPLOAD  the reference with each buffer's event recorded just before its
 *                       upload is queued ("the buffer is handed to the GPU here"): the
 *                       loader's wait on it is over before the upload has read the buffer,
 *                       so a load may overwrite what an upload still reads (racy; wrong under
 *                       perturbed schedules; told that the record comes before the upload).
 *   PINNED_EACH_BATCH   no ring and no events: run() gives every batch a pinned buffer of
 *                       its own (cudaMallocHost before its load), never reused, so never
 *                       waited for, and frees them all (cudaFreeHost) after the final wait.
 *                       Correct and fast enough, and the report counts its pinning in run():
 *                       one call per cudaMallocHost and per cudaFreeHost, 96, and the frees'
 *                       waits 48 times, though the referee performs each cudaFreeHost as a
 *                       device synchronisation and an unregistration. Correct, but each
 *                       pinning call's fixed cost, paid twice a batch on the loader's time,
 *                       puts it below target.
 *   PIN_BY_MEMCPY       the ring of three pinned buffers and their events, but the loader
 *                       writes each batch into one pageable buffer of its own (malloc), as
 *                       a decoder's output, and only then, once the slot's upload is over,
 *                       memcpy()s it into the slot ("pin the batch"): two host copies of
 *                       1 MiB a batch on the loader's time (the load's out of the lab's
 *                       memory into the pageable buffer, and the memcpy), about 0.2 ms on
 *                       a GPU's host, where the loads are 0.14 and 0.9 ms (below target).
 *
 * (No variant name ends in _run: the launcher of a lab named NN_topic_run is the one
 * without the timeline, labs/lab.bzl.) */
#include <stdlib.h>

#include "labs/harness/lab.h"

#if defined(LAB_VARIANT_ONE_BUFFER)
#define RING 1
#elif defined(LAB_VARIANT_RING_OF_TWO)
#define RING 2
#else
#define RING 3
#endif

static cudaStream_t stream;
static uint32_t *staging[RING];
#if defined(LAB_VARIANT_PINNED_EACH_BATCH)
enum { MAX_BATCHES = 256 };
static uint32_t *fresh[MAX_BATCHES]; /* batch i's own pinned buffer, made in run() */
#endif
static cudaEvent_t uploaded[RING];
static uint32_t *d_in, *d_out;
#if defined(LAB_VARIANT_PIN_BY_MEMCPY)
static void *decoded; /* the loader's own output, pageable */
#endif

#if defined(LAB_VARIANT_UPLOAD_IN_HOST_FN)
/* What the host function needs to queue one upload, and the first error it met. */
typedef struct upload_job {
    const void *src;
    size_t bytes;
} upload_job;
static upload_job jobs[RING];
static cudaError_t host_fn_error = cudaSuccess;
static int host_fn_line;

static void CUDART_CB queue_upload(void *p) {
    const upload_job *job = p;
    cudaError_t err = cudaMemcpyAsync(d_in, job->src, job->bytes, cudaMemcpyHostToDevice, stream);
    if (err != cudaSuccess && host_fn_error == cudaSuccess) {
        host_fn_error = err;
        host_fn_line = __LINE__ - 3;
    }
}
#endif

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    LAB_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    lab_name_stream(ctx, stream, "device");
    for (int k = 0; k < RING; k++) {
#if defined(LAB_VARIANT_PAGEABLE_RING)
        staging[k] = malloc(w->batch_bytes);
        if (!staging[k]) return 1;
#elif defined(LAB_VARIANT_MALLOC_REGISTERED)
        staging[k] = aligned_alloc(4096, (w->batch_bytes + 4095) / 4096 * 4096);
        if (!staging[k]) return 1;
        LAB_CHECK(cudaHostRegister(staging[k], w->batch_bytes, cudaHostRegisterDefault));
#elif !defined(LAB_VARIANT_PINNED_EACH_BATCH) /* its buffers are made in run() */
        LAB_CHECK(cudaMallocHost((void **)&staging[k], w->batch_bytes));
#endif
        LAB_CHECK(cudaEventCreateWithFlags(&uploaded[k], cudaEventDisableTiming));
    }
    LAB_CHECK(cudaMalloc((void **)&d_in, w->batch_bytes));
    LAB_CHECK(cudaMalloc((void **)&d_out, w->batch_bytes));
#if defined(LAB_VARIANT_PIN_BY_MEMCPY)
    decoded = malloc(w->batch_bytes);
    if (!decoded) return 1;
#endif
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
#if defined(LAB_VARIANT_PINNED_EACH_BATCH)
    if (w->batches > MAX_BATCHES) return 1;
    for (int i = 0; i < w->batches; i++) { /* a buffer each: nothing to wait for */
        LAB_CHECK(cudaMallocHost((void **)&fresh[i], w->batch_bytes));
        if (lab_load_batch(ctx, i, fresh[i]) != 0) return 1;
        LAB_CHECK(cudaMemcpyAsync(d_in, fresh[i], w->batch_bytes, cudaMemcpyHostToDevice, stream));
        LAB_CHECK(kernels_process(d_out, d_in, w->batch_elems, w->process, stream));
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, i), d_out, w->batch_bytes, cudaMemcpyDeviceToHost, stream));
    }
    LAB_CHECK(cudaStreamSynchronize(stream)); /* the batches done: their buffers free */
    for (int i = 0; i < w->batches; i++) {
        LAB_CHECK(cudaFreeHost(fresh[i])); /* the batch's buffer, freed */
        fresh[i] = NULL;
    }
    return 0;
#endif
    for (int i = 0; i < w->batches; i++) {
        int k = i % RING;
#if defined(LAB_VARIANT_PIN_BY_MEMCPY)
        if (lab_load_batch(ctx, i, decoded) != 0) return 1;  /* decode: nothing to wait for */
        LAB_CHECK(cudaEventSynchronize(uploaded[i % RING])); /* the slot is free */
        memcpy(staging[k], decoded, w->batch_bytes);         /* pin the batch */
#elif defined(LAB_VARIANT_EVENT_POLL)
        cudaError_t polled;
        while ((polled = cudaEventQuery(uploaded[k])) == cudaErrorNotReady) {
        }
        LAB_CHECK(polled);
#elif !defined(LAB_VARIANT_NO_WAIT) && !defined(LAB_VARIANT_WAIT_AFTER_LOAD)
        LAB_CHECK(cudaEventSynchronize(uploaded[k]));
#endif
#if defined(LAB_VARIANT_LOAD_INTO_DEVICE)
        if (lab_load_batch(ctx, i, d_in) != 0) return 1;
#elif defined(LAB_VARIANT_PIN_BY_MEMCPY)
        /* loaded above, into the pageable buffer */
#else
        if (lab_load_batch(ctx, i, staging[k]) != 0) return 1; /* the load */
#endif
#if defined(LAB_VARIANT_WAIT_AFTER_LOAD)
        LAB_CHECK(cudaEventSynchronize(uploaded[k])); /* after the load it should precede */
#endif
#if defined(LAB_VARIANT_UPLOAD_IN_HOST_FN)
        jobs[k].src = staging[k];
        jobs[k].bytes = w->batch_bytes;
        LAB_CHECK(cudaLaunchHostFunc(stream, queue_upload, &jobs[k]));
#elif defined(LAB_VARIANT_RECORD_BEFORE_UPLOAD)
        LAB_CHECK(cudaEventRecord(uploaded[k], stream)); /* before the upload it should mark */
        LAB_CHECK(cudaMemcpyAsync(d_in, staging[k], w->batch_bytes, cudaMemcpyHostToDevice, stream));
#else
        LAB_CHECK(cudaMemcpyAsync(d_in, staging[k], w->batch_bytes, cudaMemcpyHostToDevice, stream));
#endif
#if !defined(LAB_VARIANT_RECORD_BEFORE_UPLOAD)
        LAB_CHECK(cudaEventRecord(uploaded[k], stream));
#endif
#if defined(LAB_VARIANT_RING_WAIT_AT_ONCE)
        LAB_CHECK(cudaEventSynchronize(uploaded[k])); /* at once: the loader never gets ahead */
#endif
        LAB_CHECK(kernels_process(d_out, d_in, w->batch_elems, w->process, stream));
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, i), d_out, w->batch_bytes, cudaMemcpyDeviceToHost, stream));
#if defined(LAB_VARIANT_SYNC_EACH_BATCH)
        LAB_CHECK(cudaStreamSynchronize(stream)); /* to be safe */
#endif
    }
#if defined(LAB_VARIANT_EVENT_POLL)
    cudaError_t done;
    while ((done = cudaStreamQuery(stream)) == cudaErrorNotReady) {
    }
    LAB_CHECK(done);
#else
    LAB_CHECK(cudaStreamSynchronize(stream)); /* every batch queued */
#endif
#if defined(LAB_VARIANT_UPLOAD_IN_HOST_FN)
    if (host_fn_error != cudaSuccess) { /* the upload queued from the host function */
        lab_report_cuda_error("cudaMemcpyAsync (in the host function queue_upload)", __FILE__, host_fn_line,
                              host_fn_error);
        return 1;
    }
#endif
    return 0;
}

static void teardown(lab_ctx *ctx) {
    (void)ctx;
    for (int k = 0; k < RING; k++) {
#if defined(LAB_VARIANT_PAGEABLE_RING)
        free(staging[k]);
#elif defined(LAB_VARIANT_MALLOC_REGISTERED)
        if (staging[k]) cudaHostUnregister(staging[k]);
        free(staging[k]);
#else
        cudaFreeHost(staging[k]);
#endif
        cudaEventDestroy(uploaded[k]);
    }
    cudaFree(d_in);
#if defined(LAB_VARIANT_FREED_TWICE)
    cudaFree(d_in); /* freed twice */
#endif
    cudaFree(d_out);
    cudaStreamDestroy(stream);
#if defined(LAB_VARIANT_PIN_BY_MEMCPY)
    free(decoded);
#endif
}

const lab_impl LAB_STUDENT = {setup, run, teardown};
