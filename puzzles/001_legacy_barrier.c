/* puzzles/001_legacy_barrier.c: two streams each run a 5 ms kernel small enough to share
 * the GPU, and a tiny kernel goes to the legacy default stream between the two launches.
 * With streams from cudaStreamCreate (blocking streams) the stream-0 kernel waits for the
 * first stream's kernel and the second stream's kernel waits for it: the two long kernels
 * run one after the other. With cudaStreamNonBlocking streams stream 0 orders nothing and
 * they overlap. Measured on an H200 (docs/calibration/h200.md, "Legacy default stream",
 * single-block 5 ms kernels): 5.02 ms without the stream-0 kernel, 10.04 ms with it
 * between blocking streams, 5.03 ms between non-blocking ones. This puzzle's own runs on a
 * lent H200 (puzzles_gpu, CUPTI timing): 5.39, 10.19 and 5.21 ms; the judge answered b). */
#include <stdio.h>

#include "kernels/kernels.h"
#include "puzzles/puzzle.h"

static cudaError_t run(bool stream0_kernel, unsigned flags) {
    uint32_t *marks;
    cudaStream_t s1, s2;
    PUZZLE_CHECK(cudaMalloc((void **)&marks, 3 * sizeof(uint32_t)));
    uint32_t *marks1 = marks, *marks2 = marks + 1, *marks0 = marks + 2;
    if (flags == cudaStreamDefault) {
        // [show]
        // A: blocking streams
        cudaStreamCreate(&s1);
        cudaStreamCreate(&s2);
        // [/show]
    } else {
        // [show]
        // B: non-blocking streams
        cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
        cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
        // [/show]
    }
    PUZZLE_CHECK(cudaGetLastError());
    puzzle_name_stream(s1, "s1");
    puzzle_name_stream(s2, "s2");
    puzzle_name_stream(0, "stream 0");
    PUZZLE_CHECK(cudaDeviceSynchronize());

    // [show]
    // Both: one 5 ms single-block kernel on each stream, a 1 us kernel on stream 0 between
    // (the reference run leaves the stream-0 kernel out).
    kernels_spin(marks1, 1, 64, 5000000, 1, s1);
    if (stream0_kernel)
        kernels_spin(marks0, 1, 64, 1000, 0, 0); // stream 0: the legacy default stream
    kernels_spin(marks2, 1, 64, 5000000, 2, s2);
    cudaDeviceSynchronize();
    // [/show]

    PUZZLE_CHECK(cudaGetLastError());
    PUZZLE_CHECK(cudaStreamDestroy(s1));
    PUZZLE_CHECK(cudaStreamDestroy(s2));
    PUZZLE_CHECK(cudaFree(marks));
    return cudaSuccess;
}

static cudaError_t reference(void) { return run(false, cudaStreamDefault); }
static cudaError_t blocking(void) { return run(true, cudaStreamDefault); }
static cudaError_t non_blocking(void) { return run(true, cudaStreamNonBlocking); }

/* runs: reference, blocking (A), non-blocking (B). */
static int judge(const puzzle_run *r, char *why, size_t why_len) {
    double ref = r[0].span_ms, a = r[1].span_ms, b = r[2].span_ms;
    snprintf(why, why_len,
             "no stream-0 kernel %.2f ms; with it, blocking streams (A) %.2f ms (%.2fx), most kernels at once %d; "
             "non-blocking streams (B) %.2f ms (%.2fx), most kernels at once %d",
             ref, a, a / ref, r[1].max_kernels, b, b / ref, r[2].max_kernels);
    bool a_serial = a > 1.6 * ref && r[1].max_kernels < 2;
    bool b_serial = b > 1.6 * ref && r[2].max_kernels < 2;
    bool a_overlap = a < 1.3 * ref && r[1].max_kernels >= 2;
    bool b_overlap = b < 1.3 * ref && r[2].max_kernels >= 2;
    if (a_overlap && b_overlap) return 0;
    if (a_serial && b_overlap) return 1;
    if (a_serial && b_serial) return 2;
    if (a_overlap && b_serial) return 3;
    return -1;
}

const puzzle puzzle_001_legacy_barrier = {
    .id = "001_legacy_barrier",
    .title = "One tiny kernel on stream 0",
    .source = "puzzles/001_legacy_barrier.c",
    .setup = "Two streams each run one 5 ms kernel of a single block, so the GPU has room to run both at "
             "once. Between the two launches the host launches a 1 us kernel on stream 0, the legacy default "
             "stream. In variant A the streams come from cudaStreamCreate, in variant B from "
             "cudaStreamCreateWithFlags(..., cudaStreamNonBlocking). A reference run, blocking streams "
             "without the stream-0 kernel, takes about 5 ms.",
    .framework = "s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()   # PyTorch's pool: non-blocking (B)\n"
                 "with torch.cuda.stream(s1): long_op(x)\n"
                 "tiny_op(y)                      # the current stream: the legacy default stream\n"
                 "with torch.cuda.stream(s2): long_op(z)\n"
                 "A needs streams without cudaStreamNonBlocking, e.g. torch.cuda.ExternalStream of a "
                 "cudaStreamCreate'd stream.",
    .question = "How long do A and B take, from the first kernel's start to the last one's end?",
    .choices =
        {
            "Both about 5 ms: the stream-0 kernel lasts 1 us, and the long kernels are on streams of their own.",
            "A about 10 ms, B about 5 ms: in A the stream-0 kernel waits for s1's kernel and s2's kernel waits "
            "for it; non-blocking streams do not synchronise with stream 0.",
            "Both about 10 ms: anything on stream 0 waits for every stream and every stream waits for it.",
            "A about 5 ms, B about 10 ms: without the implicit synchronisation the streams contend and run one "
            "after the other.",
            NULL,
        },
    .answer = 1,
    .judge = judge,
    .explanation =
        "The legacy default stream (stream 0 in a program built without per-thread default streams) "
        "synchronises with every blocking stream: before an operation on it runs, it waits for all work "
        "already queued in blocking streams, and work queued in blocking streams afterwards waits for it. "
        "Streams from cudaStreamCreate are blocking, so in A the 1 us kernel waits for s1's 5 ms kernel and "
        "s2's kernel waits for the 1 us kernel: the timeline shows the two long kernels end to end, 10 ms "
        "instead of 5 (10.04 ms measured on an H200). Streams made with cudaStreamNonBlocking take no part "
        "in this, in either direction, so in B all three kernels overlap. Many calls use stream 0 without "
        "naming it: cudaMemcpy, cudaMemset, a launch without a stream, a library call without a stream. "
        "Create streams with cudaStreamNonBlocking (PyTorch's pool does) or keep stream 0 out of the loop; "
        "but then nothing orders your streams with stream-0 work either, so add events where you relied on "
        "that order.",
    .interview = "Q3: What is the legacy default stream, and why does it hurt concurrency?",
    .n_variants = 3,
    .variants =
        {
            {"reference", "Reference: blocking streams, no stream-0 kernel", reference},
            {"blocking", "A: cudaStreamCreate streams", blocking},
            {"non_blocking", "B: cudaStreamNonBlocking streams", non_blocking},
        },
};
