// labs/lab00_test.cc: lab 00 end to end on the simulated GPU, as a student and the grader
// run it. The untouched skeleton is correct but serial (exit 1); a stream per task made
// with cudaStreamCreate is still serialised by the stream-0 memset between tasks, and the
// report says so (exit 1); non-blocking streams with run() still ending in
// cudaStreamSynchronize(0) return before the results exist (exit 2, and the report names
// the streams still busy); moving the memset onto the task streams races on the shared
// block (exit 2); two streams for four tasks reach half the bound (exit 1); the reference
// passes (exit 0).
#include "labs/lab_test_support.h"

#include <string>

namespace {

using namespace labtest;

TEST(Lab00, TheSkeletonIsCorrectButSerial) {
    Outcome o = RunLab("labs/00_default_stream_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "lab"), "00_default_stream");
    EXPECT_EQ(Str(j, "status"), "below_target");
    EXPECT_TRUE(Bool(j, "correct"));
    EXPECT_EQ(Num(j, "races"), 0);
    EXPECT_NEAR(Num(j, "speedup"), 1.0, 0.05);
    cJSON *bound = cJSON_GetObjectItemCaseSensitive(j, "bound");
    EXPECT_EQ(Str(bound, "name"), "concurrency bound");
    // Four tasks that each leave most SMs idle fit on the device at once.
    cJSON *tasks = cJSON_GetObjectItemCaseSensitive(j, "tasks_us");
    EXPECT_GT(Num(tasks, "tasks_at_once"), 3.6);
    EXPECT_GT(Num(j, "pipeline_bound"), 3.5);
    cJSON_Delete(j);
    Events e = ReadEvents(o.events);
    EXPECT_TRUE(e.errors.empty());
    EXPECT_EQ(e.bye_status, 1);
}

TEST(Lab00, TheReferencePasses) {
    Outcome o = RunLab("solutions/00_default_stream_sim", Args());
    EXPECT_EQ(o.exit_code, 0) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "pass");
    EXPECT_GE(Num(j, "bound_fraction"), 0.90);
    EXPECT_LE(Num(j, "bound_fraction"), 1.02);
    // The target sits between streams that stream 0 still serialises (about 1x) and
    // two streams for four tasks (about half the bound), and the reference.
    EXPECT_GT(Num(j, "target_bound_fraction"), 0.52);
    EXPECT_LT(Num(j, "target"), 0.8 * Num(j, "speedup"));
    cJSON_Delete(j);
}

TEST(Lab00, BlockingStreamsAreStillSerialisedByStreamZero) {
    Outcome o = RunLab("labs/00_default_stream_blocking_streams_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "below_target");
    EXPECT_LT(Num(j, "speedup"), 1.1);
    cJSON_Delete(j);
}

TEST(Lab00, NonBlockingStreamsWithoutWaitingForThemAreWrong) {
    Outcome o = RunLab("labs/00_default_stream_no_wait_sim", Args());
    EXPECT_EQ(o.exit_code, 2) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "incorrect");
    cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "first_mismatch");
    EXPECT_NE(Str(m, "why").find("never written"), std::string::npos) << Str(m, "why");
    EXPECT_GT(Num(j, "races"), 0);
    cJSON_Delete(j);
    // The speed of wrong results is not held up as an achievement.
    EXPECT_NE(o.err.find("not counted: the results are wrong"), std::string::npos) << o.err;
}

TEST(Lab00, ClearingOneSharedBlockFromEveryTaskStreamRaces) {
    Outcome o = RunLab("labs/00_default_stream_memset_on_task_streams_sim", Args());
    EXPECT_EQ(o.exit_code, 2) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "racy");
    bool waw = false;
    cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(j, "race_reports")) waw |= Str(r, "kind") == "WAW";
    EXPECT_TRUE(waw) << o.err;
    cJSON_Delete(j);
}

TEST(Lab00, TwoStreamsForFourTasksReachHalfTheBound) {
    Outcome o = RunLab("labs/00_default_stream_two_streams_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "below_target");
    EXPECT_NEAR(Num(j, "bound_fraction"), 0.5, 0.05);
    cJSON_Delete(j);
}

}  // namespace
