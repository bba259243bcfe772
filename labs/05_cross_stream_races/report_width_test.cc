// labs/05_cross_stream_races/report_width_test.cc: a lab's report reads in an 80-column
// terminal. Lab 05's, whose race reports and fixes are the longest prose of any lab, for
// its skeleton (wrong, racy: every part of the report) and its reference (a pass): outside
// the timeline, which is drawn at the width asked for, no line is wider than 80 columns
// (labs/harness/wrap.h); the timeline's lanes are whole; and wrapping loses no word of the
// report.
#include "labs/lab_test_support.h"

#include <sstream>
#include <string>
#include <vector>

#include "labs/harness/wrap.h"

namespace {

using namespace labtest;

size_t Columns(const std::string &l) { return lab_wrap_columns(l.data(), l.size()); }

// The report as a student sees it (no --json), its timeline 100 columns wide.
std::string Report(const std::string &binary) {
    Outcome o = RunLabOnce(binary, {"--seed", "7", "--runs", "3", "--schedules", "1", "--width", "100"}, nullptr,
                           {"LANG=C.UTF-8"});
    return o.out;
}

void ExpectProseFits(const std::string &binary) {
    std::string report = Report(binary);
    ASSERT_NE(report.find("streamlab \u00b7 05_cross_stream_races"), std::string::npos) << report;
    std::istringstream in(report);
    bool in_timeline = false;
    int prose = 0, lanes = 0;
    for (std::string line; std::getline(in, line);) {
        // The timeline: from its heading to the blank line after its legend.
        if (line == "your last run:" || line == "your traced run (after the timed runs):") {
            in_timeline = true;
            continue;
        }
        if (in_timeline) {
            if (line.empty()) {
                in_timeline = false;
            } else if (line.rfind("s2 \"up\"", 0) == 0 || line.rfind("s3 \"compute\"", 0) == 0) {
                lanes++;
                EXPECT_EQ(Columns(line), 100u) << "a lane of the timeline, cut: " << line;
            }
            continue;
        }
        prose++;
        EXPECT_LE(Columns(line), 80u) << binary << ": a line of " << Columns(line) << " columns:\n" << line;
    }
    EXPECT_EQ(lanes, 2) << report;
    EXPECT_GT(prose, 5) << report;
}

TEST(ReportWidth, Lab05sSkeletonReportFits80Columns) {
    ExpectProseFits("labs/05_cross_stream_races_sim");
}

TEST(ReportWidth, TheReferenceOfLab05ReportsWithin80Columns) {
    ExpectProseFits("solutions/05_cross_stream_races_sim");
}

// The skeleton's race reports and fixes, which are longest, are all there: the words of
// each fix the JSON result gives appear, in order, in the wrapped text (the report of the
// first test, and the --json run of the skeleton the lab's tests share).
TEST(ReportWidth, WrappingLosesNoWordOfAFix) {
    std::string report = Report("labs/05_cross_stream_races_sim");
    Outcome j = RunLabOnce("labs/05_cross_stream_races_sim", Args({"--schedules", "0"}));
    cJSON *json = Json(j);
    std::istringstream words_of_report(report);
    std::string all, w;
    while (words_of_report >> w) all += w + " ";
    int fixes = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(json, "race_reports")) {
        std::istringstream fix(Str(r, "fix"));
        std::string words;
        while (fix >> w) words += w + " ";
        ASSERT_FALSE(words.empty());
        EXPECT_NE(all.find(words.substr(0, words.size() - 1)), std::string::npos) << "fix: " << words;
        fixes++;
    }
    EXPECT_GT(fixes, 0) << j.out;
    cJSON_Delete(json);
}

}  // namespace
