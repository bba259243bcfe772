/* grading/testdata/hostile/incbin_secret.c: the reference pipeline that has the assembler
 * copy a file of the grading host into the binary (.incbin) and prints it from setup(), so
 * that it would appear in the report's output of the lab. grade_hostile_test writes in
 * place of @SECRET@ the path of a file anyone may read (another student's lab file, the
 * grader's own state: outside the compile's kit, headers and the student's file).
 * Expected: the assembler cannot open it (Permission denied), the lab does not compile,
 * and nothing of the file appears in the student's report. */
#include <stdio.h>

#include "labs/harness/lab.h"

#define NUM_STREAMS 3

__asm__(".section .rodata\n"
        ".global stolen\n"
        "stolen:\n"
        ".incbin \"@SECRET@\"\n"
        ".byte 0\n"
        ".text\n");
extern const char stolen[];

static cudaStream_t streams[NUM_STREAMS];
static uint32_t *d_in[NUM_STREAMS];
static uint32_t *d_out[NUM_STREAMS];

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    printf("%s\n", stolen);
    for (int s = 0; s < NUM_STREAMS; s++) {
        LAB_CHECK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
        char name[16];
        snprintf(name, sizeof(name), "buf %c", 'A' + s);
        lab_name_stream(ctx, streams[s], name);
        LAB_CHECK(cudaMalloc((void **)&d_in[s], w->batch_bytes));
        LAB_CHECK(cudaMalloc((void **)&d_out[s], w->batch_bytes));
    }
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int i = 0; i < w->batches; i++) {
        int s = i % NUM_STREAMS;
        LAB_CHECK(cudaMemcpyAsync(d_in[s], lab_input(ctx, i), w->batch_bytes,
                                  cudaMemcpyHostToDevice, streams[s]));
        LAB_CHECK(kernels_process(d_out[s], d_in[s], w->batch_elems, w->process, streams[s]));
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, i), d_out[s], w->batch_bytes,
                                  cudaMemcpyDeviceToHost, streams[s]));
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
