/* labs/harness/spec_baseline.h: the one-stream baseline a spec times the student against
 * (spec.h's `baseline`): every batch in turn on one stream, up, the process kernel the
 * workload's steps times, down (spec_batch.h), and what each lab adds to that shape, said
 * in a lab_spec_baseline:
 *
 *   LAB_SPEC_BASELINE(baseline, .stream = "baseline");            labs 01 and 05
 *   LAB_SPEC_BASELINE(baseline, .stream = "baseline", .blocking = true);          lab 03
 *   LAB_SPEC_BASELINE(baseline, .in_place = true, .memset_bytes = 4096);          lab 00
 *   ...
 *   .baseline = &baseline,
 *
 * The macro defines the lab_impl `baseline` (and its three callbacks, static) from the
 * shape given. Labs whose baseline shares its structure with their bound (two streams and
 * events, a graph's chains, two GPUs: labs 02, 07, 09) write their own. */
#ifndef STREAMLAB_LAB_SPEC_BASELINE_H
#define STREAMLAB_LAB_SPEC_BASELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime.h>

#include "labs/harness/lab_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most batches an in-place baseline keeps a device buffer for. */
#define LAB_SPEC_BASELINE_MAX_BATCHES 64

/* What one lab's baseline does beyond every batch in turn on one stream. */
typedef struct lab_spec_baseline {
    /* Its stream's name; NULL: no stream of its own, the legacy default stream (lab 00). */
    const char *stream;
    /* Its stream made with cudaStreamCreate (a blocking stream, as the skeleton of lab 03
     * makes it), not with cudaStreamNonBlocking. */
    bool blocking;
    /* Lab 04: a non-blocking stream of this name for the lab's background (lab_background),
     * queued before the first batch and waited for after the last; NULL: none. */
    const char *background;
    /* Labs of requests: each batch is queued once lab_wait_request says it has arrived. */
    bool requests;
    /* Lab 08: each batch is loaded (lab_load_batch) into a pinned staging buffer of the
     * baseline's and goes up from there, not from lab_input. */
    bool loader;
    /* The host waits for the stream after every batch, not once after the last. */
    bool sync_each;
    /* Lab 00: each batch has a device buffer of its own and every kernel runs in place in
     * it (at most LAB_SPEC_BASELINE_MAX_BATCHES batches); else one input and one output
     * buffer serve every batch. */
    bool in_place;
    /* Lab 00: after each batch, a memset of a device block of this many bytes on the
     * stream (bookkeeping between tasks, as real code does); 0: none. */
    size_t memset_bytes;
} lab_spec_baseline;

/* What a baseline holds between its setup and its teardown. */
typedef struct lab_spec_baseline_state {
    cudaStream_t stream, background;
    uint32_t *staging;
    uint32_t *d_in, *d_out;
    uint32_t *d_batch[LAB_SPEC_BASELINE_MAX_BATCHES];
    void *block;
} lab_spec_baseline_state;

/* The three callbacks of a baseline of shape `shape`, its state in st. Each returns 0, or
 * 1 after reporting the failed call. */
int lab_spec_baseline_setup(lab_ctx *ctx, const lab_spec_baseline *shape, lab_spec_baseline_state *st);
int lab_spec_baseline_run(lab_ctx *ctx, const lab_spec_baseline *shape, lab_spec_baseline_state *st);
void lab_spec_baseline_teardown(lab_ctx *ctx, const lab_spec_baseline *shape, lab_spec_baseline_state *st);

/* Defines `static const lab_impl name`, the baseline of the shape whose fields follow
 * (designated initialisers of a lab_spec_baseline). */
#define LAB_SPEC_BASELINE(name, ...)                                                                          \
    static const lab_spec_baseline name##_shape = {__VA_ARGS__};                                              \
    static lab_spec_baseline_state name##_state;                                                              \
    static int name##_setup(lab_ctx *ctx) { return lab_spec_baseline_setup(ctx, &name##_shape, &name##_state); } \
    static int name##_run(lab_ctx *ctx) { return lab_spec_baseline_run(ctx, &name##_shape, &name##_state); }     \
    static void name##_teardown(lab_ctx *ctx) { lab_spec_baseline_teardown(ctx, &name##_shape, &name##_state); } \
    static const lab_impl name = {name##_setup, name##_run, name##_teardown}

#ifdef __cplusplus
}
#endif

#endif
