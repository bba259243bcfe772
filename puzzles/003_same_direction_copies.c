/* puzzles/003_same_direction_copies.c: four rounds of two 8 MiB copies of pinned memory,
 * both host-to-device on one stream, both host-to-device on two streams, or one each way on
 * two streams. The H200 reports three copy engines (asyncEngineCount 3), yet two copies in the
 * same direction never ran at once there, whichever streams they were on; one up and one
 * down did, each a little slower than alone (docs/calibration/h200_copy_engines.md:
 * 256 MiB copies, two H2D 9.74 ms, H2D + D2H 5.61 ms, one H2D 4.92 ms). NVIDIA does not
 * document how the driver assigns copies to engines: this is what the H200's driver did.
 * This puzzle on a lent H200 (puzzles_gpu, CUPTI timing): A 1.24 ms, B 1.24 ms with at most
 * one upload at a time, C 0.71 ms. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels.h"
#include "puzzles/puzzle.h"

#define BYTES (8u << 20)

typedef enum { ONE_STREAM, TWO_STREAMS, BOTH_DIRECTIONS } mode;

static cudaError_t run(mode m) {
    char *host_a, *host_b, *dev_a, *dev_b;
    cudaStream_t s1, s2;
    PUZZLE_CHECK(cudaMalloc((void **)&dev_a, BYTES));
    PUZZLE_CHECK(cudaMalloc((void **)&dev_b, BYTES));
    /* Pinned by registering (cheaper than cudaMallocHost, so set-up stays short). */
    host_a = malloc(BYTES);
    host_b = malloc(BYTES);
    if (!host_a || !host_b) return cudaErrorMemoryAllocation;
    memset(host_a, 1, BYTES);
    memset(host_b, 2, BYTES);
    PUZZLE_CHECK(cudaHostRegister(host_a, BYTES, cudaHostRegisterDefault));
    PUZZLE_CHECK(cudaHostRegister(host_b, BYTES, cudaHostRegisterDefault));
    PUZZLE_CHECK(cudaMemset(dev_b, 3, BYTES));
    PUZZLE_CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    PUZZLE_CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    puzzle_name_stream(s1, "s1");
    puzzle_name_stream(s2, "s2");
    PUZZLE_CHECK(cudaDeviceSynchronize());

    switch (m) {
    case ONE_STREAM:
        // [show]
        // host_a, host_b: 8 MiB each, pinned. s1, s2: cudaStreamNonBlocking streams.
        // A: both uploads on one stream
        for (int i = 0; i < 4; i++) {
            cudaMemcpyAsync(dev_a, host_a, 8 << 20, cudaMemcpyHostToDevice, s1);
            cudaMemcpyAsync(dev_b, host_b, 8 << 20, cudaMemcpyHostToDevice, s1);
        }
        // [/show]
        break;
    case TWO_STREAMS:
        // [show]
        // B: the uploads on two streams
        for (int i = 0; i < 4; i++) {
            cudaMemcpyAsync(dev_a, host_a, 8 << 20, cudaMemcpyHostToDevice, s1);
            cudaMemcpyAsync(dev_b, host_b, 8 << 20, cudaMemcpyHostToDevice, s2);
        }
        // [/show]
        break;
    case BOTH_DIRECTIONS:
        // [show]
        // C: uploads on one stream, downloads on the other
        for (int i = 0; i < 4; i++) {
            cudaMemcpyAsync(dev_a, host_a, 8 << 20, cudaMemcpyHostToDevice, s1);
            cudaMemcpyAsync(host_b, dev_b, 8 << 20, cudaMemcpyDeviceToHost, s2);
        }
        // [/show]
        break;
    }
    // [show]
    cudaDeviceSynchronize();
    // [/show]

    PUZZLE_CHECK(cudaGetLastError());
    PUZZLE_CHECK(cudaStreamDestroy(s1));
    PUZZLE_CHECK(cudaStreamDestroy(s2));
    PUZZLE_CHECK(cudaHostUnregister(host_a));
    PUZZLE_CHECK(cudaHostUnregister(host_b));
    free(host_a);
    free(host_b);
    PUZZLE_CHECK(cudaFree(dev_a));
    PUZZLE_CHECK(cudaFree(dev_b));
    return cudaSuccess;
}

static cudaError_t one_stream(void) { return run(ONE_STREAM); }
static cudaError_t two_streams(void) { return run(TWO_STREAMS); }
static cudaError_t both_directions(void) { return run(BOTH_DIRECTIONS); }

/* From the first copy's start to the last copy's end. */
static double copies_ms(const puzzle_run *r) {
    double start = 1e300, end = 0;
    for (int i = 0; i < r->n_streams; i++) {
        const puzzle_stream *s = &r->streams[i];
        if (!strstr(s->label, "s1") && !strstr(s->label, "s2")) continue;
        if (s->start_ms < start) start = s->start_ms;
        if (s->end_ms > end) end = s->end_ms;
    }
    return end > start ? end - start : r->span_ms;
}

/* runs: A (one stream), B (two streams, one direction), C (two streams, both directions). */
static int judge(const puzzle_run *r, char *why, size_t why_len) {
    double a = copies_ms(&r[0]), b = copies_ms(&r[1]), c = copies_ms(&r[2]);
    snprintf(why, why_len,
             "eight copies: A (one stream) %.2f ms; B (uploads on two streams) %.2f ms (%.2fx A), at most %d upload(s) at "
             "once; C (up and down) %.2f ms (%.2fx A)",
             a, b, b / a, r[1].max_h2d, c, c / a);
    bool b_serial = b > 0.85 * a && r[1].max_h2d < 2, b_overlap = b < 0.75 * a && r[1].max_h2d >= 2;
    bool c_serial = c > 0.85 * a, c_overlap = c < 0.75 * a;
    if (b_overlap && c_overlap) return 0;
    if (b_serial && c_overlap) return 1;
    if (b_serial && c_serial) return 2;
    if (b_overlap && c_serial) return 3;
    return -1;
}

const puzzle puzzle_003_same_direction_copies = {
    .id = "003_same_direction_copies",
    .title = "Two copies, two streams",
    .source = "puzzles/003_same_direction_copies.c",
    .setup = "Four rounds of two 8 MiB copies between pinned host memory and the device, each copy about "
             "0.16 ms alone. A puts both host-to-device copies of a round on one stream; B puts them on two "
             "streams; C puts a host-to-device copy on one stream and a device-to-host copy on the other. The GPU is an H200, which reports "
             "asyncEngineCount 3 (three copy engines).",
    .framework = "with torch.cuda.stream(s1): a = host_a.to('cuda', non_blocking=True)   # host_a pinned\n"
                 "with torch.cuda.stream(s2): b = host_b.to('cuda', non_blocking=True)   # B\n"
                 "with torch.cuda.stream(s2): host_b.copy_(dev_b, non_blocking=True)     # C instead",
    .question = "How long do B and C take compared with A?",
    .choices =
        {
            "Both about half of A: each stream gets a copy engine of its own, and the H200 has three.",
            "B about as long as A, C about half: two copies in the same direction run one after the other even "
            "on two streams; an upload and a download run at once.",
            "All three about the same: PCIe carries one copy at a time, whatever the direction.",
            "B about half of A, C about as long as A: one engine serves both directions.",
            NULL,
        },
    .answer = 1,
    .judge = judge,
    .explanation =
        "Copies run on copy engines, not on the SMs, and cudaDeviceProp.asyncEngineCount says how many the "
        "device has; CUDA documents the count, not which copies the driver gives to which engine. On an H200, "
        "which reports three, two uploads on two streams never ran at the same time: the second started when "
        "the first finished (two 256 MiB uploads, 4.88 ms then 4.86 ms), so B's lanes show the copies end to "
        "end and B takes as long as A. An upload and a download did run together, each a little slower than "
        "alone because the link carries both (about 50.7 GB/s each way instead of 55.5), so C takes a bit more "
        "than half of A. A second stream therefore speeds up copies only when they go in opposite directions: "
        "to move more data one way, make copies bigger (fewer fixed costs), not more streams; and plan a "
        "pipeline as one copy at a time per direction, overlapped with kernels.",
    .interview = "Q7: What is asyncEngineCount?",
    .n_variants = 3,
    .variants =
        {
            {"one_stream", "A: all uploads on one stream", one_stream},
            {"two_streams", "B: uploads on two streams", two_streams},
            {"both_directions", "C: uploads on one stream, downloads on the other", both_directions},
        },
};
