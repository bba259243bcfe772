// grading/grade_mistakes_test.cc: instructor mistakes that must never give wrong grades
// with exit 0, each run against the real //grading:grade as a child, on a
// two-student lab-03 class (the skeleton and the reference) with fast settings:
//  - a rubric whose floor lies above the lab's own target, and a --profile the lab binary
//    refuses, stop the grader before anyone is graded (the pre-flight run);
//  - --labs naming a lab twice is bad usage;
//  - --out inside, equal to or holding --submissions is refused; a used --out is refused
//    unless --regrade (merge), --resume or --force says what to do; a locked one too;
//  - an empty submissions folder, and one student's folder given as the class, are refused;
//  - Ctrl-C writes the finished students' gradebook marked incomplete, removes the scratch
//    folder and exits 130; the --resume command it prints, run as typed by sh (an --out
//    with a space, a quote and a $), gives the gradebook of an uninterrupted run and says
//    the layout once;
//  - usage errors name the program as `bazel run //grading:grade --`.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "grading/grade_test_support.h"

namespace fs = std::filesystem;
using namespace gradetest;

namespace {

const char kLabFile[] = "labs/03_double_buffer/lab.c";

std::string Skeleton() { return Slurp(Runfile("labs/03_double_buffer/lab.c")); }
std::string Reference() { return Slurp(Runfile("solutions/03_double_buffer.c")); }

// alice (the skeleton: correct, slow) and bob (the reference: full marks).
std::string Class(const std::string &name) {
    std::string subs = TempDir(name);
    Spit(subs + "/alice/" + kLabFile, Skeleton());
    Spit(subs + "/bob/" + kLabFile, Reference());
    return subs;
}

// One timed run and no perturbed schedule (given after Grade()'s, they are the ones taken):
// these tests are about the class's folders and runs, which need no measured speed.
Outcome Grade3(std::vector<std::string> args) {
    args.insert(args.begin(), {"--labs", "03", "--seed", "42", "--quiet", "--jobs", "2", "--runs", "1", "--schedules", "0"});
    return Grade(args);
}

TEST(GraderMistakes, ARubricFloorAboveTheLabsOwnTargetIsRefused) {
    std::string subs = Class("floor_subs"), out = TempDir("floor_out");
    Outcome r = Grade3({"--submissions", subs, "--out", out, "--rubric",
                        Runfile("grading/testdata/rubrics/floor_above_lab_target.json")});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("floor_above_lab_target.json: labs.03_double_buffer.speedup: floor (0.9 of the bound) must "
                         "be below the lab's own target (0.79 of the bound"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(out + "/gradebook.csv"));
    EXPECT_FALSE(fs::exists(out + "/bob"));
}

TEST(GraderMistakes, AProfileTheLabRefusesStopsTheGraderBeforeAnyoneIsGraded) {
    std::string subs = Class("profile_subs"), out = TempDir("profile_out");
    Outcome r = Grade3({"--submissions", subs, "--out", out, "--profile", "nosuch", "--backend", "sim"});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("refused them: 03_double_buffer: --profile=nosuch: unknown profile"), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("nobody was graded"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out + "/gradebook.csv"));
}

TEST(GraderMistakes, ALabNamedTwiceIsBadUsage) {
    std::string subs = Class("twice_subs"), out = TempDir("twice_out");
    Outcome r = Grade({"--submissions", subs, "--out", out, "--labs", "03_double_buffer,03"});
    EXPECT_EQ(r.exit_code, 64) << r.err;
    EXPECT_NE(r.err.find("--labs names 03_double_buffer twice (once as 03)"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out + "/gradebook.csv"));
}

TEST(GraderMistakes, OverlappingSubmissionsAndOutAreRefused) {
    std::string subs = Class("overlap_subs");
    for (const std::string &out : {subs, subs + "/reports", subs + "/.."}) {
        SCOPED_TRACE(out);
        Outcome r = Grade3({"--submissions", subs, "--out", out});
        EXPECT_EQ(r.exit_code, 1) << r.err;
        EXPECT_NE(r.err.find("overlap"), std::string::npos) << r.err;
    }
    EXPECT_FALSE(fs::exists(subs + "/reports"));
    EXPECT_FALSE(fs::exists(subs + "/alice/report.txt"));
}

TEST(GraderMistakes, AUsedOutIsRefusedUnlessToldWhatToDo) {
    std::string subs = Class("used_subs"), out = TempDir("used_out");
    Outcome r = Grade3({"--submissions", subs, "--out", out});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::string first = Slurp(out + "/gradebook.csv");
    EXPECT_NE(first.find("\r\nalice,60.00,"), std::string::npos) << first;

    // A class of bob alone (graded again: his file changed) into the same folder.
    std::string bob_only = TempDir("used_bob_only");
    Spit(bob_only + "/bob/" + kLabFile, Skeleton());
    r = Grade3({"--submissions", bob_only, "--out", out});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("holds the reports of an earlier run"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("--regrade"), std::string::npos) << r.err;
    EXPECT_EQ(Slurp(out + "/gradebook.csv"), first);

    // --regrade merges: bob's row replaced, alice keeps hers.
    r = Grade3({"--submissions", bob_only, "--out", out, "--regrade"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::string merged = Slurp(out + "/gradebook.csv");
    EXPECT_NE(merged.find("\r\nalice,60.00,"), std::string::npos) << merged;
    EXPECT_NE(merged.find("\r\nbob,60.00,"), std::string::npos) << merged;
    EXPECT_EQ(std::count(merged.begin(), merged.end(), '\n'), 3) << merged;

    // --force starts clean: alice's row and folder are gone.
    r = Grade3({"--submissions", bob_only, "--out", out, "--force"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::string clean = Slurp(out + "/gradebook.csv");
    EXPECT_EQ(clean.find("alice"), std::string::npos) << clean;
    EXPECT_FALSE(fs::exists(out + "/alice"));

    // A folder of other files is never taken, even with --force.
    std::string other = TempDir("used_other");
    Spit(other + "/thesis.tex", "\\documentclass{article}\n");
    r = Grade3({"--submissions", subs, "--out", other, "--force"});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("not a grader's reports"), std::string::npos) << r.err;
    EXPECT_TRUE(fs::exists(other + "/thesis.tex"));
}

// A student's reports that cannot be written (a file where their folder goes) make the
// run exit 1, not 0.
TEST(GraderMistakes, AReportThatCannotBeWrittenIsAnError) {
    std::string subs = Class("unwritable_subs"), out = TempDir("unwritable_out");
    Outcome r = Grade3({"--submissions", subs, "--out", out});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    fs::remove_all(out + "/bob");
    Spit(out + "/bob", "in the way\n");
    r = Grade3({"--submissions", subs, "--out", out, "--regrade"});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("some reports could not be written"), std::string::npos) << r.err;
}

TEST(GraderMistakes, ASecondGraderOnTheSameOutIsRefused) {
    std::string subs = Class("lock_subs"), out = TempDir("lock_out");
    int fd = open((out + "/.streamlab-grade.lock").c_str(), O_RDWR | O_CREAT, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(flock(fd, LOCK_EX | LOCK_NB), 0);
    Outcome r = Grade3({"--submissions", subs, "--out", out});
    close(fd);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("another grader"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out + "/gradebook.csv"));
}

TEST(GraderMistakes, AnEmptyOrOneStudentsSubmissionsFolderIsRefused) {
    std::string empty = TempDir("empty_subs"), out = TempDir("empty_out");
    Outcome r = Grade3({"--submissions", empty, "--out", out});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("holds no submissions"), std::string::npos) << r.err;
    std::string subs = Class("one_subs");
    r = Grade3({"--submissions", subs + "/alice", "--out", out});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("looks like one student's folder"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out + "/labs"));
    EXPECT_FALSE(fs::exists(out + "/gradebook.csv"));
}

TEST(GraderMistakes, UsageErrorsNameTheBazelCommand) {
    setenv("BUILD_WORKSPACE_DIRECTORY", "/nowhere", 1);
    Outcome r = Grade({"--no-such-option"});
    unsetenv("BUILD_WORKSPACE_DIRECTORY");
    EXPECT_EQ(r.exit_code, 64);
    EXPECT_NE(r.err.find("Try 'bazel run //grading:grade -- --help'"), std::string::npos) << r.err;
}

// Ctrl-C while a student hangs: the two finished students are in the gradebook, the third
// is NOT GRADED, the scratch folder is gone, exit 130; --resume grades only the third and
// gives the gradebook an uninterrupted run gives.
// zed's run() never returns, so that the grader is busy with zed when Ctrl-C comes; --timeout
// 4 ends it (in the runs after the interruption). --timeout is the students' own budget:
// alice's and bob's setup(), run() and teardown() take well under a second here, and the
// baseline's and the harness's time is not theirs, so a busy machine does not time them out
// (it did when --timeout counted the whole lab: "timed out ... in check() of the harness").
TEST(GraderMistakes, CtrlCLeavesAnIncompleteGradebookThatResumeFinishes) {
    // An --out whose name the shell would split and unquote: the printed command must quote it.
    std::string subs = Class("sigint_subs"), out = TempDir("sigint out's $HOME [1]"),
                scratch = ScratchDir("sigint_scratch");
    fs::path hang = fs::path(Runfile("grading/testdata/infinite_loop"));
    for (const auto &e : fs::recursive_directory_iterator(hang, fs::directory_options::follow_directory_symlink))
        if (e.is_regular_file() && e.path().filename() != "expected.json")
            Spit((fs::path(subs) / "zed" / e.path().lexically_relative(hang)).string(), Slurp(e.path().string()));
    std::vector<std::string> args = {Runfile("grading/grade"), "--runs", "1", "--schedules", "0", "--memory-mb", "1024",
                                     "--no-progress", "--labs", "03", "--seed", "42", "--quiet", "--jobs", "1",
                                     "--timeout", "4", "--submissions", subs, "--out", out, "--scratch", scratch};
    int err_p[2];
    ASSERT_EQ(pipe(err_p), 0);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(err_p[1], 2);
        close(err_p[0]);
        close(err_p[1]);
        std::vector<char *> argv;
        for (auto &a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        execv(argv[0], argv.data());
        _exit(127);
    }
    close(err_p[1]);
    // alice and bob are graded one after the other (--jobs 1); then zed hangs.
    for (int i = 0; i < 600 && !fs::exists(out + "/bob/report.txt"); i++)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::this_thread::sleep_for(std::chrono::milliseconds(700));
    kill(pid, SIGINT);
    std::string err;
    char buf[4096];
    ssize_t n;
    while ((n = read(err_p[0], buf, sizeof(buf))) > 0) err.append(buf, static_cast<size_t>(n));
    close(err_p[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status)) << err;
    EXPECT_EQ(WEXITSTATUS(status), 130) << err;
    EXPECT_NE(err.find("interrupted (SIGINT): 2 of 3 students graded"), std::string::npos) << err;
    EXPECT_NE(err.find("--resume"), std::string::npos) << err;
    std::string partial = Slurp(out + "/gradebook.csv");
    EXPECT_NE(partial.find("\r\nalice,60.00,"), std::string::npos) << partial;
    EXPECT_NE(partial.find("\r\nbob,100.00,"), std::string::npos) << partial;
    EXPECT_NE(partial.find("\r\nzed,,,,,,,,NOT GRADED"), std::string::npos) << partial;
    EXPECT_TRUE(fs::exists(out + "/INCOMPLETE.txt"));
    EXPECT_TRUE(fs::is_empty(scratch)) << "the scratch folder was left in " << scratch;

    // The command it printed, run as typed (by sh, from the same folder).
    size_t at = err.find("To finish, run:\n  ");
    ASSERT_NE(at, std::string::npos) << err;
    std::string printed = err.substr(at + 18);
    printed = printed.substr(0, printed.find('\n'));
    EXPECT_NE(printed.find(" --resume"), std::string::npos) << printed;
    Outcome r = RunProgram({"/bin/sh", "-c", printed});
    ASSERT_EQ(r.exit_code, 0) << printed << "\n" << r.err;
    EXPECT_NE(r.err.find("2 students already graded"), std::string::npos) << r.err;
    // The layout line, once.
    size_t layouts = 0;
    for (size_t p = r.err.find("read as the documented layout"); p != std::string::npos;
         p = r.err.find("read as the documented layout", p + 1))
        layouts++;
    EXPECT_EQ(layouts, 1u) << r.err;
    EXPECT_FALSE(fs::exists(out + "/INCOMPLETE.txt"));
    std::string finished = Slurp(out + "/gradebook.csv");
    EXPECT_NE(finished.find("\r\nzed,0.00,"), std::string::npos) << finished;
    EXPECT_NE(Slurp(out + "/zed/report.txt").find("timed out: still running after 4 s, in run() of your lab"),
              std::string::npos)
        << Slurp(out + "/zed/report.txt");
    std::string whole = TempDir("sigint_whole");
    r = Grade3({"--timeout", "4", "--submissions", subs, "--out", whole});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(Slurp(out + "/gradebook.csv"), Slurp(whole + "/gradebook.csv"));
}

}  // namespace
