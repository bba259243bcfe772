/* labs/harness/measure.h: the stage times a student reports (lab_report_ms) against what
 * the device did, for labs that ask for them (lab 02): the second graded part,
 * "measurement".
 *
 * For each of the spec's stages the harness adds up the device time of the stage's ops in
 * the student's last timed run, from the trace (the simulator's clock, or CUPTI on a
 * GPU), and accepts the time the student reported in that run when it lies within the
 * stage's tolerance. A time taken with a host clock around asynchronous calls measures
 * how long they took to queue: it fails, and the report says so. */
#ifndef STREAMLAB_LAB_MEASURE_H
#define STREAMLAB_LAB_MEASURE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "labs/harness/ctx.h"
#include "labs/harness/spec.h"
#include "trace/view/timeline.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lab_stage_check {
    const char *name;
    bool reported;      /* the student reported it in the run */
    double reported_ms;
    double device_ms;   /* the device time of the stage's ops in the run */
    int ops;
    bool ok;
    char why[320];      /* the verdict in words */
} lab_stage_check;

typedef struct lab_measurement {
    int n;              /* the spec's stages (0: the lab asks for no times) */
    lab_stage_check stage[LAB_MAX_STAGES];
    bool ok;            /* every stage right */
    int event_reads;    /* cudaEventElapsedTime calls in the run (the program timed with events; with none, no
                           stage is right, however near its figure) */
} lab_measurement;

/* Checks what the student reported in recorder run `run` (reported: the ctx's values as
 * they were when that run returned) against the trace. */
void lab_measurement_check(lab_measurement *m, const lab_spec *spec, const lab_workload *w,
                           const lab_reported reported[LAB_MAX_STAGES], trace_timeline *tl, int32_t run);
/* The report's "measured" rows (nothing for a lab without stages). */
void lab_measurement_print(const lab_measurement *m, FILE *out);
/* The --json object "measurement" (NULL for a lab without stages). */
cJSON *lab_measurement_json(const lab_measurement *m);

#ifdef __cplusplus
}
#endif

#endif
