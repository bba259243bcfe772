// grading/grade_layout_test.cc: reading course platforms' exports, without
// grading anyone: Canvas's and Moodle's file names, detecting each layout, a Gradescope
// export's submission_metadata.yml (read with libyaml), a roster; and bad inputs (YAML
// that is not Gradescope's, a folder the metadata does not name, a file Canvas did not
// name, a roster without names or with an id twice) refused with a clear message.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "grading/grade_test_support.h"
#include "grading/reports/grade_adjust.h"
#include "grading/score/grade_late.h"
#include "grading/submissions/grade_layout.h"
#include "grading/submissions/grade_roster.h"

using namespace gradetest;

namespace {

struct Read {
    int rc;
    grade_layout used = GRADE_LAYOUT_AUTO;
    std::string how, err, warnings;
    grade_submission_list subs{};
    ~Read() { grade_submission_list_free(&subs); }
};

void ReadDir(const std::string &dir, Read *r, grade_layout forced = GRADE_LAYOUT_AUTO,
             const grade_roster *roster = nullptr) {
    char err[4096] = "";
    char *how = nullptr;
    r->rc = grade_layout_read(dir.c_str(), forced, roster, &r->subs, &r->used, &how, err, sizeof(err));
    r->err = err;
    if (how) r->how = how;
    free(how);
    if (r->rc == 0 && r->subs.warnings) r->warnings = r->subs.warnings;
}

TEST(GraderLayout, CanvasNames) {
    char *student, *user, *original;
    bool late;
    ASSERT_TRUE(grade_canvas_name("bakerbob_LATE_1002_5002_lab-1.c", &student, &late, &user, &original));
    EXPECT_STREQ(student, "bakerbob");
    EXPECT_TRUE(late);
    EXPECT_STREQ(user, "1002");
    EXPECT_STREQ(original, "lab.c");
    free(student), free(user), free(original);
    ASSERT_TRUE(grade_canvas_name("adamsalice_1001_5001_my_lab-v2.c", &student, &late, &user, &original));
    EXPECT_FALSE(late);
    EXPECT_STREQ(original, "my_lab-v2.c");
    free(student), free(user), free(original);
    EXPECT_FALSE(grade_canvas_name("README.txt", nullptr, nullptr, nullptr, nullptr));
    EXPECT_FALSE(grade_canvas_name("alice_12_lab.c", nullptr, nullptr, nullptr, nullptr));
}

TEST(GraderLayout, MoodleNames) {
    char *full, *id, *plugin, *rest;
    ASSERT_TRUE(grade_moodle_name("Zo\xc3\xab de Vries_4711_assignsubmission_file_lab.c", &full, &id, &plugin, &rest));
    EXPECT_STREQ(full, "Zo\xc3\xab de Vries");
    EXPECT_STREQ(id, "4711");
    EXPECT_STREQ(plugin, "file");
    EXPECT_STREQ(rest, "lab.c");
    free(full), free(id), free(plugin), free(rest);
    ASSERT_TRUE(grade_moodle_name("Bob Baker_12_assignsubmission_file", &full, &id, &plugin, &rest));
    EXPECT_STREQ(rest, "");
    free(full), free(id), free(plugin), free(rest);
}

TEST(GraderLayout, EachLayoutIsDetectedAndSaid) {
    std::string folders = TempDir("layout_folders");
    Spit(folders + "/alice/labs/03_double_buffer/lab.c", "x");
    Spit(folders + "/bob.c", "x");
    Read f;
    ReadDir(folders, &f);
    ASSERT_EQ(f.rc, 0) << f.err;
    EXPECT_EQ(f.used, GRADE_LAYOUT_FOLDERS);
    ASSERT_EQ(f.subs.n, 2u);
    EXPECT_STREQ(f.subs.items[1].name, "bob");  // a bare .c file is a student
    EXPECT_EQ(f.subs.items[1].kind, GRADE_SUB_FILES);
    EXPECT_TRUE(f.subs.items[1].loose);

    std::string canvas = TempDir("layout_canvas");
    Spit(canvas + "/adamsalice_1001_5001_lab.c", "x");
    Spit(canvas + "/bakerbob_LATE_1002_5002_lab-1.c", "x");
    Spit(canvas + "/bakerbob_LATE_1002_5003_notes.txt", "x");
    Read c;
    ReadDir(canvas, &c);
    ASSERT_EQ(c.rc, 0) << c.err;
    EXPECT_EQ(c.used, GRADE_LAYOUT_CANVAS);
    EXPECT_NE(c.how.find("--layout canvas, detected"), std::string::npos) << c.how;
    ASSERT_EQ(c.subs.n, 2u);
    EXPECT_STREQ(c.subs.items[1].name, "bakerbob");
    EXPECT_STREQ(c.subs.items[1].platform_id, "1002");
    ASSERT_EQ(c.subs.items[1].n_parts, 2u);  // a student's files grouped
    EXPECT_STREQ(c.subs.items[1].parts[0].name, "lab.c");

    std::string moodle = TempDir("layout_moodle");
    Spit(moodle + "/Alice Adams_11_assignsubmission_file/lab.c", "x");
    Spit(moodle + "/Bob Baker_12_assignsubmission_file_lab.c", "x");
    Spit(moodle + "/Bob Baker_12_assignsubmission_onlinetext/onlinetext.html", "x");
    Read m;
    ReadDir(moodle, &m);
    ASSERT_EQ(m.rc, 0) << m.err;
    EXPECT_EQ(m.used, GRADE_LAYOUT_MOODLE);
    ASSERT_EQ(m.subs.n, 2u);
    EXPECT_STREQ(m.subs.items[0].name, "Alice Adams");
    EXPECT_STREQ(m.subs.items[1].platform_id, "12");
    EXPECT_NE(m.warnings.find("onlinetext submission, not files"), std::string::npos) << m.warnings;

    // --layout forces a reading: the Canvas folder read as folders has bare .c files only.
    Read forced;
    ReadDir(canvas, &forced, GRADE_LAYOUT_FOLDERS);
    ASSERT_EQ(forced.rc, 0) << forced.err;
    EXPECT_EQ(forced.subs.n, 2u);
    EXPECT_NE(forced.how.find("(--layout folders)"), std::string::npos) << forced.how;
}

const char kMeta[] =
    "submission_001:\n"
    "  :submitters:\n"
    "  - :name: Alice Adams\n"
    "    :sid: 'S1'\n"
    "    :email: alice@uni.edu\n"
    "  :created_at: 2026-01-10 10:00:00.000000000 -08:00\n"
    "submission_002:\n"
    "  :submitters:\n"
    "  - :name: Bob Baker\n"
    "    :sid: 'S2'\n"
    "    :email: bob@uni.edu\n"
    "  - :name: Carol Chen\n"
    "    :sid: 'S3'\n"
    "    :email: carol@uni.edu\n"
    "submission_003:\n"
    "  :submitters:\n"
    "  - :name: Dan Dunn\n"
    "    :sid: 'S4'\n"
    "    :email: dan@uni.edu\n";

TEST(GraderLayout, AGradescopeExportNamesItsSubmitters) {
    std::string dir = TempDir("layout_gs");
    Spit(dir + "/submission_metadata.yml", kMeta);
    Spit(dir + "/submission_001/lab.c", "x");
    Spit(dir + "/submission_002/repo.zip", "x");
    // submission_003 has no folder: a row saying so, not a student lost.
    Read r;
    ReadDir(dir, &r);
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(r.used, GRADE_LAYOUT_GRADESCOPE);
    ASSERT_EQ(r.subs.n, 4u);
    EXPECT_STREQ(r.subs.items[0].name, "Alice Adams");
    EXPECT_STREQ(r.subs.items[0].sid, "S1");
    EXPECT_STREQ(r.subs.items[0].email, "alice@uni.edu");
    EXPECT_STREQ(r.subs.items[0].platform_id, "submission_001");
    EXPECT_EQ(r.subs.items[0].group, nullptr);
    // A group: a row per member, each with their own ids, graded from the one folder.
    for (size_t i : {1u, 2u}) {
        EXPECT_STREQ(r.subs.items[i].platform_id, "submission_002");
        EXPECT_EQ(std::string(r.subs.items[i].path), dir + "/submission_002");
        ASSERT_NE(r.subs.items[i].group, nullptr);
        EXPECT_STREQ(r.subs.items[i].group, "a group submission of Bob Baker & Carol Chen");
    }
    EXPECT_STREQ(r.subs.items[1].name, "Bob Baker");
    EXPECT_STREQ(r.subs.items[1].sid, "S2");
    EXPECT_STREQ(r.subs.items[2].name, "Carol Chen");
    EXPECT_STREQ(r.subs.items[2].email, "carol@uni.edu");
    EXPECT_EQ(r.subs.items[0].problem, nullptr);
    ASSERT_NE(r.subs.items[3].problem, nullptr);
    EXPECT_NE(std::string(r.subs.items[3].problem).find("no folder submission_003"), std::string::npos);
}

TEST(GraderLayout, BadExportsAndDownloadsAreRefusedNamingTheProblem) {
    // YAML that does not parse: the line and libyaml's words.
    std::string bad = TempDir("layout_gs_bad");
    Spit(bad + "/submission_metadata.yml", "submission_001:\n  :submitters:\n  - :name: [Alice\n");
    Spit(bad + "/submission_001/lab.c", "x");
    Read r;
    ReadDir(bad, &r);
    EXPECT_EQ(r.rc, -1);
    EXPECT_NE(r.err.find("submission_metadata.yml: line 4"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("nothing was graded"), std::string::npos) << r.err;

    // Valid YAML without submitters.
    Spit(bad + "/submission_metadata.yml", "submission_001:\n  :score: 3\n");
    Read r2;
    ReadDir(bad, &r2);
    EXPECT_EQ(r2.rc, -1);
    EXPECT_NE(r2.err.find("line 1: entry submission_001 has no :submitters: list"), std::string::npos) << r2.err;

    // A folder the metadata does not name.
    Spit(bad + "/submission_metadata.yml", kMeta);
    Spit(bad + "/submission_009/lab.c", "x");
    Read r3;
    ReadDir(bad, &r3);
    EXPECT_EQ(r3.rc, -1);
    EXPECT_NE(r3.err.find("names no submitters for submission_009"), std::string::npos) << r3.err;

    // A file in a Canvas download that Canvas did not name.
    std::string canvas = TempDir("layout_canvas_bad");
    Spit(canvas + "/adamsalice_1001_5001_lab.c", "x");
    Spit(canvas + "/lab.c", "x");
    Read c;
    ReadDir(canvas, &c, GRADE_LAYOUT_CANVAS);
    EXPECT_EQ(c.rc, -1);
    EXPECT_NE(c.err.find("1 entry is not named as Canvas names"), std::string::npos) << c.err;
    EXPECT_NE(c.err.find("\n  lab.c"), std::string::npos) << c.err;
    EXPECT_NE(c.err.find("Nothing was graded"), std::string::npos) << c.err;
}

// Every platform's reader walks its folder the same way (grade_layout_walk.h): each
// misnamed entry counted, the first ten listed by name (a Canvas entry that is not a file
// says so), "..." for the rest, and nothing graded; entries it takes or skips are not listed.
TEST(GraderLayout, EveryPlatformListsItsMisnamedEntriesAndGradesNothing) {
    std::string canvas = TempDir("layout_canvas_many_bad");
    Spit(canvas + "/adamsalice_1001_5001_lab.c", "x");
    for (int i = 0; i < 11; i++) Spit(canvas + "/stray" + std::to_string(i) + ".c", "x");
    Spit(canvas + "/bakerbob_1002_5002_folder/lab.c", "x");
    Read c;
    ReadDir(canvas, &c, GRADE_LAYOUT_CANVAS);
    EXPECT_EQ(c.rc, -1);
    EXPECT_NE(c.err.find("read as a Canvas download: 12 entries are not named as Canvas names a student's files "
                         "(lastfirst[_LATE]_<userid>_<attachmentid>_<name>), so they could not be given"),
              std::string::npos)
        << c.err;
    size_t listed = 0;
    for (size_t at = c.err.find("\n  "); at != std::string::npos; at = c.err.find("\n  ", at + 1)) listed++;
    EXPECT_EQ(listed, 11u) << c.err; // ten names and "..."
    EXPECT_NE(c.err.find("\n  ...\nNothing was graded. Move them out"), std::string::npos) << c.err;
    EXPECT_EQ(c.err.find("adamsalice"), std::string::npos) << c.err;

    // A folder Canvas would not write, named as its files are: listed as not a file.
    std::string canvas2 = TempDir("layout_canvas_folder");
    Spit(canvas2 + "/adamsalice_1001_5001_lab.c", "x");
    Spit(canvas2 + "/bakerbob_1002_5002_folder/lab.c", "x");
    Read c2;
    ReadDir(canvas2, &c2, GRADE_LAYOUT_CANVAS);
    EXPECT_EQ(c2.rc, -1);
    EXPECT_NE(c2.err.find("1 entry is not named as Canvas names"), std::string::npos) << c2.err;
    EXPECT_NE(c2.err.find("\n  bakerbob_1002_5002_folder (not a file)\nNothing was graded. Move it out"),
              std::string::npos)
        << c2.err;

    // Moodle: a flat file without its own name is misnamed; another plugin's entry is skipped
    // with a warning, not listed.
    std::string moodle = TempDir("layout_moodle_bad");
    Spit(moodle + "/Alice Adams_111_assignsubmission_file/lab.c", "x");
    Spit(moodle + "/Bob Baker_222_assignsubmission_file", "x");
    Spit(moodle + "/Carol Cruz_333_assignsubmission_onlinetext/onlinetext.html", "x");
    Spit(moodle + "/notes.txt", "x");
    Read m;
    ReadDir(moodle, &m, GRADE_LAYOUT_MOODLE);
    EXPECT_EQ(m.rc, -1);
    EXPECT_NE(m.err.find("read as a Moodle download: 2 entries are not named as Moodle names a student's files"),
              std::string::npos)
        << m.err;
    EXPECT_NE(m.err.find("\n  Bob Baker_222_assignsubmission_file"), std::string::npos) << m.err;
    EXPECT_NE(m.err.find("\n  notes.txt"), std::string::npos) << m.err;
    EXPECT_EQ(m.err.find("Carol"), std::string::npos) << m.err;
    EXPECT_EQ(m.err.find("Alice"), std::string::npos) << m.err;

    // The same download without its misnamed entries reads, the other plugin skipped aloud.
    std::string moodle2 = TempDir("layout_moodle_good");
    Spit(moodle2 + "/Alice Adams_111_assignsubmission_file/lab.c", "x");
    Spit(moodle2 + "/Carol Cruz_333_assignsubmission_onlinetext/onlinetext.html", "x");
    Read m2;
    ReadDir(moodle2, &m2, GRADE_LAYOUT_MOODLE);
    ASSERT_EQ(m2.rc, 0) << m2.err;
    ASSERT_EQ(m2.subs.n, 1u);
    EXPECT_STREQ(m2.subs.items[0].name, "Alice Adams");
    EXPECT_NE(m2.warnings.find("skipped: Moodle's onlinetext submission, not files"), std::string::npos) << m2.warnings;

    // Gradescope: the submission folders the metadata does not name, comma-separated; a
    // stray file is skipped with a warning.
    std::string gs = TempDir("layout_gs_unnamed");
    Spit(gs + "/submission_metadata.yml", kMeta);
    Spit(gs + "/submission_008/lab.c", "x");
    Spit(gs + "/submission_009/lab.c", "x");
    Read g;
    ReadDir(gs, &g, GRADE_LAYOUT_GRADESCOPE);
    EXPECT_EQ(g.rc, -1);
    EXPECT_TRUE(g.err.find("names no submitters for submission_008, submission_009: nobody could be given them") !=
                    std::string::npos ||
                g.err.find("names no submitters for submission_009, submission_008: nobody could be given them") !=
                    std::string::npos)
        << g.err;
}

TEST(GraderLayout, ARosterGivesNamesAndStudentIds) {
    const char csv[] =
        "\xEF\xBB\xBFName,SID,Email,canvas_id,moodle_id,id\r\n"
        "\"Adams, Alice\",S1,alice@uni.edu,1001,11,alice\r\n"
        "Bob Baker,S2,BOB@uni.edu,1002,12,\r\n";
    grade_roster roster;
    char err[1024] = "";
    ASSERT_EQ(grade_roster_parse("roster.csv", csv, sizeof(csv) - 1, &roster, err, sizeof(err)), 0) << err;
    ASSERT_EQ(roster.n, 2u);
    EXPECT_STREQ(roster.rows[0].name, "Adams, Alice");

    std::string canvas = TempDir("layout_roster");
    Spit(canvas + "/adamsalice_1001_5001_lab.c", "x");
    Spit(canvas + "/bakerbob_1002_5002_lab.c", "x");
    Spit(canvas + "/chencarol_1003_5003_lab.c", "x");
    Read r;
    ReadDir(canvas, &r, GRADE_LAYOUT_AUTO, &roster);
    ASSERT_EQ(r.rc, 0) << r.err;
    ASSERT_EQ(r.subs.n, 3u);
    EXPECT_STREQ(r.subs.items[0].name, "Adams, Alice");
    EXPECT_STREQ(r.subs.items[0].sid, "S1");
    EXPECT_STREQ(r.subs.items[1].name, "Bob Baker");
    EXPECT_STREQ(r.subs.items[1].email, "BOB@uni.edu");
    EXPECT_STREQ(r.subs.items[2].name, "chencarol");  // not on the roster: said
    EXPECT_NE(r.warnings.find("1 submission is not on the roster, graded under the platform's name: chencarol"),
              std::string::npos)
        << r.warnings;
    grade_roster_free(&roster);

    // A roster student of whom the download holds nothing gets a row (0, not submitted).
    const char with_missing[] = "name,sid,email,canvas_id\nAlice Adams,S1,alice@uni.edu,1001\nErin Evans,S5,,1005\n";
    ASSERT_EQ(grade_roster_parse("roster.csv", with_missing, sizeof(with_missing) - 1, &roster, err, sizeof(err)), 0)
        << err;
    Read m;
    ReadDir(canvas, &m, GRADE_LAYOUT_AUTO, &roster);
    ASSERT_EQ(m.rc, 0) << m.err;
    ASSERT_EQ(m.subs.n, 4u);
    const grade_submission *erin = nullptr;
    for (size_t i = 0; i < m.subs.n; i++)
        if (!strcmp(m.subs.items[i].name, "Erin Evans")) erin = &m.subs.items[i];
    ASSERT_NE(erin, nullptr);
    ASSERT_NE(erin->absent, nullptr);
    EXPECT_NE(std::string(erin->absent).find("the roster lists this student (line 3)"), std::string::npos);
    EXPECT_STREQ(erin->sid, "S5");
    EXPECT_STREQ(erin->platform_id, "1005");
    EXPECT_EQ(m.subs.items[0].absent, nullptr);
    EXPECT_NE(m.warnings.find("1 student on the roster handed in nothing: Erin Evans"), std::string::npos)
        << m.warnings;
    // bakerbob and chencarol are not on this roster; Erin is not counted among them.
    EXPECT_NE(m.warnings.find("2 submissions are not on the roster"), std::string::npos) << m.warnings;
    grade_roster_free(&roster);

    // A spreadsheet saved in a decimal-comma locale (semicolons) is read as such.
    const char semis[] = "Name;SID;Email\r\n\"Adams; Alice\";S1;alice@uni.edu\r\nBob Baker;S2;bob@uni.edu\r\n";
    ASSERT_EQ(grade_roster_parse("r.csv", semis, sizeof(semis) - 1, &roster, err, sizeof(err)), 0) << err;
    ASSERT_EQ(roster.n, 2u);
    EXPECT_STREQ(roster.rows[0].name, "Adams; Alice");
    EXPECT_STREQ(roster.rows[1].ids[GRADE_ROSTER_EMAIL], "bob@uni.edu");
    grade_roster_free(&roster);

    const char no_name[] = "sid,email\nS1,a@b\n";
    EXPECT_EQ(grade_roster_parse("r.csv", no_name, sizeof(no_name) - 1, &roster, err, sizeof(err)), -1);
    EXPECT_NE(std::string(err).find("r.csv: line 1: the header needs a \"name\" column"), std::string::npos) << err;
    const char twice[] = "name,sid\nA,S1\nB,S2\nC,S1\n";
    EXPECT_EQ(grade_roster_parse("r.csv", twice, sizeof(twice) - 1, &roster, err, sizeof(err)), -1);
    EXPECT_NE(std::string(err).find("r.csv: line 4: sid S1 is also on line 2"), std::string::npos) << err;
}

// The gradebook saved by a spreadsheet in a decimal-comma locale: semicolons between the
// fields and 7,5 for 7.5 points are read; a header row that is not the gradebook's is shown.
TEST(GraderLayout, AGradebookSavedInADecimalCommaLocaleKeepsItsAdjustments) {
    const char text[] =
        "student;score;max_score;03_double_buffer correct;03_double_buffer adjustment;03_double_buffer adjustment_note;"
        "note\r\nalice;60,00;100,00;40,00;7,5;\"by hand; shown in class\";\r\nbob;100,00;100,00;40,00;-2;;\r\n";
    grade_adjustments adj;
    char err[1024] = "";
    ASSERT_EQ(grade_adjustments_parse(text, sizeof(text) - 1, "gradebook.csv", &adj, err, sizeof(err)), 0) << err;
    ASSERT_EQ(adj.n, 2u);
    EXPECT_STREQ(adj.items[0].student, "alice");
    EXPECT_DOUBLE_EQ(adj.items[0].points, 7.5);
    EXPECT_STREQ(adj.items[0].note, "by hand; shown in class");
    EXPECT_DOUBLE_EQ(adj.items[1].points, -2);
    grade_adjustments_free(&adj);

    // A file saved with tabs: the first row is shown, and what is wrong with it.
    const char tabs[] = "student\tscore\r\nalice\t60\r\n";
    EXPECT_EQ(grade_adjustments_parse(tabs, sizeof(tabs) - 1, "gradebook.csv", &adj, err, sizeof(err)), -1);
    EXPECT_NE(std::string(err).find("row 1: no student column: the first row is \"student\tscore\""), std::string::npos)
        << err;
    EXPECT_NE(std::string(err).find("separated by tabs"), std::string::npos) << err;
}

// Canvas's _LATE flag without the files' times (an unpacked download has the unpacking's):
// 1 day, said so, never the days since the due time by the unpacking's date; a student
// without _LATE is on time; the class warning says how the _LATE ones were counted.
TEST(GraderLayout, CanvasLateWithoutTimesIsOneDay) {
    std::string canvas = TempDir("layout_canvas_late");
    Spit(canvas + "/adamsalice_1001_5001_lab.c", "x");
    Spit(canvas + "/bakerbob_LATE_1002_5002_lab.c", "x");
    Read r;
    ReadDir(canvas, &r);
    ASSERT_EQ(r.rc, 0) << r.err;
    ASSERT_EQ(r.subs.n, 2u);
    char *warning = grade_late_warning(&r.subs, "03_double_buffer", false);
    ASSERT_NE(warning, nullptr);
    EXPECT_NE(std::string(warning).find("1 student Canvas marked _LATE count as 1 day late"), std::string::npos)
        << warning;
    EXPECT_EQ(std::string(warning).find("have no time of handing in"), std::string::npos) << warning;
    free(warning);
    grade_late_rule rule = {};
    rule.on = true;
    ASSERT_EQ(grade_time_parse("2025-10-01T23:59:00Z", false, &rule.due), 0);
    rule.per_day = 10;
    rule.max_days = 5;
    double max[GRADE_CHECKS] = {40, 20, 40, 0};
    for (size_t i = 0; i < 2; i++) {
        grade_lab lab;
        grade_lab_init(&lab, "03_double_buffer", "labs/03_double_buffer/lab.c", max);
        for (int c = 0; c < 3; c++) grade_check_set(&lab.checks[c], max[c], "ok");
        grade_late_apply(&rule, &r.subs.items[i], &lab);
        bool bob = std::string(r.subs.items[i].name) == "bakerbob";
        EXPECT_EQ(lab.late_days, bob ? 1 : 0) << r.subs.items[i].name;
        EXPECT_EQ(lab.late_penalty, bob ? 10 : 0) << r.subs.items[i].name;
        if (bob) {
            EXPECT_NE(std::string(lab.late_reason).find("Canvas marked the submission _LATE"), std::string::npos);
        }
        grade_lab_free(&lab);
    }
}

}  // namespace

TEST(GraderLayout, EveryLayoutIsOneRowThatNamesParsesAndListsIt) {
    for (int i = GRADE_LAYOUT_AUTO; i <= GRADE_LAYOUT_MOODLE; i++) {
        grade_layout l = (grade_layout)i, back = GRADE_LAYOUT_AUTO;
        const char *name = grade_layout_name(l);
        ASSERT_EQ(grade_layout_parse(name, &back), 0) << name;
        EXPECT_EQ(back, l) << name;
        EXPECT_NE(std::string(grade_layout_choices()).find(name), std::string::npos) << name;
    }
    grade_layout l;
    EXPECT_NE(grade_layout_parse("blackboard", &l), 0);
}
