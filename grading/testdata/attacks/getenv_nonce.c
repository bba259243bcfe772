/* grading/testdata/attacks/getenv_nonce.c: reads the result channel's nonce from the environment, by name and by
 * walking environ.
 *
 * A lab 03 file that would pass on its own, with an attack on the grade added. objcheck
 * (labs/objcheck) must refuse it before it is linked: each line marked "refused:" is one
 * refusal, at that line, with that message after "not accepted: "
 * (labs/objcheck/attacks_test.cc checks every one, and no other). */
#include <stdlib.h>
#include <string.h>
#include "labs/harness/lab.h"

extern char **environ;
static char nonce[128];

#define NUM_STREAMS 3

static cudaStream_t streams[NUM_STREAMS];
static uint32_t *d_in[NUM_STREAMS];
static uint32_t *d_out[NUM_STREAMS];

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int s = 0; s < NUM_STREAMS; s++) {
        LAB_CHECK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
        LAB_CHECK(cudaMalloc((void **)&d_in[s], w->batch_bytes));
        LAB_CHECK(cudaMalloc((void **)&d_out[s], w->batch_bytes));
    }
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    const char *n = getenv("STREAMLAB_EVENTS_NONCE"); // refused: calls getenv, which a lab may not (docs/labs.md says what it may call)
    for (char **e = environ; !n && *e; e++) // refused: uses environ, which a lab may not (docs/labs.md says what it may call)
        if (!strncmp(*e, "STREAMLAB_EVENTS_NONCE=", 23)) n = *e + 23;
    if (n) snprintf(nonce, sizeof(nonce), "%s", n);
    for (int i = 0; i < w->batches; i++) {
        int s = i % NUM_STREAMS;
        LAB_CHECK(cudaMemcpyAsync(d_in[s], lab_input(ctx, i), w->batch_bytes, cudaMemcpyHostToDevice, streams[s]));
        LAB_CHECK(kernels_process(d_out[s], d_in[s], w->batch_elems, w->process, streams[s]));
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, i), d_out[s], w->batch_bytes, cudaMemcpyDeviceToHost, streams[s]));
    }
    for (int s = 0; s < NUM_STREAMS; s++) LAB_CHECK(cudaStreamSynchronize(streams[s]));
    return 0;
}

static void teardown(lab_ctx *ctx) {
    (void)ctx;
    for (int s = 0; s < NUM_STREAMS; s++) {
        cudaFree(d_in[s]);
        cudaFree(d_out[s]);
        cudaStreamDestroy(streams[s]);
    }
}

const lab_impl LAB_STUDENT = {setup, run, teardown};
