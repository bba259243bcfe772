// labs/00_default_stream/lab_test.cc: lab 00 end to end on the simulated GPU, as a student
// and the grader run it. The untouched skeleton is correct but serial (exit 1); a stream
// per task made with cudaStreamCreate is still serialised by the stream-0 memset between
// tasks, and the report says so (exit 1); non-blocking streams with run() still ending in
// cudaStreamSynchronize(0) return before the results exist (exit 2, and the report names
// the streams still busy); moving the memset onto the task streams races on the shared
// block (exit 2); two streams for four tasks reach half the bound (exit 1); a file compiled
// with CUDA_API_PER_THREAD_DEFAULT_STREAM links and runs, its 0 being the per-thread
// default stream: the skeleton so is still serial (exit 1), and TODO 1's blocking streams so
// are no longer held back by the memset (exit 0); the reference passes (exit 0). Programs that
// go wrong another way are advised by what they do: two buffers for four tasks (exit 2) by
// the buffers, not TODO 3; a wait on one event recorded on every stream (exit 2) by that
// wait; a cudaFree in the loop (exit 1) by allocating in setup(); and a memset that waited
// for a task on cudaStreamPerThread but held none back (exit 0) is not said to hold any.
#include "labs/lab_test_support.h"

#include <cstdlib>
#include <string>
#include <vector>

namespace {

using namespace labtest;

TEST(Lab00, TheSkeletonIsCorrectButSerial) {
    Outcome o = RunLabOnce("labs/00_default_stream_sim", Args());
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
    Outcome o = RunLabOnce("solutions/00_default_stream_sim", Args());
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


TEST(Lab00, TheSkeletonStandsAtTheFirstStep) {
    Outcome o = RunLabOnce("labs/00_default_stream_sim", Args());
    cJSON *j = Json(o);
    EXPECT_EQ(NextStep(j), "0/3 TODO 1 (a stream per task)");
    // Everything is on stream 0 and nothing else runs: no stream-0 stall to report.
    EXPECT_EQ(Num(cJSON_GetObjectItemCaseSensitive(j, "stream0_stalls"), "count"), 0);
    cJSON_Delete(j);
    EXPECT_NE(FindFlat(o.err, "Next: TODO 1 (a stream per task)"), std::string::npos) << o.err;
}

TEST(Lab00, BlockingStreamsAreStillSerialisedByStreamZeroAndTheReportSaysSo) {
    Outcome o = RunLabOnce("labs/00_default_stream_blocking_streams_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "below_target");
    EXPECT_LT(Num(j, "speedup"), 1.1);
    EXPECT_EQ(NextStep(j), "1/3 TODO 2 (streams that stream 0 cannot hold back)");
    // Each memset between tasks waited for one task's stream and held back the next one's,
    // named as the student named the streams.
    cJSON *stalls = cJSON_GetObjectItemCaseSensitive(j, "stream0_stalls");
    EXPECT_GE(Num(stalls, "count"), 3);
    const char *first = cJSON_GetStringValue(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(stalls, "first"), 0));
    ASSERT_NE(first, nullptr);
    // "stream 0 memset after task 0 waited 2.3 ms for "task 0", and held back "task 1" for 2.3 ms":
    // about one task's time each way.
    std::string line = first;
    EXPECT_EQ(line.rfind("stream 0 memset after task 0 waited ", 0), 0u) << line;
    EXPECT_NE(line.find(" ms for \"task 0\", and held back \"task 1\" for "), std::string::npos) << line;
    double waited = std::atof(line.c_str() + std::string("stream 0 memset after task 0 waited ").size());
    cJSON *tasks = cJSON_GetObjectItemCaseSensitive(j, "tasks_us");
    EXPECT_NEAR(waited, Num(tasks, "one_task") / 1000, 0.15) << line;
    // It ends with the student's line: the memset call.
    const std::string file = "labs/00_default_stream/testdata/variants.c";
    size_t at = line.rfind(" (" + file + ":");
    ASSERT_NE(at, std::string::npos) << line;
    int n = std::atoi(line.c_str() + at + file.size() + 3);
    EXPECT_NE(LineText(file, n).find("cudaMemset"), std::string::npos) << LineText(file, n);
    // Every memset but the last held the next task back; the last only waited for task 3,
    // and the report's stream 0 line tells the two apart.
    int count = static_cast<int>(Num(stalls, "count")), held = static_cast<int>(Num(stalls, "held"));
    EXPECT_EQ(held, count - 1);
    cJSON_Delete(j);
    EXPECT_NE(FindFlat(o.err, "  stream 0   " + std::to_string(count) + " operations on the legacy default stream: " +
                                  std::to_string(held) + " held your streams back, 1 only waited for them:"),
              std::string::npos)
        << o.err;
}

TEST(Lab00, NonBlockingStreamsWithoutWaitingForThemAreWrong) {
    Outcome o = RunLabOnce("labs/00_default_stream_no_wait_sim", Args());
    EXPECT_EQ(o.exit_code, 2) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "incorrect");
    cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "first_mismatch");
    EXPECT_NE(Str(m, "why").find("never written"), std::string::npos) << Str(m, "why");
    EXPECT_GT(Num(j, "races"), 0);
    EXPECT_EQ(NextStep(j), "2/3 TODO 3 (wait for every stream)");
    EXPECT_EQ(Str(j, "busy_at_return"), "\"task 0\", \"task 1\", \"task 2\", \"task 3\"");
    cJSON_Delete(j);
    // The speed of wrong results is not held up as an achievement, and the report says
    // which streams run() left running, and that this is the step after TODO 2.
    EXPECT_NE(FindFlat(o.err, "not counted: the results are wrong"), std::string::npos) << o.err;
    EXPECT_NE(FindFlat(o.err, "run() returned while \"task 0\", \"task 1\", \"task 2\", \"task 3\" still had work"),
              std::string::npos)
        << o.err;
    EXPECT_NE(FindFlat(o.err, "This is the expected state after TODO 2:"), std::string::npos) << o.err;
    EXPECT_NE(FindFlat(o.err, "Why: run() ends with cudaStreamSynchronize(stream 0)"), std::string::npos) << o.err;
}

// Every step done, but four tasks on two device buffers: the results are wrong because
// streams overwrite each other's values, not because run() returned early (it waits for
// every stream), and the advice is about the buffers, not TODO 3.
TEST(Lab00, SharedBuffersAreAdvisedAsSharedBuffersNotAsAMissingWait) {
    Outcome o = RunLabOnce("labs/00_default_stream_shared_buffers_sim", Args());
    EXPECT_EQ(o.exit_code, 2) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "incorrect");
    EXPECT_EQ(NextStep(j), "3/3 ");
    EXPECT_EQ(Str(j, "busy_at_return"), "");
    bool between_streams = false, host_read = false;
    cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(j, "race_reports")) {
        between_streams |= Str(r, "first_stream") != Str(r, "second_stream") && Str(r, "kind") != "host_read";
        host_read |= Str(r, "kind") == "host_read";
    }
    EXPECT_TRUE(between_streams) << o.err;
    EXPECT_FALSE(host_read) << o.err;
    // NUM_BUFS in the variant: two buffers, each written by two streams.
    EXPECT_EQ(Advice(j).rfind("your streams share device buffers: 2 buffers are written by the copies or kernels of "
                              "more than one stream",
                              0),
              0u)
        << Advice(j);
    EXPECT_NE(Advice(j).find("Give each task a buffer of its own, allocated in setup()"), std::string::npos)
        << Advice(j);
    cJSON_Delete(j);
    EXPECT_EQ(FindFlat(o.err, "TODO 3"), std::string::npos) << o.err;
    EXPECT_EQ(FindFlat(o.err, "cudaStreamSynchronize(0)"), std::string::npos) << o.err;
}

// One event recorded again on every task's stream, and run() ending with
// cudaEventSynchronize on it: the wait covers the last task's stream only, whatever the
// seed (on some the results happen to be right, on some not), and the advice names that
// wait, not the skeleton's cudaStreamSynchronize(0).
TEST(Lab00, AnEventOfTheLastStreamOnlyIsAdvisedAsTheWaitItIs) {
    const std::string v = "labs/00_default_stream/testdata/variants.c";
    const std::string at = ShortLine(v, "LAB_CHECK(cudaEventSynchronize(done));");
    for (const char *seed : {"21", "22", "23"}) {
        Outcome o = RunLabOnce("labs/00_default_stream_last_event_only_sim",
                               {"--seed", seed, "--runs", "3", "--schedules", "2", "--json", "--events-fd", "3"});
        EXPECT_EQ(o.exit_code, 2) << seed << o.err;
        cJSON *j = Json(o);
        EXPECT_GT(Num(j, "races"), 0) << seed;
        EXPECT_EQ(NextStep(j), "2/3 TODO 3 (wait for every stream)") << seed;
        EXPECT_EQ(Why(j),
                  "run() ends with cudaEventSynchronize() at " + at +
                      ", which waits only for what was queued on \"task 3\" before its event's last record: nothing "
                      "had waited for the work of \"task 0\", \"task 1\" and \"task 2\" when their results were "
                      "read")
            << seed;
        cJSON_Delete(j);
        EXPECT_EQ(FindFlat(o.err, "cudaStreamSynchronize(0)"), std::string::npos) << seed << o.err;
        EXPECT_NE(FindFlat(o.err, "Next: TODO 3 (wait for every stream): the harness reads your results as soon as "
                                  "run() returns"),
                  std::string::npos)
            << seed << o.err;
    }
}

// cudaFree in run()'s loop waits for the whole device: the tasks queued after it cannot
// overlap those before. The advice is to allocate in setup() and free in teardown(), not
// to order streams with events.
TEST(Lab00, AFreeInTheLoopIsAdvisedAsAnAllocation) {
    const std::string v = "labs/00_default_stream/testdata/variants.c";
    Outcome o = RunLabOnce("labs/00_default_stream_malloc_per_task_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "below_target");
    EXPECT_EQ(NextStep(j), "3/3 ");
    const std::string said = OverSynced(j);
    EXPECT_EQ(said.rfind("cudaFree() at " + ShortLine(v, "if (prev) LAB_CHECK(cudaFree(prev)); /* the task before's") +
                             " held the host",
                         0),
              0u)
        << said;
    EXPECT_EQ(Advice(j), said +
                             ", before your run had queued all its work: cudaFree waits for all the work on the device "
                             "before it returns, so nothing you queue after it overlaps what you queued before it. "
                             "Instead, allocate each device buffer once, in setup() (cudaMalloc), and free it in "
                             "teardown() (cudaFree), not in run().");
    cJSON_Delete(j);
    EXPECT_EQ(FindFlat(o.err, "cudaStreamWaitEvent"), std::string::npos) << o.err;
}

// Task 0 on cudaStreamPerThread, which is blocking: the memset after it waits for it, and
// holds nothing back, since the other tasks' streams are non-blocking and no later work is
// on the per-thread stream. The stream 0 line says it waited, not that it held streams back,
// and TODO 2 counts as done.
TEST(Lab00, AStreamZeroOperationThatOnlyWaitedIsNotSaidToHoldStreamsBack) {
    Outcome o = RunLabOnce("labs/00_default_stream_per_thread_task0_sim", Args());
    EXPECT_EQ(o.exit_code, 0) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "pass");
    EXPECT_EQ(NextStep(j), "3/3 ");
    cJSON *stalls = cJSON_GetObjectItemCaseSensitive(j, "stream0_stalls");
    EXPECT_EQ(Num(stalls, "count"), 1);
    EXPECT_EQ(Num(stalls, "held"), 0);
    const char *first = cJSON_GetStringValue(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(stalls, "first"), 0));
    ASSERT_NE(first, nullptr);
    std::string line = first;
    EXPECT_EQ(line.rfind("stream 0 memset after task 0 waited ", 0), 0u) << line;
    EXPECT_NE(line.find(" for \"per-thread\""), std::string::npos) << line;
    EXPECT_EQ(line.find("held back"), std::string::npos) << line;
    // The student's memset, not the harness's work.
    const std::string file = "labs/00_default_stream/testdata/variants.c";
    size_t at = line.rfind(" (" + file + ":");
    ASSERT_NE(at, std::string::npos) << line;
    const std::string memset = LineText(file, std::atoi(line.c_str() + at + file.size() + 3));
    EXPECT_NE(memset.find("cudaMemsetAsync(d_stats, 0, STATS_BYTES, 0)"), std::string::npos) << memset;
    cJSON_Delete(j);
    EXPECT_NE(FindFlat(o.err, "  stream 0   1 operation on the legacy default stream waited for your streams, and "
                              "held none of them back:"),
              std::string::npos)
        << o.err;
    EXPECT_EQ(FindFlat(o.err, "held your streams back"), std::string::npos) << o.err;
}

TEST(Lab00, TheReferenceHasDoneEveryStep) {
    Outcome o = RunLabOnce("solutions/00_default_stream_sim", Args());
    cJSON *j = Json(o);
    EXPECT_EQ(NextStep(j), "3/3 ");
    cJSON_Delete(j);
    EXPECT_EQ(FindFlat(o.err, "Next:"), std::string::npos) << o.err;
}

// --hint gives the step's hints one tier at a time, remembered between runs, and starts
// again at the first tier when the student moves on to another step.
TEST(Lab00, HintsComeInTiers) {
    std::string state = std::string(std::getenv("TEST_TMPDIR")) + "/hint_state";
    setenv("XDG_STATE_HOME", state.c_str(), 1);
    std::vector<std::string> hint = {"--seed", "7", "--runs", "1", "--schedules", "0", "--hint"};
    Outcome a = RunLab("labs/00_default_stream_blocking_streams_sim", hint);
    Outcome b = RunLab("labs/00_default_stream_blocking_streams_sim", hint);
    Outcome c = RunLab("labs/00_default_stream_blocking_streams_sim", hint);
    Outcome d = RunLab("labs/00_default_stream_blocking_streams_sim", hint);
    Outcome e = RunLab("labs/00_default_stream_no_wait_sim", hint);
    unsetenv("XDG_STATE_HOME");
    EXPECT_EQ(a.exit_code, 1) << a.err;
    EXPECT_NE(FindFlat(a.out, "BELOW TARGET"), std::string::npos) << a.out;
    EXPECT_NE(FindFlat(a.out, "You are at TODO 2 (streams that stream 0 cannot hold back)."), std::string::npos) << a.out;
    EXPECT_NE(FindFlat(a.out, "Hint 1 of 3 (a question):"), std::string::npos) << a.out;
    EXPECT_NE(FindFlat(b.out, "Hint 2 of 3 (the idea):"), std::string::npos) << b.out;
    EXPECT_NE(FindFlat(c.out, "Hint 3 of 3 (the shape of the code):"), std::string::npos) << c.out;
    EXPECT_NE(FindFlat(c.out, "cudaStreamNonBlocking"), std::string::npos) << c.out;
    EXPECT_NE(FindFlat(d.out, "Hint 3 of 3"), std::string::npos) << "the last tier stays:\n" << d.out;
    EXPECT_EQ(e.exit_code, 2);
    EXPECT_NE(FindFlat(e.out, "You are at TODO 3 (wait for every stream)."), std::string::npos) << e.out;
    EXPECT_NE(FindFlat(e.out, "Hint 1 of 3 (a question):"), std::string::npos) << e.out;
    // The hint replaces the report: no timeline, no race details.
    EXPECT_EQ(FindFlat(e.out, "race 1:"), std::string::npos) << e.out;
    // Its verdict line sends the student to the option they gave, not to one they did not.
    EXPECT_NE(FindFlat(e.out, "(run without --hint to see"), std::string::npos) << e.out;
    EXPECT_EQ(FindFlat(e.out, "--quiet"), std::string::npos) << e.out;
    Outcome q = RunLab("labs/00_default_stream_no_wait_sim", {"--seed", "7", "--runs", "1", "--schedules", "0", "--quiet"});
    EXPECT_EQ(q.exit_code, 2);
    EXPECT_NE(FindFlat(q.out, "(run without --quiet to see"), std::string::npos) << q.out;
}

TEST(Lab00, ClearingOneSharedBlockFromEveryTaskStreamRaces) {
    Outcome o = RunLabOnce("labs/00_default_stream_memset_on_task_streams_sim", Args());
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
    Outcome o = RunLabOnce("labs/00_default_stream_two_streams_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "below_target");
    EXPECT_NEAR(Num(j, "bound_fraction"), 0.5, 0.05);
    cJSON_Delete(j);
}

// The streams that carried the stream work (copies, kernels, memsets) of the student's runs
// (the runs labelled "(yours)"), by kind of op, from the event stream; and which of those
// streams is the per-thread default stream.
struct YourStreams {
    std::map<std::string, std::set<int>> by_kind;  // "kernel" -> stream ids
    std::set<int> per_thread;                       // stream ids marked per_thread
    std::set<int> legacy;
};

YourStreams StreamsOfYourRuns(const std::string &events) {
    YourStreams y;
    std::map<int64_t, std::string> label;
    std::vector<trace_op> ops;
    trace_events_reader *r = trace_events_reader_create(nullptr);
    trace_events_reader_feed(r, events.data(), events.size());
    trace_events_reader_end(r);
    trace_event ev;
    char err[512];
    int rc;
    while ((rc = trace_events_reader_next(r, &ev, err, sizeof(err))) != 0) {
        if (rc < 0) continue;
        if (ev.type == TRACE_EVENT_PROGRESS) label[ev.u.progress.done + 1] = ev.u.progress.text;
        if (ev.type == TRACE_EVENT_STREAM && ev.u.stream.per_thread) y.per_thread.insert(ev.u.stream.id);
        if (ev.type == TRACE_EVENT_STREAM && ev.u.stream.legacy) y.legacy.insert(ev.u.stream.id);
        if (ev.type == TRACE_EVENT_OP && trace_op_kind_is_stream_work(ev.u.op.kind)) ops.push_back(ev.u.op);
    }
    trace_events_reader_destroy(r);
    for (const trace_op &op : ops) {
        auto l = label.find(op.run);
        if (l == label.end() || l->second.find("(yours)") == std::string::npos) continue;
        const char *kind = op.kind == TRACE_OP_KERNEL ? "kernel" : op.kind == TRACE_OP_COPY ? "copy" : "memset";
        y.by_kind[kind].insert(op.stream);
    }
    return y;
}

// The skeleton in a file that defines CUDA_API_PER_THREAD_DEFAULT_STREAM before its includes:
// it links (the client has every per-thread entry point, and kernels.h's launches follow the
// define), and every 0 in it, the implicit one of run()'s final wait too, is the per-thread
// default stream, not the legacy one. Still one stream for every task: serial, below target,
// and the report says which stream the tasks share.
TEST(Lab00, ThePerThreadDefaultStreamIsStillOneQueue) {
    Outcome o = RunLabOnce("labs/00_default_stream_per_thread_define_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "below_target");
    EXPECT_TRUE(Bool(j, "correct"));
    EXPECT_EQ(Num(j, "races"), 0);
    EXPECT_NEAR(Num(j, "speedup"), 1.0, 0.05);
    EXPECT_EQ(NextStep(j), "0/3 TODO 1 (a stream per task)");
    EXPECT_NE(Why(j).find("your 4 tasks' 16 kernels all go to the per-thread default stream (\"per-thread\": "
                          "cudaStreamPerThread"),
              std::string::npos)
        << Why(j);
    // Nothing on the legacy stream, so nothing it held back.
    EXPECT_EQ(Num(cJSON_GetObjectItemCaseSensitive(j, "stream0_stalls"), "count"), 0);
    // run()'s cudaStreamSynchronize(0) waited for the per-thread stream, at the student's line.
    ExpectBlamed(Blamed(j), "cudaStreamSynchronize(\"per-thread\")", "labs/00_default_stream/testdata/variants.c",
                 "LAB_CHECK(cudaStreamSynchronize(0));");
    cJSON_Delete(j);
    YourStreams y = StreamsOfYourRuns(o.events);
    ASSERT_EQ(y.per_thread.size(), 1u);
    int pt = *y.per_thread.begin();
    for (const char *kind : {"copy", "kernel", "memset"})
        EXPECT_EQ(y.by_kind[kind], std::set<int>{pt}) << kind << "s of your runs are on the per-thread stream only";
    EXPECT_NE(FindFlat(o.err, "Why: your 4 tasks' 16 kernels all go to the per-thread default stream"), std::string::npos)
        << o.err;
}

// TODO 1's blocking streams, each waited for, in a file with the define: the memset's 0 is
// the per-thread default stream, which synchronises with the legacy stream only, so it
// neither waits for the task streams nor holds them back, and the tasks overlap.
TEST(Lab00, APerThreadStreamZeroDoesNotHoldBlockingStreamsBack) {
    Outcome o = RunLabOnce("labs/00_default_stream_per_thread_blocking_streams_sim", Args());
    EXPECT_EQ(o.exit_code, 0) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "pass");
    EXPECT_GT(Num(j, "bound_fraction"), 0.9);
    EXPECT_EQ(Num(cJSON_GetObjectItemCaseSensitive(j, "stream0_stalls"), "count"), 0);
    cJSON_Delete(j);
    YourStreams y = StreamsOfYourRuns(o.events);
    ASSERT_EQ(y.per_thread.size(), 1u);
    int pt = *y.per_thread.begin();
    EXPECT_EQ(y.by_kind["memset"], std::set<int>{pt});
    EXPECT_EQ(y.by_kind["kernel"].size(), 4u);
    EXPECT_EQ(y.by_kind["kernel"].count(pt), 0u);
    for (int legacy : y.legacy)
        for (const char *kind : {"copy", "kernel", "memset"}) EXPECT_EQ(y.by_kind[kind].count(legacy), 0u) << kind;
}

// Every variant's advice comes from what it does: where it stands, and the wait the blame
// puts first with its line (run()'s final wait on stream 0, or on each task's stream).
TEST(Lab00, EveryVariantIsAdvisedByWhatItDoes) {
    const std::string lab = "labs/00_default_stream/lab.c", v = "labs/00_default_stream/testdata/variants.c";
    const std::string on0 = "LAB_CHECK(cudaStreamSynchronize(0));";
    const std::string each = "s < n_streams; s++) LAB_CHECK(cudaStreamSynchronize(streams[s]));";
    for (const AdviceCase &c : std::vector<AdviceCase>{
             {"labs/00_default_stream_sim", "0/3 TODO 1 (a stream per task)", "cudaStreamSynchronize(stream 0)", lab,
              on0, false},
             {"labs/00_default_stream_blocking_streams_sim", "1/3 TODO 2 (streams that stream 0 cannot hold back)",
              "cudaStreamSynchronize(stream 0)", v, on0, false},
             {"labs/00_default_stream_no_wait_sim", "2/3 TODO 3 (wait for every stream)",
              "cudaStreamSynchronize(stream 0)", v, on0, false},
             {"labs/00_default_stream_memset_on_task_streams_sim", "3/3 ", "cudaStreamSynchronize(one of 4 streams)",
              v, each, false},
             {"labs/00_default_stream_two_streams_sim", "0/3 TODO 1 (a stream per task)",
              "cudaStreamSynchronize(one of 2 streams)", v, each, false},
             {"labs/00_default_stream_per_thread_define_sim", "0/3 TODO 1 (a stream per task)",
              "cudaStreamSynchronize(\"per-thread\")", v, on0, false},
             {"labs/00_default_stream_per_thread_blocking_streams_sim", "3/3 ",
              "cudaStreamSynchronize(one of 4 streams)", v, each, false},
             {"labs/00_default_stream_shared_buffers_sim", "3/3 ", "cudaStreamSynchronize(one of 4 streams)", v, each,
              false},
             {"labs/00_default_stream_last_event_only_sim", "2/3 TODO 3 (wait for every stream)",
              "cudaEventSynchronize()", v, "LAB_CHECK(cudaEventSynchronize(done));", false},
             {"labs/00_default_stream_malloc_per_task_sim", "3/3 ", "cudaFree()", v,
              "if (prev) LAB_CHECK(cudaFree(prev)); /* the task before's", true},
             {"labs/00_default_stream_per_thread_task0_sim", "3/3 ", "cudaStreamSynchronize(one of 4 streams)", v,
              each, false},
         })
        ExpectAdvice(c, Args());
}

}  // namespace
