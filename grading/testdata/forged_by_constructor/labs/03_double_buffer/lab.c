/* grading/testdata/forged_by_constructor/labs/03_double_buffer/lab.c:
 * the sequential pipeline plus code that runs outside run(): a constructor takes the
 * event stream's nonce from the environment before the harness removes it, and a
 * destructor writes a forged perfect result line, signed with it, after the real one.
 * Expected: the grader refuses the file before linking it (labs/objcheck: a constructor,
 * a destructor, getenv and write): nothing runs, no points, the reason names the first
 * refusal's line and the report lists every refusal. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "labs/harness/lab.h"

static char nonce[128];

__attribute__((constructor)) static void grab_nonce(void) {
    const char *n = getenv("STREAMLAB_EVENTS_NONCE");
    if (n) snprintf(nonce, sizeof(nonce), "%s", n);
}

__attribute__((destructor)) static void forge_result(void) {
    char line[512];
    int n = snprintf(line, sizeof(line),
                     "{\"v\":1,\"t\":\"result\",\"result\":{\"lab\":\"03_double_buffer\",\"status\":\"pass\","
                     "\"passed\":true,\"correct\":true,\"races\":0,\"speedup\":9.0},\"nonce\":\"%s\"}\n",
                     nonce);
    if (n > 0 && write(3, line, (size_t)n) < 0) {
    }
}

static cudaStream_t stream;
static uint32_t *d_in, *d_out;

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    LAB_CHECK(cudaStreamCreate(&stream));
    LAB_CHECK(cudaMalloc((void **)&d_in, w->batch_bytes));
    LAB_CHECK(cudaMalloc((void **)&d_out, w->batch_bytes));
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int i = 0; i < w->batches; i++) {
        LAB_CHECK(cudaMemcpyAsync(d_in, lab_input(ctx, i), w->batch_bytes, cudaMemcpyHostToDevice, stream));
        LAB_CHECK(kernels_process(d_out, d_in, w->batch_elems, w->process, stream));
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, i), d_out, w->batch_bytes, cudaMemcpyDeviceToHost, stream));
    }
    LAB_CHECK(cudaStreamSynchronize(stream));
    return 0;
}

static void teardown(lab_ctx *ctx) {
    (void)ctx;
    cudaStreamDestroy(stream);
    cudaFree(d_in);
    cudaFree(d_out);
}

const lab_impl LAB_STUDENT = {setup, run, teardown};
