/* labs/harness/spec_oracle.c: the process kernel's oracle (spec_oracle.h). */
#include "labs/harness/spec_oracle.h"

#include "kernels/cpu/cpu.h"

void lab_spec_oracle_passes(const lab_workload *w, const uint32_t *in, uint32_t *expected, int passes) {
    kernels_process_params all = w->process;
    all.iters = (uint32_t)passes * w->process.iters; /* f^a after f^b is f^(a+b) */
    kernels_oracle_process(expected, in, w->batch_elems, all);
}

void lab_spec_oracle_steps(const lab_workload *w, const uint32_t *in, uint32_t *expected) {
    lab_spec_oracle_passes(w, in, expected, w->steps > 0 ? w->steps : 1);
}
