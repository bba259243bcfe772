/* labs/harness/spec_baseline.c: the one-stream baseline of a spec (spec_baseline.h). */
#include "labs/harness/spec_baseline.h"

#include <stdio.h>
#include <string.h>

#include "labs/harness/lab.h"
#include "labs/harness/spec_batch.h"

/* How many batches an in-place baseline has buffers for. */
static int batch_buffers(const lab_workload *w) {
    return w->batches < LAB_SPEC_BASELINE_MAX_BATCHES ? w->batches : LAB_SPEC_BASELINE_MAX_BATCHES;
}

int lab_spec_baseline_setup(lab_ctx *ctx, const lab_spec_baseline *shape, lab_spec_baseline_state *st) {
    const lab_workload *w = lab_get_workload(ctx);
    memset(st, 0, sizeof(*st));
    if (shape->in_place && w->batches > LAB_SPEC_BASELINE_MAX_BATCHES) {
        fprintf(stderr, "streamlab: the baseline keeps a buffer per batch for at most %d batches; the workload has %d\n",
                LAB_SPEC_BASELINE_MAX_BATCHES, w->batches);
        return 1;
    }
    if (shape->background) LAB_CHECK(cudaStreamCreateWithFlags(&st->background, cudaStreamNonBlocking));
    if (shape->stream) {
        if (shape->blocking) LAB_CHECK(cudaStreamCreate(&st->stream));
        else LAB_CHECK(cudaStreamCreateWithFlags(&st->stream, cudaStreamNonBlocking));
    }
    if (shape->background) lab_name_stream(ctx, st->background, shape->background);
    if (shape->stream) lab_name_stream(ctx, st->stream, shape->stream);
    if (shape->loader) LAB_CHECK(cudaMallocHost((void **)&st->staging, w->batch_bytes));
    if (shape->in_place) {
        for (int b = 0; b < batch_buffers(w); b++) LAB_CHECK(cudaMalloc((void **)&st->d_batch[b], w->batch_bytes));
    } else {
        LAB_CHECK(cudaMalloc((void **)&st->d_in, w->batch_bytes));
        LAB_CHECK(cudaMalloc((void **)&st->d_out, w->batch_bytes));
    }
    if (shape->memset_bytes) LAB_CHECK(cudaMalloc(&st->block, shape->memset_bytes));
    return 0;
}

int lab_spec_baseline_run(lab_ctx *ctx, const lab_spec_baseline *shape, lab_spec_baseline_state *st) {
    const lab_workload *w = lab_get_workload(ctx);
    if (shape->background && lab_background(ctx, st->background) != 0) return 1;
    for (int b = 0; b < w->batches; b++) {
        if (shape->requests) lab_wait_request(ctx, b);
        const void *src = st->staging;
        if (shape->loader) {
            if (lab_load_batch(ctx, b, st->staging) != 0) return 1;
        } else {
            src = lab_input(ctx, b);
        }
        uint32_t *d_in = shape->in_place ? st->d_batch[b] : st->d_in;
        uint32_t *d_out = shape->in_place ? st->d_batch[b] : st->d_out;
        if (lab_spec_batch_enqueue(ctx, src, d_in, d_out, b, st->stream) != 0) return 1;
        if (shape->memset_bytes) LAB_CHECK(cudaMemsetAsync(st->block, 0, shape->memset_bytes, st->stream));
        if (shape->sync_each) LAB_CHECK(cudaStreamSynchronize(st->stream));
    }
    if (!shape->sync_each) LAB_CHECK(cudaStreamSynchronize(st->stream));
    if (shape->background) LAB_CHECK(cudaStreamSynchronize(st->background));
    return 0;
}

void lab_spec_baseline_teardown(lab_ctx *ctx, const lab_spec_baseline *shape, lab_spec_baseline_state *st) {
    const lab_workload *w = lab_get_workload(ctx);
    if (shape->loader) cudaFreeHost(st->staging);
    if (shape->in_place) {
        for (int b = 0; b < batch_buffers(w); b++) cudaFree(st->d_batch[b]);
    } else {
        cudaFree(st->d_in);
        cudaFree(st->d_out);
    }
    if (shape->memset_bytes) cudaFree(st->block);
    if (shape->background) cudaStreamDestroy(st->background);
    if (shape->stream) cudaStreamDestroy(st->stream);
    memset(st, 0, sizeof(*st));
}
