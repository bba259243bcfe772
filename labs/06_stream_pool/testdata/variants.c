/* labs/06_stream_pool/testdata/variants.c: what students write on the way through lab 06,
 * for the tests (its lab_test.cc) and for checking the verdicts on a real GPU. One
 * variant per build, chosen with -DLAB_VARIANT_<NAME>; without one, the reference's shape
 * (a pool of four streams, a buffer set each):
 *
 *   SHARED_BUFFERS   TODO 1 only: a pool of four streams that share the skeleton's one set
 *                    of buffers: request i + 1's upload overwrites the input request i's
 *                    kernel is still reading on another stream (racy: the expected state
 *                    after TODO 1).
 *   RING_NO_EVENTS   eight streams and a ring of four buffer sets (request i on stream
 *                    i % 8 with set i % 4): request i + 4 reuses request i's set from
 *                    another stream, with nothing ordering the two (racy).
 *   RING_EVENTS      the same ring, with an event per buffer set recorded after the set's
 *                    last use and waited on (cudaStreamWaitEvent) by its next user:
 *                    correct, race-free, and as fast as a buffer set per stream (pass).
 *   SMALL_POOL       a pool of two streams, a buffer set each: two at once serve a request
 *                    every 65 us or so, and one arrives every 50 us, so the queue still
 *                    grows (below target).
 *   DEVICE_SYNC      the reference's pool, with cudaDeviceSynchronize after each request
 *                    "to know it is done": the host waits for each request before taking
 *                    the next, so the pool serves one at a time (below target).
 *   EVENT_AFTER_KERNEL  RING_EVENTS with each set's event recorded after the kernel instead
 *                    of after the download: the next user's kernel may overwrite d_out
 *                    while the download still reads it (racy).
 *   LAST_STREAM_ONLY the reference's pool, and run() waits only for the pool's last stream
 *                    (racy: the harness may read results the other streams are still
 *                    downloading).
 *   LEGACY_MEMCPY    the reference's pool with the copies made by cudaMemcpy (on the legacy
 *                    default stream, returning when done): the host serves one request at
 *                    a time (below target).
 *   HOST_WAIT_EACH   the reference's pool, and cudaStreamSynchronize on the request's
 *                    stream after each request (below target).
 *   HOST_ORDERED_RING  RING_EVENTS with the host waiting for a set's event
 *                    (cudaEventSynchronize) before it hands the set to its next user, instead
 *                    of that user's stream waiting on it: the set is free by then on this
 *                    workload, so the host hardly waits (correct, race-free, pass; TODO 2
 *                    done another way than the lesson's, so no hint sends the student back).
 *   LEGACY_IN_POOL   a pool of four whose first stream is the legacy default stream (0) and
 *                    whose others are blocking streams (cudaStreamCreate): every request on
 *                    stream 0 waits for the other three and holds them back, so the pool
 *                    serves little more than one at a time (below target, the stream-0
 *                    advice, not "make the pool larger").
 *   WAIT_AFTER_UPLOAD  RING_EVENTS with each set's wait issued after the upload into the
 *                    set, just before the kernel "that writes its results": the wait holds
 *                    back the kernel and the download, but the upload may overwrite d_in
 *                    while the set's last user's kernel still reads it (racy: the race
 *                    and the Why name the wait that comes too late).
 *
 * (No variant name ends in _run: the launcher of a lab named NN_topic_run is the one
 * without the timeline, labs/lab.bzl.) */
#include <stdio.h>

#include "labs/harness/lab.h"

#if defined(LAB_VARIANT_EVENT_AFTER_KERNEL) || defined(LAB_VARIANT_HOST_ORDERED_RING) || \
    defined(LAB_VARIANT_WAIT_AFTER_UPLOAD)
#define LAB_VARIANT_RING_EVENTS 1 /* the ring with events: recorded too early, waited late or by the host */
#endif
#if defined(LAB_VARIANT_RING_NO_EVENTS) || defined(LAB_VARIANT_RING_EVENTS)
#define POOL 8
#define SETS 4
#elif defined(LAB_VARIANT_SMALL_POOL)
#define POOL 2
#define SETS 2
#elif defined(LAB_VARIANT_SHARED_BUFFERS)
#define POOL 4
#define SETS 1
#else
#define POOL 4
#define SETS 4
#endif

static cudaStream_t streams[POOL];
static uint32_t *d_in[SETS], *d_out[SETS];
#if defined(LAB_VARIANT_RING_EVENTS)
static cudaEvent_t set_free[SETS]; /* recorded after a set's last use by a request */
#endif

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int s = 0; s < POOL; s++) {
#if defined(LAB_VARIANT_LEGACY_IN_POOL)
        if (s == 0) {
            streams[s] = 0; /* the default stream is a stream too, "to save one" */
            continue;
        }
        LAB_CHECK(cudaStreamCreate(&streams[s]));
#else
        LAB_CHECK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
#endif
        char name[16];
        snprintf(name, sizeof(name), "pool %d", s);
        lab_name_stream(ctx, streams[s], name);
    }
    for (int b = 0; b < SETS; b++) {
        LAB_CHECK(cudaMalloc((void **)&d_in[b], w->batch_bytes));
        LAB_CHECK(cudaMalloc((void **)&d_out[b], w->batch_bytes));
#if defined(LAB_VARIANT_RING_EVENTS)
        LAB_CHECK(cudaEventCreateWithFlags(&set_free[b], cudaEventDisableTiming));
#endif
    }
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int i = 0; i < w->batches; i++) {
        lab_wait_request(ctx, i);
        cudaStream_t st = streams[i % POOL];
        int b = i % SETS;
#if defined(LAB_VARIANT_RING_EVENTS)
#if defined(LAB_VARIANT_HOST_ORDERED_RING)
        if (i >= SETS) LAB_CHECK(cudaEventSynchronize(set_free[b])); /* the host hands out only a free set */
#elif !defined(LAB_VARIANT_WAIT_AFTER_UPLOAD)
        if (i >= SETS) LAB_CHECK(cudaStreamWaitEvent(st, set_free[b], 0)); /* the set's last user is done */
#endif
#endif
#if defined(LAB_VARIANT_LEGACY_MEMCPY)
        LAB_CHECK(cudaMemcpy(d_in[b], lab_input(ctx, i), w->batch_bytes, cudaMemcpyHostToDevice));
#else
        LAB_CHECK(cudaMemcpyAsync(d_in[b], lab_input(ctx, i), w->batch_bytes, cudaMemcpyHostToDevice, st));
#endif
#if defined(LAB_VARIANT_WAIT_AFTER_UPLOAD)
        if (i >= SETS) LAB_CHECK(cudaStreamWaitEvent(st, set_free[b], 0)); /* before the kernel writes d_out */
#endif
        LAB_CHECK(kernels_process(d_out[b], d_in[b], w->batch_elems, w->process, st));
        for (int k = 1; k < w->steps; k++) LAB_CHECK(kernels_process(d_out[b], d_out[b], w->batch_elems, w->process, st));
#if defined(LAB_VARIANT_EVENT_AFTER_KERNEL)
        LAB_CHECK(cudaEventRecord(set_free[b], st)); /* too early: the download still reads d_out */
#endif
#if defined(LAB_VARIANT_LEGACY_MEMCPY)
        LAB_CHECK(cudaMemcpy(lab_output(ctx, i), d_out[b], w->batch_bytes, cudaMemcpyDeviceToHost));
#else
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, i), d_out[b], w->batch_bytes, cudaMemcpyDeviceToHost, st));
#endif
#if defined(LAB_VARIANT_RING_EVENTS) && !defined(LAB_VARIANT_EVENT_AFTER_KERNEL)
        LAB_CHECK(cudaEventRecord(set_free[b], st));
#endif
#if defined(LAB_VARIANT_DEVICE_SYNC)
        LAB_CHECK(cudaDeviceSynchronize());
#endif
#if defined(LAB_VARIANT_HOST_WAIT_EACH)
        LAB_CHECK(cudaStreamSynchronize(st)); /* to know the request is done */
#endif
    }
#if defined(LAB_VARIANT_LAST_STREAM_ONLY)
    LAB_CHECK(cudaStreamSynchronize(streams[POOL - 1])); /* the last stream only */
#else
    for (int s = 0; s < POOL; s++) LAB_CHECK(cudaStreamSynchronize(streams[s]));
#endif
    return 0;
}

static void teardown(lab_ctx *ctx) {
    (void)ctx;
    for (int b = 0; b < SETS; b++) {
        cudaFree(d_in[b]);
        cudaFree(d_out[b]);
#if defined(LAB_VARIANT_RING_EVENTS)
        cudaEventDestroy(set_free[b]);
#endif
    }
    for (int s = 0; s < POOL; s++)
        if (streams[s]) cudaStreamDestroy(streams[s]);
}

const lab_impl LAB_STUDENT = {setup, run, teardown};
