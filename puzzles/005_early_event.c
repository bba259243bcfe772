/* puzzles/005_early_event.c: a producer stream writes a buffer with a 2 ms kernel and
 * records an event; a consumer stream waits on the event and sums the buffer. Recorded
 * after the producer's kernel, the event orders the consumer after it. Recorded before the
 * kernel, it marks a point of the producer's stream with nothing before it: it completes
 * at once, the consumer starts at once and sums the buffer before it is written. On a lent
 * H200 (puzzles_gpu): in B the sum ran 2 ms before the producer's kernel ended and read 0. */
#include <stdio.h>

#include "kernels/kernels.h"
#include "puzzles/puzzle.h"

enum { BLOCKS = 8 };

/* What the producer's marks sum to once written: kernels_spin_mark(100, b) = 100 + b. */
static uint64_t expected_sum(void) {
    uint64_t s = 0;
    for (uint32_t b = 0; b < BLOCKS; b++) s += 100u + b;
    return s;
}

static cudaError_t run(bool record_first) {
    uint32_t *out;
    uint64_t *sum, *host_sum;
    cudaStream_t producer, consumer;
    cudaEvent_t ready;
    PUZZLE_CHECK(cudaMalloc((void **)&out, BLOCKS * sizeof(uint32_t)));
    PUZZLE_CHECK(cudaMalloc((void **)&sum, sizeof(uint64_t)));
    PUZZLE_CHECK(cudaMallocHost((void **)&host_sum, sizeof(uint64_t))); /* pinned: a quick read-back */
    PUZZLE_CHECK(cudaMemset(out, 0, BLOCKS * sizeof(uint32_t)));
    PUZZLE_CHECK(cudaMemset(sum, 0, sizeof(uint64_t)));
    PUZZLE_CHECK(cudaStreamCreateWithFlags(&producer, cudaStreamNonBlocking));
    PUZZLE_CHECK(cudaStreamCreateWithFlags(&consumer, cudaStreamNonBlocking));
    PUZZLE_CHECK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
    puzzle_name_stream(producer, "producer");
    puzzle_name_stream(consumer, "consumer");
    puzzle_name_event(ready, "ready");
    PUZZLE_CHECK(cudaDeviceSynchronize());

    if (!record_first) {
        // [show]
        // producer, consumer: cudaStreamNonBlocking streams; ready: an event.
        // out: 8 words, zero; the producer's kernel (2 ms, 8 blocks) writes them at its end.
        // A: record after the producer's kernel
        kernels_spin(out, 8, 128, 2000000, 100, producer);
        cudaEventRecord(ready, producer);
        cudaStreamWaitEvent(consumer, ready, 0);
        kernels_checksum(sum, out, 8, consumer); // *sum += out[0] + ... + out[7]
        // [/show]
    } else {
        // [show]
        // B: record before it
        cudaEventRecord(ready, producer);
        kernels_spin(out, 8, 128, 2000000, 100, producer);
        cudaStreamWaitEvent(consumer, ready, 0);
        kernels_checksum(sum, out, 8, consumer);
        // [/show]
    }
    // [show]
    cudaDeviceSynchronize();
    // [/show]

    PUZZLE_CHECK(cudaGetLastError());
    PUZZLE_CHECK(cudaMemcpy(host_sum, sum, sizeof(uint64_t), cudaMemcpyDeviceToHost));
    puzzle_report("sum", (double)*host_sum);
    PUZZLE_CHECK(cudaFreeHost(host_sum));
    PUZZLE_CHECK(cudaEventDestroy(ready));
    PUZZLE_CHECK(cudaStreamDestroy(producer));
    PUZZLE_CHECK(cudaStreamDestroy(consumer));
    PUZZLE_CHECK(cudaFree(out));
    PUZZLE_CHECK(cudaFree(sum));
    return cudaSuccess;
}

static cudaError_t record_after(void) { return run(false); }
static cudaError_t record_before(void) { return run(true); }

/* When the consumer's kernel ran (the end of its stream: the sum takes a few microseconds),
 * against the end of the producer's kernel. Returns false when a stream is missing. */
static bool times(const puzzle_run *r, double *consumer_end, double *producer_end) {
    const puzzle_stream *p = puzzle_stream_named(r, "producer"), *c = puzzle_stream_named(r, "consumer");
    if (!p || !c) return false;
    *producer_end = p->end_ms;
    *consumer_end = c->end_ms;
    return true;
}

/* runs: A (record after the kernel), B (record before it). */
static int judge(const puzzle_run *r, char *why, size_t why_len) {
    double ca, pa, cb, pb;
    if (!times(&r[0], &ca, &pa) || !times(&r[1], &cb, &pb)) {
        snprintf(why, why_len, "a run has no producer or consumer stream on its timeline");
        return -1;
    }
    double want = (double)expected_sum();
    double sa = puzzle_value(&r[0], "sum", -1), sb = puzzle_value(&r[1], "sum", -1);
    snprintf(why, why_len,
             "A: the producer's kernel ended at %.3f ms, the consumer's sum at %.3f ms and it read %.0f; "
             "B: the producer's kernel ended at %.3f ms, the consumer's sum at %.3f ms and it read %.0f "
             "(written, the words sum to %.0f)",
             pa, ca, sa, pb, cb, sb, want);
    bool a_waited = ca >= pa - 0.01, a_early = ca < 0.5 * pa;
    bool b_waited = cb >= pb - 0.01, b_early = cb < 0.5 * pb;
    if (a_waited && b_waited) return 0;
    if (a_waited && b_early) return 1;
    if (a_early && b_early) return 2;
    return -1;
}

const puzzle puzzle_005_early_event = {
    .id = "005_early_event",
    .title = "An event recorded too early",
    .source = "puzzles/005_early_event.c",
    .setup = "A producer stream runs a 2 ms kernel that writes eight words; a consumer stream sums them. An event "
             "orders the two: the producer records it, the consumer waits on it with cudaStreamWaitEvent. In A "
             "the producer records the event after launching its kernel, in B before.",
    .framework = "ready = torch.cuda.Event()\n"
                 "with torch.cuda.stream(producer): out = produce(x); ready.record()   # A\n"
                 "# B: ready.record() on the producer stream before produce(x)\n"
                 "with torch.cuda.stream(consumer): consumer.wait_event(ready); total = out.sum()",
    .question = "In B, when does the consumer's kernel run?",
    .choices =
        {
            "After the producer's kernel ends, as in A: the consumer waits on an event of the producer's "
            "stream, and that stream is busy with the kernel.",
            "At once, while the producer's kernel still runs: the event completes when the work queued before "
            "it has, and nothing was; the sum reads the words before they are written.",
            "At once, in A as well as in B: cudaStreamWaitEvent makes the host wait for the event, not the "
            "consumer stream.",
            NULL,
        },
    .answer = 1,
    .judge = judge,
    .explanation =
        "cudaEventRecord captures the work queued in the stream so far, and the event completes when that "
        "work has completed; cudaStreamWaitEvent makes the consumer stream's later work wait for that "
        "completion, on the device, without holding the host. In A the record follows the kernel, so the "
        "consumer's sum starts only when the kernel is done and reads the written words. In B the record "
        "comes first: it marks a point of the producer stream with nothing before it, the event is complete "
        "at once, and the timeline shows the sum running at the start of the producer's kernel, reading the "
        "zeros it found. Nothing fails or warns: the program is simply unordered, and whether it reads good "
        "data depends on timing. Record the event after the last operation whose result the other stream "
        "needs. streamlab's race checker reports such a read as a race and names the event recorded too "
        "early, with the line of the record.",
    .interview = "Q16: How do you make stream B use data produced in stream A without stalling the host?",
    .n_variants = 2,
    .variants =
        {
            {"record_after", "A: event recorded after the producer's kernel", record_after},
            {"record_before", "B: event recorded before the producer's kernel", record_before},
        },
};
