/* labs/03_double_buffer/testdata/variants.c: lab 03 implementations for the tests, one per
 * LAB_VARIANT_* macro (lab.json names each, a lab of its own). Each is the reference's
 * pipeline (batch i on stream i % NUM_STREAMS with its own buffers) with one deliberate
 * difference:
 *
 *   LAB_VARIANT_TWO_STREAMS  double instead of triple buffering: slower, still passes
 *   LAB_VARIANT_SHARED_BUFFERS  two streams, one buffer pair for both (the skeleton after
 *                            TODO 1): write-after-read and write-after-write races
 *   LAB_VARIANT_EVENTS       two streams, one buffer pair, each reuse ordered with events:
 *                            correct and race-free, but the streams take turns with the
 *                            buffers and it misses the target
 *   LAB_VARIANT_EVENTS_WAIT_AFTER_COPY  EVENTS with the wait on in_free issued after the
 *                            copy into d_in it should hold back: the copy may overwrite the
 *                            input the other stream's kernel still reads (racy; the race
 *                            report blames that wait, issued too late)
 *   LAB_VARIANT_RACY         three streams share two buffer sets (batch i+2's copy can
 *                            overwrite a buffer batch i's kernel still reads: WAR/WAW), and
 *                            run() waits for the last stream only (the host reads results
 *                            other streams may not have written: host read before completion)
 *   LAB_VARIANT_NO_KERNEL    copies each batch in and out without running the kernel
 *   LAB_VARIANT_SYNC_MEMCPY  copies each result back with cudaMemcpy (no stream: the legacy
 *                            default stream) from streams made with cudaStreamCreate:
 *                            correct, and every copy back a barrier for every stream
 *   LAB_VARIANT_SYNC_EACH_BATCH  waits for each batch's stream before queueing the next
 *                            (cudaStreamSynchronize "to be safe"): correct, and the streams
 *                            take turns (below target; every TODO done, the wait named)
 *   LAB_VARIANT_KERNEL_ON_STREAM0  launches the kernel with stream 0, the streams made with
 *                            cudaStreamCreate: correct, and every kernel a barrier
 *   LAB_VARIANT_ROUND_DEVSYNC  a cudaDeviceSynchronize before each round of three batches
 *                            reuses the buffers ("let the round finish"): correct, and the
 *                            pipeline fills and drains eight times (below target, the
 *                            fastest of the over-synchronised programs the target is set
 *                            against: spec.c)
 *   LAB_VARIANT_READ_EARLY   copies batch i in on the next stream but runs its kernel on its
 *                            own, with nothing between them: the kernel can read the input
 *                            buffer before the copy has filled it (read-after-write)
 *   LAB_VARIANT_STAGED_INPUTS  the reference's three streams, but each batch's input first
 *                            copied with memcpy into a pinned staging buffer of its stream
 *                            ("the copy engine reads pinned memory"), once the stream's last
 *                            upload out of it is done (cudaEventSynchronize): correct, but
 *                            the inputs are pinned already, and 96 MiB of host copies a run
 *                            take the host longer than the whole pipeline (below target)
 *   LAB_VARIANT_CRASH        dereferences a bad pointer on the host in run() (SIGSEGV)
 *   LAB_VARIANT_HOST_TOUCHES_DEVICE  after its pipeline, run() reads one element of a device
 *                            buffer on the host (SIGSEGV, on a GPU as on the simulator);
 *                            lab03_test finds the statement by its comment
 *   LAB_VARIANT_HANG         run() never returns
 *   LAB_VARIANT_EXIT_EARLY   calls exit(0) in run()
 *   LAB_VARIANT_SETUP_FAILS  setup() asks for an impossible allocation */
#include <stdlib.h>
#include <string.h>

#include "labs/harness/lab.h"

#if defined(LAB_VARIANT_EVENTS) || defined(LAB_VARIANT_EVENTS_WAIT_AFTER_COPY)
#define EVENT_PAIR 1 /* two streams share one buffer pair, handed over with events */
#endif

#if defined(LAB_VARIANT_TWO_STREAMS) || defined(LAB_VARIANT_SHARED_BUFFERS) || defined(EVENT_PAIR)
#define NUM_STREAMS 2
#else
#define NUM_STREAMS 3
#endif

#if defined(LAB_VARIANT_RACY)
#define NUM_BUFFERS 2
#elif defined(LAB_VARIANT_SHARED_BUFFERS) || defined(EVENT_PAIR)
#define NUM_BUFFERS 1
#else
#define NUM_BUFFERS NUM_STREAMS
#endif

#if defined(LAB_VARIANT_SETUP_FAILS)
#define INPUT_BYTES(w) ((size_t)1 << 62)
#else
#define INPUT_BYTES(w) ((w)->batch_bytes)
#endif

static cudaStream_t streams[NUM_STREAMS];
static uint32_t *d_in[NUM_BUFFERS];
static uint32_t *d_out[NUM_BUFFERS];
#if defined(EVENT_PAIR)
/* in_free: the kernel that read d_in is done; out_free: the copy that read d_out is done. */
static cudaEvent_t in_free, out_free;
#endif
#if defined(LAB_VARIANT_STAGED_INPUTS)
static uint32_t *stage[NUM_STREAMS]; /* each stream's pinned copy of its batch's input */
static cudaEvent_t staged[NUM_STREAMS]; /* the stream's last upload out of it is done */
#endif

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int s = 0; s < NUM_STREAMS; s++) {
#if defined(LAB_VARIANT_SYNC_MEMCPY) || defined(LAB_VARIANT_KERNEL_ON_STREAM0)
        LAB_CHECK(cudaStreamCreate(&streams[s]));
#else
        LAB_CHECK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
#endif
        char name[16];
        snprintf(name, sizeof(name), "buf %c", 'A' + s);
        lab_name_stream(ctx, streams[s], name);
    }
    for (int b = 0; b < NUM_BUFFERS; b++) {
        LAB_CHECK(cudaMalloc((void **)&d_in[b], INPUT_BYTES(w)));
        LAB_CHECK(cudaMalloc((void **)&d_out[b], w->batch_bytes));
    }
#if defined(EVENT_PAIR)
    LAB_CHECK(cudaEventCreateWithFlags(&in_free, cudaEventDisableTiming));
    LAB_CHECK(cudaEventCreateWithFlags(&out_free, cudaEventDisableTiming));
#endif
#if defined(LAB_VARIANT_STAGED_INPUTS)
    for (int s = 0; s < NUM_STREAMS; s++) {
        LAB_CHECK(cudaMallocHost((void **)&stage[s], w->batch_bytes));
        LAB_CHECK(cudaEventCreateWithFlags(&staged[s], cudaEventDisableTiming));
    }
#endif
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
#if defined(LAB_VARIANT_HANG)
    for (volatile int forever = 1; forever;) {
    }
#endif
    for (int i = 0; i < w->batches; i++) {
        int s = i % NUM_STREAMS, b = i % NUM_BUFFERS;
#if defined(LAB_VARIANT_ROUND_DEVSYNC)
        if (s == 0 && i > 0) LAB_CHECK(cudaDeviceSynchronize()); /* the round done before reuse */
#endif
#if defined(LAB_VARIANT_EVENTS)
        /* The previous batch (on the other stream) must be done reading d_in... */
        if (i > 0) LAB_CHECK(cudaStreamWaitEvent(streams[s], in_free, 0));
#endif
#if defined(LAB_VARIANT_READ_EARLY)
        LAB_CHECK(cudaMemcpyAsync(d_in[b], lab_input(ctx, i), w->batch_bytes, cudaMemcpyHostToDevice,
                                  streams[(s + 1) % NUM_STREAMS]));
#elif defined(LAB_VARIANT_STAGED_INPUTS)
        if (i >= NUM_STREAMS) LAB_CHECK(cudaEventSynchronize(staged[s])); /* the stage is free */
        memcpy(stage[s], lab_input(ctx, i), w->batch_bytes);             /* pin the input */
        LAB_CHECK(cudaMemcpyAsync(d_in[b], stage[s], w->batch_bytes, cudaMemcpyHostToDevice, streams[s]));
        LAB_CHECK(cudaEventRecord(staged[s], streams[s]));
#else
        LAB_CHECK(cudaMemcpyAsync(d_in[b], lab_input(ctx, i), w->batch_bytes, cudaMemcpyHostToDevice, streams[s]));
#endif
#if defined(LAB_VARIANT_EVENTS_WAIT_AFTER_COPY)
        if (i >= 1) LAB_CHECK(cudaStreamWaitEvent(streams[s], in_free, 0)); /* wait after the copy */
#endif
#if defined(LAB_VARIANT_NO_KERNEL)
        const uint32_t *result = d_in[b];
#else
#if defined(EVENT_PAIR)
        /* ...and copying d_out back. */
        if (i > 0) LAB_CHECK(cudaStreamWaitEvent(streams[s], out_free, 0));
#endif
#if defined(LAB_VARIANT_KERNEL_ON_STREAM0)
        LAB_CHECK(kernels_process(d_out[b], d_in[b], w->batch_elems, w->process, 0));
#else
        LAB_CHECK(kernels_process(d_out[b], d_in[b], w->batch_elems, w->process, streams[s]));
#endif
        const uint32_t *result = d_out[b];
#endif
#if defined(EVENT_PAIR)
        LAB_CHECK(cudaEventRecord(in_free, streams[s]));
#endif
#if defined(LAB_VARIANT_SYNC_MEMCPY)
        LAB_CHECK(cudaMemcpy(lab_output(ctx, i), result, w->batch_bytes, cudaMemcpyDeviceToHost));
#else
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, i), result, w->batch_bytes, cudaMemcpyDeviceToHost, streams[s]));
#endif
#if defined(EVENT_PAIR)
        LAB_CHECK(cudaEventRecord(out_free, streams[s]));
#endif
#if defined(LAB_VARIANT_SYNC_EACH_BATCH)
        LAB_CHECK(cudaStreamSynchronize(streams[s])); /* to be safe */
#endif
    }
#if defined(LAB_VARIANT_RACY)
    LAB_CHECK(cudaStreamSynchronize(streams[(w->batches - 1) % NUM_STREAMS]));
#else
    for (int s = 0; s < NUM_STREAMS; s++) LAB_CHECK(cudaStreamSynchronize(streams[s]));
#endif
#if defined(LAB_VARIANT_CRASH)
    volatile uint32_t *nowhere = (volatile uint32_t *)(uintptr_t)16;
    return (int)*nowhere;
#elif defined(LAB_VARIANT_HOST_TOUCHES_DEVICE)
    /* "Is the first result there?", asked of the device buffer instead of the output. */
    return d_out[0][0] == 0xdeadbeefu; /* host reads device memory */
#elif defined(LAB_VARIANT_EXIT_EARLY)
    exit(0);
#else
    return 0;
#endif
}

static void teardown(lab_ctx *ctx) {
    (void)ctx;
    for (int b = 0; b < NUM_BUFFERS; b++) {
        cudaFree(d_in[b]);
        cudaFree(d_out[b]);
    }
    for (int s = 0; s < NUM_STREAMS; s++) cudaStreamDestroy(streams[s]);
#if defined(EVENT_PAIR)
    cudaEventDestroy(in_free);
    cudaEventDestroy(out_free);
#endif
#if defined(LAB_VARIANT_STAGED_INPUTS)
    for (int s = 0; s < NUM_STREAMS; s++) {
        cudaFreeHost(stage[s]);
        cudaEventDestroy(staged[s]);
    }
#endif
}

const lab_impl LAB_STUDENT = {setup, run, teardown};
