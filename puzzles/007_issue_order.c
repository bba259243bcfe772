/* puzzles/007_issue_order.c: four streams each copy a 4 MiB batch up, process it and copy
 * it back, issued stream by stream (depth-first: up 0, kernel 0, down 0, up 1, ...) or
 * stage by stage (breadth-first: every upload, every kernel, every download). On GPUs with
 * one hardware work queue the order decided the overlap: the device saw the ops in issue
 * order, so depth-first put each upload behind the previous stream's download. Since
 * Kepler's Hyper-Q the driver gives streams separate hardware queues (8 by default,
 * CUDA_DEVICE_MAX_CONNECTIONS), and a GPU with a copy engine per direction, as the H200 is,
 * finishes both orders in about the same time. With four streams each has a hardware queue
 * of its own (8 by default, CUDA_DEVICE_MAX_CONNECTIONS), and the h200 profile has an engine
 * per direction; puzzle 011 shows what changes when streams outnumber the queues. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels.h"
#include "puzzles/puzzle.h"

enum { N = 4 };
#define ELEMS (1u << 20)             /* 4 MiB of uint32_t a batch: about 94 us each way on an H200 */
#define BYTES (ELEMS * sizeof(uint32_t))
#define ITERS 4000u                  /* about 170 us of process over 1M elements on an H200 */

typedef enum order { ONE_STREAM, DEPTH_FIRST, BREADTH_FIRST } order;

static cudaError_t run(order how) {
    uint32_t *host, *in[N], *out[N];
    cudaStream_t s[N];
    const kernels_process_params p = {.mul = 2654435761u, .add = 12345u, .iters = ITERS};
    /* pinned by cudaHostRegister, which costs the host a tenth of what cudaMallocHost does */
    host = malloc(N * BYTES);
    if (!host) return cudaErrorMemoryAllocation;
    PUZZLE_CHECK(cudaHostRegister(host, N * BYTES, cudaHostRegisterDefault));
    for (size_t i = 0; i < (size_t)N * ELEMS; i++) host[i] = (uint32_t)i;
    for (int i = 0; i < N; i++) {
        PUZZLE_CHECK(cudaMalloc((void **)&in[i], BYTES));
        PUZZLE_CHECK(cudaMalloc((void **)&out[i], BYTES));
        PUZZLE_CHECK(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking));
        char name[16];
        snprintf(name, sizeof(name), "s%d", i);
        if (how != ONE_STREAM || i == 0) puzzle_name_stream(s[i], name);
    }
    PUZZLE_CHECK(cudaDeviceSynchronize());

    if (how == ONE_STREAM) {
        // [show]
        // Reference: every batch on one stream.
        for (int i = 0; i < 4; i++) {
            cudaMemcpyAsync(in[i], host + i * ELEMS, BYTES, cudaMemcpyHostToDevice, s[0]);
            kernels_process(out[i], in[i], ELEMS, p, s[0]);
            cudaMemcpyAsync(host + i * ELEMS, out[i], BYTES, cudaMemcpyDeviceToHost, s[0]);
        }
        // [/show]
    } else if (how == DEPTH_FIRST) {
        // [show]
        // A, depth-first: stream by stream. host: pinned (cudaHostRegister); s[i]: non-blocking.
        for (int i = 0; i < 4; i++) {
            cudaMemcpyAsync(in[i], host + i * ELEMS, BYTES, cudaMemcpyHostToDevice, s[i]);
            kernels_process(out[i], in[i], ELEMS, p, s[i]);
            cudaMemcpyAsync(host + i * ELEMS, out[i], BYTES, cudaMemcpyDeviceToHost, s[i]);
        }
        // [/show]
    } else {
        // [show]
        // B, breadth-first: stage by stage, the same ops on the same streams.
        for (int i = 0; i < 4; i++)
            cudaMemcpyAsync(in[i], host + i * ELEMS, BYTES, cudaMemcpyHostToDevice, s[i]);
        for (int i = 0; i < 4; i++)
            kernels_process(out[i], in[i], ELEMS, p, s[i]);
        for (int i = 0; i < 4; i++)
            cudaMemcpyAsync(host + i * ELEMS, out[i], BYTES, cudaMemcpyDeviceToHost, s[i]);
        // [/show]
    }
    // [show]
    cudaDeviceSynchronize();
    // [/show]

    PUZZLE_CHECK(cudaGetLastError());
    for (int i = 0; i < N; i++) {
        PUZZLE_CHECK(cudaStreamDestroy(s[i]));
        PUZZLE_CHECK(cudaFree(in[i]));
        PUZZLE_CHECK(cudaFree(out[i]));
    }
    PUZZLE_CHECK(cudaHostUnregister(host));
    free(host);
    return cudaSuccess;
}

static cudaError_t one_stream(void) { return run(ONE_STREAM); }
static cudaError_t depth_first(void) { return run(DEPTH_FIRST); }
static cudaError_t breadth_first(void) { return run(BREADTH_FIRST); }

/* Two times "about the same" when within 15% of each other. */
#define SAME 1.15

/* The batches' time: the streams' first op start to their last op end (span_ms also covers
 * the pinning and freeing around them). */
static double batches_ms(const puzzle_run *r) {
    double first = 1e30, last = 0;
    for (int i = 0; i < r->n_streams; i++) {
        if (r->streams[i].start_ms < first) first = r->streams[i].start_ms;
        if (r->streams[i].end_ms > last) last = r->streams[i].end_ms;
    }
    return r->n_streams ? last - first : 0;
}

/* runs: one stream, depth-first, breadth-first. */
static int judge(const puzzle_run *r, char *why, size_t why_len) {
    double one = batches_ms(&r[0]), depth = batches_ms(&r[1]), breadth = batches_ms(&r[2]);
    if (depth <= 0 || breadth <= 0) {
        snprintf(why, why_len, "a variant ran nothing on the device");
        return -1;
    }
    snprintf(why, why_len,
             "one stream %.3f ms; four streams depth-first %.3f ms (%.2fx one stream), breadth-first %.3f ms "
             "(%.2fx); copies and kernels overlapped for %.3f and %.3f ms",
             one, depth, one / depth, breadth, one / breadth, r[1].overlap_ms, r[2].overlap_ms);
    if (depth * SAME > one && breadth * SAME > one) return 3; /* streams bought nothing either way */
    if (depth > SAME * breadth) return 0;
    if (breadth > SAME * depth) return 1;
    return 2;
}

const puzzle puzzle_007_issue_order = {
    .id = "007_issue_order",
    .title = "Depth-first or breadth-first issue order",
    .source = "puzzles/007_issue_order.c",
    .setup = "Four batches of 4 MiB, each copied up, processed (about 170 us) and copied back (about 94 us each "
             "way), on four non-blocking streams from pinned memory. A issues them stream by stream "
             "(depth-first), B stage by stage (breadth-first): the same ops on the same streams, in another "
             "order. The reference runs every batch on one stream.",
    .framework = "for i in range(4):                                   # A: depth-first\n"
                 "    with torch.cuda.stream(s[i]):\n"
                 "        d = x[i].to('cuda', non_blocking=True); y[i].copy_(f(d), non_blocking=True)\n"
                 "# B: three loops over s[i]: all the uploads, then all the f(d), then all the copies back",
    .question = "On this GPU (an H200: a copy engine per direction, Hyper-Q), how do the two issue orders "
                "compare?",
    .choices =
        {
            "Breadth-first is clearly faster: issued depth-first, each upload waits behind the previous "
            "stream's download, so the batches run one after another.",
            "Depth-first is clearly faster: breadth-first holds every download until all the kernels are "
            "done.",
            "About the same: each stream has its own hardware queue and each direction its own copy engine, "
            "so every op starts when its own stream and its engine let it, whatever the order of issue.",
            "Neither beats one stream: the four batches share one GPU, so splitting them over streams "
            "changes nothing.",
            NULL,
        },
    .answer = 2,
    .judge = judge,
    .explanation =
        "Streams are the program's view; the GPU sees the hardware work queues the driver maps them onto. "
        "Before Kepler's Hyper-Q the GPU took work through a single queue in the order it was issued: NVIDIA's "
        "Programming Guide of the time explained that on a device with one copy engine, stream 1's upload "
        "issued after stream 0's download could start only once that download, which waits for stream 0's "
        "kernel, was done, so depth-first issue ran the batches one after another and breadth-first was the "
        "advice. Today the driver spreads streams over several hardware queues (CUDA_DEVICE_MAX_CONNECTIONS, "
        "8 by default) and the H200 has a copy engine per direction: in both timelines the uploads run back "
        "to back, each kernel starts when its upload lands and each download when its kernel ends, and the "
        "two orders give the same time, well under one stream's. The order can still matter where "
        "streams share a queue: with more busy streams than connections, or with "
        "CUDA_DEVICE_MAX_CONNECTIONS=1, a stream's upload issued after another stream's download may wait "
        "for it, and breadth-first issue avoids that.",
    .interview = "Q37: Does the order in which you issue work to several streams (depth-first or breadth-first) "
                 "change how it overlaps?",
    .n_variants = 3,
    .variants =
        {
            {"one-stream", "Reference: one stream", one_stream},
            {"depth-first", "A: depth-first (stream by stream)", depth_first},
            {"breadth-first", "B: breadth-first (stage by stage)", breadth_first},
        },
};
