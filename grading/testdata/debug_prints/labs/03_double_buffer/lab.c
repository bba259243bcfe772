/* grading/testdata/debug_prints: lab 03's reference with a debug print loop left in its
 * setup(): about 3 MiB of output, over the 1 MiB --output-mb the test grades it with. The
 * rubric's "output": "cut" grades it as the correct solution it is (the rest of the output
 * cut); the default "fail" ends its run. The reference's own words follow.
 *
 * solutions/03_double_buffer.c: the reference for lab 03, triple buffering.
 *
 * Batch i runs on stream i % 3 with that stream's own device buffers. Within a stream the
 * order H2D -> kernel -> D2H -> next batch's H2D keeps a buffer from being overwritten
 * while it is still read, so no event is needed; across streams nothing is shared. With
 * three streams the H2D engine never waits for a D2H in its own stream to finish before
 * starting the next batch's copy (with two it does, when the kernel is not the longest
 * phase), so the copy engines and the SMs stay busy together. */
#include "labs/harness/lab.h"

#define NUM_STREAMS 3

static cudaStream_t streams[NUM_STREAMS];
static uint32_t *d_in[NUM_STREAMS];
static uint32_t *d_out[NUM_STREAMS];

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int line = 0; line < 40000; line++)
        printf("debug: setting up, line %d of the trace I forgot to take out before handing in\n", line);
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
