/* puzzles/009_big_kernels.c: four kernels on one stream or on four, each either small (8
 * blocks) or big (4 waves of blocks over every SM), all about 2 ms long. Streams let
 * kernels run at the same time only when the SMs have room for more than one kernel's
 * blocks: the small kernels overlap completely, the big ones only where one kernel's last
 * wave drains while the next one's first wave starts. Measured on an H200
 * (../shared/calibration/h200.md, "Launches and graphs"): four small 2 ms kernels took
 * 8.03 ms on one stream and 2.04 ms on four. */
#include <stdio.h>

#include "kernels/kernels.h"
#include "puzzles/puzzle.h"

enum {
    KERNELS = 4,
    THREADS = 128,
    SMALL_BLOCKS = 8,         /* 8 blocks: 8 of the H200's 132 SMs */
    BIG_BLOCKS = 132 * 16 * 4 /* 16 blocks of 128 threads fill an SM: 4 waves over 132 SMs */
};
#define SMALL_BLOCK_NS 2000000u /* one wave of 2 ms */
#define BIG_BLOCK_NS 500000u    /* four waves of 500 us: 2 ms */

static cudaError_t run(bool big, bool four_streams) {
    uint32_t *marks[KERNELS];
    cudaStream_t s[KERNELS];
    for (int i = 0; i < KERNELS; i++) {
        PUZZLE_CHECK(cudaMalloc((void **)&marks[i], BIG_BLOCKS * sizeof(uint32_t)));
        PUZZLE_CHECK(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking));
        char name[16];
        snprintf(name, sizeof(name), "s%d", i);
        puzzle_name_stream(s[i], name);
    }
    PUZZLE_CHECK(cudaDeviceSynchronize());

    // [show]
    // s[0..3]: four cudaStreamNonBlocking streams. Every kernel takes about 2 ms alone.
    uint32_t blocks = big ? BIG_BLOCKS : SMALL_BLOCKS;          // C, D: 8448 blocks; A, B: 8
    uint64_t block_ns = big ? BIG_BLOCK_NS : SMALL_BLOCK_NS;    // 4 waves of 0.5 ms; 1 wave of 2 ms
    for (int i = 0; i < 4; i++) {
        cudaStream_t stream = four_streams ? s[i] : s[0];       // B, D: four streams; A, C: one
        kernels_spin(marks[i], blocks, 128, block_ns, i, stream); // 128 threads: 16 blocks fill an SM
    }
    cudaDeviceSynchronize();
    // [/show]

    PUZZLE_CHECK(cudaGetLastError());
    for (int i = 0; i < KERNELS; i++) {
        PUZZLE_CHECK(cudaStreamDestroy(s[i]));
        PUZZLE_CHECK(cudaFree(marks[i]));
    }
    return cudaSuccess;
}

static cudaError_t small_one(void) { return run(false, false); }
static cudaError_t small_four(void) { return run(false, true); }
static cudaError_t big_one(void) { return run(true, false); }
static cudaError_t big_four(void) { return run(true, true); }

/* runs: small on one stream, small on four, big on one, big on four. */
static int judge(const puzzle_run *r, char *why, size_t why_len) {
    double small1 = r[0].span_ms, small4 = r[1].span_ms, big1 = r[2].span_ms, big4 = r[3].span_ms;
    if (small4 <= 0 || big4 <= 0) {
        snprintf(why, why_len, "a variant ran nothing on the device");
        return -1;
    }
    double small_x = small1 / small4, big_x = big1 / big4;
    snprintf(why, why_len,
             "small kernels: %.2f ms on one stream, %.2f ms on four (%.2fx, at most %d kernels at once); big "
             "kernels: %.2f ms on one stream, %.2f ms on four (%.2fx, at most %d kernels at once)",
             small1, small4, small_x, r[1].max_kernels, big1, big4, big_x, r[3].max_kernels);
    if (small_x < 1.5) return 3;  /* not even the small kernels overlapped */
    if (big_x >= 1.25) return 0;  /* the big ones gained from streams too */
    if (big_x <= 0.85) return 2;  /* four streams made them slower */
    return 1;
}

const puzzle puzzle_009_big_kernels = {
    .id = "009_big_kernels",
    .title = "Kernels too big to run side by side",
    .source = "puzzles/009_big_kernels.c",
    .setup = "Four kernels of about 2 ms each, issued on one stream (A, C) or one on each of four streams (B, D). "
             "The small kernels (A, B) have 8 blocks that each spin for 2 ms: they use 8 of the H200's 132 SMs. "
             "The big kernels (C, D) have 8448 blocks of 500 us: 16 blocks fill an SM, so each kernel is four "
             "full waves over every SM.",
    .framework = "streams = [torch.cuda.Stream() for _ in range(4)]\n"
                 "for i in range(4):\n"
                 "    with torch.cuda.stream(streams[i]):   # A, C: all on streams[0]\n"
                 "        y[i] = f(x[i])                    # a small op, or a large one (a big matmul)\n"
                 "torch.cuda.synchronize()",
    .question = "The small kernels run about 4x faster on four streams than on one. What do four streams do for "
                "the big kernels?",
    .choices =
        {
            "Much the same, several times faster: kernels on different streams run concurrently, each on its "
            "share of the SMs.",
            "Next to nothing: each big kernel already fills every SM, so the next one gets room only as the "
            "last wave of the one before drains.",
            "They make it slower: four kernels fighting over the SMs thrash and lose more than they gain.",
            "Trick question: the small kernels do not overlap either; kernels on different streams always "
            "run one after another.",
            NULL,
        },
    .answer = 1,
    .judge = judge,
    .explanation =
        "Streams only say that kernels may run at the same time; whether they do is decided block by block. A "
        "block runs on one SM and holds its threads, registers, shared memory and block slot until it "
        "finishes, and the GPU dispatches a kernel's blocks as slots free up. Eight 2 ms blocks take 8 of 132 "
        "SMs, so four such kernels fit side by side and finish together (B). A big kernel's 8448 blocks fill "
        "every slot for four waves; the next kernel's blocks, on whatever stream, find room only as the last "
        "wave drains, so D's timeline is C's with the joins overlapped a little, and the most kernels running "
        "at once is two. Streams buy kernel concurrency only for kernels too small to fill the GPU (small "
        "batches, the tails of big grids); big kernels already use it all, and what streams buy them is "
        "overlap with copies and with the host.",
    .interview = "Q12: When do kernels on different streams actually run concurrently?",
    .n_variants = 4,
    .variants =
        {
            {"small-one", "A: small kernels, one stream", small_one},
            {"small-four", "B: small kernels, four streams", small_four},
            {"big-one", "C: big kernels, one stream", big_one},
            {"big-four", "D: big kernels, four streams", big_four},
        },
};
