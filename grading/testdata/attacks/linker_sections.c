/* grading/testdata/attacks/linker_sections.c: sections to which the linker gives a meaning
 * of its own: an .interp, which names the program's loader (code of the student's choice
 * before main()), and a .rela.dyn of load-time relocations, written in assembler.
 *
 * A lab 03 file that would pass on its own, with an attack on the grade added. objcheck
 * (labs/objcheck) must refuse it before it is linked: each line marked "refused:" is one
 * refusal, at that line, with that message after "not accepted: "
 * (labs/objcheck/attacks_test.cc checks every one, and no other). */
#include "labs/harness/lab.h"

static const char loader[] __attribute__((section(".interp"), used)) = "/tmp/loader"; // refused: section .interp is not one a C compiler makes: the linker would give it a meaning of its own
__asm__(".section .rela.dyn, \"a\"\n" // refused: section .rela.dyn is not one a C compiler makes: the linker would give it a meaning of its own
        ".quad 0, 8, 0\n"
        ".previous\n");

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
