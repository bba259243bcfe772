/* grading/testdata/forged_site_words/labs/03_double_buffer/lab.c:
 * the skeleton, printing the words a sandboxed lab uses for a line it could not look up
 * ("address 0x... of your program", which the grader replaces with the line in the results
 * and in the output it shows) 4000 times, with addresses that name no line, the longest a
 * phrase may hold and some it may not.
 * Expected: graded as the skeleton; the grader's lookup of the output's phrases is bounded
 * and leaves those with no line as they are. */
/* labs/03_double_buffer/lab.c: YOUR FILE for lab 03, double buffering.
 *
 * As given, this is the sequential pipeline: every batch goes host -> device, through
 * the process kernel, and back, all on one stream, so the copy engines and the SMs take
 * turns and two of the three are always idle. Your job: keep all three busy at once by
 * spreading the batches over several streams, each with its own device buffers.
 *
 * Run it:   bazel run //labs:03_double_buffer
 * Stuck?    bazel run //labs:03_double_buffer -- --hint   (a little more each time)
 * Lesson:   labs/03_double_buffer/README.md (the TODOs are numbered as there, and it says
 *           what you should see after each one)
 *
 * The rules the checker enforces: every output bit must match the CPU oracle, no two
 * operations may touch the same bytes without an order between them (events, stream
 * order or synchronisation), and run() must return with every result in lab_output(). */
#include "labs/harness/lab.h"

/* TODO 1: how many streams the batches are spread over. One is sequential.
 * TODO 3: once you pass, is two the best number? */
#define NUM_STREAMS 1

static cudaStream_t streams[NUM_STREAMS];
/* The device buffers: one input and one output, for every stream.
 * TODO 2: after TODO 1, run the lab and read the races. Then give each stream its own. */
static uint32_t *d_in;
static uint32_t *d_out;

static int setup(lab_ctx *ctx) {
    for (int i = 0; i < 1000; i++)
        fprintf(stderr, "address %#x of your program; address 0xffffffffffffffff of your program; "
                        "address 0x1ffffffffffffffff of your program; address 0xABC of your program\n",
                i + 1);
    const lab_workload *w = lab_get_workload(ctx);
    for (int s = 0; s < NUM_STREAMS; s++) {
        LAB_CHECK(cudaStreamCreate(&streams[s]));
        char name[16];
        snprintf(name, sizeof(name), "buf %c", 'A' + s);
        lab_name_stream(ctx, streams[s], name);
    }
    LAB_CHECK(cudaMalloc((void **)&d_in, w->batch_bytes));
    LAB_CHECK(cudaMalloc((void **)&d_out, w->batch_bytes));
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int i = 0; i < w->batches; i++) {
        /* TODO 1: batch i's stream, so that neighbouring batches are on different ones. */
        int s = 0;
        LAB_CHECK(cudaMemcpyAsync(d_in, lab_input(ctx, i), w->batch_bytes, cudaMemcpyHostToDevice, streams[s]));
        LAB_CHECK(kernels_process(d_out, d_in, w->batch_elems, w->process, streams[s]));
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, i), d_out, w->batch_bytes, cudaMemcpyDeviceToHost, streams[s]));
    }
    /* Results must be ready when run() returns: wait for every stream. */
    for (int s = 0; s < NUM_STREAMS; s++) LAB_CHECK(cudaStreamSynchronize(streams[s]));
    return 0;
}

static void teardown(lab_ctx *ctx) {
    (void)ctx;
    for (int s = 0; s < NUM_STREAMS; s++) cudaStreamDestroy(streams[s]);
    cudaFree(d_in);
    cudaFree(d_out);
}

const lab_impl LAB_STUDENT = {setup, run, teardown};
