/* labs/harness/spec_request.h: a request of a lab of requests (LAB_METRIC_LATENCY: labs 04
 * and 06), as its spec queues one: the device buffers a request goes through, one request
 * queued on a stream, and the bound such a lab measures, one request alone on an idle
 * device. The harness's side of requests (arrivals, latencies) is requests.h. */
#ifndef STREAMLAB_LAB_SPEC_REQUEST_H
#define STREAMLAB_LAB_SPEC_REQUEST_H

#include <stdint.h>

#include <cuda_runtime.h>

#include "labs/harness/spec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A request's device buffers: its input goes up into d_in, its result comes down from
 * d_out. */
typedef struct lab_spec_request {
    uint32_t *d_in, *d_out;
} lab_spec_request;

/* cudaMalloc's a batch for each of r's buffers (d_in, then d_out). Returns 0, or 1 after
 * reporting the failed call (what was allocated stays in r for lab_spec_request_free). */
int lab_spec_request_alloc(lab_ctx *ctx, lab_spec_request *r);
void lab_spec_request_free(lab_spec_request *r);

/* Queues request i on stream s with r's buffers: its input up, the process kernel the
 * workload's steps times, its result down (spec_batch.h). Returns 0 or 1. */
int lab_spec_request_enqueue(lab_ctx *ctx, const lab_spec_request *r, int i, cudaStream_t s);

/* The bound of a lab of requests: request 0 alone on an idle device, on a stream of its
 * own ("bound"), event-timed, the median of 5. Sets out->ideal_ns, the figures' key
 * ("request_us") and its first figure ("alone", in us); the spec writes the detail and
 * adds what else it shows. Returns 0, or 1 when a call failed. */
int lab_spec_request_bound(lab_ctx *ctx, lab_bound *out);

#ifdef __cplusplus
}
#endif

#endif
