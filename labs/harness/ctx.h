/* labs/harness/ctx.h: what a lab_ctx holds (the harness's side of lab.h).
 *
 * The baseline and the student's implementation each get their own lab_ctx (their own
 * state pointer) over the same input and output buffers, unless they are pageable: then
 * the baseline has buffers of its own, so that what the student pins does not speed it
 * up. Only one runs at a time. */
#ifndef STREAMLAB_LAB_CTX_H
#define STREAMLAB_LAB_CTX_H

#include <stdbool.h>

#include "labs/harness/backend.h"
#include "labs/harness/lab.h"
#include "labs/harness/spec.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lab_buffers {
    lab_workload workload;
    lab_memory input_memory, output_memory;
    uint32_t **inputs;   /* [batches] host buffers (pinned or pageable, as the spec says) */
    uint32_t **outputs;  /* [batches] host buffers (pinned or pageable, as the spec says) */
    uint32_t **expected; /* [batches] what the oracle says, for the current run */
    /* Labs of requests: each batch's input until it arrives, when it arrived (host clock),
     * whether it has; and the background's device buffer. */
    uint32_t **pending;
    uint64_t *arrival_ns;
    bool *arrived;
    void *background;
    uint64_t seed; /* the run's seed (a loader with per-batch costs draws them from it) */
} lab_buffers;

/* What a run reported with lab_report_ms: the last value of each of the spec's stages. */
typedef struct lab_reported {
    bool set;
    double ms;
    int32_t run; /* the recorder run it was reported in */
} lab_reported;

struct lab_ctx {
    lab_buffers *buffers;
    uint64_t run_start_ns; /* when the current run() began (host clock) */
    lab_reported reported[LAB_MAX_STAGES];
    void *state;
    const char *who; /* "baseline" or "yours", for messages */
};

/* Where the lab's host buffers come from when not from the runtime: the runner sets it when
 * the student's code runs apart (remote.h), so that they are made in the memory the two
 * processes share. alloc returns NULL when there is no room. */
typedef struct lab_host_provider {
    void *(*alloc)(size_t bytes, bool pinned, bool is_output);
    void (*free)(void *p);
} lab_host_provider;
void lab_buffers_set_provider(const lab_host_provider *provider);

/* Allocates the input and output buffers where the spec wants them (cudaMallocHost for
 * pinned, malloc for pageable) and the oracle's. Returns 0, or a CUDA error code with err
 * filled. */
int lab_buffers_alloc(lab_buffers *b, const lab_workload *w, lab_memory inputs, lab_memory outputs, char *err,
                      size_t err_len);
void lab_buffers_free(lab_buffers *b);

#ifdef __cplusplus
}
#endif

#endif
