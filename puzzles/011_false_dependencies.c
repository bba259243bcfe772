/* puzzles/011_false_dependencies.c: 16 streams, each a chain of two 1 ms one-block kernels
 * (Ka, then Kb, which waits for Ka in its stream), issued depth-first (stream by stream)
 * or breadth-first (every Ka, then every Kb), and 8 streams depth-first as the reference.
 * The driver feeds streams into 8 hardware work queues by default
 * (CUDA_DEVICE_MAX_CONNECTIONS); a queue starts its ops in order, and a Kb waiting for its
 * Ka holds back the Ka of the other stream that shares its queue. Measured on an H200
 * (docs/calibration/h200_connections.md, the same shape with %globaltimer kernels):
 * 16 streams depth-first 3.06 ms, breadth-first 2.06 ms, 8 streams depth-first 2.05 ms.
 * This puzzle itself (puzzles_gpu, CUPTI's timeline) on an H200, driver 580.159.04: 3.44,
 * 2.36 and 2.30 ms, judged b); with CUDA_DEVICE_MAX_CONNECTIONS=16 2.59, 2.36 and 2.33 ms,
 * judged a); with 1, 17.48, 2.43 and 9.29 ms. The simulator: 3.19, 2.19 and 2.13 ms. */
#include <stdio.h>
#include <string.h>

#include "kernels/kernels.h"
#include "puzzles/puzzle.h"

enum { MAX_STREAMS = 16 };
#define KERNEL_NS 1000000u /* 1 ms, one block */

typedef enum order { DEPTH_FIRST, BREADTH_FIRST } order;

static cudaError_t run(int n, order how) {
    uint32_t *marks;
    cudaStream_t s[MAX_STREAMS];
    PUZZLE_CHECK(cudaMalloc((void **)&marks, 2 * MAX_STREAMS * sizeof(uint32_t)));
    for (int i = 0; i < n; i++) {
        PUZZLE_CHECK(cudaStreamCreate(&s[i]));
        char name[16];
        snprintf(name, sizeof(name), "s%d", i + 1);
        puzzle_name_stream(s[i], name);
    }
    PUZZLE_CHECK(cudaDeviceSynchronize());

    if (how == DEPTH_FIRST) {
        // [show]
        // s[i]: n streams from cudaStreamCreate (A: n = 16; reference: n = 8).
        // Ka, Kb: kernels of one block that spin for 1 ms; each stream's Kb waits for its Ka.
        // A, depth-first: stream by stream.
        for (int i = 0; i < n; i++) {
            kernels_spin(marks + 2 * i, 1, 32, KERNEL_NS, 0, s[i]);     // Ka
            kernels_spin(marks + 2 * i + 1, 1, 32, KERNEL_NS, 1, s[i]); // Kb
        }
        // [/show]
    } else {
        // [show]
        // B, breadth-first: the same kernels on the same 16 streams, every Ka first.
        for (int i = 0; i < n; i++)
            kernels_spin(marks + 2 * i, 1, 32, KERNEL_NS, 0, s[i]);     // Ka
        for (int i = 0; i < n; i++)
            kernels_spin(marks + 2 * i + 1, 1, 32, KERNEL_NS, 1, s[i]); // Kb
        // [/show]
    }
    // [show]
    cudaDeviceSynchronize();
    // [/show]

    PUZZLE_CHECK(cudaGetLastError());
    for (int i = 0; i < n; i++) PUZZLE_CHECK(cudaStreamDestroy(s[i]));
    PUZZLE_CHECK(cudaFree(marks));
    return cudaSuccess;
}

static cudaError_t depth_16(void) { return run(16, DEPTH_FIRST); }
static cudaError_t breadth_16(void) { return run(16, BREADTH_FIRST); }
static cudaError_t depth_8(void) { return run(8, DEPTH_FIRST); }

/* runs: 16 depth-first, 16 breadth-first, 8 depth-first. Every stream's chain alone takes
 * 2 ms; a false dependency adds whole kernel times (3 ms for 16 streams on 8 queues). */
static int judge(const puzzle_run *r, char *why, size_t why_len) {
    double depth = r[0].span_ms, breadth = r[1].span_ms, eight = r[2].span_ms;
    snprintf(why, why_len,
             "16 streams depth-first %.2f ms, breadth-first %.2f ms (%.2fx); 8 streams depth-first %.2f ms",
             depth, breadth, depth / breadth, eight);
    if (breadth > 1.25 * depth) return 2;
    if (depth > 1.25 * breadth) {
        if (eight < 1.15 * breadth) return 1;
        /* The 8 streams waited too: fewer than 8 queues (CUDA_DEVICE_MAX_CONNECTIONS=1 gave
         * 17.48, 2.43 and 9.29 ms on the H200). No choice says that. */
        size_t len = strlen(why);
        snprintf(why + len, why_len - len, ": the 8 streams depth-first waited too, so fewer than 8 queues");
        return -1;
    }
    if (depth > 1.25 * eight && breadth > 1.25 * eight) return 3;
    return 0;
}

const puzzle puzzle_011_false_dependencies = {
    .id = "011_false_dependencies",
    .title = "Sixteen streams, eight queues",
    .source = "puzzles/011_false_dependencies.c",
    .setup = "16 streams, each running two 1 ms kernels of one block: Ka, then Kb, which waits for Ka because "
             "it is on the same stream. Variant A issues them stream by stream (depth-first: s1 Ka, s1 Kb, s2 "
             "Ka, ...), variant B stage by stage (breadth-first: every Ka, then every Kb). The reference is "
             "8 streams depth-first. CUDA_DEVICE_MAX_CONNECTIONS is not set.",
    .framework = "streams = [torch.cuda.Stream() for _ in range(16)]\n"
                 "A: for s in streams:\n"
                 "       with torch.cuda.stream(s): h = f(x); y = g(h)      # f then g, stream by stream\n"
                 "B: every f first (one loop over the streams), then every g (a second loop).\n"
                 "More queues: CUDA_DEVICE_MAX_CONNECTIONS=16 in the environment, before torch first uses CUDA.",
    .question = "Each stream's chain takes 2 ms, and the GPU has room for all 16 one-block kernels at once. "
                "How long do A (depth-first) and B (breadth-first) take?",
    .choices =
        {
            "Both about 2 ms, like the 8-stream reference: the streams are independent, so the order the "
            "host issues them in cannot matter.",
            "A takes longer (about 3 ms against 2): the 16 streams share 8 hardware queues, and in A half "
            "the streams' Ka wait in a queue behind another stream's Kb, which waits for its own Ka. B and "
            "the 8-stream reference take about 2 ms.",
            "B takes longer: switching between streams for every kernel costs the GPU time that A, "
            "stream by stream, does not pay.",
            "Both about twice the reference: the GPU runs at most 8 kernels at a time, so 16 streams go "
            "through in two rounds whatever the order.",
            NULL,
        },
    .answer = 1,
    .judge = judge,
    .explanation =
        "The GPU has no notion of streams: the driver feeds them into a few hardware work queues "
        "(connections), 8 by default, set by CUDA_DEVICE_MAX_CONNECTIONS (1 to 32), and each queue "
        "starts its work in order. A kernel that must wait for its own stream, as every Kb waits for its "
        "Ka, waits at the head of its queue and holds back whatever is behind it, from any stream. In A, "
        "16 busy streams share the 8 queues two by two, so s9's Ka sits behind s1's Kb and starts only "
        "when s1's Ka ends: a false dependency that costs a whole kernel time (on an H200 3.06 ms against "
        "2.06; with 32 streams 5 ms). B puts every independent Ka at the front of the queues, so nothing "
        "waits; with 8 busy streams or fewer each has a queue of its own and the order does not matter. "
        "When added streams still run in sequence, count the streams busy at once: issue breadth-first, "
        "keep fewer streams busy, or set CUDA_DEVICE_MAX_CONNECTIONS higher in the environment before the "
        "process first uses CUDA (the driver reads it when it creates the context; each connection costs "
        "it resources, and it may grant fewer).",
    .interview = "Q13: You added streams but the timeline still shows everything in sequence. What do you check?",
    .n_variants = 3,
    .variants =
        {
            {"depth16", "A: 16 streams, depth-first", depth_16},
            {"breadth16", "B: 16 streams, breadth-first", breadth_16},
            {"depth8", "Reference: 8 streams, depth-first", depth_8},
        },
};
