/* trace/view/metrics.h: what a timeline says about a run: makespan, busy time and utilisation
 * per engine and per stream, overlap between engines, the largest idle gaps, and the
 * pipeline bound a batched H2D -> kernel -> D2H workload can reach.
 *
 * Busy time is the union of a lane's op intervals (two kernels running at once on the
 * compute engine count once), so utilisation never exceeds 1. Overlap is the time during
 * which at least two of the H2D engine, the D2H engine and the compute engine are busy,
 * as a fraction of the makespan (on several devices: counted over every device's engines
 * together in engine[] and overlap, and per device in device_engine and device_overlap).
 * trace/README.md explains each figure and the bound. */
#ifndef STREAMLAB_TRACE_METRICS_H
#define STREAMLAB_TRACE_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "trace/view/timeline.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TRACE_METRICS_GAPS 5

typedef struct trace_gap {
    uint64_t start_ns, end_ns;
} trace_gap;

typedef struct trace_busy {
    uint64_t ops;          /* ops on the lane */
    uint64_t busy_ns;      /* union of their intervals */
    double utilisation;    /* busy_ns / makespan_ns */
    size_t n_gaps;
    trace_gap gaps[TRACE_METRICS_GAPS]; /* the largest idle gaps within [t0, t1], largest first */
} trace_busy;

typedef struct trace_metrics {
    int32_t run;                            /* the run measured, or TRACE_RUN_ANY */
    uint64_t ops;                           /* ops measured (phases excepted) */
    uint64_t t0_ns, t1_ns, makespan_ns;     /* first start, last end, and their distance */
    trace_busy engine[TRACE_ENGINE_HOST + 1]; /* by trace_engine; [TRACE_ENGINE_NONE] unused */
    int32_t n_streams;                      /* entries in stream (stream ids 0 .. n-1) */
    trace_busy *stream;
    uint64_t overlap_ns;                    /* >= 2 of H2D, D2H and compute busy */
    double overlap;                         /* overlap_ns / makespan_ns */
    /* Per device (engine[] above counts every device's engines together): */
    uint32_t devices;                       /* 1 + the highest device with an engine op */
    trace_busy device_engine[TRACE_MAX_DEVICES][TRACE_ENGINE_COMPUTE + 1]; /* H2D, D2H, compute */
    uint64_t device_overlap_ns[TRACE_MAX_DEVICES]; /* >= 2 of that device's three engines busy */
    double device_overlap[TRACE_MAX_DEVICES];
    trace_busy link[TRACE_MAX_DEVICES][TRACE_MAX_DEVICES]; /* peer copies by [source][destination] */
} trace_metrics;

/* Measures run (TRACE_RUN_ANY: everything kept). Returns 0, or -1 when the selection has
 * no timed op (out is then zeroed). Free with trace_metrics_free. */
int trace_metrics_compute(trace_timeline *tl, int32_t run, trace_metrics *out);
void trace_metrics_free(trace_metrics *m);

/* The figures of one lane of trace_timeline_lanes: its engine on its device, its link
 * direction, or its stream. NULL for a heading or a lane the metrics do not cover. */
const trace_busy *trace_metrics_lane(const trace_metrics *m, const trace_lane *lane);

/* ---- the pipeline bound ------------------------------------------------------------------ */

/* Measured on an H200 (docs/calibration/h200.md): each direction's rate when H2D and D2H
 * run at once (50.7 GB/s), over its rate alone (55.5 GB/s). */
#define TRACE_BIDIR_FACTOR_H200 (50.7 / 55.5)

/* Phase times of one batch, each measured alone, and the number of batches. */
typedef struct trace_pipeline {
    double h2d_ns;
    double kernel_ns;
    double d2h_ns;
    int32_t batches;
} trace_pipeline;

/* The shortest time a pipeline of p->batches batches can take when H2D, compute and D2H
 * overlap perfectly: the slowest phase once per batch, plus the other two once (filling
 * and draining). Copies in a pipeline run in both directions at once, each at
 * bidir_factor of its rate alone, so in the steady state the copy phases last
 * h2d / bidir_factor and d2h / bidir_factor (bidir_factor 1 ignores this):
 *   time = nb * max(h2d', k, d2h') + (h2d + k + d2h) - p_m
 * where p_m is the unslowed time of the phase that is the maximum. The factor applies
 * only when the batch has copies in both directions. Returns 0 for no batches. */
double trace_pipeline_time_ns(const trace_pipeline *p, double bidir_factor);

/* The best speedup over running the phases one after another:
 *   bound = (h2d + k + d2h) * nb / trace_pipeline_time_ns(p, bidir_factor).
 * 0 when the pipeline is empty. */
double trace_pipeline_bound(const trace_pipeline *p, double bidir_factor);

/* Per-batch phase times of run from a timeline: total H2D copy, kernel and D2H copy time
 * divided by the number of batches (distinct batch numbers on those ops, or the number of
 * H2D copies when no op carries one). Measure a run that does the phases one after
 * another (the sequential baseline). Returns 0, or -1 when the run has no such ops. */
int trace_pipeline_from_timeline(trace_timeline *tl, int32_t run, trace_pipeline *out);

#ifdef __cplusplus
}
#endif

#endif
