// labs/06_stream_pool/lab_test.cc: lab 06 end to end on the simulated GPU, as a student and
// the grader run it. The skeleton serves the requests one at a time on one stream: correct,
// p99 many times a request alone, below target (exit 1). A pool of streams sharing one
// buffer set (TODO 1 alone) is fast and wrong, with TODO 2 next (exit 2); eight streams
// reusing four buffer sets without events race (exit 2), and with an event per set pass
// (exit 0); the reference passes with p99 near a request alone and a throughput near the
// arrival rate (exit 0); a pool too small, or one that waits for the device or the
// request's stream after each request, cannot keep up (exit 1), and is told why: the wait
// with its line and cost, or the pool's size; buffer sets got wrong are told what the
// program does.
#include "labs/lab_test_support.h"

#include <string>

namespace {

using namespace labtest;

const cJSON *Latency(const cJSON *j) { return cJSON_GetObjectItemCaseSensitive(j, "latency"); }

// The rate requests arrive at, from the bound's figures (the spec's every, in us).
double ArrivalsPerMs(const cJSON *j) {
    const cJSON *fig = cJSON_GetObjectItemCaseSensitive(j, "request_us");
    return 1e3 / Num(fig, "arrival_every");
}

TEST(Lab06, TheSkeletonServesOneAtATimeAndFallsBehind) {
    Outcome o = RunLabOnce("labs/06_stream_pool_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "lab"), "06_stream_pool");
    EXPECT_EQ(Str(j, "status"), "below_target");
    EXPECT_TRUE(Bool(j, "correct"));
    EXPECT_EQ(Num(j, "races"), 0);
    const cJSON *metric = cJSON_GetObjectItemCaseSensitive(j, "metric");
    EXPECT_EQ(Str(metric, "name"), "latency");
    const cJSON *l = Latency(j);
    ASSERT_NE(l, nullptr) << o.out;
    EXPECT_EQ(Num(l, "requests"), 32);
    // A request takes longer than the gap between arrivals: the queue grows, the last
    // request waits for all before it, and the median one for about half of them.
    const cJSON *fig = cJSON_GetObjectItemCaseSensitive(j, "request_us");
    ASSERT_NE(fig, nullptr) << o.out;
    EXPECT_GT(Num(fig, "in_flight"), 2.0);
    EXPECT_GT(Num(l, "p99_ms"), 10 * Num(cJSON_GetObjectItemCaseSensitive(j, "bound"), "ideal_ms"));
    EXPECT_GT(Num(l, "p50_ms"), 0.4 * Num(l, "p99_ms"));
    EXPECT_LT(Num(l, "p50_ms"), 0.6 * Num(l, "p99_ms"));
    EXPECT_LT(Num(l, "throughput_per_ms"), 0.5 * ArrivalsPerMs(j));
    EXPECT_NEAR(Num(l, "throughput_per_ms"), Num(l, "baseline_throughput_per_ms"), 0.05);
    EXPECT_LT(Num(j, "bound_fraction"), 0.1);
    EXPECT_EQ(NextStep(j), "0/2 TODO 1 (a pool of streams, each request on the next one)");
    // Each request's upload, kernels and download, all on the skeleton's one stream.
    EXPECT_EQ(Why(j), "all " + std::to_string(static_cast<int>(Num(j, "batches")) * 4) +
                          " of your requests' copies and kernels go to one stream, \"server\"");
    cJSON_Delete(j);
    // No background in this lab: the report neither shows one nor claims it was done.
    EXPECT_EQ(FindFlat(o.err, "background"), std::string::npos) << o.err;
    EXPECT_NE(FindFlat(o.err, "  throughput "), std::string::npos) << o.err;
}

TEST(Lab06, TheReferenceKeepsUpWithTheArrivals) {
    Outcome o = RunLabOnce("solutions/06_stream_pool_sim", Args());
    EXPECT_EQ(o.exit_code, 0) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "pass");
    EXPECT_GE(Num(j, "bound_fraction"), 0.9);
    const cJSON *l = Latency(j);
    // Nearly as many served a ms as arrive (the span ends one request's latency after the
    // last arrival), and more than twice the baseline's.
    EXPECT_GT(Num(l, "throughput_per_ms"), 0.9 * ArrivalsPerMs(j));
    EXPECT_GT(Num(l, "throughput_per_ms"), 2 * Num(l, "baseline_throughput_per_ms"));
    EXPECT_EQ(NextStep(j), "2/2 ");
    cJSON_Delete(j);
    EXPECT_EQ(FindFlat(o.err, "Next:"), std::string::npos) << o.err;
    EXPECT_NE(FindFlat(o.err, "PASS: correct, race-free, and the requests' p99"), std::string::npos) << o.err;
}

// Where tracing costs (a GPU), the timed runs of a lab of requests with no background work
// time only the copies to the host: a request is done when its result has arrived.
// STREAMLAB_TIMED_RUNS=untraced takes that path on the simulator: the same latencies, as
// the requests' results are their last operations.
TEST(Lab06, RequestsAreTimedByTheirResultsWhereTracingCosts) {
    Outcome plain = RunLabOnce("solutions/06_stream_pool_sim", Args());
    Outcome split = RunLabOnce("solutions/06_stream_pool_sim", Args(), nullptr, {"STREAMLAB_TIMED_RUNS=untraced"});
    EXPECT_EQ(split.exit_code, 0) << split.err;
    cJSON *p = Json(plain), *j = Json(split);
    EXPECT_EQ(Str(p, "timed_runs_timing"), "traced");
    EXPECT_EQ(Str(j, "timed_runs_timing"), "cuda_events_copies_to_host");
    EXPECT_DOUBLE_EQ(Num(Latency(j), "p99_ms"), Num(Latency(p), "p99_ms"));
    cJSON_Delete(p);
    cJSON_Delete(j);
}

// Those timed runs record deferred (trace_defer): each run's operations reach the race
// checker and the work count once run() has returned. A pool that shares one buffer set is
// found racing, by the same reports, and its work counted, as when every operation is
// checked as it is made.
TEST(Lab06, RecordingAfterEachTimedRunFindsTheSameRacesAndWork) {
    Outcome plain = RunLabOnce("labs/06_stream_pool_shared_buffers_sim", Args());
    Outcome split =
        RunLabOnce("labs/06_stream_pool_shared_buffers_sim", Args(), nullptr, {"STREAMLAB_TIMED_RUNS=untraced"});
    EXPECT_EQ(split.exit_code, plain.exit_code) << split.err;
    cJSON *p = Json(plain), *j = Json(split);
    EXPECT_EQ(Str(j, "timed_runs_timing"), "cuda_events_copies_to_host");
    EXPECT_GT(Num(p, "races"), 0);
    EXPECT_EQ(Num(j, "races"), Num(p, "races"));
    for (const char *key : {"race_reports", "work"}) {
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(p, key), *b = cJSON_GetObjectItemCaseSensitive(j, key);
        ASSERT_NE(a, nullptr) << key;
        EXPECT_TRUE(cJSON_Compare(a, b, true)) << key;
    }
    cJSON_Delete(p);
    cJSON_Delete(j);
}

TEST(Lab06, APoolSharingOneBufferSetIsTheStateAfterTodo1) {
    Outcome o = RunLabOnce("labs/06_stream_pool_shared_buffers_sim", Args());
    EXPECT_EQ(o.exit_code, 2) << o.err;
    cJSON *j = Json(o);
    EXPECT_GT(Num(j, "races"), 0);
    EXPECT_EQ(NextStep(j), "1/2 TODO 2 (a set of buffers for each stream of the pool)");
    const cJSON *reports = cJSON_GetObjectItemCaseSensitive(j, "race_reports");
    ASSERT_GT(cJSON_GetArraySize(reports), 0) << o.out;
    std::string fix = Str(cJSON_GetArrayItem(reports, 0), "fix");
    // The fix that keeps the pool overlapping comes first; the event is named as slower.
    EXPECT_EQ(fix.rfind("give \"pool ", 0), 0u) << fix;
    EXPECT_NE(FindFlat(fix, "buffers of their own"), std::string::npos) << fix;
    EXPECT_NE(FindFlat(fix, "Correct but slower"), std::string::npos) << fix;
    EXPECT_EQ(Why(j).rfind("the 4 streams of your pool share", 0), 0u) << Why(j);
    cJSON_Delete(j);
    EXPECT_NE(FindFlat(o.err, "expected state after TODO 1"), std::string::npos) << o.err;
}

TEST(Lab06, ReusingBufferSetsAcrossStreamsNeedsEvents) {
    Outcome racy = RunLabOnce("labs/06_stream_pool_ring_no_events_sim", Args());
    EXPECT_EQ(racy.exit_code, 2) << racy.err;
    cJSON *j = Json(racy);
    EXPECT_EQ(Str(j, "status"), "racy");
    EXPECT_GT(Num(j, "races"), 0);
    cJSON_Delete(j);

    Outcome ordered = RunLabOnce("labs/06_stream_pool_ring_events_sim", Args());
    EXPECT_EQ(ordered.exit_code, 0) << ordered.err;
    j = Json(ordered);
    EXPECT_EQ(Str(j, "status"), "pass");
    EXPECT_EQ(Num(j, "races"), 0);
    EXPECT_GE(Num(j, "bound_fraction"), 0.9);
    cJSON_Delete(j);
}

const char kVariants[] = "labs/06_stream_pool/testdata/variants.c";

// Each way of getting TODO 2 wrong is told what its program does: an event recorded
// after the kernel instead of after the download, run() waiting for one stream of the
// pool, the copies made with cudaMemcpy on the legacy default stream; none is told that
// its requests overlap or to add buffer sets it has.
TEST(Lab06, WrongBufferSetsAreToldWhatTheProgramDoes) {
    struct Case {
        const char *variant;
        int exit_code;
        std::string why;
    } cases[] = {
        {"ring_no_events", 2, "the 8 streams of your pool share"},
        {"event_after_kernel", 2,
         "the event a buffer set's next user waits on is recorded after the kernel (" +
             ShortLine(kVariants, "set_free[b], st)); /* too early") + "), not after the download"},
        {"last_stream_only", 2,
         "run() ends waiting for 1 of the 4 streams your requests went to (cudaStreamSynchronize(\"pool 3\") at " +
             ShortLine(kVariants, "streams[POOL - 1])); /* the last") + ")"},
        {"legacy_memcpy", 2,
         "64 of your requests' copies (cudaMemcpy() at " + ShortLine(kVariants, "cudaMemcpy(d_in[b]") +
             ") go to stream 0, the legacy default stream"},
        {"wait_after_upload", 2,
         "your pool hands its buffer sets from stream to stream with an event, but the wait on it (" +
             ShortLine(kVariants, "/* before the kernel writes d_out */") + ") comes after work on the set"},
    };
    for (const Case &c : cases) {
        Outcome o = RunLabOnce("labs/06_stream_pool_" + std::string(c.variant) + "_sim", Args());
        EXPECT_EQ(o.exit_code, c.exit_code) << c.variant << o.err;
        cJSON *j = Json(o);
        EXPECT_EQ(NextStep(j), "1/2 TODO 2 (a set of buffers for each stream of the pool)") << c.variant;
        EXPECT_EQ(Why(j).rfind(c.why, 0), 0u) << c.variant << ": " << Why(j);
        cJSON_Delete(j);
        EXPECT_EQ(FindFlat(o.err, "overlap now"), std::string::npos) << o.err;
    }
}

// A set's wait issued after the upload into the set: the race between the two uploads (and
// the upload and the last user's kernel) blames that wait as too late and says to issue it
// before the copy, where the event already orders it: the set's one event, recorded after
// its last use, orders every earlier use of it.
TEST(Lab06, ASetWaitAfterTheUploadIsBlamedAsLate) {
    Outcome o = RunLabOnce("labs/06_stream_pool_wait_after_upload_sim", Args());
    EXPECT_EQ(o.exit_code, 2) << o.err;
    cJSON *j = Json(o);
    const std::string wait = ShortLine(kVariants, "/* before the kernel writes d_out */");
    int blamed = 0, uploads = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(j, "race_reports")) {
        if (Str(r, "second").rfind("H2D", 0) != 0) continue;
        uploads++;
        const std::string fix = Str(r, "fix");
        if (fix.find("comes after " + Str(r, "second")) != std::string::npos &&
            fix.find(wait) != std::string::npos && fix.find("issue it before the cudaMemcpyAsync") != std::string::npos)
            blamed++;
    }
    EXPECT_GT(uploads, 0) << o.err;
    EXPECT_EQ(blamed, uploads) << o.err;
    cJSON_Delete(j);
}

// A server that cannot keep up: its p99 grows with the queue, whatever else is right;
// its buffer sets are right, and the advice names what costs the time: the wait, its
// line and its cost, or the pool's size.
void ExpectFallsBehind(const std::string &variant, double max_fraction, const std::string &advice) {
    Outcome o = RunLabOnce("labs/06_stream_pool_" + variant + "_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << variant << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "below_target") << variant;
    EXPECT_TRUE(Bool(j, "correct")) << variant;
    EXPECT_EQ(Num(j, "races"), 0) << variant;
    EXPECT_LT(Num(j, "bound_fraction"), max_fraction) << variant;
    EXPECT_LT(Num(Latency(j), "throughput_per_ms"), ArrivalsPerMs(j)) << variant;
    EXPECT_EQ(NextStep(j), "2/2 ") << variant;
    EXPECT_EQ(Advice(j).rfind(advice, 0), 0u) << variant << ": " << Advice(j);
    cJSON_Delete(j);
}

TEST(Lab06, TooSmallAPoolFallsBehind) {
    ExpectFallsBehind("small_pool", 0.33, "your requests go to 2 streams, and the queue still grows");
}

// A program that passes by another road than the lesson's (the host hands out a free buffer
// set instead of the stream waiting for it) is not sent back to the step it did its own
// way: neither the report nor --hint names a TODO.
TEST(Lab06, APassingProgramGetsNoHintForAStepDoneItsOwnWay) {
    std::string state = std::string(std::getenv("TEST_TMPDIR")) + "/hint_state";
    setenv("XDG_STATE_HOME", state.c_str(), 1);
    Outcome h = RunLab("labs/06_stream_pool_host_ordered_ring_sim", {"--seed", "7", "--runs", "1", "--schedules", "0", "--hint"});
    unsetenv("XDG_STATE_HOME");
    EXPECT_EQ(h.exit_code, 0) << h.err;
    EXPECT_NE(FindFlat(h.out, "No hint needed: your program passes, in its own way"), std::string::npos) << h.out;
    EXPECT_EQ(FindFlat(h.out, "You are at TODO"), std::string::npos) << h.out;
    Outcome o = RunLabOnce("labs/06_stream_pool_host_ordered_ring_sim", Args());
    EXPECT_EQ(o.exit_code, 0) << o.err;
    EXPECT_EQ(FindFlat(o.err, "Next:"), std::string::npos) << o.err;
}

// A pool with the legacy default stream in it, beside blocking streams: each request there
// waits for the others and holds them back. The advice names stream 0, not the pool's size
// (a larger pool of blocking streams would be held back the same way).
TEST(Lab06, TheLegacyStreamInThePoolIsNamed) {
    ExpectFallsBehind("legacy_in_pool", 0.33, "your code puts work on stream 0, the legacy default stream");
    // Its requests on stream 0 have buffers of their own: nothing there is a hand-over that
    // only the legacy stream's wait orders, so non-blocking streams are a fix.
    Outcome o = RunLabOnce("labs/06_stream_pool_legacy_in_pool_sim", Args());
    cJSON *j = Json(o);
    EXPECT_NE(Advice(j).find("or make your streams non-blocking"), std::string::npos) << Advice(j);
    cJSON_Delete(j);
}

TEST(Lab06, WaitingAfterEachRequestServesOneAtATime) {
    ExpectFallsBehind("device_sync", 0.1,
                      "cudaDeviceSynchronize() at " + ShortLine(kVariants, "cudaDeviceSynchronize());") + " held the host");
    ExpectFallsBehind("host_wait_each", 0.1,
                      "cudaStreamSynchronize(one of 4 streams) at " + ShortLine(kVariants, "/* to know the request") +
                          " held the host");
    Outcome o = RunLabOnce("labs/06_stream_pool_host_wait_each_sim", Args());
    cJSON *j = Json(o);
    ExpectBlamed(Blamed(j), "cudaStreamSynchronize(one of 4 streams)", kVariants, "/* to know the request");
    EXPECT_EQ(Num(Blamed(j), "times"), Num(j, "batches"));
    cJSON_Delete(j);
}

// Every variant's advice comes from what it does: where it stands, and the wait the blame
// puts first with its line (the final wait over the pool, the one stream waited for, the
// synchronous copy, or the costly wait).
TEST(Lab06, EveryVariantIsAdvisedByWhatItDoes) {
    const std::string lab = "labs/06_stream_pool/lab.c", v = kVariants;
    const std::string todo2 = "1/2 TODO 2 (a set of buffers for each stream of the pool)";
    const std::string pool = "for (int s = 0; s < POOL; s++) LAB_CHECK(cudaStreamSynchronize(streams[s]));";
    for (const AdviceCase &c : std::vector<AdviceCase>{
             {"labs/06_stream_pool_sim", "0/2 TODO 1 (a pool of streams, each request on the next one)",
              "cudaStreamSynchronize(\"server\")", lab, "LAB_CHECK(cudaStreamSynchronize(stream));", false},
             {"labs/06_stream_pool_shared_buffers_sim", todo2, "cudaStreamSynchronize(one of 4 streams)", v, pool, false},
             {"labs/06_stream_pool_ring_no_events_sim", todo2, "cudaStreamSynchronize(one of 8 streams)", v, pool, false},
             {"labs/06_stream_pool_event_after_kernel_sim", todo2, "cudaStreamSynchronize(one of 8 streams)", v, pool,
              false},
             {"labs/06_stream_pool_ring_events_sim", "2/2 ", "cudaStreamSynchronize(one of 8 streams)", v, pool, false},
             {"labs/06_stream_pool_small_pool_sim", "2/2 ", "cudaStreamSynchronize(one of 2 streams)", v, pool, false},
             {"labs/06_stream_pool_last_stream_only_sim", todo2, "cudaStreamSynchronize(\"pool 3\")", v,
              "/* the last stream only */", false},
             {"labs/06_stream_pool_legacy_memcpy_sim", todo2, "cudaMemcpy()", v, "cudaMemcpy(d_in[b]", false},
             {"labs/06_stream_pool_device_sync_sim", "2/2 ", "cudaDeviceSynchronize()", v, "cudaDeviceSynchronize());",
              true},
         })
        ExpectAdvice(c, Args());
}

}  // namespace
