/* labs/02_events/testdata/variants.c: what students write on the way through lab 02, for
 * the tests (its lab_test.cc) and for checking the verdicts on a real GPU. One variant
 * per build, chosen with -DLAB_VARIANT_<NAME>:
 *
 *   GPU_TIMED_HOST_SYNCED  TODO 1 only: the combine timed with events, the stages still
 *                          ordered by the host (measurement right, below the speed target).
 *   EVENTS_HOST_TIMED      TODO 2 only: the stages ordered with events, the combine still
 *                          timed with a host clock (fast enough, measurement wrong: below
 *                          target, and the report says why).
 *   TIMED_ON_B             both TODOs, but the combine's pair of events recorded on stream B,
 *                          which has nothing to do then: the pair spans no kernel of the
 *                          combine's (fast enough, measurement wrong: below target, and the
 *                          report says the events do not span the combine, not that a host
 *                          clock was used).
 *   HOST_TIMED_SYNCED      TODO 2 done, but the combine timed with a host clock between two
 *                          host waits (cudaStreamSynchronize before the launch and after it,
 *                          as much code times a kernel): a figure near the device's, from no
 *                          event (below target: the report says the run read none).
 *   EARLY_RECORD           both TODOs, but the event that should follow producer B is
 *                          recorded before producer B is launched (racy: the combine may
 *                          read what producer B has not written; the report names the
 *                          record).
 *   QUERY_SPIN             TODO 1 only, the host's waits between stages written as polls:
 *                          an event recorded on the stream, then cudaEventQuery asked until
 *                          it answers cudaSuccess (no cudaStreamSynchronize between stages):
 *                          as slow as the host's waits it replaces, and the report names
 *                          the poll.
 *   STREAM_QUERY_BACKOFF   TODO 1 only, the host's waits between stages polling
 *                          cudaStreamQuery with some host work between two queries (a
 *                          back-off, as a sleep would be): the same.
 *   QUERY_PROGRESS         both TODOs, and in every batch one cudaEventQuery on the combine
 *                          of the batch eight before, to count the batches the device has
 *                          finished (asked once, never until it is done: no wait; passes).
 *   FREE_EACH_BATCH        both TODOs, but the device buffers allocated at the start of
 *                          every batch and freed once its download is queued: cudaFree
 *                          waits for the device, so the batches run one after another
 *                          (below target: the report names the free). */
#include <stdio.h>

#include "labs/harness/lab.h"

#define MAX_BATCHES 256

#if defined(LAB_VARIANT_GPU_TIMED_HOST_SYNCED) || defined(LAB_VARIANT_QUERY_SPIN) || \
    defined(LAB_VARIANT_STREAM_QUERY_BACKOFF)
#define GPU_TIMED 1
#define EVENTS 0
#elif defined(LAB_VARIANT_EVENTS_HOST_TIMED) || defined(LAB_VARIANT_HOST_TIMED_SYNCED)
#define GPU_TIMED 0
#define EVENTS 1
#else
#define GPU_TIMED 1
#define EVENTS 1
#endif

static cudaStream_t stream_a, stream_b;
static uint32_t *d_in, *d_mid, *d_out;
static cudaEvent_t start[MAX_BATCHES], stop[MAX_BATCHES];
static cudaEvent_t uploaded, produced;

/* How the host waits for a stream between stages when events do not order them. */
#if defined(LAB_VARIANT_QUERY_SPIN)
static cudaEvent_t reached[2]; /* one per stream */

/* "Synchronise without blocking": mark where the stream is, then ask until it got there. */
static cudaError_t spin_on(cudaStream_t s) {
    cudaEvent_t e = reached[s == stream_b];
    cudaError_t err = cudaEventRecord(e, s);
    if (err != cudaSuccess) return err;
    while ((err = cudaEventQuery(e)) == cudaErrorNotReady) {
    }
    return err;
}
#define HOST_WAIT(s) LAB_CHECK(spin_on(s))
#elif defined(LAB_VARIANT_STREAM_QUERY_BACKOFF)
/* Ask the stream, and between two questions do something else for a while. */
static cudaError_t poll_stream(cudaStream_t s) {
    cudaError_t err;
    while ((err = cudaStreamQuery(s)) == cudaErrorNotReady) {
        volatile unsigned spin = 0;
        for (int i = 0; i < 2000; i++) spin = spin + (unsigned)i; /* back off */
    }
    return err;
}
#define HOST_WAIT(s) LAB_CHECK(poll_stream(s))
#else
#define HOST_WAIT(s) LAB_CHECK(cudaStreamSynchronize(s))
#endif

#if defined(LAB_VARIANT_QUERY_PROGRESS)
static int finished; /* batches the device had finished when the host looked */
#endif

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    if (w->batches > MAX_BATCHES) return 1;
    LAB_CHECK(cudaStreamCreateWithFlags(&stream_a, cudaStreamNonBlocking));
    LAB_CHECK(cudaStreamCreateWithFlags(&stream_b, cudaStreamNonBlocking));
    lab_name_stream(ctx, stream_a, "A");
    lab_name_stream(ctx, stream_b, "B");
#if !defined(LAB_VARIANT_FREE_EACH_BATCH)
    LAB_CHECK(cudaMalloc((void **)&d_in, w->batch_bytes));
    LAB_CHECK(cudaMalloc((void **)&d_mid, w->batch_bytes));
    LAB_CHECK(cudaMalloc((void **)&d_out, w->batch_bytes));
#endif
    for (int b = 0; b < w->batches; b++) {
        LAB_CHECK(cudaEventCreate(&start[b]));
        LAB_CHECK(cudaEventCreate(&stop[b]));
    }
    LAB_CHECK(cudaEventCreateWithFlags(&uploaded, cudaEventDisableTiming));
    LAB_CHECK(cudaEventCreateWithFlags(&produced, cudaEventDisableTiming));
#if defined(LAB_VARIANT_QUERY_SPIN)
    for (int i = 0; i < 2; i++) LAB_CHECK(cudaEventCreateWithFlags(&reached[i], cudaEventDisableTiming));
    lab_name_event(ctx, reached[0], "reached[0]");
    lab_name_event(ctx, reached[1], "reached[1]");
#endif
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    size_t half = w->batch_elems / 2;
    double host_ms = 0;
    for (int b = 0; b < w->batches; b++) {
#if defined(LAB_VARIANT_FREE_EACH_BATCH)
        /* "Only what this batch needs, only while it needs it." */
        LAB_CHECK(cudaMalloc((void **)&d_in, w->batch_bytes));
        LAB_CHECK(cudaMalloc((void **)&d_mid, w->batch_bytes));
        LAB_CHECK(cudaMalloc((void **)&d_out, w->batch_bytes));
#endif
#if defined(LAB_VARIANT_QUERY_PROGRESS)
        if (b >= 8 && cudaEventQuery(stop[b - 8]) == cudaSuccess) finished++; /* asked once */
#endif
        LAB_CHECK(cudaMemcpyAsync(d_in, lab_input(ctx, b), w->batch_bytes, cudaMemcpyHostToDevice, stream_a));
        if (EVENTS) {
            LAB_CHECK(cudaEventRecord(uploaded, stream_a));
            LAB_CHECK(cudaStreamWaitEvent(stream_b, uploaded, 0));
        } else {
            HOST_WAIT(stream_a);
        }
        LAB_CHECK(kernels_process(d_mid, d_in, half, w->process, stream_a));
#if defined(LAB_VARIANT_EARLY_RECORD)
        LAB_CHECK(cudaEventRecord(produced, stream_b)); /* too early: before producer B */
#endif
        LAB_CHECK(kernels_process(d_mid + half, d_in + half, w->batch_elems - half, w->process, stream_b));
        if (EVENTS) {
#if !defined(LAB_VARIANT_EARLY_RECORD)
            LAB_CHECK(cudaEventRecord(produced, stream_b));
#endif
            LAB_CHECK(cudaStreamWaitEvent(stream_a, produced, 0));
        } else {
            HOST_WAIT(stream_a);
            HOST_WAIT(stream_b);
        }
#if defined(LAB_VARIANT_HOST_TIMED_SYNCED)
        LAB_CHECK(cudaStreamSynchronize(stream_a)); /* the producers done: the clock starts at the launch */
#endif
        double t0 = lab_host_ms();
#if defined(LAB_VARIANT_TIMED_ON_B)
        cudaStream_t timed = stream_b; /* not the combine's stream */
#else
        cudaStream_t timed = stream_a;
#endif
        if (GPU_TIMED) LAB_CHECK(cudaEventRecord(start[b], timed));
        LAB_CHECK(kernels_process(d_out, d_mid, w->batch_elems, w->process, stream_a));
        if (GPU_TIMED) LAB_CHECK(cudaEventRecord(stop[b], timed));
#if defined(LAB_VARIANT_HOST_TIMED_SYNCED)
        LAB_CHECK(cudaStreamSynchronize(stream_a)); /* the combine done: the clock stops */
#endif
        host_ms += lab_host_ms() - t0;
        if (!EVENTS) HOST_WAIT(stream_a);
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, b), d_out, w->batch_bytes, cudaMemcpyDeviceToHost, stream_a));
#if defined(LAB_VARIANT_FREE_EACH_BATCH)
        LAB_CHECK(cudaFree(d_in)); /* freed as soon as the batch is queued */
        LAB_CHECK(cudaFree(d_mid));
        LAB_CHECK(cudaFree(d_out));
#endif
    }
    LAB_CHECK(cudaStreamSynchronize(stream_a)); /* every batch queued */
    double combine_ms = 0;
    for (int b = 0; GPU_TIMED && b < w->batches; b++) {
        float ms;
        LAB_CHECK(cudaEventElapsedTime(&ms, start[b], stop[b]));
        combine_ms += ms;
    }
    lab_report_ms(ctx, "combine", GPU_TIMED ? combine_ms : host_ms);
#if defined(LAB_VARIANT_QUERY_PROGRESS)
    fprintf(stderr, "the device had finished %d of %d batches when the host looked\n", finished, w->batches - 8);
    finished = 0;
#endif
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
#if defined(LAB_VARIANT_QUERY_SPIN)
    cudaEventDestroy(reached[0]);
    cudaEventDestroy(reached[1]);
#endif
#if !defined(LAB_VARIANT_FREE_EACH_BATCH)
    cudaFree(d_in);
    cudaFree(d_mid);
    cudaFree(d_out);
#endif
    cudaStreamDestroy(stream_a);
    cudaStreamDestroy(stream_b);
}

const lab_impl LAB_STUDENT = {setup, run, teardown};
