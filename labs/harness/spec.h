/* labs/harness/spec.h: the lab contract, as the instructor writes it (labs/NN_topic/spec.c).
 *
 * A spec names the lab, sizes its workload, supplies the baseline the student is timed
 * against and the CPU oracle the results are checked with, measures the phase times the
 * pipeline bound is computed from, and sets the pass threshold. The harness
 * (labs/harness/runner.c) does the rest. */
#ifndef STREAMLAB_LAB_SPEC_H
#define STREAMLAB_LAB_SPEC_H

#include <stdbool.h>

#include "labs/harness/lab.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Phase times per batch, each phase measured on its own (back to back, as in a pipeline),
 * in ns; and how much slower each copy direction runs when both run at once (rate
 * both-at-once / rate alone, <= 1). */
typedef struct lab_phases {
    double h2d_ns;
    double kernel_ns;
    double d2h_ns;
    double bidir_factor;
} lab_phases;

typedef struct lab_spec {
    const char *id;    /* "03_double_buffer" */
    const char *title; /* "Double buffering: overlap copies and compute" */
    const char *lesson; /* path of the lesson, for the report */
    lab_workload workload; /* the default workload */
    const lab_impl *baseline; /* what the student's speedup is measured against */
    /* Writes the expected output of one batch (batch_elems values) from its input. */
    void (*oracle)(const lab_workload *w, const uint32_t *in, uint32_t *expected);
    /* Measures the phases per batch, on the current backend. Returns 0 on success. */
    int (*measure_phases)(lab_ctx *ctx, lab_phases *out);
    /* The pass threshold: the student's speedup over the baseline must reach this fraction
     * of the pipeline bound (see trace/metrics.h). */
    double target_bound_fraction;
} lab_spec;

/* The lab's spec (defined in labs/NN_topic/spec.c). */
extern const lab_spec LAB_SPEC;

#ifdef __cplusplus
}
#endif

#endif
