// grading/grade_host_test.cc: a busy grading host never turns into a student's grade
//. --timeout is the student's budget, for their own setup(), run() and
// teardown(); the baseline's and the harness's time is the harness's, on a budget of its
// own (labs/harness/budget.h). Each test runs the real //grading:grade as a child on a lab-03
// class, with the test hooks of labs/harness/budget.h in its environment (the grader passes
// them on to the lab binaries) to make the baseline slow, or the harness's budget short:
//  - the baseline slower than the whole --timeout: the honest student is graded as on an
//    idle machine, and the one whose run() never returns gets the student's timeout, named
//    in run() of their lab;
//  - the harness past its budget: the students are NOT GRADED (empty cells, a note that says
//    the host was too slow), the gradebook is INCOMPLETE, the exit status 1; --resume on a
//    host that keeps up grades them again, as a run that was never slow would have;
//  - the same in --gradescope mode: no results.json (Gradescope then shows the autograder
//    as failed, to regrade), exit status 1, the words on stderr and stdout.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "grading/grade_test_support.h"

namespace fs = std::filesystem;
using namespace gradetest;

namespace {

const char kLabFile[] = "labs/03_double_buffer/lab.c";

// The test hooks, set for one grader run and unset after it.
struct Hooks {
    Hooks(const char *slow_baseline_ms, const char *harness_budget_s) {
        if (slow_baseline_ms) setenv("STREAMLAB_TEST_SLOW_BASELINE_MS", slow_baseline_ms, 1);
        if (harness_budget_s) setenv("STREAMLAB_TEST_HARNESS_BUDGET_S", harness_budget_s, 1);
    }
    ~Hooks() {
        unsetenv("STREAMLAB_TEST_SLOW_BASELINE_MS");
        unsetenv("STREAMLAB_TEST_HARNESS_BUDGET_S");
    }
};

Outcome Grade03(const std::string &subs, const std::string &out, const std::string &scratch,
                std::vector<std::string> more = {}) {
    std::vector<std::string> args = {"--labs", "03", "--seed", "42", "--quiet", "--jobs", "2", "--submissions", subs,
                                     "--out", out, "--scratch", scratch};
    args.insert(args.end(), more.begin(), more.end());
    return Grade(args);
}

// Every run of the baseline takes 1.5 s more: 4.5 s a lab run (its warm-up and two timed
// runs), more than the students' 4 s. bob's reference takes well under a second of its own.
TEST(GradeHost, ASlowBaselineIsNeverTheStudentsTime) {
    std::string subs = TempDir("slow_subs"), out = TempDir("slow_out"), scratch = ScratchDir("slow_scratch");
    Spit(subs + "/bob/" + kLabFile, Slurp(Runfile("solutions/03_double_buffer.c")));
    Spit(subs + "/zed/" + kLabFile, Slurp(Runfile("grading/testdata/infinite_loop/labs/03_double_buffer/lab.c")));
    Outcome r;
    {
        Hooks slow("1500", nullptr);
        r = Grade03(subs, out, scratch, {"--timeout", "4"});
    }
    std::string csv = Slurp(out + "/gradebook.csv");
    std::string bob = Slurp(out + "/bob/report.txt"), zed = Slurp(out + "/zed/report.txt");
    EXPECT_EQ(bob.find("timed out"), std::string::npos) << bob;
    EXPECT_EQ(zed.find("the grading host was too slow"), std::string::npos) << zed;
    EXPECT_NE(zed.find("timed out: still running after 4 s, in run() of your lab"), std::string::npos) << zed;
    EXPECT_NE(csv.find("\r\nzed,0.00,100.00,"), std::string::npos) << csv;
    if (r.exit_code == 1) {
        // A host too slow even for the harness's grown budget: bob is not graded, never 0.
        EXPECT_NE(csv.find("\r\nbob,,,,,,,,\"NOT GRADED: lab 03_double_buffer: the grading host was too slow"),
                  std::string::npos)
            << csv;
        return;
    }
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(csv.find("\r\nbob,100.00,100.00,"), std::string::npos) << csv;
    EXPECT_FALSE(fs::exists(out + "/INCOMPLETE.txt"));
}

// The harness may take 6 s; with --runs 5 the baseline alone takes 7.2 s (six runs of 1.2 s),
// while the pre-flight run of the skeleton (two runs of the baseline, 2.4 s) fits.
TEST(GradeHost, AHostTooSlowForTheHarnessIsNotGradedAndResumeGradesItAgain) {
    std::string subs = TempDir("host_subs"), out = TempDir("host_out"), scratch = ScratchDir("host_scratch");
    Spit(subs + "/alice/" + kLabFile, Slurp(Runfile("labs/03_double_buffer/lab.c")));
    Spit(subs + "/bob/" + kLabFile, Slurp(Runfile("solutions/03_double_buffer.c")));
    Outcome r;
    {
        Hooks slow("1200", "6");
        r = Grade03(subs, out, scratch, {"--runs", "5"});
    }
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("the grading host was too slow for the harness's own work in a lab run of 2 of 2 students "
                         "(alice, bob)"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("--resume"), std::string::npos) << r.err;
    std::string csv = Slurp(out + "/gradebook.csv");
    for (const char *who : {"alice", "bob"})
        EXPECT_NE(csv.find(std::string("\r\n") + who +
                           ",,,,,,,,\"NOT GRADED: lab 03_double_buffer: the grading host was too slow: the harness's "
                           "own work (the baseline, checking results, the report) in this lab run took more than its "
                           "6 s, in "),
                  std::string::npos)
            << csv;
    EXPECT_NE(Slurp(out + "/INCOMPLETE.txt").find("(alice, bob)"), std::string::npos);
    std::string report = Slurp(out + "/alice/report.txt");
    EXPECT_NE(report.find("score NOT GRADED (out of 100.00)"), std::string::npos) << report;
    EXPECT_NE(report.find("== 03_double_buffer (labs/03_double_buffer/lab.c): NOT GRADED (out of 100.00)"),
              std::string::npos)
        << report;
    EXPECT_NE(report.find("The submission is not at fault"), std::string::npos) << report;
    EXPECT_EQ(report.find("[FAIL]"), std::string::npos) << report;
    EXPECT_EQ(Slurp(out + "/junit.xml").find("alice"), std::string::npos);

    // The host keeps up again: --resume grades them, as if the slow run had never been.
    r = Grade03(subs, out, scratch, {"--runs", "5", "--resume"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err.find("already graded"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out + "/INCOMPLETE.txt"));
    std::string whole = TempDir("host_whole");
    r = Grade03(subs, whole, scratch, {"--runs", "5"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(Slurp(out + "/gradebook.csv"), Slurp(whole + "/gradebook.csv"));
    EXPECT_NE(Slurp(whole + "/gradebook.csv").find("\r\nbob,100.00,100.00,"), std::string::npos);
}

TEST(GradeHost, InGradescopeModeAHostTooSlowWritesNoScore) {
    std::string sub = TempDir("gs_host_submission"), results = TempDir("gs_host_results") + "/results.json";
    Spit(sub + "/lab.c", Slurp(Runfile("solutions/03_double_buffer.c")));
    Outcome r;
    {
        Hooks slow("1200", "6");
        r = Grade({"--gradescope", "--labs", "03", "--seed", "42", "--runs", "5", "--submission-dir", sub,
                   "--results", results});
    }
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_FALSE(fs::exists(results));
    EXPECT_NE(r.err.find("NOT GRADED: lab 03_double_buffer: the grading host was too slow"), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("no results were written"), std::string::npos) << r.err;
    EXPECT_NE(r.out.find("score NOT GRADED"), std::string::npos) << r.out;
}

}  // namespace
