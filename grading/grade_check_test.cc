// grading/grade_check_test.cc: the student's own check, //grading:check run as
// a child: it grades the lab file of a checkout (labs/<lab>/lab.c under
// BUILD_WORKSPACE_DIRECTORY, as `bazel run` sets it) or a file named, through the
// instructor's grader, and prints each check's points and reason and the total; a lab it
// does not know is bad usage, a file that is not there an error; --report FILE keeps the
// full report; its working folder ($TMPDIR/streamlab-check.*) is gone after every run,
// an error and SIGTERM included.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "grading/grade_test_support.h"

using namespace gradetest;

namespace {

// What check left in its temporary folder.
std::vector<std::string> Left(const std::string &tmp) {
    std::vector<std::string> names;
    for (const auto &e : fs::directory_iterator(tmp)) names.push_back(e.path().filename().string());
    return names;
}

TEST(GraderCheck, PrintsTheRubricsPointsForTheStudentsOwnFile) {
    std::string checkout = TempDir("check_checkout");
    Spit(checkout + "/labs/03_double_buffer/lab.c", Slurp(Runfile("labs/03_double_buffer/lab.c")));
    setenv("BUILD_WORKSPACE_DIRECTORY", checkout.c_str(), 1);
    std::string tmp = TempDir("check_tmp");
    setenv("TMPDIR", tmp.c_str(), 1);
    // One timed run each: what is checked here is which file is graded and what is printed.
    Outcome skel = RunProgram({Runfile("grading/check"), "03", "--runs", "1", "--seed", "42"});
    ASSERT_EQ(skel.exit_code, 0) << skel.err;
    EXPECT_NE(skel.out.find("checking " + checkout + "/labs/03_double_buffer/lab.c"), std::string::npos) << skel.out;
    EXPECT_NE(skel.out.find("03_double_buffer: correct                 40.00 / 40.00"), std::string::npos) << skel.out;
    EXPECT_NE(skel.out.find("03_double_buffer: race-free               20.00 / 20.00"), std::string::npos) << skel.out;
    EXPECT_NE(skel.out.find("03_double_buffer: speed                    0.00 / 40.00\n    1.00x over the baseline"),
              std::string::npos)
        << skel.out;
    EXPECT_NE(skel.out.find("total                                     60.00 / 100.00"), std::string::npos) << skel.out;
    EXPECT_NE(skel.out.find("the grader's full report (the compiler's words, races, timings, the timeline): add "
                            "--report FILE"),
              std::string::npos)
        << skel.out;
    EXPECT_EQ(Left(tmp), std::vector<std::string>{}) << "check left its folder";

    // A file named on the command line (the reference): full marks, and its full report kept.
    std::string report = checkout + "/my report.txt";
    Outcome ref = RunProgram({Runfile("grading/check"), "03_double_buffer", Runfile("solutions/03_double_buffer.c"),
                              "--runs", "1", "--seed", "42", "--report", report});
    ASSERT_EQ(ref.exit_code, 0) << ref.err;
    EXPECT_NE(ref.out.find("total                                    100.00 / 100.00"), std::string::npos) << ref.out;
    EXPECT_NE(ref.out.find("the grader's full report: " + report), std::string::npos) << ref.out;
    EXPECT_NE(Slurp(report).find("03_double_buffer"), std::string::npos) << Slurp(report);
    EXPECT_EQ(Left(tmp), std::vector<std::string>{}) << "check left its folder";

    // The grader's rule for a lab file's name decides here as for an upload: a copy's name
    // (Lab.C) is the lab file; a file of another kind is not, and the reason names it.
    std::string copy = checkout + "/Lab.C";
    Spit(copy, Slurp(Runfile("solutions/03_double_buffer.c")));
    Outcome named = RunProgram({Runfile("grading/check"), "03", copy, "--runs", "1", "--seed", "42"});
    ASSERT_EQ(named.exit_code, 0) << named.err;
    EXPECT_NE(named.out.find("total                                    100.00 / 100.00"), std::string::npos) << named.out;
    std::string notes = checkout + "/notes.txt";
    Spit(notes, Slurp(Runfile("solutions/03_double_buffer.c")));
    Outcome other = RunProgram({Runfile("grading/check"), "03", notes, "--runs", "1", "--seed", "42"});
    ASSERT_EQ(other.exit_code, 0) << other.err;
    EXPECT_NE(other.out.find("total                                      0.00 / 100.00"), std::string::npos) << other.out;
    EXPECT_NE(other.out.find("it holds labs/03_double_buffer/notes.txt (1 other file, none of them named lab.c)"),
              std::string::npos)
        << other.out;

    Outcome unknown = RunProgram({Runfile("grading/check"), "99"});
    EXPECT_EQ(unknown.exit_code, 64);
    EXPECT_NE(unknown.err.find("99 names no lab"), std::string::npos) << unknown.err;
    Outcome missing = RunProgram({Runfile("grading/check"), "03", checkout + "/nosuch.c"});
    EXPECT_EQ(missing.exit_code, 1);
    EXPECT_NE(missing.err.find("nosuch.c"), std::string::npos) << missing.err;
    // A report that cannot be written: an error, and still nothing left behind.
    Outcome bad = RunProgram({Runfile("grading/check"), "03", Runfile("solutions/03_double_buffer.c"), "--runs", "1",
                              "--seed", "42", "--report", checkout + "/no/such/folder/r.txt"});
    EXPECT_EQ(bad.exit_code, 1) << bad.out;
    EXPECT_NE(bad.err.find("--report"), std::string::npos) << bad.err;
    EXPECT_EQ(Left(tmp), std::vector<std::string>{}) << "check left its folder";
    unsetenv("BUILD_WORKSPACE_DIRECTORY");
    unsetenv("TMPDIR");
}

// SIGTERM to check alone while the grader runs: it is passed on, check exits 143 and its
// folder and the grader's scratch folder are gone.
TEST(GraderCheck, ASignalLeavesNothingBehind) {
    std::string tmp = TempDir("check_signal_tmp");
    std::string check = Runfile("grading/check"), file = Runfile("solutions/03_double_buffer.c");
    pid_t pid = fork();
    if (pid == 0) {
        setenv("TMPDIR", tmp.c_str(), 1);
        int devnull = open("/dev/null", O_WRONLY);
        dup2(devnull, 1);
        dup2(devnull, 2);
        execl(check.c_str(), check.c_str(), "03", file.c_str(), "--runs", "3", "--seed", "42", (char *)nullptr);
        _exit(127);
    }
    // Wait until check's folder exists and the grader has started in it.
    bool started = false;
    for (int i = 0; i < 600 && !started; i++) {
        for (const auto &name : Left(tmp))
            if (name.rfind("streamlab-check.", 0) == 0 && fs::exists(tmp + "/" + name + "/submission")) started = true;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ASSERT_TRUE(started) << "check never made its folder in " << tmp;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    kill(pid, SIGTERM);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 143);
    EXPECT_EQ(Left(tmp), std::vector<std::string>{}) << "left after SIGTERM";
}

}  // namespace
