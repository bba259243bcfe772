/* labs/harness/spec_oracle.h: the oracle of a lab whose batches go through the process
 * kernel, for a spec's `oracle` (spec.h): a batch's expected output from its input,
 * computed on the host with the kernel's bit-exact CPU body (kernels/cpu/cpu.h). */
#ifndef STREAMLAB_LAB_SPEC_ORACLE_H
#define STREAMLAB_LAB_SPEC_ORACLE_H

#include <stdint.h>

#include "labs/harness/lab_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The process kernel applied `passes` times over the batch (f^a after f^b is f^(a+b), so
 * it is one pass of passes times the iterations). */
void lab_spec_oracle_passes(const lab_workload *w, const uint32_t *in, uint32_t *expected, int passes);

/* The process kernel applied the workload's steps times (0 means 1): the oracle of every
 * lab whose batch goes through the kernel steps times, as spec.h's `oracle`. */
void lab_spec_oracle_steps(const lab_workload *w, const uint32_t *in, uint32_t *expected);

#ifdef __cplusplus
}
#endif

#endif
