/* labs/harness/loader.c: lab_load_batch, the data loader of labs with one (lab 08; lab.h).
 *
 * The loader stands in for what a training input pipeline does on the host for each batch
 * (decoding images, reading and parsing files): a spec-declared host cost per batch
 * (spec.h: load_us, or batch_load_us when batches differ, drawn from the run's seed), then
 * the batch's bytes written into the caller's buffer. The write is declared to the race
 * checker as a host write of that buffer, so a loader that refills a pinned buffer whose
 * upload has not finished is a reported race, as it is a real one: the copy engine reads
 * pinned memory while the host writes it. */
#include <stdio.h>
#include <string.h>

#include "labs/harness/backend.h"
#include "labs/harness/ctx.h"
#include "trace/record/recorder.h"

int lab_load_batch(lab_ctx *ctx, int batch, void *dst) {
    const lab_spec *spec = &LAB_SPEC;
    if (!(spec->load_us > 0) && !spec->batch_load_us) {
        fprintf(stderr, "streamlab: lab_load_batch: this lab has no loader; its inputs are at lab_input(ctx, i)\n");
        return 1;
    }
    if (!ctx || !ctx->buffers) {
        fprintf(stderr, "streamlab: lab_load_batch: no lab context (pass the ctx your setup() or run() was given)\n");
        return 1;
    }
    const lab_buffers *b = ctx->buffers;
    if (batch < 0 || batch >= b->workload.batches) {
        fprintf(stderr, "streamlab: lab_load_batch(ctx, %d, dst): there are only batches 0 to %d\n", batch,
                b->workload.batches - 1);
        return 1;
    }
    if (!dst) {
        fprintf(stderr, "streamlab: lab_load_batch(ctx, %d, NULL): dst must be a host buffer of %zu bytes\n", batch,
                b->workload.batch_bytes);
        return 1;
    }
    const void *base = NULL;
    size_t bytes = 0;
    if (lab_backend_device_allocation((uintptr_t)dst, &base, &bytes)) {
        fprintf(stderr,
                "streamlab: lab_load_batch(ctx, %d, %p): dst is device memory (cudaMalloc); the loader runs on the "
                "host and writes host memory: load into a pinned buffer (cudaMallocHost) and copy that to the "
                "device\n",
                batch, dst);
        return 1;
    }
    uint64_t t0 = lab_backend_now_ns();
    memcpy(dst, b->inputs[batch], b->workload.batch_bytes);
    trace_record_host_access(dst, b->workload.batch_bytes, true, "lab_load_batch", batch, t0);
    /* The whole load costs the batch's load time, the write included (on a GPU the memcpy
     * takes real time; the busy wait makes up the rest). */
    double us = spec->batch_load_us ? spec->batch_load_us(b->seed, batch) : spec->load_us;
    uint64_t end = t0 + (uint64_t)(us * 1e3);
    uint64_t now = lab_backend_now_ns();
    if (end > now) lab_backend_host_work(end - now);
    /* The host lane shows the load as the host's work. */
    trace_record_api("lab_load_batch", t0, lab_backend_now_ns());
    return 0;
}
