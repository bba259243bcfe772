// grading/grade_late_test.cc: the rubric's late policy and the gradebook's manual
// adjustments, against the real //grading:grade as a child on a two-student
// lab-03 class (alice: the skeleton, 60 of 100; bob: the reference, 100) with fast settings:
//  - a late student loses the policy's points (bob, by his file's modification time, which
//    --file-times asks for), an on-time one nothing (alice, by --submitted-at, inside the
//    grace minutes); files whose times are a copy's are refused with --file-times, and
//    without it nobody is marked late by them and the grader warns;
//  - a rubric with a bad late policy is refused before anyone is graded;
//  - an adjustment typed into the gradebook survives --regrade, with its note, and counts
//    in the total;
//  - a malformed adjustment is refused with its row and column named, the gradebook
//    untouched.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "grading/grade_csv_test_support.h"
#include "grading/grade_test_support.h"

namespace fs = std::filesystem;
using namespace gradetest;

namespace {

const char kLabFile[] = "labs/03_double_buffer/lab.c";

std::string Class(const std::string &name) {
    std::string subs = TempDir(name);
    Spit(subs + "/alice/" + kLabFile, Slurp(Runfile("labs/03_double_buffer/lab.c")));
    Spit(subs + "/bob/" + kLabFile, Slurp(Runfile("solutions/03_double_buffer.c")));
    return subs;
}

// One timed run and no perturbed schedule (given after Grade()'s, they are the ones taken):
// the late policy and the adjustments act on the checks' points, whatever the runs.
Outcome Grade3(std::vector<std::string> args) {
    args.insert(args.begin(), {"--labs", "03", "--seed", "42", "--quiet", "--jobs", "2", "--runs", "1", "--schedules", "0"});
    return Grade(args);
}

std::string Rubric(const std::string &name, const std::string &late) {
    std::string path = TempDir(name) + "/rubric.json";
    Spit(path, R"({"labs": {"03_double_buffer": {
        "correct": {"points": 40}, "race_free": {"points": 20},
        "speedup": {"points": 40, "unit": "bound_fraction", "floor": "baseline", "target": "lab"})" +
                   (late.empty() ? std::string() : ",\n        \"late\": " + late) + "}}}\n");
    return path;
}

TEST(GraderLate, ALateStudentLosesThePolicysPointsAndAnOnTimeOneNothing) {
    std::string subs = Class("late_subs"), out = TempDir("late_out");
    std::string rubric =
        Rubric("late_rubric", R"({"due": "2025-12-01T23:59:00Z", "per_day": 10, "max_days": 5, "grace_minutes": 15})");
    // bob: his file's modification time, 1 day and 2 hours after the due time: 2 days late.
    auto due = std::chrono::system_clock::from_time_t(1764633540);  // 2025-12-01T23:59:00Z
    auto bob_time = fs::file_time_type::clock::now() +
                    (due + std::chrono::hours(26) - std::chrono::system_clock::now());
    fs::last_write_time(subs + "/bob/" + kLabFile, bob_time);
    // alice: the instructor's time, 10 minutes late, inside the 15 minutes' grace.
    std::string at = TempDir("late_at") + "/submitted.csv";
    Spit(at, "student,submitted_at\r\nalice,2025-12-02T00:09:00Z\r\n");
    Outcome r =
        Grade3({"--submissions", subs, "--out", out, "--rubric", rubric, "--submitted-at", at, "--file-times"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::string csv = Slurp(out + "/gradebook.csv");
    EXPECT_EQ(Cell(csv, "bob", "03_double_buffer late_days"), "2") << csv;
    EXPECT_EQ(Cell(csv, "bob", "03_double_buffer late_penalty"), "20.00") << csv;
    EXPECT_EQ(Cell(csv, "bob", "score"), "80.00") << csv;
    EXPECT_EQ(Cell(csv, "bob", "03_double_buffer speedup"), "40.00") << csv;  // the checks as graded
    EXPECT_EQ(Cell(csv, "alice", "03_double_buffer late_days"), "0") << csv;
    EXPECT_EQ(Cell(csv, "alice", "03_double_buffer late_penalty"), "0.00") << csv;
    EXPECT_EQ(Cell(csv, "alice", "score"), "60.00") << csv;
    // Every report says it.
    std::string report = Slurp(out + "/bob/report.txt");
    EXPECT_NE(report.find("score 80.00 / 100.00"), std::string::npos) << report;
    EXPECT_NE(report.find("2 days late"), std::string::npos) << report;
    EXPECT_NE(Slurp(out + "/bob/results.json").find("late"), std::string::npos);
    EXPECT_NE(Slurp(out + "/bob/junit.xml").find("late_penalty"), std::string::npos);
    EXPECT_NE(Slurp(out + "/alice/report.txt").find("on time"), std::string::npos);

    // A student named in --submitted-at who is not in the class is refused.
    Spit(at, "student,submitted_at\r\nmallory,2025-12-02T00:09:00Z\r\n");
    r = Grade3({"--submissions", subs, "--out", TempDir("late_out2"), "--rubric", rubric, "--submitted-at", at});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("line 2: \"mallory\" is no student"), std::string::npos) << r.err;

    // A class copied a moment ago (cp -r, git clone, rsync) has the copy's times: with
    // --file-times they are refused, not taken as everyone handing in late.
    std::string copied = Class("late_copied");
    std::string out3 = TempDir("late_out3");
    r = Grade3({"--submissions", copied, "--out", out3, "--rubric", rubric, "--file-times"});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("--file-times: the files of all 2 students were modified within"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("those are the times of a copy"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out3 + "/gradebook.csv"));
    // Without --file-times the copy's times are not used: nobody is marked late (not
    // hundreds of days late by the copy's date), and the grader says loudly who it cannot judge.
    std::string out5 = TempDir("late_out5");
    r = Grade3({"--submissions", copied, "--out", out5, "--rubric", rubric});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::string copied_csv = Slurp(out5 + "/gradebook.csv");
    EXPECT_EQ(Cell(copied_csv, "bob", "03_double_buffer late_days"), "0") << copied_csv;
    EXPECT_EQ(Cell(copied_csv, "bob", "score"), "100.00") << copied_csv;
    EXPECT_NE(r.err.find("WARNING: late policy (03_double_buffer): 2 of 2 students have no time of handing in (alice, "
                         "bob): they are NOT marked late"),
              std::string::npos)
        << r.err;
    EXPECT_NE(Slurp(out5 + "/bob/report.txt").find("on time: no time of handing in is known"),
              std::string::npos);
    // Times after the grading began are not handing-in times either.
    fs::last_write_time(copied + "/bob/" + kLabFile, fs::file_time_type::clock::now() + std::chrono::hours(48));
    r = Grade3({"--submissions", copied, "--out", TempDir("late_out4"), "--rubric", rubric, "--file-times"});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("modified after the grading began (bob"), std::string::npos) << r.err;
}

TEST(GraderLate, ARubricWithABadLatePolicyIsRefused) {
    std::string subs = Class("badlate_subs");
    struct Case {
        std::string late, field, words;
    } cases[] = {
        {R"({"due": "2026-12-01 23:59", "per_day": 10, "max_days": 5})", "labs.03_double_buffer.late.due",
         "time zone"},
        {R"({"due": "2026-12-01T23:59:00Z", "per_day": -10, "max_days": 5})", "labs.03_double_buffer.late.per_day",
         "0 or more"},
        {R"({"due": "2026-12-01T23:59:00Z", "per_day": 10})", "labs.03_double_buffer.late.max_days", "missing"},
        {R"({"due": "2026-12-01T23:59:00Z", "per_day": 10, "max_days": 5, "grace": 15})",
         "labs.03_double_buffer.late.grace", "unknown key"},
        {R"("5 days")", "labs.03_double_buffer.late", "must be an object"},
    };
    for (const Case &c : cases) {
        SCOPED_TRACE(c.late);
        std::string out = TempDir("badlate_out");
        Outcome r = Grade3({"--submissions", subs, "--out", out, "--rubric", Rubric("badlate_rubric", c.late)});
        EXPECT_EQ(r.exit_code, 1) << r.err;
        EXPECT_NE(r.err.find(c.field + ": "), std::string::npos) << r.err;
        EXPECT_NE(r.err.find(c.words), std::string::npos) << r.err;
        EXPECT_FALSE(fs::exists(out + "/gradebook.csv"));
    }
}

TEST(GraderLate, AnAdjustmentSurvivesARegradeAndAMalformedOneIsRefused) {
    std::string subs = Class("adj_subs"), out = TempDir("adj_out");
    Outcome r = Grade3({"--submissions", subs, "--out", out});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::string csv = Slurp(out + "/gradebook.csv");
    EXPECT_EQ(Cell(csv, "alice", "03_double_buffer adjustment"), "") << csv;
    EXPECT_EQ(Cell(csv, "alice", "score"), "60.00") << csv;

    // The instructor types 7.5 points and a note (with a comma) for alice.
    csv = SetCell(csv, "alice", "03_double_buffer adjustment", "7.5");
    csv = SetCell(csv, "alice", "03_double_buffer adjustment_note", "overlap shown in office hours, by hand");
    Spit(out + "/gradebook.csv", csv);
    r = Grade3({"--submissions", subs, "--out", out, "--regrade"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::string regraded = Slurp(out + "/gradebook.csv");
    EXPECT_EQ(Cell(regraded, "alice", "03_double_buffer adjustment"), "7.50") << regraded;
    EXPECT_EQ(Cell(regraded, "alice", "03_double_buffer adjustment_note"), "overlap shown in office hours, by hand")
        << regraded;
    EXPECT_EQ(Cell(regraded, "alice", "score"), "67.50") << regraded;
    EXPECT_EQ(Cell(regraded, "alice", "03_double_buffer correct"), "40.00") << regraded;
    EXPECT_EQ(Cell(regraded, "bob", "score"), "100.00") << regraded;
    EXPECT_NE(Slurp(out + "/alice/report.txt").find("score 67.50 / 100.00"), std::string::npos);
    EXPECT_NE(Slurp(out + "/alice/report.txt").find("office hours"), std::string::npos);

    // A cell that is not a number: refused, its row and column named, nothing changed.
    std::string bad = SetCell(regraded, "bob", "03_double_buffer adjustment", "five");
    Spit(out + "/gradebook.csv", bad);
    auto before = fs::last_write_time(out + "/bob/report.txt");
    r = Grade3({"--submissions", subs, "--out", out, "--regrade"});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("row 3 (student \"bob\"), column \"03_double_buffer adjustment\": \"five\" is not a number"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("the gradebook is as it was"), std::string::npos) << r.err;
    EXPECT_EQ(Slurp(out + "/gradebook.csv"), bad);
    EXPECT_EQ(fs::last_write_time(out + "/bob/report.txt"), before);
}

}  // namespace
