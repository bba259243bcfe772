/* puzzles/008_host_fn_blocks.c: a host function that works for 2 ms sits between two 1 ms
 * kernels on stream s1, while stream s2 runs three 1 ms kernels. The function runs on a
 * thread of the runtime's once the kernel before it is done, and s1's next kernel waits
 * until it returns: s1 loses the 2 ms, s2 loses nothing. (Host functions of other streams
 * may have to wait too: CUDA says host functions without an order "may be serialized".) On
 * a GPU the function's puzzle_host_work is a real busy wait on that runtime thread. */
#include <stdio.h>

#include "kernels/kernels.h"
#include "puzzles/puzzle.h"

enum { BLOCKS = 4 };
#define WORK_NS 2000000u /* the host function's work: 2 ms */

/* The host function: bookkeeping that takes a while (decoding, logging, a Python callback). */
static void CUDART_CB log_step(void *arg) {
    (void)arg;
    puzzle_host_work(WORK_NS);
}

/* The same, without the work: a reference run. */
static void CUDART_CB log_step_quick(void *arg) { (void)arg; }

static cudaError_t run(cudaHostFn_t fn) {
    uint32_t *marks;
    cudaStream_t s1, s2;
    PUZZLE_CHECK(cudaMalloc((void **)&marks, 2 * BLOCKS * sizeof(uint32_t)));
    uint32_t *marks1 = marks, *marks2 = marks + BLOCKS;
    PUZZLE_CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    PUZZLE_CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    puzzle_name_stream(s1, "s1");
    puzzle_name_stream(s2, "s2");
    PUZZLE_CHECK(cudaDeviceSynchronize());
    cudaHostFn_t log_step_fn = fn;

    // [show]
    // s1, s2: cudaStreamNonBlocking streams. Each kernel: 1 ms, 4 blocks (room for all).
    // log_step: a host function that works for 2 ms (A: one that returns at once).
    kernels_spin(marks1, 4, 128, 1000000, 1, s1);
    cudaLaunchHostFunc(s1, log_step_fn, NULL);
    kernels_spin(marks1, 4, 128, 1000000, 2, s1);
    for (int i = 0; i < 3; i++)
        kernels_spin(marks2, 4, 128, 1000000, 10 + i, s2);
    cudaDeviceSynchronize();
    // [/show]

    PUZZLE_CHECK(cudaGetLastError());
    PUZZLE_CHECK(cudaStreamDestroy(s1));
    PUZZLE_CHECK(cudaStreamDestroy(s2));
    PUZZLE_CHECK(cudaFree(marks));
    return cudaSuccess;
}

static cudaError_t quick(void) { return run(log_step_quick); }
static cudaError_t working(void) { return run(log_step); }

/* runs: A (the function returns at once), B (it works 2 ms). */
static int judge(const puzzle_run *r, char *why, size_t why_len) {
    const puzzle_stream *a1 = puzzle_stream_named(&r[0], "s1"), *a2 = puzzle_stream_named(&r[0], "s2");
    const puzzle_stream *b1 = puzzle_stream_named(&r[1], "s1"), *b2 = puzzle_stream_named(&r[1], "s2");
    if (!a1 || !a2 || !b1 || !b2) {
        snprintf(why, why_len, "a run has no s1 or s2 on its timeline");
        return -1;
    }
    double d1 = b1->end_ms - a1->end_ms, d2 = b2->end_ms - a2->end_ms;
    double work = WORK_NS / 1e6;
    snprintf(why, why_len,
             "s1 ended at %.2f ms with a quick host function (A) and %.2f ms with one working %.1f ms (B): "
             "%.2f ms later; s2 ended at %.2f ms and %.2f ms: %.2f ms later",
             a1->end_ms, b1->end_ms, work, d1, a2->end_ms, b2->end_ms, d2);
    bool s1_late = d1 > 0.7 * work, s1_same = d1 < 0.2 * work;
    bool s2_late = d2 > 0.7 * work, s2_same = d2 < 0.2 * work;
    if (s1_same && s2_same) return 0;
    if (s1_late && s2_same) return 1;
    if (s1_late && s2_late) return 2;
    return -1;
}

const puzzle puzzle_008_host_fn_blocks = {
    .id = "008_host_fn_blocks",
    .title = "A host function that takes its time",
    .source = "puzzles/008_host_fn_blocks.c",
    .setup = "Stream s1 runs a 1 ms kernel, a host function (cudaLaunchHostFunc), and another 1 ms kernel; "
             "stream s2 runs three 1 ms kernels. The kernels are small, so all can run at once. In A the host "
             "function returns at once; in B it works for 2 ms (logging, decoding, a Python callback) before "
             "it returns.",
    .framework = "# PyTorch has no host functions; CuPy has them (CuPy streams, CuPy kernels):\n"
                 "s1.launch_host_func(log_step, None)   # between step(x) and step(y) on s1\n"
                 "# log_step(arg) is a Python function that takes 2 ms; it runs on the driver's thread",
    .question = "In B, which work finishes later than in A?",
    .choices =
        {
            "None: the host function runs on the CPU, beside the GPU's work, not in its way.",
            "Only s1's second kernel: it waits until the host function returns; s2 runs on.",
            "Both streams: while a host function runs, the GPU waits for the host.",
            NULL,
        },
    .answer = 1,
    .judge = judge,
    .explanation =
        "cudaLaunchHostFunc puts a call into the stream like any other operation: the runtime calls the "
        "function on a thread of its own once the work before it in the stream has completed, and the "
        "stream's later work waits until it returns. So in B s1 sits idle for the 2 ms the function works, "
        "and its second kernel ends 2 ms later than in A. Other streams do not wait: s2's kernels run on "
        "through the gap. What can wait is other host functions: CUDA says host functions without an order "
        "between them, as in independent streams, run in no defined order and may be serialized, so a slow "
        "one can delay another stream's callback too. Keep host functions short: let one signal a host "
        "thread (set a flag, post to a queue) that does the slow work, and never make CUDA calls or wait on "
        "CUDA work from inside one.",
    .interview = "Q22: How can the host learn that a batch is done without blocking?",
    .n_variants = 2,
    .variants =
        {
            {"quick", "A: a host function that returns at once", quick},
            {"working", "B: a host function that works for 2 ms", working},
        },
};
