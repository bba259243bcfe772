// tui/session_test.cc: a lab's event stream as the timeline keeps it: runs named by the
// harness's progress records, ops on engine and stream lanes, races on both ops, the live
// speedup from the harness's timed phases, the verdict, and every way a lab can end
// badly (a crash, a timeout, a kill, garbage on the stream, lines without the nonce).
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>

#include <string>

#include "tui/test_events.h"

extern "C" {
#include "tui/session.h"
}

namespace {

using tui_test::EventStream;

struct SessionTest : ::testing::Test {
    tui_session *s = tui_session_create("03_double_buffer", TUI_YOURS);
    EventStream ev;
    void SetUp() override { tui_session_started(s, nullptr, 0); }
    void TearDown() override { tui_session_destroy(s); }
    void Feed() {
        std::string t = ev.Take();
        tui_session_feed(s, t.data(), t.size(), 1);
    }
};

// Exit status of a process killed by sig, as waitpid reports it.
int Killed(int sig) { return sig & 0x7f; }
int Exited(int code) { return (code & 0xff) << 8; }

TEST_F(SessionTest, ProgressNamesTheRunThatFollowsIt) {
    ev.Hello();
    ev.Progress("warm-up (baseline)", 0, 6);
    ev.Progress("warm-up (yours)", 1, 6);
    ev.Progress("run 1/2 (baseline)", 2, 6);
    ev.Progress("run 1/2 (yours)", 3, 6);
    ev.Progress("schedule 1/1 (yours)", 4, 6);
    Feed();
    ASSERT_NE(tui_session_run(s, 1), nullptr);
    EXPECT_STREQ(tui_session_run(s, 1)->label, "warm-up (baseline)");
    EXPECT_EQ(tui_session_run(s, 1)->role, TUI_ROLE_BASELINE);
    EXPECT_TRUE(tui_session_run(s, 1)->warmup);
    EXPECT_EQ(tui_session_run(s, 4)->role, TUI_ROLE_YOURS);
    EXPECT_TRUE(tui_session_run(s, 4)->timed);
    EXPECT_TRUE(tui_session_run(s, 5)->schedule);
    EXPECT_STREQ(s->progress, "schedule 1/1 (yours)");
    char backend[64];
    tui_session_backend(s, backend, sizeof(backend));
    EXPECT_STREQ(backend, "simulated h200");
}

TEST_F(SessionTest, TheRealGpuIsNamedByItsDevice) {
    ev.Hello("gpu", "", "NVIDIA H100 80GB HBM3");
    Feed();
    char backend[64];
    tui_session_backend(s, backend, sizeof(backend));
    EXPECT_STREQ(backend, "NVIDIA H100 80GB HBM3");
}

TEST_F(SessionTest, OpsGoToTheirEngineAndStreamLanes) {
    ev.Stream(1, "buf A", -2);
    ev.Progress("run 1/1 (yours)", 0, 1);
    ev.Op(TRACE_OP_COPY, TRACE_COPY_H2D, 1, 1, 0, 1000, 2000, 4096);
    ev.Op(TRACE_OP_KERNEL, TRACE_COPY_NONE, 1, 1, 0, 2000, 3000, 0, "process");
    ev.Op(TRACE_OP_COPY, TRACE_COPY_D2H, 1, 1, 0, 3000, 4000, 4096);
    ev.Op(TRACE_OP_SYNC, TRACE_COPY_NONE, -1, 1, -1, 1100, 4000, 0, "cudaDeviceSynchronize");
    ev.Op(TRACE_OP_COPY, TRACE_COPY_H2D, 1, -1, -1, 10, 20, 64);  // outside any run: not drawn
    ev.Phase("run 1/1 (yours)", 900, 4100);                       // a phase is not an op
    Feed();
    tui_run *run = tui_session_latest(s, TUI_ROLE_YOURS);
    ASSERT_NE(run, nullptr);
    EXPECT_EQ(run->number, 1);
    EXPECT_EQ(run->ops, 4u);
    EXPECT_EQ(run->t0_ns, 1000u);
    EXPECT_EQ(run->t1_ns, 4000u);
    tui_lane *lanes[8];
    ASSERT_EQ(tui_run_lanes(run, lanes, 8), 5u);  // H2D, compute, D2H, host, s1
    char label[64];
    const char *expect[] = {"H2D engine", "compute", "D2H engine", "host", "s1 \"buf A\" p-2"};
    for (int i = 0; i < 5; i++) {
        tui_run_lane_label(run, lanes[i], 40, false, label, sizeof(label));
        EXPECT_STREQ(label, expect[i]);
    }
    EXPECT_EQ(lanes[0]->n, 1u);
    EXPECT_EQ(lanes[0]->bars[0].kind, TUI_KIND_H2D);
    EXPECT_EQ(lanes[1]->bars[0].kind, TUI_KIND_KERNEL);
    EXPECT_EQ(lanes[3]->bars[0].kind, TUI_KIND_SYNC);
    EXPECT_EQ(lanes[4]->n, 3u);  // the stream asked for all three
    ASSERT_TRUE(run->have_phase);
    EXPECT_EQ(run->phase_ns, 3200u);
    const trace_op *op = tui_run_op(run, 2000, lanes[1]->bars[0].id);
    ASSERT_NE(op, nullptr);
    EXPECT_STREQ(op->name, "process");
}

TEST_F(SessionTest, LongStreamNamesAreShortenedInTheMiddleButKeepTheirPriority) {
    ev.Stream(3, "a very long stream name", -5);
    ev.Op(TRACE_OP_KERNEL, TRACE_COPY_NONE, 3, 1, 0, 0, 10, 0, "k");
    Feed();
    tui_run *run = tui_session_run(s, 1);
    tui_lane *lanes[4];
    size_t n = tui_run_lanes(run, lanes, 4);
    char label[64];
    tui_run_lane_label(run, lanes[n - 1], 18, false, label, sizeof(label));
    // Shortened in the middle: both ends of the name, both quotes and the priority stay.
    EXPECT_STREQ(label, "s3 \"a ve~name\" p-5");
    EXPECT_EQ(strlen(label), 18u);
    tui_run_lane_label(run, lanes[n - 1], 18, true, label, sizeof(label));
    EXPECT_STREQ(label, "s3 \"a ve\u2026name\" p-5");
    // Room enough: whole.
    tui_run_lane_label(run, lanes[n - 1], 40, true, label, sizeof(label));
    EXPECT_STREQ(label, "s3 \"a very long stream name\" p-5");
}

TEST_F(SessionTest, OpsArrivingOutOfOrderAreSortedPerLane) {
    for (int i = 9; i >= 0; i--) ev.Op(TRACE_OP_KERNEL, TRACE_COPY_NONE, 1, 1, i, 100u * i, 100u * i + 50);
    Feed();
    tui_run *run = tui_session_run(s, 1);
    tui_lane *lanes[4];
    ASSERT_EQ(tui_run_lanes(run, lanes, 4), 2u);
    for (size_t i = 1; i < lanes[0]->n; i++) EXPECT_LT(lanes[0]->bars[i - 1].start_ns, lanes[0]->bars[i].start_ns);
    // The window search finds the first bar that reaches a time.
    EXPECT_EQ(tui_lane_first_reaching(lanes[0], 420), 4u);
    EXPECT_EQ(lanes[0]->bars[tui_lane_first_reaching(lanes[0], 0)].start_ns, 0u);
}

TEST_F(SessionTest, ARaceMarksBothOpsInTheirRuns) {
    ev.Progress("run 1/1 (yours)", 0, 1);
    trace_op a = ev.Op(TRACE_OP_COPY, TRACE_COPY_H2D, 1, 1, 0, 0, 100, 4096);
    trace_op b = ev.Op(TRACE_OP_KERNEL, TRACE_COPY_NONE, 2, 1, 0, 50, 150, 0, "process");
    trace_op c = ev.Op(TRACE_OP_KERNEL, TRACE_COPY_NONE, 2, 1, 1, 150, 250, 0, "process");
    ev.Race(TRACE_RACE_RAW, a, b, 4096);
    Feed();
    tui_run *run = tui_session_run(s, 1);
    EXPECT_TRUE(tui_run_is_racy(run, a.id));
    EXPECT_TRUE(tui_run_is_racy(run, b.id));
    EXPECT_FALSE(tui_run_is_racy(run, c.id));
    EXPECT_EQ(tui_session_races_in(s, 1), 1u);
    ASSERT_EQ(s->n_races, 1u);
    EXPECT_NE(std::string(s->races[0].fix).find("cudaStreamWaitEvent"), std::string::npos);
}

TEST_F(SessionTest, TheLiveSpeedupIsTheRatioOfTheMedianTimedRuns) {
    // Baseline runs take 600, 620 and 610; yours 300, 200 and 310 (warm-ups do not count).
    const char *labels[] = {"warm-up (baseline)", "warm-up (yours)", "run 1/3 (baseline)", "run 1/3 (yours)",
                            "run 2/3 (yours)",    "run 2/3 (baseline)", "run 3/3 (baseline)", "run 3/3 (yours)"};
    const uint64_t takes[] = {9000, 9000, 600, 300, 200, 620, 610, 310};
    uint64_t t = 0;
    double sp = 0;
    for (int i = 0; i < 8; i++) {
        ev.Progress(labels[i], i, 8);
        ev.Op(TRACE_OP_KERNEL, TRACE_COPY_NONE, 1, i + 1, 0, t, t + takes[i]);
        ev.Phase(labels[i], t, t + takes[i]);
        t += takes[i];
        Feed();
        if (i == 2) {
            EXPECT_FALSE(tui_session_live_speedup(s, &sp));  // no timed run of yours yet
        }
    }
    ASSERT_TRUE(tui_session_live_speedup(s, &sp));
    EXPECT_DOUBLE_EQ(sp, 610.0 / 300.0);
    EXPECT_EQ(tui_session_latest(s, TUI_ROLE_YOURS)->number, 8);
    EXPECT_EQ(tui_session_latest(s, TUI_ROLE_BASELINE)->number, 7);
}

TEST_F(SessionTest, TheResultGivesTheVerdict) {
    ev.Result(R"({"status":"below_target","speedup":1.02,"target":1.69,"races":0,"exit_code":1})");
    ev.Bye(1, "below_target");
    Feed();
    EXPECT_STREQ(tui_session_verdict(s), "BELOW TARGET");
    double sp = 0;
    EXPECT_TRUE(tui_session_result_number(s, "speedup", &sp));
    EXPECT_DOUBLE_EQ(sp, 1.02);
    tui_session_exited(s, Exited(1));
    EXPECT_EQ(s->state, TUI_SESSION_DONE);
    EXPECT_STREQ(s->status, "finished: BELOW TARGET (exit 1)");
    EXPECT_TRUE(s->ended);
    EXPECT_EQ(s->exit_code, 1);  // what the timeline exits with after q
}

TEST_F(SessionTest, TheExitCodeIsTheLabsOwn) {
    tui_session_exited(s, Exited(2));
    EXPECT_EQ(s->exit_code, 2);
    tui_session_reset(s);
    EXPECT_FALSE(s->ended);
    tui_session_started(s, nullptr, 0);
    tui_session_exited(s, Killed(SIGSEGV));
    EXPECT_EQ(s->exit_code, 128 + SIGSEGV);
}

// Races are numbered within their run, as the lab's report numbers them, and carry the
// student's lines the result gives: for the races the report shows, and for the same
// operation (kind, name, stream) in other races when the report names one line for it.
TEST_F(SessionTest, RacesAreNumberedPerRunAndGetTheLinesTheResultNames) {
    ev.Progress("run 1/2 (yours)", 0, 2);
    trace_op a1 = ev.Op(TRACE_OP_COPY, TRACE_COPY_H2D, 1, 1, 0, 0, 100, 4096);
    trace_op b1 = ev.Op(TRACE_OP_KERNEL, TRACE_COPY_NONE, 2, 1, 0, 50, 150, 0, "process");
    trace_op c1 = ev.Op(TRACE_OP_COPY, TRACE_COPY_D2H, 3, 1, 0, 160, 250, 4096);
    ev.Progress("run 2/2 (yours)", 1, 2);
    trace_op a2 = ev.Op(TRACE_OP_COPY, TRACE_COPY_H2D, 1, 2, 1, 1000, 1100, 4096);
    trace_op b2 = ev.Op(TRACE_OP_KERNEL, TRACE_COPY_NONE, 2, 2, 1, 1050, 1150, 0, "process");
    ev.Race(TRACE_RACE_RAW, a1, b1, 4096);  // seq 1, run 1: race 1
    ev.Race(TRACE_RACE_RAW, b1, c1, 4096);  // seq 2, run 1: race 2
    ev.Race(TRACE_RACE_RAW, a2, b2, 4096);  // seq 3, run 2: race 1
    ev.Result(R"({"status":"racy","race_reports":[
        {"kind":"RAW","first":"H2D batch 0","first_stream":"s1","first_line":"labs/x/lab.c:41",
         "second":"kernel process batch 0","second_stream":"s2","second_line":"labs/x/lab.c:57"}]})");
    Feed();
    ASSERT_EQ(s->n_races, 3u);
    EXPECT_EQ(tui_session_race_number(s, 0), 1u);
    EXPECT_EQ(tui_session_race_number(s, 1), 2u);
    EXPECT_EQ(tui_session_race_number(s, 2), 1u);
    // The race the report shows.
    EXPECT_STREQ(tui_session_race_line(s, &s->races[0], false), "labs/x/lab.c:41");
    EXPECT_STREQ(tui_session_race_line(s, &s->races[0], true), "labs/x/lab.c:57");
    // The same ops in another batch and run: the same lines.
    EXPECT_STREQ(tui_session_race_line(s, &s->races[2], false), "labs/x/lab.c:41");
    EXPECT_STREQ(tui_session_race_line(s, &s->races[2], true), "labs/x/lab.c:57");
    // The kernel as the first side of another race: its line; the D2H: none known.
    EXPECT_STREQ(tui_session_race_line(s, &s->races[1], false), "labs/x/lab.c:57");
    EXPECT_EQ(tui_session_race_line(s, &s->races[1], true), nullptr);
}

TEST_F(SessionTest, AnOperationIssuedFromTwoLinesGetsNone) {
    ev.Progress("run 1/1 (yours)", 0, 1);
    trace_op a = ev.Op(TRACE_OP_COPY, TRACE_COPY_H2D, 1, 1, 4, 0, 100, 4096);
    trace_op b = ev.Op(TRACE_OP_KERNEL, TRACE_COPY_NONE, 2, 1, 4, 50, 150, 0, "process");
    ev.Race(TRACE_RACE_RAW, a, b, 4096);
    ev.Result(R"({"status":"racy","race_reports":[
        {"kind":"RAW","first":"H2D batch 0","first_stream":"s1","first_line":"labs/x/lab.c:41",
         "second":"kernel process batch 0","second_stream":"s2","second_line":"labs/x/lab.c:57"},
        {"kind":"WAR","first":"kernel process batch 1","first_stream":"s2","first_line":"labs/x/lab.c:60",
         "second":"H2D batch 3","second_stream":"s1","second_line":"labs/x/lab.c:41"}]})");
    Feed();
    ASSERT_EQ(s->n_races, 1u);
    EXPECT_STREQ(tui_session_race_line(s, &s->races[0], false), "labs/x/lab.c:41");
    EXPECT_EQ(tui_session_race_line(s, &s->races[0], true), nullptr);  // lines 57 and 60: which?
}

TEST_F(SessionTest, ACrashIsNamedFromTheByeRecord) {
    ev.Bye(2, "crash: SIGSEGV in run (yours)");
    Feed();
    tui_session_exited(s, Exited(2));
    EXPECT_EQ(s->state, TUI_SESSION_FAILED);
    EXPECT_STREQ(s->status, "lab crashed: SIGSEGV in run() of your lab");
}

TEST_F(SessionTest, TheReferenceCrashingSaysSo) {
    tui_session *r = tui_session_create("03_double_buffer", TUI_REFERENCE);
    tui_session_started(r, nullptr, 0);
    ev.Bye(2, "crash: SIGFPE in setup (yours)");
    std::string t = ev.Take();
    tui_session_feed(r, t.data(), t.size(), 0);
    tui_session_exited(r, Exited(2));
    EXPECT_STREQ(r->status, "lab crashed: SIGFPE in setup() of the reference");
    tui_session_destroy(r);
}

TEST_F(SessionTest, ATimeoutIsNamed) {
    ev.Bye(2, "timeout: timeout in run (yours)");
    Feed();
    tui_session_exited(s, Exited(2));
    EXPECT_STREQ(s->status, "lab timed out in run() of your lab (--timeout)");
}

TEST_F(SessionTest, AKillWithoutAByeSaysSoWithTheLastWords) {
    const char out[] = "streamlab: running on the SIMULATED GPU\nsomething went wrong\n";
    tui_session_output(s, out, sizeof(out) - 1);
    tui_session_exited(s, Killed(SIGKILL));
    EXPECT_EQ(s->state, TUI_SESSION_FAILED);
    EXPECT_STREQ(s->status, "lab killed by SIGKILL before it finished: something went wrong");
}

TEST_F(SessionTest, AnExitWithoutAResultSaysSo) {
    tui_session_exited(s, Exited(64));
    EXPECT_EQ(s->state, TUI_SESSION_FAILED);
    EXPECT_STREQ(s->status, "lab exited with status 64 without a result");
}

TEST_F(SessionTest, GarbageIsCountedAndTheFirstReasonKept) {
    ev.Progress("run 1/1 (yours)", 0, 1);
    std::string good = ev.Take();
    std::string text = "not json at all\n" + good + "{\"v\":1,\"t\":\"op\",\"id\":\"x\"}\n\x01\x02\xff\n";
    tui_session_feed(s, text.data(), text.size(), 0);
    EXPECT_EQ(s->bad_lines, 3u);
    EXPECT_NE(std::string(s->first_bad).find("line 1"), std::string::npos) << s->first_bad;
    EXPECT_STREQ(s->progress, "run 1/1 (yours)");  // good lines between bad ones still count
    const char cut[] = "{\"v\":1,\"t\":\"progress\",\"text\":\"run";
    tui_session_feed(s, cut, sizeof(cut) - 1, 0);
    tui_session_end_of_stream(s, 0);
    EXPECT_EQ(s->bad_lines, 4u);
}

TEST(Session, LinesWithoutTheNonceAreRejected) {
    tui_session *s = tui_session_create("03_double_buffer", TUI_YOURS);
    tui_session_started(s, "secret", 0);
    EventStream forged;  // no nonce: a student's program writing to the descriptor
    forged.Result(R"({"status":"pass","speedup":99})");
    EventStream real("secret");
    real.Progress("run 1/1 (yours)", 0, 1);
    std::string t = forged.Text() + real.Text();
    tui_session_feed(s, t.data(), t.size(), 0);
    EXPECT_EQ(tui_session_verdict(s), nullptr);
    EXPECT_EQ(s->bad_lines, 1u);
    EXPECT_STREQ(s->progress, "run 1/1 (yours)");
    tui_session_destroy(s);
}

TEST_F(SessionTest, ResetForgetsEverything) {
    ev.Progress("run 1/1 (yours)", 0, 1);
    ev.Op(TRACE_OP_KERNEL, TRACE_COPY_NONE, 1, 1, 0, 0, 10);
    ev.Result(R"({"status":"pass"})");
    Feed();
    tui_session_reset(s);
    EXPECT_EQ(s->state, TUI_SESSION_IDLE);
    EXPECT_EQ(tui_session_latest(s, TUI_ROLE_OTHER), nullptr);
    EXPECT_EQ(tui_session_verdict(s), nullptr);
    EXPECT_EQ(s->progress[0], '\0');
}

TEST(TextLog, KeepsTheLastLinesAndCutsLongOnes) {
    tui_textlog *log = new tui_textlog;
    tui_textlog_clear(log);
    for (int i = 0; i < TUI_TEXTLOG_LINES + 10; i++) {
        std::string line = "line " + std::to_string(i) + "\r\n";
        tui_textlog_feed(log, line.data(), line.size());
    }
    EXPECT_EQ(tui_textlog_count(log), (size_t)TUI_TEXTLOG_LINES);
    EXPECT_STREQ(tui_textlog_line(log, 0), "line 10");
    std::string longline(3 * TUI_TEXTLOG_LINE, 'x');
    tui_textlog_feed(log, longline.data(), longline.size());
    tui_textlog_feed(log, "\n   \n", 5);
    EXPECT_EQ(strlen(tui_textlog_last(log)), (size_t)TUI_TEXTLOG_LINE - 1);
    tui_textlog_feed(log, "no newline", 10);
    tui_textlog_flush(log);
    EXPECT_STREQ(tui_textlog_last(log), "no newline");
    delete log;
}

}  // namespace
