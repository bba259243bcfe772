// grading/grade_term_test.cc: a term run as an instructor runs it, against the real
// //grading:grade as a child, on the simulator with small classes: three labs (00, 03, 05)
// graded one after another into one course folder as each deadline passes, each lab's
// submissions a Gradescope export of its own, with a roster (five students; erin hands in
// nothing), adjustments typed into the gradebook between the runs, a late policy judged by
// Gradescope's :created_at: and --submitted-at, file names students get wrong (Lab.C,
// lab (1).c), a group of two (carol & dave) in lab 05, and a rubric change scored again
// with --rescore. After every run: every earlier grade and adjustment is still in the
// gradebook, and every student's report.txt and results.json say the gradebook's score.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "grading/grade_csv_test_support.h"
#include "grading/grade_test_support.h"

namespace fs = std::filesystem;
using namespace gradetest;

namespace {

const char *const kStudents[] = {"Alice Adams", "Bob Baker", "Carol Chen", "Dave Dunn", "Erin Evans"};

std::string Roster() {
    std::string path = TempDir("term_roster") + "/roster.csv";
    Spit(path,
         "name,sid,email\r\n"
         "Alice Adams,S1,alice@uni.edu\r\n"
         "Bob Baker,S2,bob@uni.edu\r\n"
         "Carol Chen,S3,carol@uni.edu\r\n"
         "Dave Dunn,S4,dave@uni.edu\r\n"
         "Erin Evans,S5,erin@uni.edu\r\n");
    return path;
}

struct Upload {
    std::vector<int> who;  // indices into kStudents: one, or a group
    std::string file;      // the name the student gave their file
    std::string source;    // its text
    std::string created;   // Gradescope's :created_at:
};

// A lab's Gradescope "Export submissions" folder.
std::string Export(const std::string &name, const std::vector<Upload> &uploads) {
    std::string dir = TempDir(name);
    std::string meta;
    for (size_t i = 0; i < uploads.size(); i++) {
        std::string key = "submission_00" + std::to_string(i + 1);
        Spit(dir + "/" + key + "/" + uploads[i].file, uploads[i].source);
        meta += key + ":\n  :submitters:\n";
        for (int w : uploads[i].who) {
            std::string n = kStudents[w];
            std::string first = n.substr(0, n.find(' '));
            for (auto &ch : first) ch = (char)tolower(ch);
            meta += "  - :name: " + n + "\n    :sid: 'S" + std::to_string(w + 1) + "'\n    :email: " + first +
                    "@uni.edu\n";
        }
        meta += "  :created_at: " + uploads[i].created + "\n";
    }
    Spit(dir + "/submission_metadata.yml", meta);
    return dir;
}

std::string Rubric(const std::string &name, int lab03_correct) {
    std::string path = TempDir(name) + "/rubric.json";
    Spit(path, R"({"labs": {
      "00_default_stream": {"correct": {"points": 40}, "race_free": {"points": 20},
        "speedup": {"points": 40, "unit": "bound_fraction", "floor": "baseline", "target": "lab"}},
      "03_double_buffer": {"correct": {"points": )" +
                   std::to_string(lab03_correct) + R"(}, "race_free": {"points": 20},
        "speedup": {"points": 40, "unit": "bound_fraction", "floor": "baseline", "target": "lab"},
        "late": {"due": "2025-10-01T23:59:00Z", "per_day": 10, "max_days": 5}},
      "05_cross_stream_races": {"correct": {"points": 30}, "race_free": {"points": 50},
        "speedup": {"points": 20, "unit": "bound_fraction", "floor": "baseline", "target": "lab"}}
    }})");
    return path;
}

Outcome Term(const std::string &labs, std::vector<std::string> args) {
    std::vector<std::string> argv = {Runfile("grading/grade"), "--runs", "1", "--schedules", "0", "--timeout", "120",
                                     "--memory-mb", "1024", "--no-progress", "--jobs", "2", "--labs", labs};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunProgram(argv);
}

// Every student's report.txt and results.json say the gradebook's score.
void ReportsMatch(const std::string &out, const std::string &when) {
    std::string csv = Slurp(out + "/gradebook.csv");
    for (const char *s : kStudents) {
        SCOPED_TRACE(std::string(when) + ": " + s);
        std::string score = Cell(csv, s, "score"), max = Cell(csv, s, "max_score");
        std::string report = Slurp(out + "/" + s + "/report.txt");
        EXPECT_NE(report.find("score " + score + " / " + max), std::string::npos) << score << "\n" << report;
        std::string results = Slurp(out + "/" + s + "/results.json");
        EXPECT_NE(results.find("streamlab: " + score + " / " + max), std::string::npos) << score << "\n" << results;
    }
}

std::string Text(const std::string &path) { return Slurp(Runfile(path)); }

TEST(GraderTerm, ThreeLabsIntoOneCourseFolderKeepEveryGradeAndAdjustment) {
    std::string out = TempDir("term_out"), roster = Roster(), rubric = Rubric("term_rubric", 40);
    std::string ref00 = Text("solutions/00_default_stream.c"), skel00 = Text("labs/00_default_stream/lab.c");
    std::string ref03 = Text("solutions/03_double_buffer.c"), skel03 = Text("labs/03_double_buffer/lab.c");
    std::string ref05 = Text("solutions/05_cross_stream_races.c"), skel05 = Text("labs/05_cross_stream_races/lab.c");
    std::vector<std::string> common = {"--roster", roster, "--rubric", rubric, "--out", out};
    auto with = [&](std::vector<std::string> more) {
        more.insert(more.end(), common.begin(), common.end());
        return more;
    };

    // Lab 00: erin hands in nothing; she has a row of 0 all the same.
    std::string e00 = Export("term_e00", {{{0}, "lab.c", ref00, "2025-09-20 10:00:00 +00:00"},
                                          {{1}, "lab.c", skel00, "2025-09-20 11:00:00 +00:00"},
                                          {{2}, "lab.c", ref00, "2025-09-20 12:00:00 +00:00"},
                                          {{3}, "lab.c", skel00, "2025-09-20 13:00:00 +00:00"}});
    Outcome r = Term("00", with({"--submissions", e00}));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::string csv = Slurp(out + "/gradebook.csv");
    EXPECT_EQ(Cell(csv, "Erin Evans", "score"), "0.00") << csv;
    EXPECT_EQ(Cell(csv, "Erin Evans", "sid"), "S5") << csv;
    EXPECT_NE(Cell(csv, "Erin Evans", "note").find("not submitted"), std::string::npos) << csv;
    EXPECT_NE(r.err.find("1 student on the roster handed in nothing: Erin Evans"), std::string::npos) << r.err;
    EXPECT_EQ(Cell(csv, "Alice Adams", "score"), "100.00") << csv;
    std::string bob00 = Cell(csv, "Bob Baker", "score");
    ReportsMatch(out, "lab 00");

    // The instructor types two adjustments.
    csv = SetCell(csv, "Bob Baker", "00_default_stream adjustment", "5");
    csv = SetCell(csv, "Bob Baker", "00_default_stream adjustment_note", "regrade request");
    csv = SetCell(csv, "Erin Evans", "00_default_stream adjustment", "10");
    csv = SetCell(csv, "Erin Evans", "00_default_stream adjustment_note", "extension");
    Spit(out + "/gradebook.csv", csv);

    // Lab 03, due 2025-10-01 23:59 UTC: bob hands in 2 days late by Gradescope's time;
    // alice's upload is Lab.C and carol's "lab (1).c"; dave hands in nothing; erin's time
    // comes from --submitted-at (on time, an extension the platform does not know).
    std::string e03 = Export("term_e03", {{{0}, "Lab.C", ref03, "2025-10-01 20:00:00 +00:00"},
                                          {{1}, "lab.c", ref03, "2025-10-03 10:00:00 +00:00"},
                                          {{2}, "lab (1).c", skel03, "2025-10-01 21:00:00 +00:00"},
                                          {{4}, "lab.c", ref03, "2025-10-05 09:00:00 +00:00"}});
    std::string at = TempDir("term_at") + "/submitted_at.csv";
    Spit(at, "student,submitted_at\r\nS5,2025-10-01T22:00:00Z\r\n");
    r = Term("03", with({"--submissions", e03, "--regrade", "--submitted-at", at}));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    csv = Slurp(out + "/gradebook.csv");
    // Lab 00's grades and both adjustments are kept.
    EXPECT_EQ(Cell(csv, "Alice Adams", "00_default_stream correct"), "40.00") << csv;
    EXPECT_EQ(Cell(csv, "Bob Baker", "00_default_stream adjustment"), "5.00") << csv;
    EXPECT_EQ(Cell(csv, "Bob Baker", "00_default_stream adjustment_note"), "regrade request") << csv;
    EXPECT_EQ(Cell(csv, "Erin Evans", "00_default_stream adjustment"), "10.00") << csv;
    EXPECT_EQ(Cell(csv, "Erin Evans", "00_default_stream adjustment_note"), "extension") << csv;
    // Lab 03: the copies' names are the lab file; the platform's times judge lateness.
    EXPECT_EQ(Cell(csv, "Alice Adams", "03_double_buffer correct"), "40.00") << csv;
    EXPECT_EQ(Cell(csv, "Carol Chen", "03_double_buffer correct"), "40.00") << csv;
    EXPECT_EQ(Cell(csv, "Alice Adams", "03_double_buffer late_days"), "0") << csv;
    EXPECT_EQ(Cell(csv, "Bob Baker", "03_double_buffer late_days"), "2") << csv;
    EXPECT_EQ(Cell(csv, "Bob Baker", "03_double_buffer late_penalty"), "20.00") << csv;
    EXPECT_EQ(Cell(csv, "Erin Evans", "03_double_buffer late_days"), "0") << csv;
    EXPECT_EQ(Cell(csv, "Erin Evans", "03_double_buffer correct"), "40.00") << csv;
    EXPECT_EQ(Cell(csv, "Dave Dunn", "03_double_buffer correct"), "0.00") << csv;
    EXPECT_NE(Cell(csv, "Dave Dunn", "note").find("not submitted"), std::string::npos) << csv;
    // Bob: lab 00 as graded plus 5, lab 03's 100 less 20.
    EXPECT_EQ(Cell(csv, "Bob Baker", "score"), Cell(csv, "Bob Baker", "score"));
    double bob = std::stod(bob00) + 5 + 80;
    char want[32];
    snprintf(want, sizeof(want), "%.2f", bob);
    EXPECT_EQ(Cell(csv, "Bob Baker", "score"), want) << csv;
    EXPECT_EQ(Cell(csv, "Bob Baker", "max_score"), "200.00") << csv;
    // The summary shows lab 03's points after the penalty.
    EXPECT_NE(r.out.find("80: pass, 2 days late (-20)"), std::string::npos) << r.out;
    EXPECT_NE(Slurp(out + "/Alice Adams/report.txt").find("taken from Lab.C (name it lab.c next time)"),
              std::string::npos);
    ReportsMatch(out, "lab 03");

    // An adjustment typed now reaches the reports with --resume, which grades nobody again.
    csv = SetCell(csv, "Carol Chen", "03_double_buffer adjustment", "-7,5");  // a decimal comma: refused
    Spit(out + "/gradebook.csv", csv);
    r = Term("03", with({"--submissions", e03, "--resume", "--submitted-at", at}));
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("\"-7,5\" is not a number of points"), std::string::npos) << r.err;
    csv = SetCell(csv, "Carol Chen", "03_double_buffer adjustment", "-7.5");
    Spit(out + "/gradebook.csv", csv);
    r = Term("03", with({"--submissions", e03, "--resume", "--submitted-at", at}));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("--resume: 5 students already graded"), std::string::npos) << r.err;
    csv = Slurp(out + "/gradebook.csv");
    EXPECT_EQ(Cell(csv, "Carol Chen", "03_double_buffer adjustment"), "-7.50") << csv;
    EXPECT_EQ(Cell(csv, "Bob Baker", "00_default_stream adjustment"), "5.00") << csv;
    ReportsMatch(out, "lab 03 --resume");

    // Lab 05: carol and dave hand in as a group; each gets a row of their own with its
    // points; bob hands in nothing.
    std::string e05 = Export("term_e05", {{{0}, "lab.c", skel05, "2025-10-20 10:00:00 +00:00"},
                                          {{2, 3}, "lab.c", ref05, "2025-10-20 11:00:00 +00:00"},
                                          {{4}, "lab.c", ref05, "2025-10-20 12:00:00 +00:00"}});
    r = Term("05", with({"--submissions", e05, "--regrade"}));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err.find("not on the roster"), std::string::npos) << r.err;
    csv = Slurp(out + "/gradebook.csv");
    EXPECT_EQ(Csv(csv).size(), 6u) << csv;  // the header and the five students, no group row
    for (const char *s : {"Carol Chen", "Dave Dunn", "Erin Evans"})
        EXPECT_EQ(Cell(csv, s, "05_cross_stream_races correct"), "30.00") << s << "\n" << csv;
    EXPECT_EQ(Cell(csv, "Bob Baker", "05_cross_stream_races correct"), "0.00") << csv;
    // Every earlier grade and adjustment is still there.
    EXPECT_EQ(Cell(csv, "Alice Adams", "00_default_stream correct"), "40.00") << csv;
    EXPECT_EQ(Cell(csv, "Alice Adams", "03_double_buffer correct"), "40.00") << csv;
    EXPECT_EQ(Cell(csv, "Bob Baker", "03_double_buffer late_penalty"), "20.00") << csv;
    EXPECT_EQ(Cell(csv, "Bob Baker", "00_default_stream adjustment_note"), "regrade request") << csv;
    EXPECT_EQ(Cell(csv, "Erin Evans", "00_default_stream adjustment"), "10.00") << csv;
    EXPECT_EQ(Cell(csv, "Carol Chen", "03_double_buffer adjustment"), "-7.50") << csv;
    EXPECT_EQ(Cell(csv, "Bob Baker", "max_score"), "300.00") << csv;
    EXPECT_NE(Slurp(out + "/Dave Dunn/report.txt").find("a group submission of Carol Chen & Dave Dunn"),
              std::string::npos);
    ReportsMatch(out, "lab 05");
    std::string seeds_before = Slurp(out + "/Alice Adams/report.txt");

    // The results stored so far as a kit before the result's schema version wrote them (no
    // "result_version"): a term's stored results still rescore.
    int unversioned = 0;
    for (const auto &e : std::filesystem::directory_iterator(out + "/.streamlab-grade/students")) {
        std::string text = Slurp(e.path().string());
        std::string stripped = std::regex_replace(text, std::regex("\"result_version\":\\s*1\\s*,\\s*"), "");
        if (stripped != text) {
            Spit(e.path().string(), stripped);
            unversioned++;
        }
    }
    EXPECT_GT(unversioned, 0) << "no stored result carried a result_version to remove";

    // The rubric changes (lab 03's correct check is worth 50): --rescore scores the stored
    // results again, running no lab (each lab keeps the seed its run had).
    std::string rubric2 = Rubric("term_rubric2", 50);
    std::vector<std::string> again = {"--roster", roster, "--rubric", rubric2, "--out", out, "--submissions", e05,
                                      "--rescore"};
    r = Term("05", again);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    csv = Slurp(out + "/gradebook.csv");
    EXPECT_EQ(Cell(csv, "Alice Adams", "03_double_buffer correct"), "50.00") << csv;
    EXPECT_EQ(Cell(csv, "Bob Baker", "03_double_buffer late_penalty"), "20.00") << csv;
    EXPECT_EQ(Cell(csv, "Bob Baker", "00_default_stream adjustment"), "5.00") << csv;
    EXPECT_EQ(Cell(csv, "Bob Baker", "max_score"), "310.00") << csv;
    ReportsMatch(out, "--rescore");
    std::string report = Slurp(out + "/Alice Adams/report.txt");
    for (const char *lab : {"00_default_stream", "03_double_buffer", "05_cross_stream_races"}) {
        auto seed = [&](const std::string &text) {
            size_t at = text.find(lab);
            size_t s = text.find("seed", at);
            return at == std::string::npos || s == std::string::npos ? std::string("?")
                                                                     : text.substr(s, text.find('\n', s) - s);
        };
        EXPECT_EQ(seed(report), seed(seeds_before)) << lab;
    }
}

// A correct solution with a debug print loop left in: by default output past --output-mb
// ends the run (and the correct check is lost); with the rubric's "output": "cut" the rest
// of the output is cut and the solution is graded as what it is.
TEST(GraderTerm, OutputPastTheLimitIsCutWhenTheRubricSaysSo) {
    std::string subs = TempDir("cut_subs");
    Spit(subs + "/frank/labs/03_double_buffer/lab.c", Text("grading/testdata/debug_prints/labs/03_double_buffer/lab.c"));
    Spit(subs + "/grace/labs/03_double_buffer/lab.c", Text("labs/03_double_buffer/lab.c"));
    auto rubric = [](const std::string &name, const std::string &output) {
        std::string path = TempDir(name) + "/rubric.json";
        Spit(path, R"({"labs": {"03_double_buffer": {"correct": {"points": 40}, "race_free": {"points": 20},
            "speedup": {"points": 40, "unit": "bound_fraction", "floor": "baseline", "target": "lab"})" +
                       output + "}}}");
        return path;
    };
    std::string out = TempDir("cut_out_fail");
    Outcome r = Term("03", {"--submissions", subs, "--out", out, "--output-mb", "1", "--rubric",
                            rubric("cut_rubric_fail", "")});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::string csv = Slurp(out + "/gradebook.csv");
    EXPECT_EQ(Cell(csv, "frank", "03_double_buffer correct"), "0.00") << csv;
    EXPECT_NE(Cell(csv, "frank", "note").find("SIGXFSZ"), std::string::npos) << csv;

    out = TempDir("cut_out_cut");
    r = Term("03", {"--submissions", subs, "--out", out, "--output-mb", "1", "--rubric",
                    rubric("cut_rubric_cut", R"(, "output": "cut")")});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    csv = Slurp(out + "/gradebook.csv");
    EXPECT_EQ(Cell(csv, "frank", "03_double_buffer correct"), "40.00") << csv;
    EXPECT_EQ(Cell(csv, "frank", "03_double_buffer race_free"), "20.00") << csv;
    EXPECT_NE(Slurp(out + "/frank/report.txt").find("the rest was cut"), std::string::npos);
    // A student who prints little is graded as ever.
    EXPECT_EQ(Cell(csv, "grace", "03_double_buffer correct"), "40.00") << csv;
    EXPECT_EQ(Slurp(out + "/grace/report.txt").find("the rest was cut"), std::string::npos);
}

}  // namespace
