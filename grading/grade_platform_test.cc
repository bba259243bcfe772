// grading/grade_platform_test.cc: what course platforms export, graded end to end with the
// real //grading:grade as a child: one small lab-03 class (the reference, the
// skeleton in a .zip, a file that does not compile) handed in as the documented folders,
// as a Gradescope "Export submissions" folder and as a Canvas download gets the same
// grades, row for row, bar the names and ids; a roster gives the gradebook its names and
// student ids; a bare .c file is graded in class mode as in Gradescope mode, where a .zip
// inside the submission is opened; a malformed submission_metadata.yml stops the grader
// before anyone is graded, with nothing written.
#include <gtest/gtest.h>

#include <archive.h>
#include <archive_entry.h>

#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "grading/grade_test_support.h"

namespace fs = std::filesystem;
using namespace gradetest;

namespace {

const char kLabFile[] = "labs/03_double_buffer/lab.c";

std::string Reference() { return Slurp(Runfile("solutions/03_double_buffer.c")); }
std::string Skeleton() { return Slurp(Runfile("labs/03_double_buffer/lab.c")); }
std::string Broken() { return Slurp(Runfile("grading/testdata/does_not_compile/labs/03_double_buffer/lab.c")); }

void Zip(const std::string &path, const std::map<std::string, std::string> &files) {
    fs::create_directories(fs::path(path).parent_path());
    struct archive *a = archive_write_new();
    archive_write_set_format_zip(a);
    ASSERT_EQ(archive_write_open_filename(a, path.c_str()), ARCHIVE_OK);
    for (const auto &[name, data] : files) {
        struct archive_entry *e = archive_entry_new();
        archive_entry_set_pathname(e, name.c_str());
        archive_entry_set_size(e, static_cast<la_int64_t>(data.size()));
        archive_entry_set_filetype(e, AE_IFREG);
        archive_entry_set_perm(e, 0644);
        ASSERT_EQ(archive_write_header(a, e), ARCHIVE_OK);
        archive_write_data(a, data.data(), data.size());
        archive_entry_free(e);
    }
    archive_write_close(a);
    archive_write_free(a);
}

std::vector<std::vector<std::string>> Rows(const std::string &csv) {
    std::vector<std::vector<std::string>> rows;
    std::stringstream ss(csv);
    for (std::string line; std::getline(ss, line);) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        std::vector<std::string> cells;
        std::stringstream ls(line);
        for (std::string c; std::getline(ls, c, ',');) cells.push_back(c);
        rows.push_back(cells);
    }
    return rows;
}

// The gradebook without the columns that say who a student is.
std::vector<std::vector<std::string>> Grades(const std::string &csv) {
    auto rows = Rows(csv);
    size_t who = rows.at(0).at(1) == "sid" ? 4 : 1;
    for (auto &r : rows) r.erase(r.begin(), r.begin() + static_cast<long>(std::min(who, r.size())));
    return rows;
}

// One timed run and no perturbed schedule (given after Grade()'s, they are the ones taken):
// the platforms' layouts change who is graded, not how the lab runs.
Outcome Class(const std::string &subs, const std::string &out, std::vector<std::string> more = {}) {
    std::vector<std::string> args = {"--labs", "03", "--seed", "42", "--quiet", "--jobs", "2", "--runs", "1",
                                     "--schedules", "0", "--submissions", subs, "--out", out};
    args.insert(args.end(), more.begin(), more.end());
    return Grade(args);
}

TEST(GraderPlatforms, TheSameClassFromEachPlatformGetsTheSameGrades) {
    // The documented layout: a folder, an archive, a bare .c file.
    std::string folders = TempDir("pf_folders");
    Spit(folders + "/alice/" + kLabFile, Reference());
    Zip(folders + "/bob.zip", {{kLabFile, Skeleton()}});
    Spit(folders + "/carol.c", Broken());

    // Gradescope's export: what each student uploaded, and the metadata naming them.
    std::string gs = TempDir("pf_gradescope");
    Spit(gs + "/submission_metadata.yml",
         "submission_101:\n  :submitters:\n  - :name: Alice Adams\n    :sid: 'S1'\n    :email: alice@uni.edu\n"
         "submission_102:\n  :submitters:\n  - :name: Bob Baker\n    :sid: 'S2'\n    :email: bob@uni.edu\n"
         "submission_103:\n  :submitters:\n  - :name: Carol Chen\n    :sid: 'S3'\n    :email: carol@uni.edu\n");
    Spit(gs + "/submission_101/lab.c", Reference());
    Zip(gs + "/submission_102/streamlab.zip", {{"streamlab/" + std::string(kLabFile), Skeleton()}});
    Spit(gs + "/submission_103/" + kLabFile, Broken());

    // Canvas's download: flat files, a repeated name's "-1", a student's two files.
    std::string canvas = TempDir("pf_canvas");
    Spit(canvas + "/adamsalice_1001_5001_lab.c", Reference());
    Zip(canvas + "/bakerbob_LATE_1002_5002_lab.zip", {{"lab.c", Skeleton()}});
    Spit(canvas + "/chencarol_1003_5003_lab-1.c", Broken());
    Spit(canvas + "/chencarol_1003_5004_notes.txt", "my notes\n");

    std::string out_f = TempDir("pf_out_f"), out_g = TempDir("pf_out_g"), out_c = TempDir("pf_out_c");
    Outcome f = Class(folders, out_f);
    ASSERT_EQ(f.exit_code, 0) << f.err;
    EXPECT_NE(f.err.find("read as the documented layout (--layout folders, detected"), std::string::npos) << f.err;
    Outcome g = Class(gs, out_g);
    ASSERT_EQ(g.exit_code, 0) << g.err;
    EXPECT_NE(g.err.find("read as a Gradescope \"Export submissions\" folder (--layout gradescope-export, detected"),
              std::string::npos)
        << g.err;
    Outcome c = Class(canvas, out_c);
    ASSERT_EQ(c.exit_code, 0) << c.err;
    EXPECT_NE(c.err.find("read as a Canvas \"Download submissions\" folder (--layout canvas, detected"),
              std::string::npos)
        << c.err;

    std::string csv_f = Slurp(out_f + "/gradebook.csv"), csv_g = Slurp(out_g + "/gradebook.csv"),
                csv_c = Slurp(out_c + "/gradebook.csv");
    auto grades = Grades(csv_f);
    ASSERT_EQ(grades.size(), 4u) << csv_f;
    EXPECT_EQ(grades[1].at(0), "100.00") << csv_f;  // alice: the reference
    EXPECT_EQ(grades[2].at(0), "60.00") << csv_f;   // bob: the skeleton, from his .zip
    EXPECT_EQ(grades[3].at(0), "0.00") << csv_f;    // carol: does not compile
    EXPECT_NE(csv_f.find("does not compile"), std::string::npos) << csv_f;
    EXPECT_EQ(Grades(csv_g), grades) << csv_g;
    EXPECT_EQ(Grades(csv_c), grades) << csv_c;

    // Who they are: the export's names and ids, Canvas's user ids.
    EXPECT_EQ(Rows(csv_g)[1][0] + "," + Rows(csv_g)[1][1] + "," + Rows(csv_g)[1][2] + "," + Rows(csv_g)[1][3],
              "Alice Adams,S1,alice@uni.edu,submission_101");
    EXPECT_EQ(Rows(csv_c)[2][0] + "," + Rows(csv_c)[2][3], "bakerbob,1002");
    EXPECT_EQ(Rows(csv_f)[0][0] + "," + Rows(csv_f)[0][1], "student,score");  // no id columns for folders

    // A roster gives Canvas's students their names and student ids.
    std::string roster = TempDir("pf_roster") + "/roster.csv";
    Spit(roster, "name,sid,email,canvas_id\nAlice Adams,S1,alice@uni.edu,1001\nBob Baker,S2,bob@uni.edu,1002\n"
                 "Carol Chen,S3,carol@uni.edu,1003\n");
    std::string out_r = TempDir("pf_out_r");
    Outcome r = Class(canvas, out_r, {"--roster", roster});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto rows = Rows(Slurp(out_r + "/gradebook.csv"));
    ASSERT_EQ(rows.size(), 4u);
    EXPECT_EQ(rows[3][0] + "," + rows[3][1] + "," + rows[3][2] + "," + rows[3][3], "Carol Chen,S3,carol@uni.edu,1003");
    EXPECT_EQ(Grades(Slurp(out_r + "/gradebook.csv")), grades);
    EXPECT_TRUE(fs::exists(out_r + "/Carol Chen/report.txt"));
}

TEST(GraderPlatforms, ABareFileAndAZipAreGradedInClassModeAsInGradescopeMode) {
    std::string subs = TempDir("pf_bare");
    Spit(subs + "/dave.c", Reference());
    std::string out = TempDir("pf_bare_out");
    Outcome cls = Class(subs, out);
    ASSERT_EQ(cls.exit_code, 0) << cls.err;
    EXPECT_NE(Slurp(out + "/gradebook.csv").find("\r\ndave,100.00,100.00,"), std::string::npos);
    EXPECT_NE(Slurp(out + "/dave/report.txt").find("taken from dave.c"), std::string::npos);

    // Gradescope mode: the same file alone, then a .zip of the repository.
    std::string upload = TempDir("pf_upload"), results = TempDir("pf_results") + "/results.json";
    Spit(upload + "/dave.c", Reference());
    Outcome one = Grade({"--gradescope", "--labs", "03", "--seed", "42", "--runs", "1", "--schedules", "0",
                         "--submission-dir", upload, "--results", results});
    ASSERT_EQ(one.exit_code, 0) << one.err;
    EXPECT_NE(Slurp(results).find("\"score\":\t100,"), std::string::npos) << Slurp(results);
    fs::remove(upload + "/dave.c");
    Zip(upload + "/streamlab.zip", {{"streamlab/" + std::string(kLabFile), Skeleton()}});
    Outcome zip = Grade({"--gradescope", "--labs", "03", "--seed", "42", "--runs", "1", "--schedules", "0",
                         "--submission-dir", upload, "--results", results});
    ASSERT_EQ(zip.exit_code, 0) << zip.err;
    EXPECT_NE(Slurp(results).find("\"score\":\t60,"), std::string::npos) << Slurp(results);

    // Two labs: neither mode guesses which lab a lone file is; the row says why.
    std::string out2 = TempDir("pf_bare_out2");
    Outcome two = Grade({"--labs", "00,03", "--seed", "42", "--quiet", "--runs", "1", "--schedules", "0",
                         "--submissions", subs, "--out", out2});
    ASSERT_EQ(two.exit_code, 0) << two.err;
    EXPECT_NE(Slurp(out2 + "/dave/report.txt").find("a lone .c file is taken as the lab file only when one lab is graded"),
              std::string::npos);
}

TEST(GraderPlatforms, AMalformedExportIsRefusedAndNothingIsWritten) {
    std::string gs = TempDir("pf_bad_gs"), out = TempDir("pf_bad_out");
    Spit(gs + "/submission_metadata.yml", "submission_101:\n  :submitters:\n  - :name: [Alice\n");
    Spit(gs + "/submission_101/lab.c", Reference());
    Outcome r = Class(gs, out);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("submission_metadata.yml: line 4, column 1"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out + "/gradebook.csv"));
    EXPECT_TRUE(fs::exists(gs + "/submission_101/lab.c"));
}

}  // namespace
