// labs/lab03_test.cc: lab 03 end to end on the simulated GPU, as a student and the grader
// run it: the untouched skeleton is correct but misses the target (exit 1), the reference
// and plain double buffering pass (exit 0), a racy variant is reported racy (exit 2), and
// crashes, hangs, early exits, failed setups and wrong answers are each reported for what
// they are (exit 2), with the live event stream ending in a bye line that says so.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <cjson/cJSON.h>

extern "C" {
#include "trace/events_reader.h"
}

namespace {

struct Outcome {
    int exit_code = -1;
    std::string out, err, events;
    double seconds = 0;
};

std::string Binary(const std::string &rel) {
    const char *dir = std::getenv("TEST_SRCDIR");
    return std::string(dir ? dir : ".") + "/streamlab/" + rel;
}

// Runs a lab binary with the live event stream on descriptor 3; kills it after 120 s.
Outcome RunLab(const std::string &rel, std::vector<std::string> args, const char *nonce = nullptr) {
    int out_p[2], err_p[2], ev_p[2];
    EXPECT_EQ(pipe(out_p), 0);
    EXPECT_EQ(pipe(err_p), 0);
    EXPECT_EQ(pipe(ev_p), 0);
    std::string path = Binary(rel);
    args.insert(args.begin(), path);
    timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(out_p[1], 1);
        dup2(err_p[1], 2);
        dup2(ev_p[1], 3);
        for (int fd : {out_p[0], out_p[1], err_p[0], err_p[1], ev_p[0], ev_p[1]})
            if (fd > 3) close(fd);
        if (nonce) setenv("STREAMLAB_EVENTS_NONCE", nonce, 1);
        std::vector<char *> argv;
        for (auto &a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        execv(path.c_str(), argv.data());
        _exit(127);
    }
    close(out_p[1]);
    close(err_p[1]);
    close(ev_p[1]);
    Outcome o;
    struct pollfd fds[3] = {{out_p[0], POLLIN, 0}, {err_p[0], POLLIN, 0}, {ev_p[0], POLLIN, 0}};
    std::string *bufs[3] = {&o.out, &o.err, &o.events};
    int open_fds = 3;
    while (open_fds > 0) {
        if (poll(fds, 3, 120000) <= 0) {
            kill(pid, SIGKILL);
            ADD_FAILURE() << rel << " ran for over 120 s";
            break;
        }
        for (int i = 0; i < 3; i++) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP))) continue;
            char buf[65536];
            ssize_t n = read(fds[i].fd, buf, sizeof(buf));
            if (n > 0) {
                bufs[i]->append(buf, static_cast<size_t>(n));
            } else {
                close(fds[i].fd);
                fds[i].fd = -1;
                open_fds--;
            }
        }
    }
    int status = 0;
    waitpid(pid, &status, 0);
    o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    o.seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    return o;
}

// The --json object on stdout: exactly one line.
cJSON *Json(const Outcome &o) {
    EXPECT_FALSE(o.out.empty());
    EXPECT_EQ(o.out.find('\n'), o.out.size() - 1) << "stdout must be one line:\n" << o.out;
    cJSON *j = cJSON_Parse(o.out.c_str());
    EXPECT_NE(j, nullptr) << o.out;
    return j;
}

std::string Str(const cJSON *j, const char *key) {
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, key));
    return s ? s : "";
}

double Num(const cJSON *j, const char *key) { return cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(j, key)); }

bool Bool(const cJSON *j, const char *key) { return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, key)); }

struct Events {
    std::vector<trace_event_type> types;
    std::vector<std::string> errors;
    int bye_status = -1;
    std::string bye_reason;
    int ops = 0;
    std::map<int64_t, std::string> run_labels;  // recorder run number -> progress label
};

Events ReadEvents(const std::string &text, const char *nonce = nullptr) {
    Events e;
    trace_events_reader *r = trace_events_reader_create(nonce);
    trace_events_reader_feed(r, text.data(), text.size());
    trace_events_reader_end(r);
    trace_event ev;
    char err[512];
    int rc;
    while ((rc = trace_events_reader_next(r, &ev, err, sizeof(err))) != 0) {
        if (rc < 0) {
            e.errors.push_back(err);
            continue;
        }
        e.types.push_back(ev.type);
        if (ev.type == TRACE_EVENT_OP) e.ops++;
        if (ev.type == TRACE_EVENT_PROGRESS) e.run_labels[ev.u.progress.done + 1] = ev.u.progress.text;
        if (ev.type == TRACE_EVENT_BYE) {
            e.bye_status = ev.u.bye.status;
            e.bye_reason = ev.u.bye.reason;
        }
    }
    trace_events_reader_destroy(r);
    return e;
}

const std::vector<std::string> kFast = {"--seed", "7", "--runs", "3", "--schedules", "1", "--json", "--events-fd", "3"};

std::vector<std::string> Args(std::vector<std::string> extra = {}) {
    std::vector<std::string> a = kFast;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
}

TEST(Lab03, TheSkeletonIsCorrectButMissesTheTarget) {
    Outcome o = RunLab("labs/03_double_buffer_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "below_target");
    EXPECT_TRUE(Bool(j, "correct"));
    EXPECT_EQ(Num(j, "races"), 0);
    EXPECT_NEAR(Num(j, "speedup"), 1.0, 0.05);
    EXPECT_LT(Num(j, "speedup"), Num(j, "target"));
    EXPECT_EQ(Str(j, "backend"), "sim");
    EXPECT_EQ(Str(j, "profile"), "h200");
    int64_t timeline_run = static_cast<int64_t>(Num(j, "timeline_run"));
    cJSON_Delete(j);
    Events e = ReadEvents(o.events);
    // The report's timeline and metrics describe the last timed run of yours, not a
    // perturbed schedule that came after it.
    EXPECT_EQ(e.run_labels[timeline_run], "run 3/3 (yours)");
    EXPECT_TRUE(e.errors.empty()) << e.errors.size() << " bad lines, the first: " << (e.errors.empty() ? "" : e.errors[0]);
    ASSERT_FALSE(e.types.empty());
    EXPECT_EQ(e.types.front(), TRACE_EVENT_HELLO);
    EXPECT_EQ(e.types.back(), TRACE_EVENT_BYE);
    EXPECT_EQ(e.bye_status, 1);
    EXPECT_GT(e.ops, 100);
}

TEST(Lab03, TheReferenceReachesNinetyPercentOfTheBound) {
    Outcome o = RunLab("solutions/03_double_buffer_sim", Args());
    EXPECT_EQ(o.exit_code, 0) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "pass");
    EXPECT_GE(Num(j, "bound_fraction"), 0.90);
    EXPECT_LE(Num(j, "bound_fraction"), 1.0);
    // The target sits between the skeleton (about 1x) and the reference, with room on
    // both sides.
    EXPECT_GT(Num(j, "target"), 1.3);
    EXPECT_LT(Num(j, "target"), 0.85 * Num(j, "speedup"));
    cJSON_Delete(j);
}

TEST(Lab03, DoubleBufferingWithTwoStreamsAlsoPasses) {
    Outcome o = RunLab("labs/03_double_buffer_two_streams_sim", Args());
    EXPECT_EQ(o.exit_code, 0) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "pass");
    cJSON_Delete(j);
}

TEST(Lab03, ARacyPipelineIsReportedRacyWithFixes) {
    Outcome o = RunLab("labs/03_double_buffer_racy_sim", Args({"--schedules", "3"}));
    EXPECT_EQ(o.exit_code, 2) << o.err;
    cJSON *j = Json(o);
    EXPECT_TRUE(Str(j, "status") == "racy" || Str(j, "status") == "incorrect") << Str(j, "status");
    EXPECT_GT(Num(j, "races"), 0);
    std::set<std::string> kinds;
    cJSON *reports = cJSON_GetObjectItemCaseSensitive(j, "race_reports");
    cJSON *r;
    cJSON_ArrayForEach(r, reports) {
        kinds.insert(Str(r, "kind"));
        EXPECT_NE(Str(r, "fix").find("cudaStream"), std::string::npos) << Str(r, "fix");
    }
    // A buffer reused while another stream may still use it, and the host reading results
    // that a copy may not have written yet.
    EXPECT_TRUE(kinds.count("WAR") || kinds.count("WAW")) << o.err;
    EXPECT_TRUE(kinds.count("host_read")) << o.err;
    cJSON_Delete(j);
    Events e = ReadEvents(o.events);
    EXPECT_NE(std::find(e.types.begin(), e.types.end(), TRACE_EVENT_RACE), e.types.end());
}

TEST(Lab03, ACrashInRunIsReportedWithItsPhase) {
    Outcome o = RunLab("labs/03_double_buffer_crash_sim", Args(), "s3cret");
    EXPECT_EQ(o.exit_code, 2);
    EXPECT_NE(o.err.find("run() of your lab crashed with SIGSEGV"), std::string::npos) << o.err;
    EXPECT_TRUE(o.out.empty()) << o.out;
    Events e = ReadEvents(o.events, "s3cret");
    EXPECT_TRUE(e.errors.empty());
    EXPECT_EQ(e.bye_status, 2);
    EXPECT_NE(e.bye_reason.find("crash: SIGSEGV in run (yours)"), std::string::npos) << e.bye_reason;
}

TEST(Lab03, AHangIsEndedByTheTimeout) {
    Outcome o = RunLab("labs/03_double_buffer_hang_sim", Args({"--timeout", "2"}));
    EXPECT_EQ(o.exit_code, 2);
    EXPECT_LT(o.seconds, 30.0);
    EXPECT_NE(o.err.find("stopped after 2 s in run() of your lab"), std::string::npos) << o.err;
    Events e = ReadEvents(o.events);
    EXPECT_EQ(e.bye_status, 2);
    EXPECT_NE(e.bye_reason.find("timeout"), std::string::npos) << e.bye_reason;
}

TEST(Lab03, ExitingEarlyIsNotAPass) {
    Outcome o = RunLab("labs/03_double_buffer_exit_early_sim", Args());
    EXPECT_EQ(o.exit_code, 2);
    EXPECT_NE(o.err.find("called exit() in run() of your lab"), std::string::npos) << o.err;
}

TEST(Lab03, AFailedSetupNamesTheCall) {
    Outcome o = RunLab("labs/03_double_buffer_setup_fails_sim", Args());
    EXPECT_EQ(o.exit_code, 2);
    EXPECT_NE(o.err.find("cudaMalloc"), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("cudaErrorMemoryAllocation"), std::string::npos) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "error");
    EXPECT_NE(Str(j, "error").find("your setup() returned 1"), std::string::npos) << Str(j, "error");
    cJSON_Delete(j);
}

TEST(Lab03, AWrongAnswerSaysWhatTheWrongValueLooksLike) {
    Outcome o = RunLab("labs/03_double_buffer_no_kernel_sim", Args());
    EXPECT_EQ(o.exit_code, 2);
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "incorrect");
    cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "first_mismatch");
    ASSERT_NE(m, nullptr);
    EXPECT_NE(Str(m, "why").find("equals the batch's input"), std::string::npos) << Str(m, "why");
    EXPECT_EQ(Num(m, "wrong_batches"), 24);
    cJSON_Delete(j);
}

TEST(Lab03, TheSameSeedGivesTheSameFigures) {
    Outcome a = RunLab("labs/03_double_buffer_sim", Args());
    Outcome b = RunLab("labs/03_double_buffer_sim", Args());
    EXPECT_EQ(a.out, b.out);
}

TEST(Lab03, BadUsageExits64WithTheReason) {
    Outcome o = RunLab("labs/03_double_buffer_sim", {"--runs", "zero"});
    EXPECT_EQ(o.exit_code, 64);
    EXPECT_NE(o.err.find("--runs must be a whole number"), std::string::npos) << o.err;
    o = RunLab("labs/03_double_buffer_sim", {"--profile", "z80"});
    EXPECT_EQ(o.exit_code, 64);
    EXPECT_NE(o.err.find("--profile=z80"), std::string::npos) << o.err;
    o = RunLab("labs/03_double_buffer_sim", {"--backend=gpu"});
    EXPECT_EQ(o.exit_code, 64);
}

}  // namespace
