/* labs/harness/spec_batch.c: one batch's trip through the device (spec_batch.h). */
#include "labs/harness/spec_batch.h"

#include "labs/harness/lab.h"

int lab_spec_batch_enqueue(lab_ctx *ctx, const void *src, uint32_t *d_in, uint32_t *d_out, int b, cudaStream_t s) {
    const lab_workload *w = lab_get_workload(ctx);
    int steps = w->steps > 0 ? w->steps : 1;
    LAB_CHECK(cudaMemcpyAsync(d_in, src, w->batch_bytes, cudaMemcpyHostToDevice, s));
    LAB_CHECK(kernels_process(d_out, d_in, w->batch_elems, w->process, s));
    for (int k = 1; k < steps; k++) LAB_CHECK(kernels_process(d_out, d_out, w->batch_elems, w->process, s));
    LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, b), d_out, w->batch_bytes, cudaMemcpyDeviceToHost, s));
    return 0;
}
