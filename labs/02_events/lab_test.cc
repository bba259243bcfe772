// labs/02_events/lab_test.cc: lab 02 end to end on the simulated GPU, as a student and the
// grader run it. The skeleton orders its stages by making the host wait and times the
// combine with a host clock: correct, below the speed target, and the measurement fails
// with the reason (exit 1). Timing with events fixes the measurement only (exit 1);
// ordering with events but timing on the host is fast enough and still fails the
// measurement (exit 1); an event recorded before the work it should mark is a race the
// report names (exit 2); the reference passes both parts (exit 0). The host's waits between
// stages written as polls (cudaEventQuery, cudaStreamQuery) are as slow as the
// synchronisations, and the advice names the polls, not a call the program never makes; a
// query asked once is no wait; buffers freed in every batch are told to be allocated once.
#include "labs/lab_test_support.h"

#include <cstdlib>
#include <cstring>
#include <string>

namespace {

using namespace labtest;

const cJSON *Stage(const cJSON *j) {
    return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "measurement"), "stages"),
                              0);
}

TEST(Lab02, TheSkeletonIsSlowAndItsHostTimedCombineIsWrong) {
    Outcome o = RunLabOnce("labs/02_events_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "lab"), "02_events");
    EXPECT_EQ(Str(j, "status"), "below_target");
    EXPECT_TRUE(Bool(j, "correct"));
    EXPECT_EQ(Num(j, "races"), 0);
    EXPECT_LT(Num(j, "bound_fraction"), Num(j, "target_bound_fraction") - 0.05);
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "measurement");
    ASSERT_NE(m, nullptr) << o.out;
    EXPECT_FALSE(Bool(m, "ok"));
    const cJSON *st = Stage(j);
    EXPECT_EQ(Str(st, "name"), "combine");
    EXPECT_EQ(Num(st, "ops"), 32);
    // A host clock around each launch: a small fraction of what the kernels ran.
    EXPECT_LT(Num(st, "reported_ms"), 0.2 * Num(st, "device_ms"));
    EXPECT_NE(Str(st, "why").find("measures how long they took to queue, not to run"), std::string::npos)
        << Str(st, "why");
    EXPECT_EQ(NextStep(j), "0/2 TODO 1 (time the combine on the GPU)");
    cJSON_Delete(j);
    EXPECT_NE(FindFlat(o.err, "  measured   \"combine\": NOT right: you reported "), std::string::npos) << o.err;
}

TEST(Lab02, TheReferencePassesBothParts) {
    Outcome o = RunLabOnce("solutions/02_events_sim", Args());
    EXPECT_EQ(o.exit_code, 0) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "pass");
    EXPECT_GE(Num(j, "bound_fraction"), 0.95);
    EXPECT_LE(Num(j, "bound_fraction"), 1.02);
    EXPECT_TRUE(Bool(cJSON_GetObjectItemCaseSensitive(j, "measurement"), "ok"));
    const cJSON *st = Stage(j);
    // Event pairs include each kernel's start-up, which the trace's kernel time does not:
    // a little more, within the spec's 10% and 4 us a kernel.
    EXPECT_GE(Num(st, "reported_ms"), Num(st, "device_ms"));
    EXPECT_LE(Num(st, "reported_ms"), 1.1 * Num(st, "device_ms") + 32 * 0.004);
    EXPECT_EQ(NextStep(j), "2/2 ");
    cJSON_Delete(j);
    EXPECT_EQ(FindFlat(o.err, "Next:"), std::string::npos) << o.err;
}

TEST(Lab02, EventTimingAloneFixesTheMeasurementNotTheSpeed) {
    Outcome o = RunLabOnce("labs/02_events_gpu_timed_host_synced_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_TRUE(Bool(cJSON_GetObjectItemCaseSensitive(j, "measurement"), "ok"));
    EXPECT_LT(Num(j, "speedup"), Num(j, "target"));
    EXPECT_EQ(NextStep(j), "1/2 TODO 2 (order the streams with events, not the host)");
    cJSON_Delete(j);
    EXPECT_NE(FindFlat(o.err, "This is the expected state after TODO 1."), std::string::npos) << o.err;
}

// The skeleton's host waits after TODO 1 are cudaStreamSynchronize calls, and the why of
// TODO 2 names the costliest of them with its line.
TEST(Lab02, TheHostWaitsOfTodo2AreNamedAsTheProgramMadeThem) {
    Outcome o = RunLabOnce("labs/02_events_gpu_timed_host_synced_sim", Args());
    cJSON *j = Json(o);
    int batches = static_cast<int>(Num(j, "batches"));
    EXPECT_EQ(Why(j).rfind("the host waited for the device " + std::to_string(4 * batches) +
                               " times before run() had queued all its work (" + std::to_string(batches) + " batches)",
                           0),
              0u)
        << Why(j);
    EXPECT_NE(Why(j).find("; the costliest: cudaStreamSynchronize(\"A\") at variants.c:"), std::string::npos) << Why(j);
    cJSON_Delete(j);
}

// The stages ordered by polls instead: an event recorded on the stream, then cudaEventQuery
// until it answers cudaSuccess; or cudaStreamQuery with a back-off between queries. As slow
// as the synchronisations they replace, at TODO 2, and every text names the poll: the waits
// line, the why (four polls a batch), and no step text names cudaStreamSynchronize.
TEST(Lab02, PollsBetweenStagesAreTheHostWaitsTheAdviceNames) {
    const std::string v = "labs/02_events/testdata/variants.c";
    Outcome synced = RunLabOnce("labs/02_events_gpu_timed_host_synced_sim", Args());
    cJSON *s = Json(synced);
    struct Case {
        std::string lab, call, marker;
    };
    for (const Case &c : std::vector<Case>{
             {"labs/02_events_query_spin_sim", "cudaEventQuery()",
              "while ((err = cudaEventQuery(e)) == cudaErrorNotReady)"},
             {"labs/02_events_stream_query_backoff_sim", "cudaStreamQuery(one of 2 streams)",
              "while ((err = cudaStreamQuery(s)) == cudaErrorNotReady)"},
         }) {
        Outcome o = RunLabOnce(c.lab, Args());
        EXPECT_EQ(o.exit_code, 1) << c.lab << o.err;
        cJSON *j = Json(o);
        ASSERT_NE(j, nullptr) << c.lab;
        EXPECT_TRUE(Bool(cJSON_GetObjectItemCaseSensitive(j, "measurement"), "ok")) << c.lab;
        EXPECT_LT(Num(j, "speedup"), Num(j, "target")) << c.lab;
        // No faster than the host's synchronisations: the host still waits between stages.
        EXPECT_LT(Num(j, "speedup"), Num(s, "speedup") + 0.05) << c.lab;
        EXPECT_EQ(NextStep(j), "1/2 TODO 2 (order the streams with events, not the host)") << c.lab;
        const cJSON *w = Blamed(j);
        ExpectBlamed(w, c.call, v, c.marker);
        EXPECT_GT(Num(w, "not_ready"), 0) << c.lab;
        int batches = static_cast<int>(Num(j, "batches"));
        std::string at = c.call + " at " + ShortLine(v, c.marker) + ", polled in a loop (";
        EXPECT_EQ(Why(j).rfind("the host waited for the device " + std::to_string(4 * batches) + " times", 0), 0u)
            << Why(j);
        EXPECT_NE(Why(j).find("; the costliest: " + at), std::string::npos) << Why(j);
        std::string step = Str(cJSON_GetObjectItemCaseSensitive(j, "steps"), "what_to_do");
        EXPECT_EQ(step.find("cudaStreamSynchronize"), std::string::npos) << step;
        EXPECT_EQ(Why(j).find("cudaStreamSynchronize"), std::string::npos) << Why(j);
        cJSON_Delete(j);
        EXPECT_NE(FindFlat(o.err, "  waits      " + at), std::string::npos) << o.err;
        EXPECT_EQ(FindFlat(o.err, "cudaStreamSynchronize between"), std::string::npos) << o.err;
    }
    cJSON_Delete(s);
}

// Events order the stages, and once a batch the program asks cudaEventQuery whether the
// combine of the batch eight before is done, to count finished batches. It asks once, never
// again until it is: no wait, and the program passes at 2/2. (Some of its queries found the
// work done at once, as the count it prints says: a query's success is no wait by itself.)
TEST(Lab02, AQueryAskedOnceIsNoWait) {
    Outcome o = RunLabOnce("labs/02_events_query_progress_sim", Args());
    EXPECT_EQ(o.exit_code, 0) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(NextStep(j), "2/2 ");
    EXPECT_FALSE(AnyBlamed(j, "cudaEventQuery()"));
    cJSON_Delete(j);
    size_t at = o.err.find("the device had finished ");
    ASSERT_NE(at, std::string::npos) << o.err;
    EXPECT_GT(std::atoi(o.err.c_str() + at + std::strlen("the device had finished ")), 0) << o.err.substr(at, 80);
}

// Events order the stages, but the device buffers are made at the start of every batch and
// freed once its download is queued: each cudaFree waits for the device. Every step is done,
// and the advice names the free and says to allocate once.
TEST(Lab02, FreeingInEveryBatchIsTheWaitTheAdviceNames) {
    const std::string v = "labs/02_events/testdata/variants.c", free_in = "LAB_CHECK(cudaFree(d_in));";
    Outcome o = RunLabOnce("labs/02_events_free_each_batch_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(NextStep(j), "2/2 ");
    ExpectBlamed(Blamed(j), "cudaFree()", v, free_in);
    EXPECT_EQ(Advice(j).rfind("cudaFree() at " + ShortLine(v, free_in) + " held the host", 0), 0u) << Advice(j);
    EXPECT_NE(Advice(j).find("allocate each device buffer once, in setup() (cudaMalloc), and free it in teardown() (cudaFree), not in run()."),
              std::string::npos)
        << Advice(j);
    cJSON_Delete(j);
}

TEST(Lab02, FastEnoughButHostTimedIsNotAPass) {
    Outcome o = RunLabOnce("labs/02_events_events_host_timed_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "below_target");
    EXPECT_GE(Num(j, "speedup"), Num(j, "target"));
    EXPECT_FALSE(Bool(cJSON_GetObjectItemCaseSensitive(j, "measurement"), "ok"));
    EXPECT_EQ(NextStep(j), "0/2 TODO 1 (time the combine on the GPU)");
    cJSON_Delete(j);
    EXPECT_NE(FindFlat(o.err, "fast enough"), std::string::npos) << o.err;
    EXPECT_NE(FindFlat(o.err, "but the time you reported is not what the GPU did"), std::string::npos) << o.err;
}

// Events that span no combine (recorded on the other stream) are a wrong measurement, and the
// report says the events do not span the combine, not that a host clock was used.
TEST(Lab02, EventsOnTheWrongStreamAreNotCalledAHostClock) {
    Outcome o = RunLabOnce("labs/02_events_timed_on_b_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "below_target");
    const cJSON *st = Stage(j);
    EXPECT_FALSE(Bool(st, "ok"));
    EXPECT_NE(Str(st, "why").find("the events you read do not span them"), std::string::npos) << Str(st, "why");
    EXPECT_EQ(Str(st, "why").find("host clock"), std::string::npos) << Str(st, "why");
    EXPECT_EQ(NextStep(j), "0/2 TODO 1 (time the combine on the GPU)");
    const cJSON *steps = cJSON_GetObjectItemCaseSensitive(j, "steps");
    EXPECT_NE(Str(steps, "why").find("your run reads events (cudaEventElapsedTime 32 times)"), std::string::npos)
        << Str(steps, "why");
    cJSON_Delete(j);
}

TEST(Lab02, AnEventRecordedTooEarlyIsARaceThatNamesTheRecord) {
    Outcome o = RunLabOnce("labs/02_events_early_record_sim", Args());
    EXPECT_EQ(o.exit_code, 2) << o.err;
    cJSON *j = Json(o);
    EXPECT_GT(Num(j, "races"), 0);
    const cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "race_reports"), 0);
    ASSERT_NE(first, nullptr) << o.out;
    EXPECT_EQ(Str(first, "kind"), "RAW");
    EXPECT_EQ(Str(first, "fix").rfind("\"A\" waits on event ", 0), 0u) << Str(first, "fix");
    EXPECT_NE(Str(first, "fix").find("but it was recorded on \"B\" before kernel process batch 0"), std::string::npos)
        << Str(first, "fix");
    // The record's line is the student's cudaEventRecord.
    const cJSON *early = cJSON_GetObjectItemCaseSensitive(first, "early_record");
    ASSERT_NE(early, nullptr) << o.out;
    const std::string file = "labs/02_events/testdata/variants.c";
    std::string line = Str(early, "line");
    ASSERT_EQ(line.rfind(file + ":", 0), 0u) << line;
    int n = std::atoi(line.c_str() + file.size() + 1);
    EXPECT_NE(LineText(file, n).find("cudaEventRecord(produced, stream_b)"), std::string::npos) << LineText(file, n);
    cJSON_Delete(j);
}

// Every variant's advice comes from what it does: where it stands, and the wait the blame
// puts first with its line (the host's wait for the upload before producer B, the longest
// of the host's four waits a batch while the host orders the streams; the final wait once
// events do).
TEST(Lab02, EveryVariantIsAdvisedByWhatItDoes) {
    const std::string lab = "labs/02_events/lab.c", v = "labs/02_events/testdata/variants.c";
    const std::string last = "/* every batch queued */";
    for (const AdviceCase &c : std::vector<AdviceCase>{
             {"labs/02_events_sim", "0/2 TODO 1 (time the combine on the GPU)", "cudaStreamSynchronize(\"A\")", lab,
              "stream B must not start before the upload is done", true, 1},
             {"labs/02_events_gpu_timed_host_synced_sim", "1/2 TODO 2 (order the streams with events, not the host)",
              "cudaStreamSynchronize(\"A\")", v, "if (EVENTS) {", true, 4},
             {"labs/02_events_events_host_timed_sim", "0/2 TODO 1 (time the combine on the GPU)",
              "cudaStreamSynchronize(\"A\")", v, last, false},
             {"labs/02_events_early_record_sim", "2/2 ", "cudaStreamSynchronize(\"A\")", v, last, false},
             {"labs/02_events_query_spin_sim", "1/2 TODO 2 (order the streams with events, not the host)",
              "cudaEventQuery()", v, "while ((err = cudaEventQuery(e)) == cudaErrorNotReady)", true},
             {"labs/02_events_free_each_batch_sim", "2/2 ", "cudaFree()", v, "LAB_CHECK(cudaFree(d_in));", true},
         })
        ExpectAdvice(c, Args());
}

}  // namespace
