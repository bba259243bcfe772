/* labs/harness/requests.h: labs whose batches are requests that arrive while run() runs
 * (lab 04, priorities), and the background work they compete with.
 *
 * The harness decides when request i arrives (the spec's first and every, from the start
 * of run()); its input is written into lab_input(ctx, i) only then, by lab_wait_request,
 * so no program can start a request before it exists. A request's latency runs from its
 * arrival to the end of the last operation that carried its data (the trace's batch
 * tags), on the trace's clock, which the host and the device share on both backends. A
 * run's metric is the 99th percentile of its requests' latencies.
 *
 * lab_background queues the spec's background work (a long kernel that fills the device)
 * on the student's stream; the harness checks from the trace that each run did all of it,
 * and compares how long it took with the baseline's. */
#ifndef STREAMLAB_LAB_REQUESTS_H
#define STREAMLAB_LAB_REQUESTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "labs/harness/ctx.h"
#include "labs/harness/spec.h"
#include "trace/view/timeline.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Whether the spec's batches are requests (LAB_METRIC_LATENCY). */
bool lab_has_requests(const lab_spec *spec);

/* Gives b what requests need (pending inputs, arrival times) and the background buffer.
 * Returns 0, or non-zero with err filled. */
int lab_requests_alloc(lab_buffers *b, void *background, char *err, size_t err_len);
void lab_requests_free(lab_buffers *b);

/* After a run's inputs were made: keeps each one back until its request arrives (the
 * input buffer holds LAB_POISON until then). */
void lab_requests_hold(lab_buffers *b);
/* The first request run() returned without waiting for, or -1. */
int lab_requests_missing(const lab_buffers *b);

/* How many of a run's request latencies are kept (lab_run_latency.latency_ms). */
#define LAB_LATENCY_KEPT 256

/* What one run's requests and background did. */
typedef struct lab_run_latency {
    int requests;         /* requests with a finished operation */
    double p50_ms, p99_ms, max_ms;
    double host_wait_p99_ms; /* from a request's arrival to the first call that queued its work: how
                                long requests waited on the host (p99 over the run's requests) */
    int kept;             /* latencies in latency_ms: min(requests, LAB_LATENCY_KEPT) */
    double latency_ms[LAB_LATENCY_KEPT]; /* the run's request latencies, in ascending order */
    double span_ms;       /* from the first request's arrival to the last request's end: the
                             requests served per ms is requests / span_ms (lab 06) */
    int background_ops;   /* the background's ops in the run */
    double background_ms; /* from its first op's start to its last op's end */
    double background_done_ms; /* from run()'s start to the background's last op's end: late
                                  when the background was queued after the requests */
} lab_run_latency;

/* The nearest-rank percentile q (0..1] of n values in ascending order (n > 0). */
double lab_requests_percentile(const double *sorted, int n, double q);

/* The p99 of every kept latency of n runs together (0 when none). */
double lab_requests_pooled_p99(const lab_run_latency *runs, int n);

/* Measures recorder run `run` (after its device times are known). results_only: a
 * request ends when its last copy to the host does (the run timed only those,
 * LAB_TIMES_RESULTS), not with its last timed operation. */
void lab_requests_measure(const lab_buffers *b, const lab_spec *spec, trace_timeline *tl, int32_t run,
                          bool results_only, lab_run_latency *out);

#ifdef __cplusplus
}
#endif

#endif
