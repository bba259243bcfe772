/* puzzles/006_priority_waves.c: an urgent kernel on a stream of the greatest priority,
 * issued while a low-priority stream keeps the GPU full. Stream priority decides which
 * pending blocks the GPU dispatches when SM slots free up; it never stops a running block.
 * So it helps behind one kernel of many short waves, whose blocks retire every few
 * microseconds, and does nothing behind kernels of a single long wave, where nothing of the
 * background is pending and the urgent kernel must wait for the running wave to finish
 * either way. Measured on an H200 (../shared/calibration/h200.md, "Priorities"): behind a
 * ~10 ms kernel of 20 us blocks the first urgent kernel took 8.12 ms at equal priority and
 * 0.025 ms at the greatest; behind single-wave kernels 1.04 ms both ways. */
#include <stdio.h>

#include "kernels/kernels.h"
#include "puzzles/puzzle.h"

enum {
    SMS = 132,            /* the H200's SMs: a wave of 128-thread blocks is 16 per SM */
    BG_THREADS = 128,
    WAVE = SMS * 16,      /* 2112 blocks of 128 threads fill every SM once */
    MANY_WAVES = 200,     /* one kernel of 200 waves of 20 us blocks: about 4 ms */
    SINGLE_KERNELS = 8,   /* or 8 kernels of one wave of 500 us blocks: about 4 ms */
    URGENT_BLOCKS = SMS,
    URGENT_THREADS = 128,
};
#define MANY_BLOCK_NS 20000u    /* 20 us a block */
#define SINGLE_BLOCK_NS 500000u /* 500 us a block */
#define URGENT_NS 20000u        /* the urgent kernel: one wave of 20 us blocks */
#define ARRIVAL_NS 1250000u     /* the urgent request arrives 1.25 ms after the background */

static cudaError_t run(bool many_waves, bool urgent_high) {
    uint32_t *bg_marks, *urgent_marks;
    cudaStream_t background, urgent;
    cudaEvent_t start, stop;
    PUZZLE_CHECK(cudaMalloc((void **)&bg_marks, (size_t)WAVE * MANY_WAVES * sizeof(uint32_t)));
    PUZZLE_CHECK(cudaMalloc((void **)&urgent_marks, URGENT_BLOCKS * sizeof(uint32_t)));
    PUZZLE_CHECK(cudaEventCreate(&start));
    PUZZLE_CHECK(cudaEventCreate(&stop));

    // [show]
    int least, greatest; // on the H200: least 0, greatest -5 (lower is more urgent)
    cudaDeviceGetStreamPriorityRange(&least, &greatest);
    cudaStreamCreateWithPriority(&background, cudaStreamNonBlocking, least);
    // Variants A and C: equal priority; B and D: the greatest priority.
    cudaStreamCreateWithPriority(&urgent, cudaStreamNonBlocking, urgent_high ? greatest : least);
    // [/show]
    puzzle_name_stream(background, "background");
    puzzle_name_stream(urgent, "urgent");
    PUZZLE_CHECK(cudaDeviceSynchronize());

    // [show]
    // The background, about 4 ms of work that fills every SM (16 blocks of 128 threads each):
    if (many_waves) // C, D: one kernel of 200 waves of 20 us blocks
        kernels_spin(bg_marks, WAVE * MANY_WAVES, BG_THREADS, MANY_BLOCK_NS, 0, background);
    else            // A, B: 8 kernels of a single wave of 500 us blocks
        for (int k = 0; k < SINGLE_KERNELS; k++)
            kernels_spin(bg_marks, WAVE, BG_THREADS, SINGLE_BLOCK_NS, k, background);
    // ... the host works for 1.25 ms; then an urgent request arrives:
    // [/show]
    puzzle_host_work(ARRIVAL_NS);
    // [show]
    cudaEventRecord(start, urgent);
    kernels_spin(urgent_marks, URGENT_BLOCKS, URGENT_THREADS, URGENT_NS, 1, urgent); // 20 us alone
    cudaEventRecord(stop, urgent);
    cudaEventSynchronize(stop);
    float latency_ms; // the urgent kernel's latency, on the GPU's clock
    cudaEventElapsedTime(&latency_ms, start, stop);
    cudaDeviceSynchronize(); // and the background
    // [/show]

    PUZZLE_CHECK(cudaGetLastError());
    puzzle_report("latency_ms", latency_ms);
    PUZZLE_CHECK(cudaEventDestroy(start));
    PUZZLE_CHECK(cudaEventDestroy(stop));
    PUZZLE_CHECK(cudaStreamDestroy(background));
    PUZZLE_CHECK(cudaStreamDestroy(urgent));
    PUZZLE_CHECK(cudaFree(bg_marks));
    PUZZLE_CHECK(cudaFree(urgent_marks));
    return cudaSuccess;
}

static cudaError_t single_equal(void) { return run(false, false); }
static cudaError_t single_high(void) { return run(false, true); }
static cudaError_t many_equal(void) { return run(true, false); }
static cudaError_t many_high(void) { return run(true, true); }

/* Priority "helps" where the urgent kernel's latency on the high-priority stream is under a
 * third of its latency at equal priority (the H200: 8.12 / 0.025 behind many waves, 1.04 /
 * 1.04 behind single waves). */
#define HELPS 3.0

/* runs: single-wave equal, single-wave high, many-wave equal, many-wave high. */
static int judge(const puzzle_run *r, char *why, size_t why_len) {
    double se = puzzle_value(&r[0], "latency_ms", -1), sh = puzzle_value(&r[1], "latency_ms", -1);
    double me = puzzle_value(&r[2], "latency_ms", -1), mh = puzzle_value(&r[3], "latency_ms", -1);
    if (se <= 0 || sh <= 0 || me <= 0 || mh <= 0) {
        snprintf(why, why_len, "a variant reported no latency");
        return -1;
    }
    snprintf(why, why_len,
             "the urgent kernel's latency behind single-wave kernels: %.3f ms at equal priority, %.3f ms at the "
             "greatest; behind the many-wave kernel: %.3f ms at equal priority, %.3f ms at the greatest",
             se, sh, me, mh);
    bool single = se > HELPS * sh, many = me > HELPS * mh;
    if (single && many) return 0;
    if (many) return 1;
    if (single) return 2;
    return 3;
}

const puzzle puzzle_006_priority_waves = {
    .id = "006_priority_waves",
    .title = "Stream priority behind one wave and many",
    .source = "puzzles/006_priority_waves.c",
    .setup = "A low-priority stream keeps every SM busy with about 4 ms of background work: either 8 kernels of a "
             "single wave of 500 us blocks (A, B) or one kernel of 200 waves of 20 us blocks (C, D). 1.25 ms later "
             "an urgent 20 us kernel is issued on a second stream, of equal priority (A, C) or of the greatest "
             "priority the device offers (B, D). Events on the urgent stream time it from issue to completion.",
    .framework = "bg = torch.cuda.Stream(priority=0)\n"
                 "urgent = torch.cuda.Stream(priority=-1)        # A, C: priority=0\n"
                 "with torch.cuda.stream(bg):     background()   # kernels of one wave, or one of many\n"
                 "with torch.cuda.stream(urgent): y = request(x) # timed with torch.cuda.Event pairs",
    .question = "In which cases does the greatest priority cut the urgent kernel's latency compared with equal "
                "priority?",
    .choices =
        {
            "In both: a high-priority stream preempts the background, so the urgent kernel starts at once.",
            "Only behind the many-wave kernel: priority picks which pending blocks start when SM slots free up, "
            "and blocks of 20 us free slots all the time; behind a running single wave it has nothing to "
            "overtake.",
            "Only behind the single-wave kernels: with separate kernels the scheduler can slip the urgent one in "
            "between them, which it cannot inside one big kernel.",
            "In neither: a kernel issued while the GPU is full waits for the work issued before it, whatever "
            "its stream's priority.",
            NULL,
        },
    .answer = 1,
    .judge = judge,
    .explanation =
        "NVIDIA documents a stream's priority as a hint: the GPU prefers pending work of higher priority "
        "when it can, but work already running is not preempted, and only kernels are affected, not copies. "
        "The GPU starts a kernel block by block as SM slots free up. Behind the 200-wave kernel thousands of "
        "background blocks are pending: at equal priority the urgent kernel's blocks waited until every one of "
        "them had been dispatched (timeline C), while at the greatest priority they took the next slots that "
        "20 us blocks freed, and finished in tens of microseconds (D). Behind single-wave kernels nothing of "
        "the background is pending while a wave runs, so the urgent kernel waits for 500 us blocks to retire "
        "either way, and A and B look alike. So priority buys latency only when the background is cut into "
        "many short blocks: give background kernels many waves of short blocks rather than one wave of long "
        "ones, and put urgent work on a stream made by cudaStreamCreateWithPriority with the greatest priority.",
    .interview = "Q29: An urgent request arrives while a 10 ms background kernel runs. What latency do you expect?",
    .n_variants = 4,
    .variants =
        {
            {"single-equal", "A: single-wave kernels, equal priority", single_equal},
            {"single-high", "B: single-wave kernels, urgent at the greatest priority", single_high},
            {"many-equal", "C: one many-wave kernel, equal priority", many_equal},
            {"many-high", "D: one many-wave kernel, urgent at the greatest priority", many_high},
        },
};
