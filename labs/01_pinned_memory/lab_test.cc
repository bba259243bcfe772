// labs/01_pinned_memory/lab_test.cc: lab 01 end to end on the simulated GPU, as a student
// and the grader run it. The untouched skeleton copies from and to pageable memory:
// correct, a few percent of the link bound, and the report names the pageable copies and
// their rate (exit 1). Pinned but on one stream, the link carries one direction at a time
// (exit 1); streams without pinning gain nothing (exit 1); pinning inside every run() costs
// more than it saves (exit 1, and the report says so); device buffers shared by every
// stream race (exit 2); the reference passes (exit 0), and one that forgets to unregister
// passes with the report saying what teardown() left. With both steps done, a host wait
// before every batch (a poll of cudaEventQuery or cudaStreamQuery, or cudaFree) keeps the
// directions apart (exit 1), and the advice names that wait; queries that only pick a free
// slot are no wait. Copying the inputs into pinned buffers with memcpy costs what a GPU's
// host spends on it (exit 1), and the advice names the copy.
#include "labs/lab_test_support.h"

#include <string>

namespace {

using namespace labtest;

cJSON *Host(cJSON *j) { return cJSON_GetObjectItemCaseSensitive(j, "host_memory"); }

TEST(Lab01, TheSkeletonCopiesFromPageableMemoryAndTheReportSaysSo) {
    Outcome o = RunLabOnce("labs/01_pinned_memory_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "lab"), "01_pinned_memory");
    EXPECT_EQ(Str(j, "status"), "below_target");
    EXPECT_TRUE(Bool(j, "correct"));
    EXPECT_EQ(Num(j, "races"), 0);
    cJSON *metric = cJSON_GetObjectItemCaseSensitive(j, "metric");
    EXPECT_EQ(Str(metric, "name"), "bandwidth");
    EXPECT_EQ(Str(metric, "unit"), "GB/s");
    EXPECT_LT(Num(j, "bound_fraction"), 0.15);
    // The bound is the link's: pinned rates each way, and both at once more than either
    // alone but less than the two added (the h200 profile: 55.7, 55.4, 101.3 in all).
    cJSON *link = cJSON_GetObjectItemCaseSensitive(j, "link");
    EXPECT_GT(Num(link, "both_gbps"), Num(link, "h2d_gbps"));
    EXPECT_LT(Num(link, "both_gbps"), Num(link, "h2d_gbps") + Num(link, "d2h_gbps"));
    EXPECT_EQ(Str(cJSON_GetObjectItemCaseSensitive(j, "bound"), "name"), "link bound");
    // Every copy was pageable, far below the pinned rate, and the host waited for them.
    cJSON *h = Host(j);
    ASSERT_NE(h, nullptr) << o.out;
    cJSON *up = cJSON_GetObjectItemCaseSensitive(h, "pageable_h2d");
    cJSON *down = cJSON_GetObjectItemCaseSensitive(h, "pageable_d2h");
    EXPECT_EQ(Num(up, "copies"), 8);
    EXPECT_EQ(Num(down, "copies"), 8);
    EXPECT_LT(Num(up, "gbps"), 0.25 * Num(up, "pinned_gbps"));
    EXPECT_GT(Num(h, "copy_wait_ms"), 0.9 * Num(cJSON_GetObjectItemCaseSensitive(j, "timings"), "yours_median_ms"));
    EXPECT_EQ(NextStep(j), "0/2 TODO 1 (pin the harness's buffers, once)");
    cJSON_Delete(j);
    EXPECT_NE(FindFlat(o.err, "8 H2D copies from pageable memory at "), std::string::npos) << o.err;
}

TEST(Lab01, TheReferencePassesAndPinningPaysForItselfAtOnce) {
    Outcome o = RunLabOnce("solutions/01_pinned_memory_sim", Args());
    EXPECT_EQ(o.exit_code, 0) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "pass");
    EXPECT_GE(Num(j, "bound_fraction"), 0.90);
    EXPECT_LE(Num(j, "bound_fraction"), 1.02);
    EXPECT_EQ(NextStep(j), "2/2 ");
    cJSON *h = Host(j);
    ASSERT_NE(h, nullptr) << o.out;
    cJSON *setup = cJSON_GetObjectItemCaseSensitive(h, "pinning_in_setup");
    EXPECT_EQ(Num(setup, "calls"), 16);
    EXPECT_EQ(Str(setup, "names"), "cudaHostRegister");
    // 16 buffers, 128 MiB, registered on the h200 profile's line: 107 us a call (measured
    // at 1 MiB on a lent H200) and 36.73 us a MiB (to docs/calibration/h200.md's 9.5 ms for
    // 256 MiB): 1.71 + 4.70 ms.
    EXPECT_NEAR(Num(setup, "ms"), 16 * 0.107 + 128 * 0.03673, 0.1);
    EXPECT_EQ(Num(cJSON_GetObjectItemCaseSensitive(h, "pinning_in_run"), "calls"), 0);
    EXPECT_EQ(Num(cJSON_GetObjectItemCaseSensitive(h, "pageable_h2d"), "copies"), 0);
    EXPECT_EQ(Num(h, "left_registered"), 0);
    // The baseline has pageable buffers of its own, so the reference's pinning does not
    // speed it up, and a run saves far more than the pinning cost.
    EXPECT_EQ(Num(h, "payoff_runs"), 1);
    // Against staged pageable copies of 8 MiB (about 0.9 ms up and 0.5 ms down on the h200
    // profile's pageable curve): over 6.5x (the H100 and the H200 gave 8-10x,
    // docs/measured.md, "Lab 01").
    EXPECT_GT(Num(j, "speedup"), 6.5);
    cJSON_Delete(j);
    EXPECT_NE(FindFlat(o.err, "it paid for itself within the first run"), std::string::npos) << o.err;
    EXPECT_EQ(FindFlat(o.err, "Next:"), std::string::npos) << o.err;
}

TEST(Lab01, PinnedOnOneStreamMovesOneDirectionAtATime) {
    Outcome o = RunLabOnce("labs/01_pinned_memory_pinned_one_stream_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "below_target");
    // Each direction at its pinned rate, one after the other: well above the skeleton,
    // well below the target.
    EXPECT_GT(Num(j, "bound_fraction"), 0.45);
    EXPECT_LT(Num(j, "bound_fraction"), Num(j, "target_bound_fraction") - 0.1);
    EXPECT_EQ(NextStep(j), "1/2 TODO 2 (both directions at once)");
    EXPECT_NE(Str(cJSON_GetObjectItemCaseSensitive(j, "steps"), "what_to_do").find("This is the expected state after TODO 1."),
              std::string::npos);
    EXPECT_EQ(Why(j).rfind("every copy runs one after another on one stream (s", 0), 0u) << Why(j);
    cJSON_Delete(j);
    EXPECT_NE(FindFlat(o.err, "This is the expected"), std::string::npos) << o.err;
}

TEST(Lab01, StreamsWithoutPinningGainNothing) {
    Outcome skeleton = RunLabOnce("labs/01_pinned_memory_sim", Args());
    Outcome o = RunLabOnce("labs/01_pinned_memory_pageable_streams_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o), *s = Json(skeleton);
    EXPECT_NEAR(Num(j, "bound_fraction"), Num(s, "bound_fraction"), 0.01);
    EXPECT_EQ(NextStep(j), "0/2 TODO 1 (pin the harness's buffers, once)");
    cJSON_Delete(j);
    cJSON_Delete(s);
}

TEST(Lab01, PinningInsideEveryRunCostsMoreThanItSaves) {
    Outcome o = RunLabOnce("labs/01_pinned_memory_pin_each_time_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "below_target");
    EXPECT_LT(Num(j, "bound_fraction"), 0.5);
    cJSON *run = cJSON_GetObjectItemCaseSensitive(Host(j), "pinning_in_run");
    EXPECT_EQ(Num(run, "calls"), 32);
    EXPECT_EQ(Str(run, "names"), "cudaHostRegister, cudaHostUnregister");
    // The registration alone takes longer than a perfect pipeline's whole run.
    EXPECT_GT(Num(run, "ms"), Num(cJSON_GetObjectItemCaseSensitive(j, "bound"), "ideal_ms"));
    EXPECT_EQ(NextStep(j), "0/2 TODO 1 (pin the harness's buffers, once)");
    cJSON_Delete(j);
    EXPECT_NE(FindFlat(o.err, "run() pins every time: 32 calls (cudaHostRegister, cudaHostUnregister)"), std::string::npos)
        << o.err;
}

// Pinning on the first run() only is paid in the warm-up, which the lab does not time: the
// program passes, and the report says what that first run spent pinning.
TEST(Lab01, PinningOnTheFirstRunIsReported) {
    Outcome o = RunLabOnce("labs/01_pinned_memory_pin_on_first_call_sim", Args());
    EXPECT_EQ(o.exit_code, 0) << o.err;
    cJSON *j = Json(o);
    cJSON *warmup = cJSON_GetObjectItemCaseSensitive(Host(j), "pinning_in_warmup");
    EXPECT_EQ(Num(warmup, "calls"), 16);
    EXPECT_EQ(Str(warmup, "names"), "cudaHostRegister");
    EXPECT_GT(Num(warmup, "ms"), 0);
    EXPECT_EQ(Num(cJSON_GetObjectItemCaseSensitive(Host(j), "pinning_in_run"), "calls"), 0);
    cJSON_Delete(j);
    EXPECT_NE(FindFlat(o.err, "your first run() (the warm-up, not timed) spent"), std::string::npos) << o.err;
    EXPECT_NE(FindFlat(o.err, "16 calls (cudaHostRegister)"), std::string::npos) << o.err;
}

TEST(Lab01, ForgettingToUnregisterPassesAndTheReportSaysWhatWasLeft) {
    Outcome o = RunLabOnce("labs/01_pinned_memory_no_unregister_sim", Args());
    EXPECT_EQ(o.exit_code, 0) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Num(Host(j), "left_registered"), 16);
    EXPECT_EQ(NextStep(j), "0/2 TODO 1 (pin the harness's buffers, once)");
    cJSON_Delete(j);
    EXPECT_NE(FindFlat(o.err, "teardown   left 16 of the harness's buffers registered"), std::string::npos) << o.err;
}

TEST(Lab01, OneDeviceBufferPairForEveryStreamRaces) {
    Outcome o = RunLabOnce("labs/01_pinned_memory_shared_buffers_sim", Args());
    EXPECT_EQ(o.exit_code, 2) << o.err;
    cJSON *j = Json(o);
    EXPECT_GT(Num(j, "races"), 0);
    // It has its streams: what TODO 2 still asks of it is buffers of their own.
    int batches = static_cast<int>(Num(j, "batches"));
    EXPECT_EQ(Why(j).rfind("your copies run on " + std::to_string(batches) + " streams, but 2 device buffers are written "
                           "from more than one of them",
                           0),
              0u)
        << Why(j);
    cJSON_Delete(j);
}

// A program with a stream and buffers per batch that polls before each batch until the one
// before it is done: every step is done, and the advice names the poll at its line (not
// TODO 2's streams and buffers, which it has), what it held, and that no wait is needed
// between independent batches. The same with cudaStreamQuery and a back-off between queries.
TEST(Lab01, APollBeforeEveryBatchIsTheWaitTheAdviceNames) {
    const std::string v = "labs/01_pinned_memory/testdata/variants.c";
    struct Case {
        std::string lab, call, marker;
    };
    for (const Case &c : std::vector<Case>{
             {"labs/01_pinned_memory_query_spin_prev_sim", "cudaEventQuery()",
              "while ((e = cudaEventQuery(done[b - 1])) == cudaErrorNotReady)"},
             {"labs/01_pinned_memory_stream_query_prev_sim", "cudaStreamQuery(one of 7 streams)",
              "while ((e = cudaStreamQuery(streams[b - 1])) == cudaErrorNotReady)"},
         }) {
        Outcome o = RunLabOnce(c.lab, Args());
        EXPECT_EQ(o.exit_code, 1) << c.lab << o.err;
        cJSON *j = Json(o);
        ASSERT_NE(j, nullptr) << c.lab;
        EXPECT_EQ(Str(j, "status"), "below_target");
        EXPECT_EQ(NextStep(j), "2/2 ") << c.lab;
        const cJSON *w = Blamed(j);
        ExpectBlamed(w, c.call, v, c.marker);
        int batches = static_cast<int>(Num(j, "batches"));
        EXPECT_EQ(Num(w, "times"), batches - 1) << c.lab;  // before every batch but the first
        EXPECT_EQ(Num(w, "on_path"), batches - 1) << c.lab;
        EXPECT_GT(Num(w, "not_ready"), Num(w, "times")) << c.lab;  // asked again and again
        // The polls hold the run: most of its time is the host's waiting.
        EXPECT_GT(Num(w, "cost_ms"), 0.5 * Num(cJSON_GetObjectItemCaseSensitive(j, "blame"), "run_ms")) << c.lab;
        std::string at = c.call + " at " + ShortLine(v, c.marker) + ", polled in a loop (";
        EXPECT_EQ(Advice(j).rfind(at, 0), 0u) << Advice(j);
        EXPECT_NE(Advice(j).find("queue every batch, then wait for each stream once"), std::string::npos) << Advice(j);
        EXPECT_EQ(Advice(j).find("streams and device buffers of their own"), std::string::npos) << Advice(j);
        cJSON_Delete(j);
        EXPECT_NE(FindFlat(o.err, "  waits      " + at), std::string::npos) << o.err;
        EXPECT_EQ(FindFlat(o.err, "TODO 2"), std::string::npos) << o.err;
    }
}

// Device buffers made and freed for every batch in run(): cudaFree waits for the device, so
// the batches run one after another. Every step is done (the buffers are the batch's own
// while they live, though each reuses the last one's address), and the advice names the free
// and says to allocate once.
TEST(Lab01, FreeingInRunIsTheWaitTheAdviceNames) {
    const std::string v = "labs/01_pinned_memory/testdata/variants.c";
    Outcome o = RunLabOnce("labs/01_pinned_memory_free_each_batch_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(NextStep(j), "2/2 ");
    ExpectBlamed(Blamed(j), "cudaFree()", v, "LAB_CHECK(cudaFree(d_in[b]));");
    EXPECT_EQ(Advice(j).rfind("cudaFree() at " + ShortLine(v, "LAB_CHECK(cudaFree(d_in[b]));") + " held the host", 0), 0u)
        << Advice(j);
    EXPECT_NE(Advice(j).find("allocate each device buffer once, in setup() (cudaMalloc), and free it in teardown() (cudaFree), not in run()."),
              std::string::npos)
        << Advice(j);
    cJSON_Delete(j);
}

// Three slots, each batch taking the first whose event answers cudaSuccess and waiting with
// cudaEventSynchronize when none does: the queries that answered not ready were about other
// slots, so no query is a wait; the synchronisation is.
TEST(Lab01, QueriesThatPickAFreeSlotAreNoWait) {
    Outcome o = RunLabOnce("labs/01_pinned_memory_pick_free_slot_sim", Args());
    EXPECT_EQ(o.exit_code, 0) << o.err;
    cJSON *j = Json(o);
    EXPECT_FALSE(AnyBlamed(j, "cudaEventQuery()"));
    EXPECT_TRUE(AnyBlamed(j, "cudaEventSynchronize()"));
    EXPECT_EQ(NextStep(j), "2/2 ");
    cJSON_Delete(j);
    EXPECT_EQ(FindFlat(o.err, "cudaEventQuery"), std::string::npos) << o.err;
}

// Every variant's advice comes from what it does: where it stands, and the wait the blame
// puts first with its line (a copy from pageable memory holds the host: the skeleton's and
// a pageable pipeline's costliest wait; run()'s final waits otherwise).
// Copying each input with memcpy into a pinned buffer of the program's own before its upload
// is charged as a GPU's host spends on it, not as the grading machine's CPU does: the inputs,
// which the harness wrote before the run, and the eight staging buffers, each written once a
// run, are memory no cache holds (the profile's cold host copy curve: 1.40 ms for 8 MiB on a
// lent H200's host, where the lab's copies took 1.22-1.66 ms; memory the host wrote earlier
// copies in 0.99). 64 MiB a run, more than the pipeline
// itself, on any machine (0.10-0.13 of the bound on lent H200s). The advice names the copy
// and its line.
TEST(Lab01, CopyingTheInputsOnTheHostCostsWhatAGpuHostSpends) {
    Outcome o = RunLabOnce("labs/01_pinned_memory_staged_memcpy_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_TRUE(Bool(j, "correct"));
    EXPECT_LT(Num(j, "bound_fraction"), 0.3);
    // Eight copies of 8 MiB at the cold curve's 8 MiB point (1.40 ms), one after another on
    // the host: the run takes at least that (at the warm curve's 0.99 ms it would not), five
    // times a perfect pipeline's time.
    const double run_ms = Num(cJSON_GetObjectItemCaseSensitive(j, "timings"), "yours_median_ms");
    EXPECT_GT(run_ms, 8 * 1.35);
    EXPECT_GT(run_ms, 5 * Num(cJSON_GetObjectItemCaseSensitive(j, "bound"), "ideal_ms"));
    const std::string at = ShortLine("labs/01_pinned_memory/testdata/variants.c", "memcpy(stage[b], lab_input(ctx, b)");
    EXPECT_EQ(Advice(j).rfind("your run copies memory on the host 8 times (the most at " + at + ")", 0), 0u)
        << Advice(j);
    cJSON_Delete(j);
}

TEST(Lab01, EveryVariantIsAdvisedByWhatItDoes) {
    const std::string lab = "labs/01_pinned_memory/lab.c", v = "labs/01_pinned_memory/testdata/variants.c";
    const std::string todo1 = "0/2 TODO 1 (pin the harness's buffers, once)";
    const std::string each = "b < w->batches; b++) LAB_CHECK(cudaStreamSynchronize(streams[b]));";
    for (const AdviceCase &c : std::vector<AdviceCase>{
             {"labs/01_pinned_memory_sim", todo1, "cudaMemcpyAsync()", lab,
              "cudaMemcpyAsync(lab_output(ctx, b), d_out, w->batch_bytes", true},
             {"labs/01_pinned_memory_pageable_streams_sim", todo1, "cudaMemcpyAsync()", v,
              "cudaMemcpyAsync(lab_output(ctx, b), d_out[b]", true},
             {"labs/01_pinned_memory_pin_each_time_sim", todo1, "cudaStreamSynchronize(one of 8 streams)", v, each,
              false},
             {"labs/01_pinned_memory_no_unregister_sim", todo1, "cudaStreamSynchronize(one of 8 streams)", v, each,
              false},
             {"labs/01_pinned_memory_shared_buffers_sim", "1/2 TODO 2 (both directions at once)",
              "cudaStreamSynchronize(one of 8 streams)", v, each, false},
             {"labs/01_pinned_memory_query_spin_prev_sim", "2/2 ", "cudaEventQuery()", v,
              "while ((e = cudaEventQuery(done[b - 1])) == cudaErrorNotReady)", true},
             {"labs/01_pinned_memory_free_each_batch_sim", "2/2 ", "cudaFree()", v, "LAB_CHECK(cudaFree(d_in[b]));", true},
         })
        ExpectAdvice(c, Args());
}

}  // namespace
