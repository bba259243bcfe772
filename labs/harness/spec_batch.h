/* labs/harness/spec_batch.h: one batch's trip through the device, as a spec queues it
 * (its baseline, its bound, a request): up, the process kernel, down, on one stream.
 * Instructor-side only: specs include it, a student's lab.c cannot. */
#ifndef STREAMLAB_LAB_SPEC_BATCH_H
#define STREAMLAB_LAB_SPEC_BATCH_H

#include <stdint.h>

#include <cuda_runtime.h>

#include "labs/harness/lab_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Queues batch b on stream s: src (the batch's input: lab_input(ctx, b), or a staging
 * buffer the loader filled) up into d_in; the process kernel the workload's steps times
 * (0 means 1), the first from d_in into d_out and the others in place in d_out (d_in ==
 * d_out: every one in place); d_out down into lab_output(ctx, b). Returns 0, or 1 after
 * reporting the failed call. */
int lab_spec_batch_enqueue(lab_ctx *ctx, const void *src, uint32_t *d_in, uint32_t *d_out, int b, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
