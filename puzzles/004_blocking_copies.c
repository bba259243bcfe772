/* puzzles/004_blocking_copies.c: three streams, one computing and two copying 4 MiB
 * buffers, with the host buffers pinned or pageable. The pageable copies do not just run
 * slower: cudaMemcpyAsync from pageable memory returns only when the host has staged the
 * data, so the host thread that should be launching kernels is stuck in copies and the
 * compute stream starves. Measured on an H200 with this shape: 6.05 ms compute alone,
 * 11.97 ms with pinned buffers, 326.7 ms with pageable ones. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels.h"
#include "puzzles/puzzle.h"

enum { STEPS = 1000, COPY_EVERY = 10, MATMUL_BLOCKS = 132 };
#define COPY_BYTES (4u << 20)
#define MATMUL_NS 1000u /* one "matrix multiply": a short single-wave kernel */

static cudaError_t run(bool copies, bool pinned) {
    uint32_t *marks, *dev_in, *dev_out;
    void *host_in, *host_out;
    cudaStream_t compute, d2h, h2d;
    PUZZLE_CHECK(cudaMalloc((void **)&marks, MATMUL_BLOCKS * sizeof(uint32_t)));
    PUZZLE_CHECK(cudaMalloc((void **)&dev_in, COPY_BYTES));
    PUZZLE_CHECK(cudaMalloc((void **)&dev_out, COPY_BYTES));
    if (pinned) {
        PUZZLE_CHECK(cudaMallocHost(&host_in, COPY_BYTES));
        PUZZLE_CHECK(cudaMallocHost(&host_out, COPY_BYTES));
    } else {
        host_in = malloc(COPY_BYTES);
        host_out = malloc(COPY_BYTES);
        if (!host_in || !host_out) return cudaErrorMemoryAllocation;
    }
    memset(host_in, 1, COPY_BYTES);
    memset(host_out, 0, COPY_BYTES);
    PUZZLE_CHECK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
    PUZZLE_CHECK(cudaStreamCreateWithFlags(&d2h, cudaStreamNonBlocking));
    PUZZLE_CHECK(cudaStreamCreateWithFlags(&h2d, cudaStreamNonBlocking));
    puzzle_name_stream(compute, "matmul");
    puzzle_name_stream(d2h, "to host");
    puzzle_name_stream(h2d, "to device");
    PUZZLE_CHECK(cudaDeviceSynchronize());

    // [show]
    // compute, d2h, h2d: three cudaStreamNonBlocking streams.
    // host_in, host_out: 4 MiB each, from cudaMallocHost (A) or malloc (B).
    for (int i = 0; i < STEPS; i++) {
        kernels_spin(marks, MATMUL_BLOCKS, 128, MATMUL_NS, i, compute); // a short "matmul"
        if (copies && i % COPY_EVERY == 0) {
            cudaMemcpyAsync(host_out, dev_out, COPY_BYTES, cudaMemcpyDeviceToHost, d2h);
            cudaMemcpyAsync(dev_in, host_in, COPY_BYTES, cudaMemcpyHostToDevice, h2d);
        }
    }
    cudaDeviceSynchronize();
    // [/show]

    PUZZLE_CHECK(cudaGetLastError());
    PUZZLE_CHECK(cudaStreamDestroy(compute));
    PUZZLE_CHECK(cudaStreamDestroy(d2h));
    PUZZLE_CHECK(cudaStreamDestroy(h2d));
    if (pinned) {
        PUZZLE_CHECK(cudaFreeHost(host_in));
        PUZZLE_CHECK(cudaFreeHost(host_out));
    } else {
        free(host_in);
        free(host_out);
    }
    PUZZLE_CHECK(cudaFree(marks));
    PUZZLE_CHECK(cudaFree(dev_in));
    PUZZLE_CHECK(cudaFree(dev_out));
    return cudaSuccess;
}

static cudaError_t compute_only(void) { return run(false, true); }
static cudaError_t pinned_copies(void) { return run(true, true); }
static cudaError_t pageable_copies(void) { return run(true, false); }

/* runs: compute alone, pinned, pageable. The line between b) and c) is whether the
 * multiplies themselves finish far later than alone: slow copies on their own streams would
 * not delay them; a host stuck in copy calls does. */
static int judge(const puzzle_run *r, char *why, size_t why_len) {
    double alone = r[0].span_ms, pinned = r[1].host_ms, pageable = r[2].host_ms;
    const puzzle_stream *mm = puzzle_stream_named(&r[2], "matmul");
    double busy = mm ? mm->busy_ms : 0, end = mm ? mm->end_ms : 0;
    snprintf(why, why_len,
             "with pinned copies %.2f ms, with pageable copies %.2f ms (%.1fx); the multiplies alone took "
             "%.2f ms, and beside pageable copies they finished at %.1f ms (%.1fx later), their stream busy "
             "only %.1f ms of it",
             pinned, pageable, pageable / pinned, alone, end, end / alone, busy);
    if (pageable < 0.9 * pinned) return 3;
    if (pageable <= 1.3 * pinned) return 0;
    if (mm && end > 3.0 * alone) return 2;
    return 1;
}

const puzzle puzzle_004_blocking_copies = {
    .id = "004_blocking_copies",
    .title = "Non-blocking copies from pageable memory",
    .source = "puzzles/004_blocking_copies.c",
    .setup = "Three streams: one runs 1000 short kernels standing in for matrix multiplies; the other two copy a 4 MiB buffer "
             "device-to-host and host-to-device every tenth step, 100 copies each way, all with "
             "cudaMemcpyAsync. Variant A's host buffers come from cudaMallocHost (pinned), variant B's from "
             "malloc (pageable). A third run, the multiplies alone, is the reference.",
    .framework = "with torch.cuda.stream(compute):  y = a @ b             # 1000 times\n"
                 "with torch.cuda.stream(d2h):      host_out.copy_(dev_out, non_blocking=True)\n"
                 "with torch.cuda.stream(h2d):      dev_in.copy_(host_in, non_blocking=True)\n"
                 "A: host tensors made with pin_memory=True;  B: plain torch.empty(...) on the CPU.",
    .question = "How long does variant B (pageable) take compared with variant A (pinned)?",
    .choices =
        {
            "About the same: every copy is asynchronous, so all three streams overlap either way.",
            "Longer, because pageable copies move fewer GB/s; the multiplies on their own stream still "
            "finish about when they would alone.",
            "Many times longer, and the multiplies too finish many times later than alone: each pageable "
            "copy holds the host until its data is staged, so the host launches them slowly and the "
            "compute stream starves.",
            "Shorter: pinning memory is what costs time.",
            NULL,
        },
    .answer = 2,
    .judge = judge,
    .explanation =
        "cudaMemcpyAsync is asynchronous only for page-locked host memory. From pageable memory the "
        "driver copies through a pinned staging buffer, and the call returns only once the host has "
        "staged the data (the documentation says such a copy 'might be synchronous'). The host thread "
        "that also launches the multiplies spends its time inside copy calls, so the compute stream runs "
        "dry between them: look at the matmul lane in B, full of gaps. With pinned buffers the copy "
        "engines take the data by DMA while the host goes on launching, and the three lanes overlap. In "
        "PyTorch, non_blocking=True gives this overlap only with pin_memory=True; on a pageable tensor it "
        "quietly behaves like a blocking copy.",
    .interview = "Q6: Why can a copy from malloc'd memory not overlap with anything?",
    .n_variants = 3,
    .variants =
        {
            {"alone", "Reference: the multiplies alone", compute_only},
            {"pinned", "A: copies from pinned memory", pinned_copies},
            {"pageable", "B: copies from pageable memory", pageable_copies},
        },
};
