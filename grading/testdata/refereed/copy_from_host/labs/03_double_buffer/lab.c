/* grading/testdata/refereed/copy_from_host/labs/03_double_buffer/lab.c: results that never
 * visit the device. run() computes every batch's result on the host with its own code (the
 * process kernel is an affine map, so f^iters is one multiply-add an element) and tries to
 * put it into lab_output() by a copy from host memory, every way the CUDA API offers one:
 * cudaMemcpyAsync and cudaMemcpy with cudaMemcpyDefault, cudaMemcpyHostToHost and a kind
 * that lies (cudaMemcpyDeviceToHost), from its own malloc'd (pageable) memory, from pinned
 * memory of its own (cudaMallocHost) and from the lab's input. It ignores every error, so
 * that each route is tried.
 * Expected: the referee refuses each copy (a copy into an output must come from the
 * student's device memory, docs/referee.md): the outputs keep their poison, the run is
 * incorrect, and the report names the refused copy. */
#include <stdlib.h>
#include <string.h>

#include "labs/harness/lab.h"

static uint32_t *results;  /* pageable: malloc */
static uint32_t *pinned;   /* cudaMallocHost */
static cudaStream_t stream;

static void host_process(const lab_workload *w, const uint32_t *in, uint32_t *out) {
    uint32_t a = 1, c = 0;
    for (uint32_t k = 0; k < w->process.iters; k++) {
        a *= w->process.mul;
        c = c * w->process.mul + w->process.add;
    }
    for (size_t i = 0; i < w->batch_elems; i++) out[i] = in[i] * a + c;
}

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    results = malloc(w->batch_bytes);
    if (!results) return 1;
    LAB_CHECK(cudaMallocHost((void **)&pinned, w->batch_bytes));
    LAB_CHECK(cudaStreamCreate(&stream));
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    size_t n = w->batch_bytes;
    for (int i = 0; i < w->batches; i++) {
        uint32_t *out = lab_output(ctx, i);
        host_process(w, lab_input(ctx, i), results);
        memcpy(pinned, results, n);
        /* From pageable memory. */
        (void)cudaMemcpyAsync(out, results, n, cudaMemcpyDefault, stream);
        (void)cudaMemcpyAsync(out, results, n, cudaMemcpyHostToHost, stream);
        (void)cudaMemcpyAsync(out, results, n, cudaMemcpyDeviceToHost, stream);
        (void)cudaMemcpy(out, results, n, cudaMemcpyDefault);
        (void)cudaMemcpy(out, results, n, cudaMemcpyHostToHost);
        /* From pinned memory of its own. */
        (void)cudaMemcpyAsync(out, pinned, n, cudaMemcpyDefault, stream);
        (void)cudaMemcpyAsync(out, pinned, n, cudaMemcpyHostToHost, stream);
        (void)cudaMemcpyAsync(out, pinned, n, cudaMemcpyDeviceToHost, stream);
        (void)cudaMemcpy(out, pinned, n, cudaMemcpyDefault);
        (void)cudaMemcpy(out, pinned, n, cudaMemcpyHostToHost);
        /* From the lab's input (not the result, but a copy it is). */
        (void)cudaMemcpy(out, lab_input(ctx, i), n, cudaMemcpyHostToHost);
        (void)cudaGetLastError();
    }
    (void)cudaStreamSynchronize(stream);
    (void)cudaGetLastError();
    return 0;
}

static void teardown(lab_ctx *ctx) {
    (void)ctx;
    cudaStreamDestroy(stream);
    cudaFreeHost(pinned);
    free(results);
}

const lab_impl LAB_STUDENT = {setup, run, teardown};
