// labs/lab07_test.cc: lab 07 end to end on the simulated GPU, as a student and the grader
// run it. The skeleton launches every tiny kernel on its own: correct, far below the graph
// bound (exit 1). A graph made anew every step, or one captured on stream A alone, is
// still below target with TODO 1 as the next step; a graph made once per run() is the
// named state after TODO 1 (exit 1); the reference, one graph made in setup() and
// replayed every step, passes (exit 0). A graph that captured step 0's copies writes only
// step 0 (exit 2, the other steps never written), and the capture errors (a sync inside
// the capture, a fork never joined back, a fork event recorded before the capture) fail
// setup() with the call, its line and what the rule is (exit 2).
#include "labs/lab_test_support.h"

#include <string>

namespace {

using namespace labtest;

TEST(Lab07, TheSkeletonIsCorrectAndBoundByItsLaunches) {
    Outcome o = RunLab("labs/07_cuda_graphs_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "lab"), "07_cuda_graphs");
    EXPECT_EQ(Str(j, "status"), "below_target");
    EXPECT_TRUE(Bool(j, "correct"));
    EXPECT_EQ(Num(j, "races"), 0);
    EXPECT_NEAR(Num(j, "speedup"), 1.0, 0.05);
    EXPECT_LT(Num(j, "bound_fraction"), 0.45);
    // Launch-bound: the graph bound is several times the direct launches.
    EXPECT_GT(Num(cJSON_GetObjectItemCaseSensitive(j, "bound"), "speedup"), 2.5);
    EXPECT_EQ(NextStep(j), "0/2 TODO 1 (capture the step's kernels once, replay them every step)");
    cJSON_Delete(j);
}

TEST(Lab07, TheReferencePasses) {
    Outcome o = RunLab("solutions/07_cuda_graphs_sim", Args());
    EXPECT_EQ(o.exit_code, 0) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "pass");
    EXPECT_GE(Num(j, "bound_fraction"), 0.97);
    EXPECT_LE(Num(j, "bound_fraction"), 1.03);
    EXPECT_EQ(NextStep(j), "2/2 ");
    cJSON_Delete(j);
    EXPECT_EQ(FindFlat(o.err, "Next:"), std::string::npos) << o.err;
}

TEST(Lab07, AGraphMadeEveryRunIsTheStateAfterTodo1) {
    Outcome o = RunLab("labs/07_cuda_graphs_rebuilt_graph_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_TRUE(Bool(j, "correct"));
    EXPECT_LT(Num(j, "speedup"), Num(j, "target"));
    EXPECT_GT(Num(j, "bound_fraction"), 0.7);
    EXPECT_EQ(NextStep(j), "1/2 TODO 2 (make the graph in setup(), not in run())");
    cJSON_Delete(j);
    EXPECT_NE(FindFlat(o.err, "This is the expected state after TODO 1."), std::string::npos) << o.err;
}

TEST(Lab07, AGraphMadeEveryStepCostsMoreThanItSaves) {
    Outcome o = RunLab("labs/07_cuda_graphs_graph_per_step_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_TRUE(Bool(j, "correct"));
    EXPECT_LT(Num(j, "speedup"), 1.0);
    EXPECT_LT(Num(j, "bound_fraction"), 0.65);
    EXPECT_EQ(NextStep(j), "0/2 TODO 1 (capture the step's kernels once, replay them every step)");
    cJSON_Delete(j);
    EXPECT_NE(FindFlat(o.err, "each step anew pays the capture and instantiation"), std::string::npos) << o.err;
}

TEST(Lab07, AGraphKeepsOnlyTheConcurrencyItWasCapturedWith) {
    Outcome o = RunLab("labs/07_cuda_graphs_one_stream_graph_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_TRUE(Bool(j, "correct"));
    EXPECT_LT(Num(j, "bound_fraction"), 0.75);
    EXPECT_EQ(NextStep(j), "0/2 TODO 1 (capture the step's kernels once, replay them every step)");
    cJSON_Delete(j);
    EXPECT_NE(FindFlat(o.err, "a graph keeps only the concurrency it was captured with"), std::string::npos) << o.err;
}

TEST(Lab07, CopiesCapturedWithStep0sBuffersWriteOnlyStep0) {
    Outcome o = RunLab("labs/07_cuda_graphs_copies_in_graph_sim", Args());
    EXPECT_EQ(o.exit_code, 2) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "incorrect");
    EXPECT_FALSE(Bool(j, "correct"));
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "first_mismatch");
    ASSERT_NE(m, nullptr) << o.out;
    EXPECT_EQ(Num(m, "batch"), 1);
    EXPECT_EQ(Num(m, "got"), 0xdeadbeefu);
    EXPECT_EQ(Num(m, "wrong_batches"), 23);
    EXPECT_EQ(NextStep(j), "1/2 TODO 2 (make the graph in setup(), not in run())");
    cJSON_Delete(j);
    EXPECT_NE(FindFlat(o.err, "a graph freezes the pointers it captured"), std::string::npos) << o.err;
}

// A capture error fails setup(): the student's call and line, the runtime's error, and
// what the capture rule is.
void ExpectCaptureError(const std::string &variant, const std::string &marker, const std::string &error,
                        const std::string &advice) {
    Outcome o = RunLab("labs/07_cuda_graphs_" + variant + "_sim", Args());
    EXPECT_EQ(o.exit_code, 2) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "error");
    cJSON_Delete(j);
    const std::string file = "labs/07_cuda_graphs/testdata/variants.c";
    int line = LineOf(file, marker);
    ASSERT_GT(line, 0) << marker;
    std::string where = file + ":" + std::to_string(line) + ": ";
    EXPECT_NE(FindFlat(o.err, where), std::string::npos) << o.err;
    EXPECT_NE(FindFlat(o.err, "failed: " + error + " ("), std::string::npos) << o.err;
    EXPECT_NE(FindFlat(o.err, "  stream capture: " + advice), std::string::npos) << o.err;
    EXPECT_NE(FindFlat(o.err, "your setup() returned 1"), std::string::npos) << o.err;
}

TEST(Lab07, ASyncInsideTheCaptureIsRefused) {
    ExpectCaptureError("sync_in_capture", "cudaStreamSynchronize(stream_b)", "cudaErrorStreamCaptureUnsupported",
                       "this call is not allowed while a stream is being captured");
}

TEST(Lab07, AForkNeverJoinedBackFailsEndCapture) {
    ExpectCaptureError("not_joined", "cudaStreamEndCapture(stream_a, &graph)", "cudaErrorStreamCaptureUnjoined",
                       "a stream joined the capture");
}

TEST(Lab07, AForkEventRecordedBeforeTheCaptureIsIsolation) {
    ExpectCaptureError("fork_outside_capture", "cudaStreamWaitEvent(stream_a, join_ev, 0)",
                       "cudaErrorStreamCaptureIsolation", "a capturing stream waited on an event recorded outside");
}

}  // namespace
