// labs/07_cuda_graphs/lab_test.cc: lab 07 end to end on the simulated GPU, as a student and
// the grader run it. The skeleton launches every tiny kernel on its own: correct, far below
// the graph bound (exit 1). Graphs made anew every step, instantiated every step from one
// capture, or captured on stream A alone, are still below target with TODO 1 as the next
// step, each told what it captures and instantiates; graphs made once per run() are the
// named state after TODO 1 (exit 1); the reference, a graph per set made in setup() and
// replayed every step, passes (exit 0); made in setup() with a host wait after each step
// (or after each upload too) it is told the wait, its line and cost, and with one set or
// two, that no more steps than sets run at once (exit 1). Graphs that
// captured the first steps' copies write only those steps, and one graph launched for both
// sets computes only set 0's buffer (exit 2), and the capture errors (a sync inside the
// capture, a fork never joined back, a fork event recorded before the capture) fail
// setup() with the call, its line and what the rule is (exit 2). Graphs launched after
// the buffer they were captured with was freed are refused, with the buffer and the line
// that freed it (exit 2); captured again on the new buffer, they are correct (exit 1).
#include "labs/lab_test_support.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace labtest;

const char kVariants[] = "labs/07_cuda_graphs/testdata/variants.c";

TEST(Lab07, TheSkeletonIsCorrectAndBoundByItsLaunches) {
    Outcome o = RunLabOnce("labs/07_cuda_graphs_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "lab"), "07_cuda_graphs");
    EXPECT_EQ(Str(j, "status"), "below_target");
    EXPECT_TRUE(Bool(j, "correct"));
    EXPECT_EQ(Num(j, "races"), 0);
    // The baseline's launches, each a command to the referee (0.3 us to serve on the
    // simulator, as measured on H200s): about 10% slower than the baseline, which makes
    // them in the lab's own process (0.93-0.95x on lent H200s).
    EXPECT_GT(Num(j, "speedup"), 0.85);
    EXPECT_LT(Num(j, "speedup"), 0.95);
    EXPECT_LT(Num(j, "bound_fraction"), 0.45);
    // Launch-bound: the graph bound is several times the direct launches.
    EXPECT_GT(Num(cJSON_GetObjectItemCaseSensitive(j, "bound"), "speedup"), 2.5);
    EXPECT_EQ(NextStep(j), "0/2 TODO 1 (capture the step's kernels once, replay them every step)");
    EXPECT_EQ(Why(j).rfind("your run launches its ", 0), 0u) << Why(j);
    EXPECT_NE(Why(j).find("kernels one by one, and no graph"), std::string::npos) << Why(j);
    cJSON_Delete(j);
}

TEST(Lab07, TheReferencePasses) {
    Outcome o = RunLabOnce("solutions/07_cuda_graphs_sim", Args());
    EXPECT_EQ(o.exit_code, 0) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "pass");
    EXPECT_GE(Num(j, "bound_fraction"), 0.97);
    EXPECT_LE(Num(j, "bound_fraction"), 1.03);
    EXPECT_EQ(NextStep(j), "2/2 ");
    cJSON_Delete(j);
    EXPECT_EQ(FindFlat(o.err, "Next:"), std::string::npos) << o.err;
}

// A run through the referee begins when the student's process has taken it and sent its
// first command: on a lent H200 6-24 us after the run began, where the baseline, in the
// lab's own process, made its first call within 1.2 us. The simulator charges it.
TEST(Lab07, YourRunsBeginLaterThroughTheRefereeThanTheBaselinesInTheLabsProcess) {
    std::string trace = std::string(std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp") +
                        "/lab07_run_start.json";
    Outcome o = RunLab("solutions/07_cuda_graphs_sim", Args({"--trace", trace}));
    ASSERT_EQ(o.exit_code, 0) << o.err;
    std::ifstream f(trace);
    std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    cJSON *root = cJSON_Parse(text.c_str());
    ASSERT_NE(root, nullptr) << trace;
    const cJSON *events = cJSON_GetObjectItemCaseSensitive(root, "traceEvents"), *e;
    std::vector<std::pair<std::string, std::pair<double, double>>> phases;
    std::vector<double> calls;
    cJSON_ArrayForEach(e, events) {
        const char *cat = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "cat"));
        if (!cat) continue;
        double ts = Num(e, "ts");
        if (!strcmp(cat, "phase"))
            phases.push_back({Str(e, "name"), {ts, ts + Num(e, "dur")}});
        else if (!strcmp(cat, "api"))
            calls.push_back(ts);
    }
    cJSON_Delete(root);
    int yours = 0, baseline = 0;
    for (const auto &ph : phases) {
        bool is_yours = ph.first.find("(yours)") != std::string::npos;
        if (!is_yours && ph.first.find("(baseline)") == std::string::npos) continue;
        double first = -1;
        for (double t : calls)
            if (t >= ph.second.first && t <= ph.second.second && (first < 0 || t < first)) first = t;
        ASSERT_GE(first, 0) << ph.first;
        double after_us = first - ph.second.first;
        if (is_yours) {
            yours++;
            EXPECT_GE(after_us, 8.0) << ph.first;
            EXPECT_LE(after_us, 12.0) << ph.first;
        } else {
            baseline++;
            EXPECT_LT(after_us, 2.0) << ph.first;
        }
    }
    EXPECT_GE(yours, 3);
    EXPECT_GE(baseline, 3);
}

TEST(Lab07, AGraphMadeEveryRunIsTheStateAfterTodo1) {
    Outcome o = RunLabOnce("labs/07_cuda_graphs_rebuilt_graph_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_TRUE(Bool(j, "correct"));
    EXPECT_LT(Num(j, "speedup"), Num(j, "target"));
    EXPECT_GT(Num(j, "bound_fraction"), 0.25);
    EXPECT_EQ(NextStep(j), "1/2 TODO 2 (make the graph in setup(), not in run())");
    EXPECT_EQ(Why(j), "cudaGraphInstantiate at " + ShortLine(kVariants, "cudaGraphInstantiate(&q->graph") +
                          " runs 3 times in every run(): each timed run builds the graphs again");
    cJSON_Delete(j);
    EXPECT_NE(FindFlat(o.err, "expected state after"), std::string::npos) << o.err;
}

TEST(Lab07, AGraphMadeEveryStepCostsMoreThanItSaves) {
    Outcome o = RunLabOnce("labs/07_cuda_graphs_graph_per_step_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_TRUE(Bool(j, "correct"));
    EXPECT_LT(Num(j, "speedup"), 1.0);
    EXPECT_LT(Num(j, "bound_fraction"), 0.65);
    EXPECT_EQ(NextStep(j), "0/2 TODO 1 (capture the step's kernels once, replay them every step)");
    std::string n = std::to_string(static_cast<int>(Num(j, "batches")));
    EXPECT_EQ(Why(j), "your run makes a graph for every launch: it captures " + n + " (cudaStreamEndCapture, " +
                          ShortLine(kVariants, "/* the capture ends */") + ") and instantiates " + n +
                          " (cudaGraphInstantiate, " + ShortLine(kVariants, "cudaGraphInstantiate(&q->graph") +
                          ") for " + n + " cudaGraphLaunch, so each step pays a capture and an instantiation");
    cJSON_Delete(j);
}

// Each set's step captured once in setup(), and a graph instantiated from it for every
// step: still TODO 1, and told that it instantiates for every launch and captures nothing
// in run(), not that each step pays a capture; the step's text is the capture and the
// instantiation made once, not "a kernel launched on its own".
TEST(Lab07, AGraphInstantiatedEveryStepFromOneCaptureIsToldItsInstantiations) {
    Outcome o = RunLabOnce("labs/07_cuda_graphs_instantiate_each_step_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_TRUE(Bool(j, "correct"));
    EXPECT_LT(Num(j, "bound_fraction"), 0.25);
    EXPECT_EQ(NextStep(j), "0/2 TODO 1 (capture the step's kernels once, replay them every step)");
    std::string n = std::to_string(static_cast<int>(Num(j, "batches")));
    EXPECT_EQ(Why(j), "your run instantiates a graph for every launch and captures none: cudaGraphInstantiate " + n +
                          " times (" + ShortLine(kVariants, "/* an executable graph a step */") + ") for " + n +
                          " cudaGraphLaunch, from graphs captured before run(), so each step pays an instantiation");
    cJSON_Delete(j);
    EXPECT_NE(FindFlat(o.err, "instantiate it once, and launch that executable graph (its cudaGraphExec_t) for every "
                              "step"),
              std::string::npos)
        << o.err;
    EXPECT_EQ(FindFlat(o.err, "launched on its own"), std::string::npos) << o.err;
    EXPECT_EQ(FindFlat(o.err, "pays a capture"), std::string::npos) << o.err;
}

TEST(Lab07, AGraphKeepsOnlyTheConcurrencyItWasCapturedWith) {
    Outcome o = RunLabOnce("labs/07_cuda_graphs_one_stream_graph_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_TRUE(Bool(j, "correct"));
    EXPECT_LT(Num(j, "bound_fraction"), 0.75);
    EXPECT_EQ(NextStep(j), "0/2 TODO 1 (capture the step's kernels once, replay them every step)");
    EXPECT_EQ(Why(j).rfind("your graph runs all of its kernels on one stream", 0), 0u) << Why(j);
    EXPECT_NE(Why(j).find("a graph keeps only the concurrency it was captured with"), std::string::npos) << Why(j);
    cJSON_Delete(j);
}

TEST(Lab07, CopiesCapturedWithTheFirstStepsBuffersWriteOnlyThoseSteps) {
    Outcome o = RunLabOnce("labs/07_cuda_graphs_copies_in_graph_sim", Args());
    EXPECT_EQ(o.exit_code, 2) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "incorrect");
    EXPECT_FALSE(Bool(j, "correct"));
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "first_mismatch");
    ASSERT_NE(m, nullptr) << o.out;
    // Set 0's graph copies step 0, set 1's step 1, set 2's step 2: step 3 is the first never
    // written.
    EXPECT_EQ(Num(m, "batch"), 3);
    EXPECT_EQ(Num(m, "got"), 0xdeadbeefu);
    EXPECT_EQ(Num(m, "wrong_batches"), Num(j, "batches") - 3);
    // The graph is made in setup() and replayed: both TODOs are done, and what is wrong is
    // the copies it froze.
    EXPECT_EQ(NextStep(j), "2/2 ");
    EXPECT_EQ(Advice(j).rfind("your graph is made once and replayed, and your run makes no copy of its own", 0), 0u)
        << Advice(j);
    EXPECT_NE(Advice(j).find("froze the pointers it captured"), std::string::npos) << Advice(j);
    cJSON_Delete(j);
}

// Graphs made once in setup() and replayed, and the host waiting for the step's stream A
// after every step (and after every upload too): both TODOs are done (not "you capture
// inside run()"), and the wait that costs the time is named with its line and cost. The
// wait keeps the next step from overlapping this one: well below the target.
void ExpectToldTheWait(const std::string &variant, double below) {
    Outcome o = RunLabOnce("labs/07_cuda_graphs_" + variant + "_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "below_target");
    EXPECT_LT(Num(j, "bound_fraction"), below);
    EXPECT_EQ(NextStep(j), "2/2 ");
    const std::string call = "cudaStreamSynchronize(one of 3 streams)";
    std::string line = ShortLine(kVariants, "/* to be sure the step is done */");
    EXPECT_EQ(Advice(j).rfind(call + " at " + line + " held the host", 0), 0u) << Advice(j);
    ExpectBlamed(Blamed(j), call, kVariants, "/* to be sure the step is done */");
    EXPECT_GE(Num(Blamed(j), "on_path"), Num(j, "batches") - 1);
    EXPECT_EQ(OverSynced(j).rfind(call + " at " + line, 0), 0u) << OverSynced(j);
    cJSON_Delete(j);
    EXPECT_EQ(FindFlat(o.err, "inside run()"), std::string::npos) << o.err;
}

TEST(Lab07, AGraphMadeInSetupWithAHostWaitEachStepIsToldTheWait) { ExpectToldTheWait("step_synced", 0.45); }

TEST(Lab07, AGraphMadeInSetupWithTwoHostWaitsEachStepIsToldTheWait) {
    ExpectToldTheWait("setup_graph_synced", 0.4);
}

// Every step on set 0: correct, both TODOs done, and told that its steps queue behind one
// another on one stream, and how long a step takes there.
TEST(Lab07, OneSetForEveryStepIsToldItsStepsQueue) {
    Outcome o = RunLabOnce("labs/07_cuda_graphs_one_set_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_TRUE(Bool(j, "correct"));
    EXPECT_LT(Num(j, "bound_fraction"), 0.65);
    EXPECT_EQ(NextStep(j), "2/2 ");
    const std::string a = Advice(j);
    EXPECT_EQ(a.rfind("every step of your run goes up, through its graph and down on one stream (\"A0\"), so each "
                      "step waits for the one before it to come back. A step takes ",
                      0),
              0u)
        << a;
    EXPECT_NE(a.find(" us from its upload's start to its download's end, and the stream runs its " +
                     std::to_string(static_cast<int>(Num(j, "batches"))) + " steps that way, one after another. "
                     "Give step s the set s % 3 "),
              std::string::npos)
        << a;
    cJSON_Delete(j);
}

// Two sets instead of three: correct, both TODOs done, and below the target, which the
// lab's three sets set. What costs the time is on its timeline: each step waits on its
// stream for the step two back to come down, so no more than two steps are on the device,
// each taking about as long there as with three sets; it is told so, and to use the third.
TEST(Lab07, TwoSetsAreToldNoMoreThanTwoStepsRunAtOnce) {
    Outcome o = RunLabOnce("labs/07_cuda_graphs_two_sets_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "below_target");
    EXPECT_TRUE(Bool(j, "correct"));
    EXPECT_EQ(Num(j, "races"), 0);
    // Two steps at a time where the bound runs three: about two thirds of it.
    EXPECT_GT(Num(j, "bound_fraction"), 0.6);
    EXPECT_LT(Num(j, "bound_fraction"), Num(j, "target_bound_fraction"));
    EXPECT_EQ(NextStep(j), "2/2 ");
    const std::string a = Advice(j);
    EXPECT_EQ(a.rfind("every step of your run goes up, through its graph and down on one of 2 streams (\"A0\", "
                      "\"A1\"), behind the step 2 before it on the same stream: its upload waits for that step to "
                      "come back, so no more than 2 steps are ever on the device. A step takes ",
                      0),
              0u)
        << a;
    // The step's time on the device, and the steps each stream runs: together, the run.
    size_t at = a.find("A step takes ");
    ASSERT_NE(at, std::string::npos);
    double step_us = std::stod(a.substr(at + 13));
    EXPECT_NE(a.find(" us from its upload's start to its download's end, and each stream runs up to 12 steps that way, "
                     "one after another. Give step s the set s % 3 (its streams, its buffer and a graph captured on "
                     "that buffer), as the skeleton does: 3 steps then run side by side"),
              std::string::npos)
        << a;
    EXPECT_NEAR(12 * step_us / 1e3, Num(cJSON_GetObjectItemCaseSensitive(j, "timings"), "yours_median_ms"),
                0.05 * 12 * step_us / 1e3);
    cJSON_Delete(j);
}

// One graph for every set: launched on set 1's stream it works on set 0's buffer, beside
// set 0's own step, with no order between them: a race, and wrong results from step 0 on.
TEST(Lab07, OneGraphForEverySetRacesOnSet0sBuffer) {
    Outcome o = RunLabOnce("labs/07_cuda_graphs_one_graph_sim", Args());
    EXPECT_EQ(o.exit_code, 2) << o.err;
    cJSON *j = Json(o);
    EXPECT_FALSE(Bool(j, "correct"));
    EXPECT_GT(Num(j, "races"), 0);
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "first_mismatch");
    ASSERT_NE(m, nullptr) << o.out;
    EXPECT_EQ(Num(m, "batch"), 0);
    EXPECT_NE(Str(m, "why").find("on \"A1\" may read what kernel process batch 0 on \"A0\" has not written yet"),
              std::string::npos)
        << Str(m, "why");
    cJSON_Delete(j);
}

// Each step's graph launched on stream B, with nothing ordering it after the upload on A:
// the kernels read the batch before it is up, on B (the graph's first branch) and on the
// graph's own stream beside it (its second). Each race's fix orders the launch with the
// copies; none says to record elsewhere the fork event the graph records and waits on
// between its own nodes, which the program placed in the capture and cannot move.
TEST(Lab07, AGraphLaunchedOnAnotherStreamThanItsCopiesIsToldToOrderTheLaunch) {
    Outcome o = RunLabOnce("labs/07_cuda_graphs_launch_on_b_sim", Args());
    EXPECT_EQ(o.exit_code, 2) << o.err;
    cJSON *j = Json(o);
    ASSERT_NE(j, nullptr) << o.out;
    EXPECT_FALSE(Bool(j, "correct"));
    EXPECT_GT(Num(j, "races"), 0);
    const cJSON *reports = cJSON_GetObjectItemCaseSensitive(j, "race_reports");
    ASSERT_GT(cJSON_GetArraySize(reports), 2);
    bool branch = false;
    const cJSON *r;
    cJSON_ArrayForEach(r, reports) {
        const std::string fix = Str(r, "fix");
        EXPECT_NE(fix.find("the graph launch that runs kernel process batch "), std::string::npos) << fix;
        EXPECT_EQ(fix.find("waits on event"), std::string::npos) << fix;
        EXPECT_EQ(cJSON_GetObjectItemCaseSensitive(r, "wrong_stream_record"), nullptr) << fix;
        branch |= Str(r, "second_stream").find("(graph)") != std::string::npos;
        if (Str(r, "kind") == "RAW") {
            EXPECT_EQ(fix, "record an event on \"A0\" after H2D batch 0 and make \"B0\" wait on it "
                           "(cudaStreamWaitEvent) before the graph launch that runs kernel process batch 0");
        }
    }
    EXPECT_TRUE(branch) << "a race of the graph's second branch is among those shown";
    cJSON_Delete(j);
}

// A graph keeps the addresses it was captured with. Graphs made in setup() and launched
// after run() freed the buffer they were captured with: the referee refuses the launch
// (never runs the kernels on memory that is no longer the program's, which on the
// simulator is its own), and says which buffer and which line freed it, as it refuses a
// kernel launched on a freed buffer. The same fresh buffers with each graph captured again
// on its new buffer are correct.
TEST(Lab07, AGraphLaunchedAfterItsBufferWasFreedIsRefused) {
    Outcome o = RunLabOnce("labs/07_cuda_graphs_freed_before_replay_sim", Args());
    EXPECT_EQ(o.exit_code, 2) << o.err;
    cJSON *j = Json(o);
    ASSERT_NE(j, nullptr) << o.out;
    EXPECT_EQ(Str(j, "status"), "error");
    const std::string freed = std::string(kVariants) + ":" + std::to_string(LineOf(kVariants, "/* the graph's buffer, freed */"));
    const std::string said =
        "cudaGraphLaunch of a graph whose kernels_process was captured on device memory that is no longer the "
        "program's (the ";
    std::string refused = Str(j, "refused");
    EXPECT_EQ(refused.rfind(said, 0), 0u) << refused;
    EXPECT_NE(refused.find(" bytes at 0x"), std::string::npos) << refused;
    EXPECT_NE(refused.find(", freed by cudaFree at " + freed + "; a graph keeps the addresses it was captured with)"),
              std::string::npos)
        << refused;
    EXPECT_NE(Str(j, "error").find("(the referee refused: " + said), std::string::npos) << Str(j, "error");
    cJSON_Delete(j);
    // The student's failed call; nothing crashed.
    EXPECT_NE(FindFlat(o.err, ": cudaGraphLaunch(q->graph, q->a) failed: cudaErrorInvalidValue"), std::string::npos)
        << o.err;
    EXPECT_EQ(FindFlat(o.err, "crashed"), std::string::npos) << o.err;
}

TEST(Lab07, AGraphCapturedAgainOnAFreshBufferIsCorrect) {
    Outcome o = RunLabOnce("labs/07_cuda_graphs_recaptured_after_realloc_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    ASSERT_NE(j, nullptr) << o.out;
    EXPECT_EQ(Str(j, "status"), "below_target");
    EXPECT_TRUE(Bool(j, "correct"));
    EXPECT_EQ(Num(j, "races"), 0);
    EXPECT_EQ(Str(j, "refused"), "") << "nothing to refuse";
    cJSON_Delete(j);
}

// A capture error fails setup(): the student's call and line, the runtime's error, and
// what the capture rule is.
void ExpectCaptureError(const std::string &variant, const std::string &marker, const std::string &error,
                        const std::string &advice) {
    Outcome o = RunLabOnce("labs/07_cuda_graphs_" + variant + "_sim", Args());
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
    ExpectCaptureError("sync_in_capture", "cudaStreamSynchronize(q->b)", "cudaErrorStreamCaptureUnsupported",
                       "this call is not allowed while a stream is being captured");
}

TEST(Lab07, AForkNeverJoinedBackFailsEndCapture) {
    ExpectCaptureError("not_joined", "cudaStreamEndCapture(q->a, &graph)", "cudaErrorStreamCaptureUnjoined",
                       "a stream joined the capture");
}

TEST(Lab07, AForkEventRecordedBeforeTheCaptureIsIsolation) {
    ExpectCaptureError("fork_outside_capture", "cudaStreamWaitEvent(q->a, q->join_ev, 0)",
                       "cudaErrorStreamCaptureIsolation", "a capturing stream waited on an event recorded outside");
}

// Every variant's advice comes from what it does: where it stands, and the wait the blame
// puts first with its line (the final wait, or the costly one).
TEST(Lab07, EveryVariantIsAdvisedByWhatItDoes) {
    const std::string v = kVariants, last = "/* every step queued */";
    const std::string todo1 = "0/2 TODO 1 (capture the step's kernels once, replay them every step)";
    const std::string sync = "cudaStreamSynchronize(one of 3 streams)";
    // The reference's launch (labs/07_cuda_graphs/testdata/variants.c).
    const std::string fork = "cudaStreamWaitEvent(one of 6 streams)", launch = "/* the set's graph, on its A */";
    for (const AdviceCase &c : std::vector<AdviceCase>{
             {"labs/07_cuda_graphs_graph_per_step_sim", todo1, sync, v, last, false},
             {"labs/07_cuda_graphs_one_stream_graph_sim", todo1, sync, v, last, false},
             // Three graphs launched in turn, each holding its branch stream between its fork
             // and its join: that wait (at the launch's line) held streams longer than the
             // final synchronisation held the host, and neither cost the run anything.
             {"labs/07_cuda_graphs_rebuilt_graph_sim", "1/2 TODO 2 (make the graph in setup(), not in run())",
              fork, v, launch, false},
             {"labs/07_cuda_graphs_copies_in_graph_sim", "2/2 ", fork, v, launch, false},
             {"labs/07_cuda_graphs_setup_graph_synced_sim", "2/2 ", sync, v,
              "/* to be sure the step is done */", true},
         })
        ExpectAdvice(c, Args());
}

}  // namespace
