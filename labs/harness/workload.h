/* labs/harness/workload.h: the lab's data, generated from a seed.
 *
 * Every run gets fresh inputs (from the seed, the run number and the batch index) so that
 * results left in device memory by an earlier run can never pass for new ones; the
 * process kernel's multiplier and increment come from the seed too, so no constant can be
 * baked into a solution. */
#ifndef STREAMLAB_LAB_WORKLOAD_H
#define STREAMLAB_LAB_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "labs/harness/lab.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The value every output element holds before a run: a result still equal to it was
 * never written. */
#define LAB_POISON 0xDEADBEEFu

/* splitmix64: the harness's only random number generator (fast, and good enough to make
 * every batch different). */
uint64_t lab_mix64(uint64_t x);

/* The workload for this seed: the spec's sizes, and mul/add drawn from the seed where the
 * spec leaves them 0 (mul is always odd). */
lab_workload lab_make_workload(const lab_workload *spec_default, uint64_t seed);

/* Fills n values of batch `batch` of run `run`. */
void lab_fill_batch(uint32_t *dst, size_t n, uint64_t seed, int run, int batch);

/* A fresh seed for when none was given (time and process id mixed). */
uint64_t lab_fresh_seed(void);

#ifdef __cplusplus
}
#endif

#endif
