/* labs/harness/host_memory.h: what the student's code did with host memory, read from the
 * trace: the pinning calls of setup() and of the last timed run (how many, which, how long
 * the host spent in them), the copies that went from or to pageable memory and the rate
 * they reached, and the harness's buffers that teardown() left registered.
 *
 * A pageable copy is staged by the driver through a pinned buffer of its own: slow, and
 * the host waits for it. Pinning costs host time once (cudaHostRegister, cudaMallocHost);
 * paid inside every run it costs more than it saves. Lab 01 is about both; the report
 * shows these lines for any lab whose buffers are pageable or whose code pins. */
#ifndef STREAMLAB_LAB_HOST_MEMORY_H
#define STREAMLAB_LAB_HOST_MEMORY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "labs/harness/spec.h"
#include "labs/harness/ctx.h"
#include "trace/view/timeline.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Calls that pin host memory or undo it, in one span of the program. */
typedef struct lab_pinning {
    int calls;          /* cudaHostRegister, cudaHostUnregister, cudaMallocHost, cudaHostAlloc, cudaFreeHost:
                           the program's calls, each once however many runtime calls made it */
    double ms;          /* host time spent in them */
    char names[96];     /* which, in the order first seen: "cudaHostRegister, cudaHostUnregister" */
} lab_pinning;

typedef struct lab_host_memory {
    lab_pinning setup;          /* in the student's setup() */
    lab_pinning warmup;         /* in the student's warm-up run (untimed): pinning on the first run() */
    lab_pinning run;            /* in the student's last timed run */
    double run_ms;              /* that run's time */
    /* Copies of that run, by direction (0 H2D, 1 D2H), whose host side was pageable. */
    int pageable[2];
    double pageable_gbps[2];    /* their bytes over their time on the copy engine */
    double copy_wait_ms;        /* host time that run spent inside copy calls */
    double pinned_gbps[2];      /* the pinned rates the spec's bound measured (0: unknown) */
    int left_registered;        /* harness buffers still registered after teardown() */
    int payoff_runs;            /* runs after which setup()'s pinning had paid for itself, 0 when unknown */
} lab_host_memory;

/* Whether an API call pins host memory or releases pinned memory. */
bool lab_is_pinning_call(const char *api);

/* The pinning calls the trace holds between host times t0 and t1 (setup()). */
void lab_host_memory_scan_setup(lab_host_memory *m, trace_timeline *tl, uint64_t t0, uint64_t t1);
/* The pinning calls of recorder run `run`, the student's warm-up: a program that pins on
 * its first run() only pays there, in a run the lab does not time. */
void lab_host_memory_scan_warmup(lab_host_memory *m, trace_timeline *tl, int32_t run);
/* The pinning calls, pageable copies and copy waits of recorder run `run`, which took
 * run_ms; the pinned rates come from the bound's figures "h2d_gbps" and "d2h_gbps". */
void lab_host_memory_scan_run(lab_host_memory *m, trace_timeline *tl, int32_t run, double run_ms, const lab_bound *b);
/* After teardown(): unregisters what is still registered of the harness's buffers and
 * counts it (m->left_registered). Clears the error a refused unregister leaves. */
void lab_host_memory_check_teardown(lab_host_memory *m, const lab_buffers *buf);
/* How many runs the pinning in setup() took to pay off, given the medians of the baseline
 * (the unpinned program) and yours. */
void lab_host_memory_payoff(lab_host_memory *m, double baseline_ms, double yours_ms);

/* Whether the report has anything to say about host memory for this lab and run. */
bool lab_host_memory_worth_showing(const lab_host_memory *m, const lab_spec *spec);
/* The report's "host" and "pinning" rows. */
void lab_host_memory_print(const lab_host_memory *m, FILE *out);
/* The --json object "host_memory". */
cJSON *lab_host_memory_json(const lab_host_memory *m);

#ifdef __cplusplus
}
#endif

#endif
