/* labs/harness/result.h: everything a lab run found, in one struct, and the two ways it
 * is printed: the report a student reads in five seconds, and the one-line JSON object
 * (--json) the grader and the TUI read. */
#ifndef STREAMLAB_LAB_RESULT_H
#define STREAMLAB_LAB_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "labs/harness/backend.h"
#include "labs/harness/host_memory.h"
#include "labs/harness/measure.h"
#include "labs/harness/requests.h"
#include "labs/harness/spec.h"
#include "labs/harness/verify.h"
#include "labs/harness/work.h"
#include "trace/check/race.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum lab_status {
    LAB_STATUS_PASS = 0,     /* correct, race-free, at or above target */
    LAB_STATUS_BELOW_TARGET, /* correct and race-free, too slow */
    LAB_STATUS_INCORRECT,    /* some output differs from the oracle */
    LAB_STATUS_RACY,         /* correct here, but unordered accesses were found */
    LAB_STATUS_ERROR         /* setup/run failed, a CUDA error, or the harness could not run */
} lab_status;

#define LAB_MAX_RACES_SHOWN 3
#define LAB_MAX_STALLS_SHOWN 3
/* The report's "waits" lines show a wait on the critical path that held it for at least
 * this fraction of the run. */
#define LAB_WAIT_SHOWN 0.02

/* The most measurements of the bound a result keeps (the runner makes three). */
#define LAB_BOUND_MEASURED_MAX 4

typedef struct lab_result {
    const lab_spec *spec;
    lab_backend_info backend;
    uint64_t seed;
    lab_workload workload;

    int runs;              /* timed runs of each */
    double *baseline_ms;   /* [runs] */
    double *yours_ms;      /* [runs] */
    double baseline_median_ms, yours_median_ms;
    double baseline_best_ms, yours_best_ms;

    lab_bound bound;        /* what the spec's measure_bound found: the median measurement */
    bool bound_ok;
    /* Each measurement of the bound, in the order made (before the timed runs, after the
     * middle one, after the last; labs/harness/bound_recheck.h), ms. */
    double bound_measured_ms[LAB_BOUND_MEASURED_MAX];
    int n_bound_measured;
    double ideal_ms;        /* the bound: the shortest time a run of the workload can take */
    double speedup;         /* median baseline / median yours */
    double speedup_best;    /* best baseline / best yours */
    double speedup_bound;   /* median baseline / ideal: the speedup at the bound, 0 when unknown */
    /* Whether your timed runs did the work the lab requires on the device (work.h). When
     * they did not and the results are right, speedup, speedup_best and bound_fraction are 0
     * (what a grade reads) and what was measured is kept here; value and value_best stay as
     * measured, not counted. */
    lab_work_verdict work;
    double speedup_measured, bound_fraction_measured;
    double target_speedup;  /* the speedup at which the metric reaches its target */
    double bound_fraction;  /* ideal / median yours: the fraction of the bound reached */
    /* The graded metric (spec->metric) in its own unit: yours (median and best), at the
     * bound, and the target (spec->target_bound_fraction of the bound). */
    double value, value_best, value_bound, value_target;

    bool correct;
    lab_mismatch mismatch;  /* the first wrong run's first difference */
    const char *mismatch_run; /* "run 3", "schedule 2", ... */
    int schedules;          /* perturbed runs made */
    int schedule_failed;    /* first failing schedule (1-based), 0 when none */

    uint64_t races;         /* races involving your runs */
    /* Labs with planted races (lab 05): which are still there (a bit each, spec order), how
     * many are fixed, and races of your runs that are none of them. */
    unsigned planted_left;
    int planted_fixed;
    uint64_t other_races;
    size_t races_shown;
    trace_race race[LAB_MAX_RACES_SHOWN];
    /* Each shown race's call sites (first, second, and the wait and the record its fix
     * blames), relative to the lab binary, where their lines could not be looked up in the
     * run (STREAMLAB_NO_SUBPROCESS); else 0. */
    uint64_t race_site[LAB_MAX_RACES_SHOWN][4];

    bool have_metrics;      /* of your last run */
    double makespan_ms, overlap, util_h2d, util_compute, util_d2h;
    /* A run on several devices: each device's engines and overlap, and the link, in words
     * ("GPU 0 H2D 87%, compute 87%, D2H 0%, overlap 80%; GPU 1 ...; link GPU 0 -> GPU 1
     * 22%"), shown instead of the figures above, which count every device together. ""
     * on one device. */
    char devices_busy[320];

    char error[512];        /* LAB_STATUS_ERROR: what failed */
    bool error_has_refusals; /* error already says what the referee refused until it */
    /* The commands of yours the referee refused, and why (remote.h; "" when none). */
    char refused[2048];
    lab_status status;
    int exit_code;
    lab_findings findings;  /* what your last timed run shows of your code */
    /* Stream-0 operations of that run that waited for or held back your streams
     * (trace/view/stalls.h): how many, how many of them held one back (the others only
     * waited), and the first few in words. */
    size_t stalls;
    size_t stalls_held;
    char stall_text[LAB_MAX_STALLS_SHOWN][320];
    /* The streams (other than stream 0) still busy when run() returned, in words ("" when
     * none). */
    char busy_text[320];
    /* What yours did with host memory: pinning in setup() and in runs, pageable copies. */
    lab_host_memory host;
    /* The stage times yours reported against the device's (labs with stages: lab 02). */
    lab_measurement measurement;
    /* Labs of requests (lab 04): each timed run's latencies and background, [0] the
     * baseline's and [1] yours ([runs] each, NULL for other labs), and their medians. */
    lab_run_latency *latency[2];
    double p50_ms[2], p99_ms[2], background_ms[2], background_done_ms[2];
    double p99_pooled_ms[2];   /* the p99 of every timed run's requests together */
    double host_wait_p99_ms[2]; /* the median over timed runs of the requests' p99 wait on the host */
    double span_ms[2];      /* first arrival to last request's end (median): the throughput */
    int background_ops[2];
    bool background_ok;     /* yours did all of the background, not much slower than the baseline */
    char background_why[256];
    int step;               /* the first of spec->steps not done, -1 when none */
    /* The advice (steps.h): what holds you at that step, in your terms, and, when every
     * step is done and the target is missed, what costs the time ("" when nothing). */
    char advice_why[640];
    char advice_beyond[1024];
    char *timeline;         /* text timeline of your last run (malloc'd), or NULL */
    int32_t timeline_run;   /* the recorder run it and the metrics describe: your last timed run,
                               or with timeline_apart your traced run */
    bool timeline_apart;    /* the timed runs went untraced (a GPU, where tracing costs time);
                               the timeline comes from a traced run after them, not timed */
} lab_result;

/* The medians of the runs' latencies and backgrounds, and whether yours did the whole
 * background within the spec's tolerance of the baseline's time. */
void lab_result_latency_summary(lab_result *r);
/* Whether the speed was measured but does not count: the run did not do the lab's work. */
bool lab_result_work_missing(const lab_result *r);
/* Derives status and exit code from the fields. */
void lab_result_decide(lab_result *r);
/* "pass", "below_target", "incorrect", "racy", "error". */
const char *lab_status_name(lab_status status);
/* How much of the report to print: all of it; the summary without the races' details and
 * the timeline (what --json puts on stderr); or the verdict line alone (--quiet, and above
 * --hint's hint, which says "run without --hint" where --quiet's says "without --quiet"). */
typedef enum lab_report_level {
    LAB_REPORT_FULL = 0,
    LAB_REPORT_SUMMARY,
    LAB_REPORT_VERDICT,
    LAB_REPORT_VERDICT_HINT
} lab_report_level;

/* The student's report, its prose wrapped at LAB_WRAP_COLUMNS (wrap.h). */
void lab_result_print_text(const lab_result *r, lab_report_level level, FILE *out);
/* The --json object (the caller frees it with cJSON_Delete). */
cJSON *lab_result_json(const lab_result *r);

/* The metric's name ("speedup", "bandwidth") and a value in its unit ("2.50x", "52.1 GB/s"). */
const char *lab_metric_name(lab_metric_kind kind);
void lab_metric_format(lab_metric_kind kind, double value, char *buf, size_t len);
/* The word for one batch in reports ("batch", "task"), and its plural. */
const char *lab_item(const lab_spec *spec);
const char *lab_items(const lab_spec *spec);

#ifdef __cplusplus
}
#endif

#endif
