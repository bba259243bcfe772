// tui/child_test.cc: lab programs as child processes: the event stream arrives on
// descriptor 3 with the nonce the TUI chose, stdout and stderr are kept, and a program
// that crashes, hangs, writes garbage, exits early or does not exist is reported for what
// it did, while the TUI carries on. The last test runs lab 03's crashing variant.
#include <gtest/gtest.h>

#include <signal.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

extern "C" {
#include "tui/child.h"
#include "tui/session.h"
}

namespace {

double NowMs() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

std::string Script(const std::string &name, const std::string &body) {
    const char *t = std::getenv("TEST_TMPDIR");
    std::string path = std::string(t ? t : "/tmp") + "/" + name + ".sh";
    std::ofstream(path) << body;
    return path;
}

struct LabRun {
    tui_child c;
    tui_session *s = tui_session_create("03_double_buffer", TUI_YOURS);
    std::string error;
    ~LabRun() {
        tui_child_stop(&c, 100);
        tui_session_destroy(s);
    }
    bool Start(std::vector<std::string> args) {
        std::vector<char *> argv;
        for (auto &a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        char nonce[64], env_nonce[96];
        tui_child_make_nonce(nonce, sizeof(nonce));
        snprintf(env_nonce, sizeof(env_nonce), "STREAMLAB_EVENTS_NONCE=%s", nonce);
        char *env[] = {env_nonce, nullptr};
        char err[512];
        if (tui_child_start(&c, argv.data(), env, err, sizeof(err)) != 0) {
            error = err;
            tui_session_start_failed(s, err);
            return false;
        }
        tui_session_started(s, nonce, NowMs());
        return true;
    }
    // Pumps until the program is gone and its pipes are drained (or the deadline).
    bool Wait(double seconds) {
        double end = NowMs() + seconds * 1e3;
        while (tui_child_active(&c) && NowMs() < end) {
            pollfd fds[3];
            int n = tui_child_pollfds(&c, fds);
            poll(fds, static_cast<nfds_t>(n), 50);
            tui_child_pump(&c, s, 1 << 20, NowMs());
        }
        return !tui_child_active(&c);
    }
};

const char *kHello = "printf '{\"v\":1,\"t\":\"hello\",\"lab\":\"03_double_buffer\",\"backend\":\"sim\",\"profile\":"
                     "\"h200\",\"device\":\"x\",\"run_label\":\"yours\",\"nonce\":\"%s\"}\\n' \"$STREAMLAB_EVENTS_NONCE\" >&3\n";

TEST(Child, TheEventStreamComesOnDescriptor3WithTheNonce) {
    std::string path = Script("good", std::string(kHello) +
                                          "printf '{\"v\":1,\"t\":\"progress\",\"text\":\"run 1/1 (yours)\",\"done\":0,"
                                          "\"total\":1,\"nonce\":\"%s\"}\\n' \"$STREAMLAB_EVENTS_NONCE\" >&3\n"
                                          "echo report on stdout; echo note on stderr >&2\n"
                                          "printf '{\"v\":1,\"t\":\"result\",\"result\":{\"status\":\"pass\","
                                          "\"speedup\":2.5,\"exit_code\":0},\"nonce\":\"%s\"}\\n' "
                                          "\"$STREAMLAB_EVENTS_NONCE\" >&3\n"
                                          "printf '{\"v\":1,\"t\":\"bye\",\"status\":0,\"nonce\":\"%s\"}\\n' "
                                          "\"$STREAMLAB_EVENTS_NONCE\" >&3\n");
    LabRun r;
    ASSERT_TRUE(r.Start({"/bin/sh", path})) << r.error;
    ASSERT_TRUE(r.Wait(10));
    EXPECT_EQ(r.s->bad_lines, 0u) << r.s->first_bad;
    EXPECT_TRUE(r.s->have_hello);
    EXPECT_STREQ(r.s->progress, "run 1/1 (yours)");
    EXPECT_EQ(r.s->state, TUI_SESSION_DONE);
    EXPECT_STREQ(r.s->status, "finished: PASS (exit 0)");
    ASSERT_EQ(tui_textlog_count(r.s->output), 2u);  // both streams kept, not drawn over the screen
    EXPECT_STREQ(tui_textlog_last(r.s->output), "note on stderr");
}

TEST(Child, GarbageOnTheStreamIsCountedAndReadingGoesOn) {
    std::string path = Script("garbage", std::string("printf 'this is not JSON\\n\\001\\002\\377\\n' >&3\n") + kHello +
                                             "head -c 200000 /dev/zero | tr '\\\\0' 'x' >&3\n"  // one huge line
                                             "printf '\\n' >&3\n"
                                             "printf '{\"v\":1,\"t\":\"bye\",\"status\":0}\\n' >&3\n"  // no nonce
                                             "exit 3\n");
    LabRun r;
    ASSERT_TRUE(r.Start({"/bin/sh", path})) << r.error;
    ASSERT_TRUE(r.Wait(10));
    EXPECT_TRUE(r.s->have_hello);
    EXPECT_EQ(r.s->bad_lines, 4u) << r.s->first_bad;
    EXPECT_NE(std::string(r.s->first_bad).find("line 1"), std::string::npos) << r.s->first_bad;
    EXPECT_FALSE(r.s->have_bye);  // a bye without the nonce is not believed
    EXPECT_EQ(r.s->state, TUI_SESSION_FAILED);
    EXPECT_STREQ(r.s->status, "lab exited with status 3 without a result");
}

TEST(Child, ACrashWithoutAByeIsNamedBySignal) {
    std::string path = Script("crash", std::string(kHello) + "echo about to fail >&2\nkill -SEGV $$\n");
    LabRun r;
    ASSERT_TRUE(r.Start({"/bin/sh", path})) << r.error;
    ASSERT_TRUE(r.Wait(10));
    EXPECT_EQ(r.s->state, TUI_SESSION_FAILED);
    EXPECT_STREQ(r.s->status, "lab crashed by SIGSEGV before it finished: about to fail");
}

TEST(Child, AHangingProgramCanBeStopped) {
    std::string path = Script("hang", std::string(kHello) + "sleep 300 & wait\n");
    LabRun r;
    ASSERT_TRUE(r.Start({"/bin/sh", path})) << r.error;
    EXPECT_FALSE(r.Wait(0.5));
    EXPECT_TRUE(r.s->have_hello);  // what came before the hang is there
    EXPECT_EQ(r.s->state, TUI_SESSION_RUNNING);
    double t0 = NowMs();
    pid_t group = r.c.pid;
    tui_child_stop(&r.c, 200);
    EXPECT_LT(NowMs() - t0, 2000);
    EXPECT_FALSE(tui_child_active(&r.c));
    // The sleep it started is killed too (as an orphan it lingers until init reaps it).
    double deadline = NowMs() + 5000;
    while (kill(-group, 0) == 0 && NowMs() < deadline) usleep(10000);
    EXPECT_EQ(kill(-group, 0), -1);
}

TEST(Child, AProgramThatDoesNotExistIsAnErrorNotACrash) {
    LabRun r;
    EXPECT_FALSE(r.Start({"/nonexistent/lab"}));
    EXPECT_NE(r.error.find("/nonexistent/lab: No such file or directory"), std::string::npos) << r.error;
    EXPECT_EQ(r.s->state, TUI_SESSION_FAILED);
    EXPECT_NE(std::string(r.s->status).find("could not start the lab"), std::string::npos);
    EXPECT_FALSE(tui_child_active(&r.c));
}

TEST(Child, ARecordedStreamCanBeReplayed) {
    std::string path = Script("recorded", "{\"v\":1,\"t\":\"progress\",\"text\":\"run 1/1 (yours)\",\"done\":0,\"total\":1}\n"
                                          "{\"v\":1,\"t\":\"result\",\"result\":{\"status\":\"racy\"}}\n");
    LabRun r;
    tui_child_attach(&r.c, open(path.c_str(), O_RDONLY));
    tui_session_started(r.s, nullptr, NowMs());
    ASSERT_TRUE(r.Wait(5));
    EXPECT_STREQ(tui_session_verdict(r.s), "FAIL: racy");
    EXPECT_EQ(r.s->state, TUI_SESSION_DONE);
}

TEST(Child, NoncesAreFreshAndHex) {
    char a[64], b[64];
    tui_child_make_nonce(a, sizeof(a));
    tui_child_make_nonce(b, sizeof(b));
    EXPECT_EQ(strlen(a), 32u);
    EXPECT_STRNE(a, b);
    EXPECT_EQ(strspn(a, "0123456789abcdef"), 32u);
}

// Lab 03's variant whose run() dereferences a bad pointer, on the simulator.
TEST(Child, TheCrashingLabIsReportedWithItsPhase) {
    const char *srcdir = std::getenv("TEST_SRCDIR");
    ASSERT_NE(srcdir, nullptr);
    std::string lab = std::string(srcdir) + "/streamlab/labs/03_double_buffer_crash_sim";
    LabRun r;
    ASSERT_TRUE(r.Start({lab, "--events-fd=3", "--runs", "2", "--schedules", "0", "--seed", "1"})) << r.error;
    ASSERT_TRUE(r.Wait(120));
    EXPECT_EQ(r.s->state, TUI_SESSION_FAILED);
    EXPECT_STREQ(r.s->status, "lab crashed: SIGSEGV in run() of your lab");
    EXPECT_EQ(r.s->bad_lines, 0u) << r.s->first_bad;
    EXPECT_NE(tui_session_latest(r.s, TUI_ROLE_OTHER), nullptr);  // what it did before is kept
    // The lab's own report is kept: the crash, then the line it happened at.
    size_t n = tui_textlog_count(r.s->output);
    ASSERT_GE(n, 2u);
    EXPECT_NE(std::string(tui_textlog_line(r.s->output, n - 2)).find("crashed with SIGSEGV"), std::string::npos);
    EXPECT_NE(std::string(tui_textlog_last(r.s->output)).find("  at labs/03_double_buffer/testdata/variants.c:"),
              std::string::npos)
        << tui_textlog_last(r.s->output);
}

}  // namespace
