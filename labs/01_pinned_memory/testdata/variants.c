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
 *                      results went (wrong). */
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

static int pin(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int b = 0; b < w->batches; b++) {
        LAB_CHECK(cudaHostRegister((void *)lab_input(ctx, b), w->batch_bytes, cudaHostRegisterDefault));
        LAB_CHECK(cudaHostRegister(lab_output(ctx, b), w->batch_bytes, cudaHostRegisterDefault));
    }
    return 0;
}

#if !defined(LAB_VARIANT_NO_UNREGISTER) && !defined(LAB_VARIANT_PAGEABLE_STREAMS)
static void unpin(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int b = 0; b < w->batches; b++) {
        cudaHostUnregister((void *)lab_input(ctx, b));
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
        LAB_CHECK(cudaMalloc((void **)&d_in[b], w->batch_bytes));
        LAB_CHECK(cudaMalloc((void **)&d_out[b], w->batch_bytes));
    }
    return 0;
}

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
        LAB_CHECK(cudaMemcpyAsync(d_in[b], lab_input(ctx, b), w->batch_bytes, cudaMemcpyHostToDevice, streams[b]));
        LAB_CHECK(kernels_process(d_out[b], d_in[b], w->batch_elems, w->process, streams[b]));
#if defined(LAB_VARIANT_RESULT_INTO_INPUT)
        LAB_CHECK(cudaMemcpyAsync((uint32_t *)lab_input(ctx, b), d_out[b], w->batch_bytes, cudaMemcpyDeviceToHost,
                                  streams[b]));
#else
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, b), d_out[b], w->batch_bytes, cudaMemcpyDeviceToHost, streams[b]));
#endif
    }
    for (int b = 0; b < w->batches; b++) LAB_CHECK(cudaStreamSynchronize(streams[b]));
#if defined(LAB_VARIANT_PIN_EACH_TIME)
    unpin(ctx);
#endif
    return 0;
}

static void teardown(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
#if !defined(LAB_VARIANT_NO_UNREGISTER) && !defined(LAB_VARIANT_PIN_EACH_TIME) && !defined(LAB_VARIANT_PAGEABLE_STREAMS)
    unpin(ctx);
#endif
    for (int b = 0; b < w->batches; b++) {
        if (b == 0 || !(d_in[b] == d_in[0])) {
            cudaFree(d_in[b]);
            cudaFree(d_out[b]);
        }
        if (b == 0 || streams[b] != streams[0]) cudaStreamDestroy(streams[b]);
    }
}

const lab_impl LAB_STUDENT = {setup, run, teardown};
