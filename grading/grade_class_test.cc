// grading/grade_class_test.cc: what an instructor reads from a class run, with
// the real //grading:grade as a child on a small lab-03 class:
//  - a compile error the compiler places in the harness's header names the student's
//    line in the gradebook, JUnit and Gradescope;
//  - a progress line per student when stderr is not a terminal;
//  - the summary table aligns non-ASCII names by display width and names every failed
//    check;
//  - --csv-bom starts the gradebook with a UTF-8 byte order mark;
//  - race feedback uses the student's stream names.
#include <gtest/gtest.h>

#include <cctype>

#include <algorithm>
#include <filesystem>

#include <cjson/cJSON.h>
#include <sstream>
#include <string>
#include <vector>

#include "grading/grade_test_support.h"

namespace fs = std::filesystem;
using namespace gradetest;

namespace {

// Whether text names a stream by the internal s<N> (a word "s" followed by digits only).
bool HasInternalStreamName(const std::string &text) {
    for (size_t i = 0; i + 1 < text.size(); i++) {
        if (text[i] != 's' || (i > 0 && (std::isalnum((unsigned char)text[i - 1]) || text[i - 1] == '_'))) continue;
        size_t k = i + 1;
        while (k < text.size() && std::isdigit((unsigned char)text[k])) k++;
        if (k == i + 1) continue;
        if (k == text.size() || !(std::isalnum((unsigned char)text[k]) || text[k] == '_')) return true;
    }
    return false;
}

const char kLabFile[] = "labs/03_double_buffer/lab.c";
const char kZoe[] = "Zo\xc3\xab \xc5\xa0im\xc5\xaf";  // Zoë Šimů: more bytes than columns

std::string Testdata(const std::string &name) { return Slurp(Runfile("grading/testdata/" + name + "/" + kLabFile)); }

// Columns a terminal gives s (UTF-8; the names here hold no wide characters).
size_t Columns(const std::string &s) {
    return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

TEST(GraderClass, FeedbackNamesTheStudentsLineAndStreamsAndEveryStudentShowsProgress) {
    std::string subs = TempDir("feedback_subs"), out = TempDir("feedback_out");
    Spit(subs + "/bob/" + kLabFile, Testdata("macro_error"));
    Spit(subs + "/" + kZoe + "/" + kLabFile, Testdata("racy_but_lucky"));
    Spit(subs + "/al/" + kLabFile, Slurp(Runfile("solutions/03_double_buffer.c")));
    // Progress left at its default (Grade() turns it off), stderr a pipe.
    Outcome r = RunProgram({Runfile("grading/grade"), "--runs", "2", "--schedules", "1", "--memory-mb", "1024",
                            "--labs", "03", "--seed", "42", "--jobs", "2", "--csv-bom", "--submissions", subs, "--out",
                            out});
    ASSERT_EQ(r.exit_code, 0) << r.err;

    // A line per student on stderr, counting up to the class.
    for (const char *n : {"[1/3] ", "[2/3] ", "[3/3] "}) EXPECT_NE(r.err.find(n), std::string::npos) << r.err;
    for (const std::string &s : {std::string("al: 100.00 / 100.00"), std::string("bob: 0.00 / 100.00"),
                                 std::string(kZoe) + ": 40.00 / 100.00"})
        EXPECT_NE(r.err.find(s), std::string::npos) << s << "\n" << r.err;

    // The compile error names the student's line (the note on the macro's expansion), in
    // every report: not the harness's header.
    const std::string line = "labs/03_double_buffer/lab.c:42:5: error: expected";
    std::string csv = Slurp(out + "/gradebook.csv");
    std::string junit = Slurp(out + "/junit.xml");
    std::string gradescope = Slurp(out + "/bob/results.json");
    for (const std::string *text : {&csv, &junit, &gradescope}) {
        EXPECT_NE(text->find(line), std::string::npos) << *text;
        EXPECT_EQ(text->find("does not compile: labs/harness"), std::string::npos) << *text;
    }

    // --csv-bom: the byte order mark, then the header.
    EXPECT_EQ(csv.rfind("\xEF\xBB\xBFstudent,score,max_score,", 0), 0u) << csv.substr(0, 80);

    // Race feedback speaks of the student's streams by their names: the race-free test's
    // output (the timeline's lanes elsewhere show the trace's numbers beside the names).
    cJSON *zoe = cJSON_Parse(Slurp(out + "/" + kZoe + "/results.json").c_str());
    ASSERT_NE(zoe, nullptr);
    std::string race;
    const cJSON *t;
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(zoe, "tests")) {
        if (std::string(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "name"))) == "03_double_buffer: race-free")
            race = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "output"));
    }
    cJSON_Delete(zoe);
    EXPECT_NE(race.find("memset on \"buf A\""), std::string::npos) << race;
    EXPECT_NE(race.find("give \"buf A\" and \"buf B\" buffers of their own"), std::string::npos) << race;
    EXPECT_FALSE(HasInternalStreamName(race)) << race;

    // The summary table: the score column ends at the same display column on every row,
    // and the outcome says what was missed in full.
    std::vector<std::string> rows;
    std::stringstream ss(r.out);
    for (std::string l; std::getline(ss, l);)
        if (l.find(" / 100.00") != std::string::npos && l.find("mean score") == std::string::npos) rows.push_back(l);
    ASSERT_EQ(rows.size(), 3u) << r.out;
    size_t end = Columns(rows[0].substr(0, rows[0].find(" / 100.00")));
    for (const auto &row : rows) EXPECT_EQ(Columns(row.substr(0, row.find(" / 100.00"))), end) << r.out;
    EXPECT_NE(r.out.find("40/100: racy"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("does not compile"), std::string::npos) << r.out;

    // --no-progress: no lines. (bob alone: a line is a line, and his file runs nothing.)
    std::string subs2 = TempDir("feedback_subs2"), out2 = TempDir("feedback_out2");
    Spit(subs2 + "/bob/" + kLabFile, Testdata("macro_error"));
    Outcome quiet = Grade({"--labs", "03", "--seed", "42", "--submissions", subs2, "--out", out2, "--quiet"});
    ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
    EXPECT_NE(Slurp(out2 + "/gradebook.csv").find("\r\nbob,0.00,"), std::string::npos) << Slurp(out2 + "/gradebook.csv");
    EXPECT_EQ(quiet.err.find("[1/1]"), std::string::npos) << quiet.err;
    EXPECT_EQ(quiet.err.find("bob: 0.00"), std::string::npos) << quiet.err;
    // Without --csv-bom, no mark.
    EXPECT_EQ(Slurp(out2 + "/gradebook.csv").rfind("student,", 0), 0u);
}

}  // namespace
