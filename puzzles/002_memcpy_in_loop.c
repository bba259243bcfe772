/* puzzles/002_memcpy_in_loop.c: a 1.5 ms kernel runs on a created stream s1 while the host
 * copies eight 4 MiB results of an earlier step to pinned host memory. With cudaMemcpy the
 * copies go to the legacy default stream: when s1 is a blocking stream (cudaStreamCreate)
 * the first copy waits for s1's kernel, so nothing overlaps; when s1 is non-blocking the
 * copies run under the kernel, the host held in each call. cudaMemcpyAsync on a stream of
 * its own overlaps whatever s1 is. All host buffers are pinned, so that only the streams
 * differ. On a lent H200 (puzzles_gpu, CUPTI timing) the copies ran 0% / 100% / 100% under
 * the kernel, 2.24 / 1.50 / 1.50 ms from the kernel's start to the last copy's end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels.h"
#include "puzzles/puzzle.h"

enum { CHUNKS = 8, BLOCKS = 132 };
#define CHUNK (4u << 20)

typedef enum { SYNC_BLOCKING, SYNC_NON_BLOCKING, ASYNC_OWN_STREAM } mode;

static cudaError_t run(mode m) {
    uint32_t *marks;
    char *results, *host;
    cudaStream_t s1, copies = NULL;
    PUZZLE_CHECK(cudaMalloc((void **)&marks, BLOCKS * sizeof(uint32_t)));
    PUZZLE_CHECK(cudaMalloc((void **)&results, (size_t)CHUNKS * CHUNK));
    /* Pinned by registering (cheaper than cudaMallocHost, so set-up stays short). */
    host = malloc((size_t)CHUNKS * CHUNK);
    if (!host) return cudaErrorMemoryAllocation;
    memset(host, 0, (size_t)CHUNKS * CHUNK);
    PUZZLE_CHECK(cudaHostRegister(host, (size_t)CHUNKS * CHUNK, cudaHostRegisterDefault));
    PUZZLE_CHECK(cudaMemset(results, 7, (size_t)CHUNKS * CHUNK)); /* the earlier step's results */
    if (m == SYNC_NON_BLOCKING) {
        PUZZLE_CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    } else {
        PUZZLE_CHECK(cudaStreamCreate(&s1));
    }
    puzzle_name_stream(s1, "s1");
    puzzle_name_stream(0, "stream 0");
    if (m == ASYNC_OWN_STREAM) {
        PUZZLE_CHECK(cudaStreamCreate(&copies));
        puzzle_name_stream(copies, "copies");
    }
    PUZZLE_CHECK(cudaDeviceSynchronize());

    if (m != ASYNC_OWN_STREAM) {
        // [show]
        // A: s1 from cudaStreamCreate(&s1)
        // B: s1 from cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking)
        // host: 32 MiB of pinned memory; results: 32 MiB on the device
        kernels_spin(marks, 132, 128, 1500000, 1, s1); // this step: 1.5 ms
        for (int i = 0; i < 8; i++)                    // the last step's results
            cudaMemcpy(host + (size_t)i * CHUNK, results + (size_t)i * CHUNK, CHUNK,
                       cudaMemcpyDeviceToHost);
        cudaDeviceSynchronize();
        // [/show]
    } else {
        // [show]
        // C: s1 and copies from cudaStreamCreate; the same pinned host buffer
        kernels_spin(marks, 132, 128, 1500000, 1, s1);
        for (int i = 0; i < 8; i++)
            cudaMemcpyAsync(host + (size_t)i * CHUNK, results + (size_t)i * CHUNK, CHUNK,
                            cudaMemcpyDeviceToHost, copies);
        cudaDeviceSynchronize();
        // [/show]
    }

    PUZZLE_CHECK(cudaGetLastError());
    for (size_t i = 0; i < (size_t)CHUNKS * CHUNK; i += 4096)
        if (host[i] != 7) return cudaErrorUnknown; /* every copy landed */
    PUZZLE_CHECK(cudaStreamDestroy(s1));
    if (copies) PUZZLE_CHECK(cudaStreamDestroy(copies));
    PUZZLE_CHECK(cudaHostUnregister(host));
    free(host);
    PUZZLE_CHECK(cudaFree(results));
    PUZZLE_CHECK(cudaFree(marks));
    return cudaSuccess;
}

static cudaError_t sync_blocking(void) { return run(SYNC_BLOCKING); }
static cudaError_t sync_non_blocking(void) { return run(SYNC_NON_BLOCKING); }
static cudaError_t async_own_stream(void) { return run(ASYNC_OWN_STREAM); }

/* The share of the copies' time that ran while the kernel ran. */
static double hidden(const puzzle_run *r) { return r->d2h_busy_ms > 0 ? r->overlap_ms / r->d2h_busy_ms : 0; }

/* From the kernel's start to the end of the last op of any stream. */
static double step_ms(const puzzle_run *r) {
    const puzzle_stream *s1 = puzzle_stream_named(r, "s1");
    double end = 0;
    for (int i = 0; i < r->n_streams; i++)
        if (r->streams[i].end_ms > end) end = r->streams[i].end_ms;
    return s1 ? end - s1->start_ms : r->span_ms;
}

/* runs: A (cudaMemcpy, blocking s1), B (cudaMemcpy, non-blocking s1), C (cudaMemcpyAsync). */
static int judge(const puzzle_run *r, char *why, size_t why_len) {
    double h[3], ms[3];
    bool over[3], serial[3];
    for (int i = 0; i < 3; i++) {
        h[i] = hidden(&r[i]);
        ms[i] = step_ms(&r[i]);
        over[i] = h[i] > 0.8;
        serial[i] = h[i] < 0.2;
    }
    snprintf(why, why_len,
             "share of the copies' %.2f ms that ran under the kernel: A %.0f%%, B %.0f%%, C %.0f%%; from the "
             "kernel's start to the last copy's end: A %.2f ms, B %.2f ms, C %.2f ms",
             r[0].d2h_busy_ms, 100 * h[0], 100 * h[1], 100 * h[2], ms[0], ms[1], ms[2]);
    if (over[0] && over[1] && over[2]) return 0;
    if (serial[0] && over[1] && over[2]) return 1;
    if (serial[0] && serial[1] && over[2]) return 2;
    if (serial[0] && serial[1] && serial[2]) return 3;
    return -1;
}

const puzzle puzzle_002_memcpy_in_loop = {
    .id = "002_memcpy_in_loop",
    .title = "cudaMemcpy beside a stream",
    .source = "puzzles/002_memcpy_in_loop.c",
    .setup = "A 1.5 ms kernel (this step) runs on a created stream s1. Meanwhile the host copies the previous "
             "step's results, eight 4 MiB buffers, into pinned host memory. A and B copy with cudaMemcpy, A "
             "with s1 from cudaStreamCreate, B with s1 from cudaStreamNonBlocking. C copies with "
             "cudaMemcpyAsync on a second stream, both streams from cudaStreamCreate. The copies take about "
             "0.65 ms together.",
    .framework = "with torch.cuda.stream(s1): y = step(x)      # s1 = torch.cuda.Stream()\n"
                 "for t in last_results: t.cpu()                 # A/B: a synchronous copy on the default stream\n"
                 "with torch.cuda.stream(copies):                # C\n"
                 "    for t, h in zip(last_results, pinned): h.copy_(t, non_blocking=True)",
    .question = "In which variants do the copies run while the kernel runs?",
    .choices =
        {
            "All three: copies use the copy engines and the kernel the SMs, so they always overlap.",
            "B and C: cudaMemcpy goes to the legacy default stream, which waits for the kernel on the blocking "
            "s1 in A but not on the non-blocking s1 in B; C's copies are on a stream of their own.",
            "Only C: cudaMemcpy is synchronous, so it cannot overlap a kernel whatever the streams are.",
            "None: a device-to-host copy waits for the kernels running on the device.",
            NULL,
        },
    .answer = 1,
    .judge = judge,
    .explanation =
        "cudaMemcpy takes no stream: it is issued to the legacy default stream, and for a copy to pinned host "
        "memory the host waits until it is done. The legacy stream first waits for all work already queued in "
        "blocking streams, so in A the copies wait behind s1's 1.5 ms kernel and the timeline shows the copies "
        "after the kernel (kernel plus copies, about 2.2 ms). In B, s1 is non-blocking, the legacy stream does "
        "not wait for it, and the copies run under the kernel: 'synchronous' is about the host, not about "
        "other streams, though the host still sits in every call and can queue nothing meanwhile. C enqueues "
        "every copy on a stream of its own with cudaMemcpyAsync: a created stream, even a blocking one, never "
        "waits for another created stream, and the host goes on at once. The same non-blocking s1 that saves B "
        "also removes an order: had the copies read what s1's kernel writes, B would read them too early. "
        "In a loop, use cudaMemcpyAsync on a copy stream, with pinned memory and an event where the copy "
        "needs the kernel's output.",
    .interview = "Q13: You added streams but the timeline still shows everything in sequence. What do you check?",
    .n_variants = 3,
    .variants =
        {
            {"memcpy_blocking", "A: cudaMemcpy, s1 from cudaStreamCreate", sync_blocking},
            {"memcpy_non_blocking", "B: cudaMemcpy, s1 non-blocking", sync_non_blocking},
            {"async", "C: cudaMemcpyAsync on a stream of its own", async_own_stream},
        },
};
