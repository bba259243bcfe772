/* labs/01_pinned_memory/testdata/variants.c: what students write on the way through lab
 * 01, for the tests (its lab_test.cc) and for checking the verdicts on a real GPU. One
 * variant per build, chosen with -DLAB_VARIANT_<NAME>:
 *
 *   PINNED_ONE_STREAM  TODO 1 only: the harness's buffers registered in setup(), every
 *                      batch still on one stream (below target: the link carries one
 *                      direction at a time).
 *   PAGEABLE_STREAMS   TODO 2 without TODO 1: a stream and buffers per batch, copies still
 *                      from pageable memory (below target: each copy is staged while the
 *                      host waits, so nothing overlaps).
 *   PIN_EACH_TIME      both TODOs, but the buffers are registered at the start of every
 *                      run() and unregistered at its end (below target: the pinning is
 *                      paid in every timed run, and costs more than the copies).
 *   PIN_ON_FIRST_CALL      both TODOs, the buffers registered on the first run() only (the
 *                      warm-up, which the lab does not time): passes, and the report says
 *                      what that first run spent pinning.
 *   NO_UNREGISTER      the reference without the cudaHostUnregister calls in teardown():
 *                      passes, and the report says what teardown() left registered.
 *   SHARED_BUFFERS     both TODOs, but every stream uses the same pair of device buffers
 *                      (racy: a batch's upload overwrites what another batch's kernel is
 *                      still reading).
 *   RESULT_INTO_INPUT  both TODOs, but each result copied back over its batch's input
 *                      ("the input is pinned and done with") instead of into lab_output:
 *                      the outputs are never written, and the report says where the
 *                      results went (wrong).
 *   QUERY_SPIN_PREV    both TODOs, but before queuing batch b the host asks cudaEventQuery
 *                      about batch b-1's event until it answers cudaSuccess ("let the
 *                      previous batch come back first"): no upload beside a download
 *                      (below target: the report names the poll).
 *   STREAM_QUERY_PREV  the same wait written as cudaStreamQuery on batch b-1's stream, with
 *                      some host work between two queries (a back-off, as a sleep would
 *                      be): the same.
 *   FREE_EACH_BATCH    both TODOs, but each batch's device buffers allocated in run() and
 *                      freed as soon as its download is queued: cudaFree waits for the
 *                      device, so the batches run one after another (below target: the
 *                      report says to allocate once in setup()).
 *   PICK_FREE_SLOT     both TODOs on three slots (a stream, its buffers and an event each):
 *                      each batch takes the first slot whose event answers cudaSuccess, and
 *                      when none does, waits for the oldest with cudaEventSynchronize. The
 *                      queries pick, never wait: the report blames the synchronisation.
 *   STAGED_MEMCPY      both TODOs, but only the outputs registered: each batch's input is
 *                      copied with memcpy into a pinned buffer of the program's own
 *                      (cudaMallocHost in setup()) before its upload ("the DMA engine can
 *                      only read pinned memory"). 64 MiB of host copies a run, about 11 ms
 *                      on a GPU's host, more than the pipeline itself (below target). */
#include <stdbool.h>

#include "labs/harness/lab.h"

#define MAX_BATCHES 64

#if defined(LAB_VARIANT_PINNED_ONE_STREAM)
#define ONE_STREAM 1
#else
#define ONE_STREAM 0
#endif
#if defined(LAB_VARIANT_PAGEABLE_STREAMS) || defined(LAB_VARIANT_PIN_EACH_TIME) || defined(LAB_VARIANT_PIN_ON_FIRST_CALL)
#define PIN_IN_SETUP 0
#else
#define PIN_IN_SETUP 1
#endif

static cudaStream_t streams[MAX_BATCHES];
static uint32_t *d_in[MAX_BATCHES], *d_out[MAX_BATCHES];

#if defined(LAB_VARIANT_QUERY_SPIN_PREV) || defined(LAB_VARIANT_PICK_FREE_SLOT)
static cudaEvent_t done[MAX_BATCHES];
#endif
#if defined(LAB_VARIANT_PICK_FREE_SLOT)
#define SLOTS 3
#endif

#if !defined(LAB_VARIANT_PICK_FREE_SLOT)
/* Before batch b is queued: the host's wait for batch b-1, when the variant has one. */
static int before_batch(int b) {
#if defined(LAB_VARIANT_QUERY_SPIN_PREV)
    /* don't flood the copy engines: let the previous batch come back first */
    if (b > 0) {
        cudaError_t e;
        while ((e = cudaEventQuery(done[b - 1])) == cudaErrorNotReady) {
        }
        LAB_CHECK(e);
    }
#elif defined(LAB_VARIANT_STREAM_QUERY_PREV)
    if (b > 0) {
        cudaError_t e;
        while ((e = cudaStreamQuery(streams[b - 1])) == cudaErrorNotReady) {
            volatile unsigned spin = 0;
            for (int i = 0; i < 2000; i++) spin = spin + (unsigned)i; /* back off */
        }
        LAB_CHECK(e);
    }
#else
    (void)b;
#endif
    return 0;
}
#endif

#if defined(LAB_VARIANT_STAGED_MEMCPY)
static uint32_t *stage[MAX_BATCHES]; /* each batch's input, copied here before its upload */
#define PIN_INPUTS 0
#else
#define PIN_INPUTS 1
#endif

static int pin(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int b = 0; b < w->batches; b++) {
        if (PIN_INPUTS)
            LAB_CHECK(cudaHostRegister((void *)lab_input(ctx, b), w->batch_bytes, cudaHostRegisterDefault));
        LAB_CHECK(cudaHostRegister(lab_output(ctx, b), w->batch_bytes, cudaHostRegisterDefault));
    }
    return 0;
}

#if !defined(LAB_VARIANT_NO_UNREGISTER) && !defined(LAB_VARIANT_PAGEABLE_STREAMS)
static void unpin(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int b = 0; b < w->batches; b++) {
        if (PIN_INPUTS) cudaHostUnregister((void *)lab_input(ctx, b));
        cudaHostUnregister(lab_output(ctx, b));
    }
}
#endif

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    if (PIN_IN_SETUP && pin(ctx) != 0) return 1;
    for (int b = 0; b < w->batches; b++) {
        if (ONE_STREAM && b > 0) {
            streams[b] = streams[0];
        } else {
            LAB_CHECK(cudaStreamCreateWithFlags(&streams[b], cudaStreamNonBlocking));
        }
#if defined(LAB_VARIANT_SHARED_BUFFERS)
        if (b > 0) {
            d_in[b] = d_in[0];
            d_out[b] = d_out[0];
            continue;
        }
#endif
#if defined(LAB_VARIANT_QUERY_SPIN_PREV) || defined(LAB_VARIANT_PICK_FREE_SLOT)
        LAB_CHECK(cudaEventCreateWithFlags(&done[b], cudaEventDisableTiming));
#endif
#if defined(LAB_VARIANT_STAGED_MEMCPY)
        LAB_CHECK(cudaMallocHost((void **)&stage[b], w->batch_bytes));
#endif
#if defined(LAB_VARIANT_FREE_EACH_BATCH)
        d_in[b] = d_out[b] = NULL; /* made in run(), for one batch */
#else
        LAB_CHECK(cudaMalloc((void **)&d_in[b], w->batch_bytes));
        LAB_CHECK(cudaMalloc((void **)&d_out[b], w->batch_bytes));
#endif
    }
    return 0;
}

#if defined(LAB_VARIANT_PICK_FREE_SLOT)
/* The first slot whose last batch is done (an event never recorded answers cudaSuccess),
 * else the oldest, once it is done. */
static int pick_slot(int b) {
    for (int k = 0; k < SLOTS; k++) {
        cudaError_t e = cudaEventQuery(done[k]);
        if (e == cudaSuccess) return k;
        if (e != cudaErrorNotReady) return -1;
    }
    int oldest = b % SLOTS;
    if (cudaEventSynchronize(done[oldest]) != cudaSuccess) return -1;
    return oldest;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int b = 0; b < w->batches; b++) {
        int k = pick_slot(b);
        if (k < 0) return 1;
        LAB_CHECK(cudaMemcpyAsync(d_in[k], lab_input(ctx, b), w->batch_bytes, cudaMemcpyHostToDevice, streams[k]));
        LAB_CHECK(kernels_process(d_out[k], d_in[k], w->batch_elems, w->process, streams[k]));
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, b), d_out[k], w->batch_bytes, cudaMemcpyDeviceToHost, streams[k]));
        LAB_CHECK(cudaEventRecord(done[k], streams[k]));
    }
    for (int k = 0; k < SLOTS; k++) LAB_CHECK(cudaStreamSynchronize(streams[k]));
    return 0;
}
#else

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
#if defined(LAB_VARIANT_PIN_EACH_TIME)
    if (pin(ctx) != 0) return 1;
#elif defined(LAB_VARIANT_PIN_ON_FIRST_CALL)
    static bool pinned = false; /* "pin lazily, once" */
    if (!pinned) {
        if (pin(ctx) != 0) return 1;
        pinned = true;
    }
#endif
    for (int b = 0; b < w->batches; b++) {
        if (before_batch(b) != 0) return 1;
#if defined(LAB_VARIANT_FREE_EACH_BATCH)
        /* only live for this batch: keep the footprint small */
        LAB_CHECK(cudaMalloc((void **)&d_in[b], w->batch_bytes));
        LAB_CHECK(cudaMalloc((void **)&d_out[b], w->batch_bytes));
#endif
#if defined(LAB_VARIANT_STAGED_MEMCPY)
        /* the DMA engine only reads pinned memory: move the input there first */
        memcpy(stage[b], lab_input(ctx, b), w->batch_bytes);
        LAB_CHECK(cudaMemcpyAsync(d_in[b], stage[b], w->batch_bytes, cudaMemcpyHostToDevice, streams[b]));
#else
        LAB_CHECK(cudaMemcpyAsync(d_in[b], lab_input(ctx, b), w->batch_bytes, cudaMemcpyHostToDevice, streams[b]));
#endif
        LAB_CHECK(kernels_process(d_out[b], d_in[b], w->batch_elems, w->process, streams[b]));
#if defined(LAB_VARIANT_RESULT_INTO_INPUT)
        LAB_CHECK(cudaMemcpyAsync((uint32_t *)lab_input(ctx, b), d_out[b], w->batch_bytes, cudaMemcpyDeviceToHost,
                                  streams[b]));
#else
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, b), d_out[b], w->batch_bytes, cudaMemcpyDeviceToHost, streams[b]));
#endif
#if defined(LAB_VARIANT_QUERY_SPIN_PREV)
        LAB_CHECK(cudaEventRecord(done[b], streams[b]));
#elif defined(LAB_VARIANT_FREE_EACH_BATCH)
        LAB_CHECK(cudaFree(d_in[b])); /* freed as soon as the batch is queued */
        LAB_CHECK(cudaFree(d_out[b]));
        d_in[b] = d_out[b] = NULL;
#endif
    }
    for (int b = 0; b < w->batches; b++) LAB_CHECK(cudaStreamSynchronize(streams[b]));
#if defined(LAB_VARIANT_PIN_EACH_TIME)
    unpin(ctx);
#endif
    return 0;
}
#endif

static void teardown(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
#if !defined(LAB_VARIANT_NO_UNREGISTER) && !defined(LAB_VARIANT_PIN_EACH_TIME) && !defined(LAB_VARIANT_PAGEABLE_STREAMS)
    unpin(ctx);
#endif
    for (int b = 0; b < w->batches; b++) {
#if defined(LAB_VARIANT_QUERY_SPIN_PREV) || defined(LAB_VARIANT_PICK_FREE_SLOT)
        cudaEventDestroy(done[b]);
#endif
#if defined(LAB_VARIANT_STAGED_MEMCPY)
        cudaFreeHost(stage[b]);
#endif
        if (b == 0 || !(d_in[b] == d_in[0])) {
            cudaFree(d_in[b]);
            cudaFree(d_out[b]);
        }
        if (b == 0 || streams[b] != streams[0]) cudaStreamDestroy(streams[b]);
    }
}

const lab_impl LAB_STUDENT = {setup, run, teardown};
