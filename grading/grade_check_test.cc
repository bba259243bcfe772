// grading/grade_check_test.cc: the student's own check, //grading:check run as
// a child: it grades the lab file of a checkout (labs/<lab>/lab.c under
// BUILD_WORKSPACE_DIRECTORY, as `bazel run` sets it) or a file named, through the
// instructor's grader, and prints each check's points and reason and the total; a lab it
// does not know is bad usage, a file that is not there an error.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "grading/grade_test_support.h"

using namespace gradetest;

namespace {

TEST(GraderCheck, PrintsTheRubricsPointsForTheStudentsOwnFile) {
    std::string checkout = TempDir("check_checkout");
    Spit(checkout + "/labs/03_double_buffer/lab.c", Slurp(Runfile("labs/03_double_buffer/lab.c")));
    setenv("BUILD_WORKSPACE_DIRECTORY", checkout.c_str(), 1);
    Outcome skel = RunProgram({Runfile("grading/check"), "03", "--runs", "2", "--seed", "42"});
    ASSERT_EQ(skel.exit_code, 0) << skel.err;
    EXPECT_NE(skel.out.find("checking " + checkout + "/labs/03_double_buffer/lab.c"), std::string::npos) << skel.out;
    EXPECT_NE(skel.out.find("03_double_buffer: correct                 40.00 / 40.00"), std::string::npos) << skel.out;
    EXPECT_NE(skel.out.find("03_double_buffer: race-free               20.00 / 20.00"), std::string::npos) << skel.out;
    EXPECT_NE(skel.out.find("03_double_buffer: speed                    0.00 / 40.00\n    1.00x over the baseline"),
              std::string::npos)
        << skel.out;
    EXPECT_NE(skel.out.find("total                                     60.00 / 100.00"), std::string::npos) << skel.out;
    EXPECT_NE(skel.out.find("the grader's full report: /tmp/streamlab-check."), std::string::npos) << skel.out;

    // A file named on the command line (the reference): full marks.
    Outcome ref = RunProgram({Runfile("grading/check"), "03_double_buffer", Runfile("solutions/03_double_buffer.c"),
                              "--runs", "2", "--seed", "42"});
    ASSERT_EQ(ref.exit_code, 0) << ref.err;
    EXPECT_NE(ref.out.find("total                                    100.00 / 100.00"), std::string::npos) << ref.out;

    // The grader's rule for a lab file's name decides here as for an upload: a copy's name
    // (Lab.C) is the lab file; a file of another kind is not, and the reason names it.
    std::string copy = checkout + "/Lab.C";
    Spit(copy, Slurp(Runfile("solutions/03_double_buffer.c")));
    Outcome named = RunProgram({Runfile("grading/check"), "03", copy, "--runs", "2", "--seed", "42"});
    ASSERT_EQ(named.exit_code, 0) << named.err;
    EXPECT_NE(named.out.find("total                                    100.00 / 100.00"), std::string::npos) << named.out;
    std::string notes = checkout + "/notes.txt";
    Spit(notes, Slurp(Runfile("solutions/03_double_buffer.c")));
    Outcome other = RunProgram({Runfile("grading/check"), "03", notes, "--runs", "2", "--seed", "42"});
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
    unsetenv("BUILD_WORKSPACE_DIRECTORY");
}

}  // namespace
