// tui/app_test.cc: the whole loop with no terminal (a virtual screen of 100x30): it finds
// the catalog and the launchers among its runfiles, runs lab 03 (yours, then the reference
// when s is pressed, queued until yours is done) on the simulator, draws the result,
// remembers it for the picker, writes Chrome traces with t, and replays a recorded stream.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <cjson/cJSON.h>

#include "tui/test_events.h"

extern "C" {
#include "tui/app.h"
}

namespace {

std::string TmpDir() {
    const char *t = std::getenv("TEST_TMPDIR");
    return t ? t : "/tmp";
}

std::string Screen(const tui_app &a) {
    char *d = tui_screen_dump(a.screen);
    std::string s = d;
    free(d);
    return s;
}

// Steps the loop until done() or the deadline; then draws.
template <typename F>
bool StepUntil(tui_app *a, double seconds, F done) {
    double end = tui_now_ms() + seconds * 1e3;
    while (!done() && tui_now_ms() < end) tui_app_step(a, 50);
    tui_app_draw(a);
    return done();
}

bool Finished(const tui_session *s) {
    return s && (s->state == TUI_SESSION_DONE || s->state == TUI_SESSION_FAILED);
}

TEST(App, RunsLab03AndTheReferenceOnTheSimulator) {
    std::string history = TmpDir() + "/state/last_results.json";
    // Where `bazel run` was started: t must write nothing there (the traces go to the kit's
    // state folder).
    std::string workdir = TmpDir() + "/workdir";
    mkdir(workdir.c_str(), 0755);
    setenv("BUILD_WORKING_DIRECTORY", workdir.c_str(), 1);
    setenv("XDG_STATE_HOME", (TmpDir() + "/xdg").c_str(), 1);
    tui_app_options o;
    memset(&o, 0, sizeof(o));
    o.lab = "03";
    o.backend = "sim";
    o.runs = "2";
    o.schedules = "0";
    o.seed = "7";
    o.history = history.c_str();
    static tui_app a;
    char err[4096];
    ASSERT_EQ(tui_app_init(&a, &o, nullptr, 100, 30, err, sizeof(err)), 0) << err;
    ASSERT_EQ(a.model.mode, TUI_MODE_TIMELINE);
    EXPECT_EQ(a.sessions[TUI_YOURS]->state, TUI_SESSION_RUNNING);

    tui_app_key(&a, 's');  // the reference, while yours still runs: it waits its turn
    EXPECT_EQ(a.model.front, TUI_REFERENCE);
    EXPECT_TRUE(a.queued & (1u << TUI_REFERENCE));
    tui_app_draw(&a);
    EXPECT_NE(Screen(a).find("waiting for yours to finish"), std::string::npos) << Screen(a);
    tui_app_key(&a, 's');  // back to yours

    ASSERT_TRUE(StepUntil(&a, 120, [&] { return Finished(a.sessions[TUI_YOURS]); })) << Screen(a);
    std::string yours = Screen(a);
    EXPECT_EQ(a.sessions[TUI_YOURS]->bad_lines, 0u) << a.sessions[TUI_YOURS]->first_bad;
    for (const char *want : {"H2D engine", "compute", "D2H engine", "host", "BELOW TARGET", "simulated h200",
                             "run 2/2 (yours)", "finished: BELOW TARGET (exit 1)"})
        EXPECT_NE(yours.find(want), std::string::npos) << want << " in\n" << yours;

    ASSERT_TRUE(StepUntil(&a, 120, [&] { return Finished(a.sessions[TUI_REFERENCE]); })) << Screen(a);
    tui_app_key(&a, 's');
    tui_app_draw(&a);
    std::string ref = Screen(a);
    EXPECT_NE(ref.find("PASS"), std::string::npos) << ref;
    EXPECT_NE(ref.find("s3 \"buf B\" p0"), std::string::npos) << ref;  // the reference's three streams
    EXPECT_NE(ref.find("run 2/2 (reference)"), std::string::npos) << ref;

    // Both verdicts are remembered for the picker.
    tui_history h;
    tui_history_open(&h, history.c_str(), nullptr, 0);
    tui_last_result last;
    ASSERT_TRUE(tui_history_get(&h, "03_double_buffer", "yours", &last));
    EXPECT_STREQ(last.status, "below_target");
    ASSERT_TRUE(tui_history_get(&h, "03_double_buffer", "reference", &last));
    EXPECT_STREQ(last.status, "pass");
    EXPECT_GT(last.speedup, last.target);
    tui_history_close(&h);

    // t in compare mode: one Chrome trace per run on screen, in the kit's state folder, and
    // the screen says where.
    tui_app_key(&a, 'c');
    tui_app_key(&a, 't');
    tui_app_draw(&a);
    std::string status = Screen(a);
    std::string traces = TmpDir() + "/xdg/streamlab/traces";
    char dir[4096];
    tui_app_trace_dir(dir, sizeof(dir));
    EXPECT_EQ(std::string(dir), traces);
    EXPECT_NE(status.find("traces written to "), std::string::npos) << status;
    EXPECT_NE(std::string(a.model.message).find("/xdg/streamlab/traces/: streamlab-03_double_buffer-yours-run"),
              std::string::npos)
        << a.model.message;
    for (const char *who : {"yours", "reference"}) {
        tui_run *run = tui_session_latest(a.sessions[std::string(who) == "yours" ? TUI_YOURS : TUI_REFERENCE],
                                          TUI_ROLE_YOURS);
        ASSERT_NE(run, nullptr);
        std::string name = std::string("streamlab-03_double_buffer-") + who + "-run" + std::to_string(run->number) + ".json";
        std::string path = traces + "/" + name;
        EXPECT_NE(access((workdir + "/" + name).c_str(), F_OK), 0) << "a trace was written where bazel run started";
        std::ifstream f(path);
        ASSERT_TRUE(f.good()) << path;
        std::stringstream text;
        text << f.rdbuf();
        cJSON *j = cJSON_Parse(text.str().c_str());
        ASSERT_NE(j, nullptr) << path;
        EXPECT_GT(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "traceEvents")), 50);
        cJSON_Delete(j);
    }

    // The picker now shows the last result; q quits.
    tui_app_key(&a, 'l');
    tui_app_draw(&a);
    EXPECT_NE(Screen(a).find("last: BELOW TARGET"), std::string::npos) << Screen(a);
    tui_app_key(&a, 'q');
    EXPECT_FALSE(tui_app_step(&a, 0));
    tui_app_free(&a);
}

// Sets path's modification time to `seconds` from now (negative: in the past).
void Touch(const std::string &path, long seconds) {
    struct timespec times[2];
    clock_gettime(CLOCK_REALTIME, &times[0]);
    times[0].tv_sec += seconds;
    times[1] = times[0];
    ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), times, 0), 0) << path;
}

TEST(App, SaysWhenTheLabsSourceIsNewerThanTheBuildItRuns) {
    // The workspace bazel run was started from, with the student's file in it.
    std::string ws = TmpDir() + "/ws";
    std::string file = ws + "/labs/03_double_buffer/lab.c";
    ASSERT_EQ(system(("mkdir -p " + ws + "/labs/03_double_buffer && echo edited > " + file).c_str()), 0);
    Touch(file, 3600);  // saved after the build (an hour from now: later than any build)
    setenv("BUILD_WORKSPACE_DIRECTORY", ws.c_str(), 1);
    tui_app_options o;
    memset(&o, 0, sizeof(o));
    o.lab = "03";
    o.backend = "sim";
    o.runs = "1";
    o.schedules = "0";
    std::string history = TmpDir() + "/h3.json";
    o.history = history.c_str();
    static tui_app a;
    char err[4096];
    ASSERT_EQ(tui_app_init(&a, &o, nullptr, 100, 30, err, sizeof(err)), 0) << err;
    EXPECT_NE(std::string(a.model.notice).find("labs/03_double_buffer/lab.c is newer than the build r runs"),
              std::string::npos)
        << a.model.notice;
    EXPECT_NE(std::string(a.model.notice).find("`bazel build //labs:03_double_buffer`"), std::string::npos);
    EXPECT_LE(std::string(a.model.notice_short).size(), 79u) << a.model.notice_short;
    tui_app_draw(&a);
    EXPECT_NE(Screen(a).find("bazel build //labs:03_double_buffer"), std::string::npos) << Screen(a);
    EXPECT_NE(Screen(a).find("time (ns)"), std::string::npos) << Screen(a);  // the timeline keeps its place

    // Rebuilt (here: the file older than the build): the notice goes.
    Touch(file, -10 * 365 * 86400L);
    tui_app_check_stale(&a);
    EXPECT_STREQ(a.model.notice, "");
    tui_app_draw(&a);
    EXPECT_EQ(Screen(a).find("bazel build //labs:03_double_buffer"), std::string::npos) << Screen(a);

    // Saved again unchanged (Bazel would rebuild nothing): not stale. Changed: stale.
    Touch(file, 3600);
    tui_app_check_stale(&a);
    EXPECT_STREQ(a.model.notice, "");
    ASSERT_EQ(system(("echo changed >> " + file).c_str()), 0);
    Touch(file, 3600);
    tui_app_check_stale(&a);
    EXPECT_NE(std::string(a.model.notice).find("is newer than the build r runs"), std::string::npos) << a.model.notice;

    // Without a workspace to look in (not under bazel run), nothing is said.
    unsetenv("BUILD_WORKSPACE_DIRECTORY");
    tui_app_check_stale(&a);
    EXPECT_STREQ(a.model.notice, "");
    tui_app_free(&a);
}

TEST(App, AnUnknownLabListsTheOnesThereAre) {
    tui_app_options o;
    memset(&o, 0, sizeof(o));
    o.lab = "99_nope";
    static tui_app a;
    char err[4096];
    EXPECT_EQ(tui_app_init(&a, &o, nullptr, 80, 24, err, sizeof(err)), -1);
    EXPECT_NE(std::string(err).find("no lab '99_nope'; the labs are: 00_default_stream 01_pinned_memory 02_events 03_double_buffer 04_priorities 05_cross_stream_races"), std::string::npos) << err;
    tui_app_free(&a);
}

TEST(App, AMissingProgramIsShownNotFatal) {
    tui_app_options o;
    memset(&o, 0, sizeof(o));
    o.lab = "03_double_buffer";
    o.program = "/nonexistent/lab_binary";
    std::string history = TmpDir() + "/h2.json";
    o.history = history.c_str();
    static tui_app a;
    char err[4096];
    ASSERT_EQ(tui_app_init(&a, &o, nullptr, 100, 30, err, sizeof(err)), 0) << err;
    tui_app_draw(&a);
    std::string s = Screen(a);
    EXPECT_NE(s.find("could not start the lab: /nonexistent/lab_binary: No such file or directory"), std::string::npos)
        << s;
    tui_app_free(&a);
}

TEST(App, ReplaysARecordedStreamWithItsBadLines) {
    tui_test::EventStream ev;
    ev.Hello("gpu", "", "NVIDIA H100 80GB HBM3");
    ev.Stream(1, "buf A");
    ev.Progress("run 1/1 (yours)", 0, 1);
    ev.Op(TRACE_OP_COPY, TRACE_COPY_H2D, 1, 1, 0, 1000, 2000, 4096);
    ev.Op(TRACE_OP_KERNEL, TRACE_COPY_NONE, 1, 1, 0, 2000, 3000, 0, "process");
    std::string text = ev.Take() + "{\"v\":1,\"t\":\"op\",\"broken\n";
    ev.Result(R"({"status":"pass","speedup":1.9,"target":1.6,"races":0})");
    text += ev.Take();
    std::string path = TmpDir() + "/recorded.jsonl";
    std::ofstream(path) << text;
    tui_app_options o;
    memset(&o, 0, sizeof(o));
    o.replay = path.c_str();
    static tui_app a;
    char err[4096];
    ASSERT_EQ(tui_app_init(&a, &o, nullptr, 100, 30, err, sizeof(err)), 0) << err;
    ASSERT_TRUE(StepUntil(&a, 10, [&] { return Finished(a.sessions[TUI_YOURS]); }));
    std::string s = Screen(a);
    EXPECT_NE(s.find("NVIDIA H100 80GB HBM3"), std::string::npos) << s;
    EXPECT_NE(s.find("s1 \"buf A\" p0"), std::string::npos) << s;
    EXPECT_NE(s.find("speedup 1.90x (target 1.60x) PASS"), std::string::npos) << s;
    EXPECT_NE(s.find("1 bad line on the event stream (first: line 6"), std::string::npos) << s;
    tui_app_key(&a, 'r');  // nothing to rerun in a recording: said, not done
    tui_app_draw(&a);
    EXPECT_NE(Screen(a).find("recorded event stream: there is nothing to run"), std::string::npos);
    tui_app_free(&a);
}

}  // namespace
