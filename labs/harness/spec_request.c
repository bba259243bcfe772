/* labs/harness/spec_request.c: a request as a spec queues it, and the bound of one
 * request alone (spec_request.h). */
#include "labs/harness/spec_request.h"

#include "labs/harness/lab.h"
#include "labs/harness/spec_batch.h"

int lab_spec_request_alloc(lab_ctx *ctx, lab_spec_request *r) {
    const lab_workload *w = lab_get_workload(ctx);
    LAB_CHECK(cudaMalloc((void **)&r->d_in, w->batch_bytes));
    LAB_CHECK(cudaMalloc((void **)&r->d_out, w->batch_bytes));
    return 0;
}

void lab_spec_request_free(lab_spec_request *r) {
    cudaFree(r->d_in);
    cudaFree(r->d_out);
    r->d_in = r->d_out = NULL;
}

int lab_spec_request_enqueue(lab_ctx *ctx, const lab_spec_request *r, int i, cudaStream_t s) {
    return lab_spec_batch_enqueue(ctx, lab_input(ctx, i), r->d_in, r->d_out, i, s);
}

int lab_spec_request_bound(lab_ctx *ctx, lab_bound *out) {
    enum { SAMPLES = 5 };
    lab_spec_request r = {NULL, NULL};
    cudaStream_t s = NULL;
    cudaEvent_t start = NULL, end = NULL;
    double t[SAMPLES];
    int rc = 1;
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess || cudaEventCreate(&start) != cudaSuccess ||
        cudaEventCreate(&end) != cudaSuccess || lab_spec_request_alloc(ctx, &r) != 0)
        goto out;
    lab_name_stream(ctx, s, "bound");
    for (int k = 0; k < SAMPLES; k++) {
        if (cudaEventRecord(start, s) != cudaSuccess || lab_spec_request_enqueue(ctx, &r, 0, s) != 0 ||
            cudaEventRecord(end, s) != cudaSuccess)
            goto out;
        t[k] = lab_spec_elapsed_ns(start, end);
        if (t[k] <= 0) goto out;
    }
    out->ideal_ns = lab_spec_median(t, SAMPLES);
    out->figures_key = "request_us";
    lab_bound_add(out, "alone", out->ideal_ns / 1e3);
    rc = 0;
out:
    cudaDeviceSynchronize();
    lab_spec_request_free(&r);
    if (start) cudaEventDestroy(start);
    if (end) cudaEventDestroy(end);
    if (s) cudaStreamDestroy(s);
    return rc;
}
