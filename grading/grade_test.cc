// grading/grade_test.cc: the grader end to end on the simulator, run as instructors run it
// (the real //grading:grade binary, as a child):
//  - every submission of the corpus in grading/testdata/ gets the points and the reason
//    its expected.json names, in one class run, and the grader exits 0;
//  - a bad submission graded beside a good one does not change the good one's grade or
//    figures;
//  - the kit builds the reference exactly as Bazel does (same figures for the same seed);
//  - Gradescope mode writes results.json in Gradescope's format;
//  - a rubric's optional measurement check shows in every report, for its lab only;
//  - a broken rubric, a missing submissions folder and bad options stop the grader with a
//    message naming the problem.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <archive.h>
#include <archive_entry.h>
#include <cjson/cJSON.h>

#include "grading/grade_test_support.h"

namespace fs = std::filesystem;
using namespace gradetest;

namespace {

// Writes an archive holding files (path in archive -> bytes); format "zip" or "tar.gz".
void WriteArchive(const std::string &path, const std::string &format,
                  const std::map<std::string, std::string> &files) {
    struct archive *a = archive_write_new();
    if (format == "zip") {
        archive_write_set_format_zip(a);
    } else {
        archive_write_set_format_pax_restricted(a);
        archive_write_add_filter_gzip(a);
    }
    ASSERT_EQ(archive_write_open_filename(a, path.c_str()), ARCHIVE_OK) << archive_error_string(a);
    for (const auto &[name, data] : files) {
        struct archive_entry *e = archive_entry_new();
        archive_entry_set_pathname(e, name.c_str());
        archive_entry_set_size(e, static_cast<la_int64_t>(data.size()));
        archive_entry_set_filetype(e, AE_IFREG);
        archive_entry_set_perm(e, 0644);
        ASSERT_EQ(archive_write_header(a, e), ARCHIVE_OK) << archive_error_string(a);
        ASSERT_EQ(archive_write_data(a, data.data(), data.size()), static_cast<la_ssize_t>(data.size()));
        archive_entry_free(e);
    }
    archive_write_close(a);
    archive_write_free(a);
}

const char kLabFile[] = "labs/03_double_buffer/lab.c";

std::string Skeleton() { return Slurp(Runfile("labs/03_double_buffer/lab.c")); }
std::string Reference() { return Slurp(Runfile("solutions/03_double_buffer.c")); }

// Where corpus case `name` lives under grading/testdata.
std::string CaseDir(const std::string &name) {
    const std::string refereed = "refereed_";
    return name.rfind(refereed, 0) == 0 ? "refereed/" + name.substr(refereed.size()) : name;
}

// Puts corpus case `name` (as its expected.json's "build" says) into subs. Returns the
// student's name the grader will use.
std::string AddCase(const std::string &subs, const std::string &name, const cJSON *expected) {
    const char *build = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(expected, "build"));
    std::string how = build ? build : "folder";
    fs::path dst = fs::path(subs) / name;
    if (how == "skeleton") {
        Spit((dst / kLabFile).string(), Skeleton());
    } else if (how == "reference") {
        Spit((dst / kLabFile).string(), Reference());
    } else if (how == "zip") {
        WriteArchive(subs + "/" + name + ".zip", "zip", {{kLabFile, Reference()}, {"README.txt", "my lab\n"}});
    } else if (how == "tar.gz") {
        WriteArchive(subs + "/" + name + ".tar.gz", "tar.gz", {{name + "/" + kLabFile, Reference()}});
    } else if (how == "garbage.zip") {
        const char garbage[] = "PK\x03\x04 this is not really a zip archive\n";
        Spit(subs + "/" + name + ".zip", std::string(garbage, sizeof(garbage) - 1));
    } else if (how == "empty") {
        fs::create_directories(dst);
    } else {
        fs::path src = fs::path(Runfile("grading/testdata")) / CaseDir(name);
        for (const auto &entry : fs::recursive_directory_iterator(src, fs::directory_options::follow_directory_symlink)) {
            if (!entry.is_regular_file() || entry.path().filename() == "expected.json") continue;
            fs::path rel = entry.path().lexically_relative(src);
            Spit((dst / rel).string(), Slurp(entry.path().string()));
        }
    }
    return name;
}

cJSON *ParseFile(const std::string &path) {
    std::string text = Slurp(path);
    cJSON *j = cJSON_Parse(text.c_str());
    EXPECT_NE(j, nullptr) << path << " is not JSON:\n" << text.substr(0, 2000);
    return j;
}

std::string Str(const cJSON *o, const char *k) {
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));
    return s ? s : "";
}

double Num(const cJSON *o, const char *k) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

const cJSON *FindTest(const cJSON *results, const std::string &name) {
    const cJSON *t;
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(results, "tests")) if (Str(t, "name") == name) return t;
    return nullptr;
}

const std::map<std::string, std::string> kTestNames = {
    {"correct", "03_double_buffer: correct"},
    {"race_free", "03_double_buffer: race-free"},
    {"speedup", "03_double_buffer: speed"},
};

// The corpus: grading/testdata/NAME (attacks on the grader, mistakes) and
// grading/testdata/refereed/NAME (attacks on the referee itself), as "NAME" and
// "refereed_NAME".
std::vector<std::string> CorpusCases() {
    std::vector<std::string> names;
    for (const auto &e : fs::directory_iterator(Runfile("grading/testdata")))
        if (fs::exists(e.path() / "expected.json")) names.push_back(e.path().filename().string());
    for (const auto &e : fs::directory_iterator(Runfile("grading/testdata/refereed")))
        if (fs::exists(e.path() / "expected.json")) names.push_back("refereed_" + e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}


// Grades the corpus cases in `cases` in one class run with the given per-lab timeout, and
// checks each against its expected.json.
// What a case expects of this build: a sanitizer build's lab runs may read /proc (the
// sanitizer's runtime needs it, grade_runner.c), so a case can say what it expects there
// instead ("sanitized" in its expected.json); and where the grader confines a lab run's
// reads (the simulator without sanitizers: no /proc), what it expects there
// ("reads_confined"), when an attack needs /proc to get anywhere.
const cJSON *ForThisBuild(const cJSON *e) {
#if defined(__SANITIZE_ADDRESS__)
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(e, "sanitized");
#else
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(e, "reads_confined");
#endif
    return s ? s : e;
}

void GradeCorpus(const std::vector<std::string> &cases, const std::map<std::string, cJSON *> &expected,
                 const std::string &timeout, const std::string &tag) {
    std::string subs = TempDir(tag + "_subs"), out = TempDir(tag + "_out"), scratch = ScratchDir(tag + "_scratch");
    for (const auto &c : cases) AddCase(subs, c, expected.at(c));
    Outcome r = Grade({"--submissions", subs, "--out", out, "--labs", "03_double_buffer", "--jobs", "2", "--timeout",
                       timeout, "--scratch", scratch, "--keep-scratch"});
    ASSERT_EQ(r.exit_code, 0) << r.err;

    for (const auto &c : cases) {
        SCOPED_TRACE("case " + c);
        cJSON *results = ParseFile(out + "/" + c + "/results.json");
        ASSERT_NE(results, nullptr);
        std::string report = Slurp(out + "/" + c + "/report.txt");
        const cJSON *checks = cJSON_GetObjectItemCaseSensitive(ForThisBuild(expected.at(c)), "checks");
        ASSERT_NE(checks, nullptr);
        for (const auto &[check, test_name] : kTestNames) {
            const cJSON *want = cJSON_GetObjectItemCaseSensitive(checks, check.c_str());
            const cJSON *got = FindTest(results, test_name);
            ASSERT_NE(want, nullptr) << check;
            ASSERT_NE(got, nullptr) << test_name;
            double score = Num(got, "score"), max = Num(got, "max_score");
            std::string points = Str(want, "points"), output = Str(got, "output");
            EXPECT_GT(max, 0);
            if (points == "full") {
                EXPECT_EQ(score, max) << test_name << ": " << output;
                EXPECT_EQ(Str(got, "status"), "passed");
            } else if (points == "none") {
                EXPECT_EQ(score, 0) << test_name << ": " << output;
                EXPECT_EQ(Str(got, "status"), "failed");
            } else {
                ADD_FAILURE() << "expected.json: points must be full or none, not " << points;
            }
            EXPECT_NE(output.find(Str(want, "reason")), std::string::npos)
                << test_name << ": expected the reason to contain \"" << Str(want, "reason") << "\", got:\n"
                << output.substr(0, 600);
        }
        const cJSON *contains;
        cJSON_ArrayForEach(contains, cJSON_GetObjectItemCaseSensitive(ForThisBuild(expected.at(c)), "report_contains")) {
            EXPECT_NE(report.find(contains->valuestring), std::string::npos)
                << "report.txt should contain \"" << contains->valuestring << "\":\n"
                << report.substr(0, 3000);
        }
        cJSON_Delete(results);
    }

    // The class files: a gradebook row per student, a JUnit testsuite per student.
    std::string csv = Slurp(out + "/gradebook.csv");
    EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), static_cast<long>(cases.size() + 1)) << csv;
    EXPECT_EQ(csv.rfind("student,score,max_score,", 0), 0u) << csv;
    std::string junit = Slurp(out + "/junit.xml");
    for (const auto &c : cases) EXPECT_NE(junit.find("<testsuite name=\"" + c + "\""), std::string::npos) << c;
    // The summary table names every student.
    for (const auto &c : cases) EXPECT_NE(r.out.find(c), std::string::npos) << r.out;
    // Nothing a submission tried to write outside its scratch folder exists.
    for (const auto &e : fs::recursive_directory_iterator(scratch))
        EXPECT_EQ(e.path().filename().string().find("streamlab_escape"), std::string::npos) << e.path();
    if (std::find(cases.begin(), cases.end(), "reference") != cases.end()) {
        EXPECT_NE(csv.find("\r\nreference,100.00,100.00,40.00,20.00,40.00,,,\r\n"), std::string::npos) << csv;
    }
}

TEST(Grader, EveryCorpusSubmissionGetsItsExpectedGradeAndReason) {
    std::vector<std::string> cases = CorpusCases();
    ASSERT_GE(cases.size(), 24u);
    std::map<std::string, cJSON *> expected;
    // Cases that hang get a short time limit of their own (expected.json "timeout": long
    // enough for a sanitizer build to reach run()); the others a generous one, so that a
    // busy machine does not make a sound lab time out.
    std::vector<std::string> hanging, others;
    for (const auto &c : cases) {
        expected[c] = ParseFile(Runfile("grading/testdata/" + CaseDir(c) + "/expected.json"));
        (cJSON_GetObjectItemCaseSensitive(expected[c], "timeout") ? hanging : others).push_back(c);
    }
    ::unlink("/tmp/streamlab_escape_tmp");
    GradeCorpus(others, expected, "120", "corpus");
    GradeCorpus(hanging, expected, "10", "hanging");
    EXPECT_FALSE(fs::exists("/tmp/streamlab_escape_tmp"));
    for (auto &[c, j] : expected) cJSON_Delete(j);
}

// The tests of one student's results.json, without the timing of the grading itself.
std::string Tests(const std::string &results_path) {
    cJSON *j = ParseFile(results_path);
    if (!j) return "";
    char *s = cJSON_Print(cJSON_GetObjectItemCaseSensitive(j, "tests"));
    std::string text = s ? s : "";
    cJSON_free(s);
    cJSON_Delete(j);
    return text;
}

TEST(Grader, ABadSubmissionDoesNotChangeAnothersGrade) {
    // The reference alone, then beside submissions that signal every process near them,
    // fork without end, eat memory and flood their output, with the same workload seed.
    std::string alone = TempDir("iso_alone"), alone_out = TempDir("iso_alone_out");
    Spit(alone + "/a_good/" + kLabFile, Reference());
    Outcome r = Grade({"--submissions", alone, "--out", alone_out, "--jobs", "1", "--seed", "4242"});
    ASSERT_EQ(r.exit_code, 0) << r.err;

    std::string mixed = TempDir("iso_mixed"), mixed_out = TempDir("iso_mixed_out");
    Spit(mixed + "/a_good/" + kLabFile, Reference());
    const std::map<std::string, std::string> bad = {
        {"b_killer", "kills_neighbours"},
        {"c_fork", "fork_bomb"},
        {"d_memory", "memory_hog"},
        {"e_flood", "floods_stdout"},
    };
    for (const auto &[student, c] : bad)
        Spit(mixed + "/" + student + "/" + kLabFile, Slurp(Runfile("grading/testdata/" + c + "/" + kLabFile)));
    r = Grade({"--submissions", mixed, "--out", mixed_out, "--jobs", "2", "--seed", "4242"});
    ASSERT_EQ(r.exit_code, 0) << r.err;

    std::string a = Tests(alone_out + "/a_good/results.json"), b = Tests(mixed_out + "/a_good/results.json");
    EXPECT_FALSE(a.empty());
    EXPECT_EQ(a, b) << "the reference's grade changed when graded beside bad submissions";
    cJSON *j = ParseFile(mixed_out + "/a_good/results.json");
    EXPECT_EQ(Num(j, "score"), 100);
    cJSON_Delete(j);
    // And the killer itself was graded as the sequential pipeline it is.
    j = ParseFile(mixed_out + "/b_killer/results.json");
    EXPECT_EQ(Str(FindTest(j, "03_double_buffer: correct"), "status"), "passed");
    cJSON_Delete(j);
}

// A result's JSON with each blamed wait's source line kept as its line number only: the kit
// builds the student's file as labs/NN_topic/lab.c under its scratch folder, Bazel the
// reference as solutions/NN_topic.c, so the same line has two paths.
std::string SameLinesAnywhere(const std::string &json) {
    cJSON *j = cJSON_Parse(json.c_str());
    if (!j) return json;
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "blame"), "waits")) {
        cJSON *line = cJSON_GetObjectItemCaseSensitive(w, "line");
        const char *text = cJSON_GetStringValue(line);
        if (text && strrchr(text, ':')) cJSON_SetValuestring(line, strrchr(text, ':'));
    }
    char *printed = cJSON_PrintUnformatted(j);
    std::string out = printed ? printed : json;
    cJSON_free(printed);
    cJSON_Delete(j);
    return out;
}

TEST(Grader, TheKitBuildsTheReferenceExactlyAsBazelDoes) {
    std::string subs = TempDir("kit_subs"), out = TempDir("kit_out"), scratch = ScratchDir("kit_scratch");
    Spit(subs + "/ref/" + kLabFile, Reference());
    Outcome r = Grade({"--submissions", subs, "--out", out, "--scratch", scratch, "--keep-scratch"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // The student's program the grader linked, and the kit's referee that runs it.
    std::string built, referee;
    for (const auto &e : fs::recursive_directory_iterator(scratch)) {
        if (e.path().filename() == "lab" && e.path().parent_path().filename() == "build" &&
            e.path().string().find("/preflight_") == std::string::npos)  // the pre-flight runs' skeletons
            built = e.path().string();
        if (e.path().filename() == "referee" && e.path().parent_path().filename() == "bin" &&
            e.path().string().find("03_double_buffer_sim") != std::string::npos)
            referee = e.path().string();
    }
    ASSERT_FALSE(built.empty()) << "no student's program under " << scratch;
    ASSERT_FALSE(referee.empty()) << "no kit referee under " << scratch;
    std::vector<std::string> args = {"--json", "--seed", "7", "--runs", "3", "--schedules", "1"};
    std::vector<std::string> kit_argv = {referee, "--student", built},
                             bazel_argv = {Runfile("solutions/03_double_buffer_sim")};
    kit_argv.insert(kit_argv.end(), args.begin(), args.end());
    bazel_argv.insert(bazel_argv.end(), args.begin(), args.end());
    Outcome kit = RunProgram(kit_argv, 120), bazel = RunProgram(bazel_argv, 120);
    EXPECT_EQ(kit.exit_code, 0) << kit.err;
    EXPECT_EQ(bazel.exit_code, 0) << bazel.err;
    EXPECT_FALSE(kit.out.empty());
    EXPECT_EQ(SameLinesAnywhere(kit.out), SameLinesAnywhere(bazel.out)) << "the kit's build and Bazel's differ";
}

TEST(Grader, ASpeedNearTheTargetIsMeasuredAgain) {
    // The reference's speedup for a fixed seed, from Bazel's build of it.
    Outcome ref = RunProgram({Runfile("solutions/03_double_buffer_sim"), "--json", "--seed", "99", "--runs", "2",
                              "--schedules", "1"},
                             120);
    ASSERT_EQ(ref.exit_code, 0) << ref.err;
    cJSON *j = cJSON_Parse(ref.out.c_str());
    ASSERT_NE(j, nullptr) << ref.out;
    double speedup = Num(j, "speedup");
    cJSON_Delete(j);
    ASSERT_GT(speedup, 1.0);
    // A rubric whose target lies 2% above it: inside the 5% noise band.
    double target = speedup * 1.02;
    std::ostringstream rubric;
    rubric.precision(17);
    rubric << R"({"noise": {"band": 0.05, "max_reruns": 2}, "labs": {"03_double_buffer": {)"
           << R"("correct": {"points": 40}, "race_free": {"points": 20},)"
           << R"("speedup": {"points": 40, "unit": "speedup", "floor": "baseline", "target": )" << target << "}}}}";
    std::string dir = TempDir("noise"), subs = dir + "/subs", out = dir + "/out";
    Spit(dir + "/rubric.json", rubric.str());
    Spit(subs + "/ref/" + kLabFile, Reference());
    Outcome r = Grade({"--submissions", subs, "--out", out, "--seed", "99", "--rubric", dir + "/rubric.json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::string report = Slurp(out + "/ref/report.txt");
    EXPECT_NE(report.find("the lab ran 3 times in all"), std::string::npos) << report;
    EXPECT_NE(report.find("re-runs   medians of 3 lab runs:"), std::string::npos) << report;
    j = ParseFile(out + "/ref/results.json");
    const cJSON *speed = FindTest(j, "03_double_buffer: speed");
    // The simulator's time is exact: every run gives the same speedup, and the points are
    // the linear share of it between the baseline and the target.
    double expected = std::round(40 * (speedup - 1.0) / (target - 1.0) * 100) / 100;
    EXPECT_DOUBLE_EQ(Num(speed, "score"), expected) << Str(speed, "output");
    EXPECT_EQ(Str(speed, "status"), "failed");
    cJSON_Delete(j);
}

TEST(Grader, GradescopeModeWritesResultsJson) {
    // Gradescope puts a student's uploaded files at the top of the submission folder.
    std::string sub = TempDir("gs_submission"), results = TempDir("gs_results") + "/results.json";
    Spit(sub + "/lab.c", Reference());
    Outcome r = Grade({"--gradescope", "--labs", "03_double_buffer", "--submission-dir", sub, "--results", results});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    cJSON *j = ParseFile(results);
    ASSERT_NE(j, nullptr);
    EXPECT_EQ(Num(j, "score"), 100);
    EXPECT_TRUE(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j, "output")));
    const cJSON *tests = cJSON_GetObjectItemCaseSensitive(j, "tests");
    EXPECT_EQ(cJSON_GetArraySize(tests), 3);
    const cJSON *t;
    cJSON_ArrayForEach(t, tests) {
        EXPECT_FALSE(Str(t, "name").empty());
        EXPECT_GE(Num(t, "score"), 0);
        EXPECT_GT(Num(t, "max_score"), 0);
        EXPECT_TRUE(Str(t, "status") == "passed" || Str(t, "status") == "failed");
        EXPECT_TRUE(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(t, "output")));
        EXPECT_EQ(Str(t, "visibility"), "visible");
    }
    EXPECT_NE(Str(FindTest(j, "03_double_buffer: correct"), "output").find("taken from lab.c"), std::string::npos);
    EXPECT_NE(r.out.find("streamlab grade report"), std::string::npos) << r.out;
    cJSON_Delete(j);

    // No submission at all: still a results.json that says so, and exit status 0.
    std::string missing = TempDir("gs_missing") + "/nothing_here";
    r = Grade({"--gradescope", "--labs", "03_double_buffer", "--submission-dir", missing, "--results", results});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    j = ParseFile(results);
    EXPECT_EQ(Num(j, "score"), 0);
    EXPECT_NE(Str(j, "output").find("nothing_here"), std::string::npos) << Str(j, "output");
    cJSON_Delete(j);
}

// A class whose students hand in lab 00, lab 03 or both: one run of the grader grades
// every lab each student handed in, with a gradebook column per lab and check.
TEST(Grader, AClassWithLab00AndLab03IsGradedTogether) {
    const char lab00[] = "labs/00_default_stream/lab.c";
    std::string subs = TempDir("two_labs_subs"), out = TempDir("two_labs_out");
    Spit(subs + "/alice/" + lab00, Slurp(Runfile("solutions/00_default_stream.c")));
    Spit(subs + "/alice/" + kLabFile, Reference());
    // bob's lab 00 stops at TODO 1: a stream per task, still serialised by stream 0.
    Spit(subs + "/bob/" + lab00,
         "#define LAB_VARIANT_BLOCKING_STREAMS\n" + Slurp(Runfile("labs/00_default_stream/testdata/variants.c")));
    Spit(subs + "/bob/" + kLabFile, Skeleton());
    // carol handed in lab 00 only, with non-blocking streams but no wait for them.
    Spit(subs + "/carol/" + lab00,
         "#define LAB_VARIANT_NO_WAIT\n" + Slurp(Runfile("labs/00_default_stream/testdata/variants.c")));
    Outcome r = Grade({"--submissions", subs, "--out", out, "--labs", "00,3", "--jobs", "2", "--seed", "11"});
    ASSERT_EQ(r.exit_code, 0) << r.err;

    std::string csv = Slurp(out + "/gradebook.csv");
    EXPECT_EQ(csv.rfind("student,score,max_score,00_default_stream correct,00_default_stream race_free,"
                        "00_default_stream speedup,00_default_stream adjustment,00_default_stream adjustment_note,"
                        "03_double_buffer correct,03_double_buffer race_free,03_double_buffer speedup,"
                        "03_double_buffer adjustment,03_double_buffer adjustment_note,note\r\n",
                        0),
              0u)
        << csv;
    EXPECT_NE(csv.find("\r\nalice,200.00,200.00,40.00,20.00,40.00,,,40.00,20.00,40.00,"), std::string::npos) << csv;
    // bob: both labs correct and race-free, neither fast: no speed points.
    EXPECT_NE(csv.find("\r\nbob,120.00,200.00,40.00,20.00,0.00,,,40.00,20.00,0.00,"), std::string::npos) << csv;
    // carol: lab 00 read its results before they were written; lab 03 not handed in.
    EXPECT_NE(csv.find("\r\ncarol,0.00,200.00,0.00,0.00,0.00,,,0.00,0.00,0.00,"), std::string::npos) << csv;
    EXPECT_NE(csv.find("03_double_buffer: not submitted"), std::string::npos) << csv;

    cJSON *j = ParseFile(out + "/bob/results.json");
    EXPECT_EQ(Str(FindTest(j, "00_default_stream: correct"), "status"), "passed");
    EXPECT_EQ(Str(FindTest(j, "00_default_stream: speed"), "status"), "failed");
    EXPECT_NE(Str(FindTest(j, "00_default_stream: speed"), "output").find("concurrency bound"), std::string::npos)
        << Str(FindTest(j, "00_default_stream: speed"), "output");
    cJSON_Delete(j);
    j = ParseFile(out + "/carol/results.json");
    EXPECT_NE(Str(FindTest(j, "00_default_stream: correct"), "output").find("never written"), std::string::npos)
        << Str(FindTest(j, "00_default_stream: correct"), "output");
    cJSON_Delete(j);
}

// Lab 01 is graded on bandwidth against the link bound, with the same checks: the
// reference earns everything; pinned on one stream is right but slow (speed points in
// proportion to how far it got from the pageable baseline to the target); one pair of
// device buffers for every stream is wrong.
TEST(Grader, Lab01IsGradedOnBandwidthAgainstTheLinkBound) {
    const char lab01[] = "labs/01_pinned_memory/lab.c";
    const std::string variants = Slurp(Runfile("labs/01_pinned_memory/testdata/variants.c"));
    std::string subs = TempDir("lab01_subs"), out = TempDir("lab01_out");
    Spit(subs + "/alice/" + lab01, Slurp(Runfile("solutions/01_pinned_memory.c")));
    Spit(subs + "/bob/" + lab01, "#define LAB_VARIANT_PINNED_ONE_STREAM\n" + variants);
    Spit(subs + "/carol/" + lab01, "#define LAB_VARIANT_SHARED_BUFFERS\n" + variants);
    Outcome r = Grade({"--submissions", subs, "--out", out, "--labs", "01", "--jobs", "2", "--seed", "11"});
    ASSERT_EQ(r.exit_code, 0) << r.err;

    std::string csv = Slurp(out + "/gradebook.csv");
    EXPECT_EQ(csv.rfind("student,score,max_score,01_pinned_memory correct,01_pinned_memory race_free,"
                        "01_pinned_memory speedup,01_pinned_memory adjustment,01_pinned_memory adjustment_note,"
                        "note\r\n",
                        0),
              0u)
        << csv;
    EXPECT_NE(csv.find("\r\nalice,100.00,100.00,40.00,20.00,40.00,"), std::string::npos) << csv;
    EXPECT_NE(csv.find("\r\ncarol,0.00,100.00,0.00,"), std::string::npos) << csv;
    cJSON *j = ParseFile(out + "/bob/results.json");
    const cJSON *speed = FindTest(j, "01_pinned_memory: speed");
    EXPECT_EQ(Str(speed, "status"), "failed");
    // About 59% of the link bound, from about 5% (the baseline) to the 80% target: some
    // points, far from all.
    EXPECT_GT(Num(speed, "score"), 20);
    EXPECT_LT(Num(speed, "score"), 35);
    EXPECT_NE(Str(speed, "output").find("link bound"), std::string::npos) << Str(speed, "output");
    EXPECT_NE(Str(speed, "output").find("GB/s"), std::string::npos) << Str(speed, "output");
    EXPECT_EQ(Str(FindTest(j, "01_pinned_memory: correct"), "status"), "passed");
    cJSON_Delete(j);
}

// The optional measurement check (lab 02's timed stages): a rubric that gives it points
// for lab 03, which reports no measurement, and none for lab 00. Every writer shows it for
// lab 03 only (through the worker's JSON), scored 0 with the reason.
TEST(Grader, AMeasurementCheckIsShownOnlyForTheLabWhoseRubricGivesItPoints) {
    const std::string speed = R"("speedup": {"points": 40, "unit": "bound_fraction", "floor": "baseline", "target": "lab"})";
    const std::string rubric = R"({"labs": {"00_default_stream": {"correct": {"points": 40}, "race_free": {"points": 20}, )" +
                               speed + R"(}, "03_double_buffer": {"correct": {"points": 40}, "race_free": {"points": 20}, )" +
                               speed + R"(, "measurement": {"points": 20}}}})";
    std::string dir = TempDir("measurement"), subs = dir + "/subs", out = dir + "/out";
    Spit(dir + "/rubric.json", rubric);
    Spit(subs + "/ref/labs/00_default_stream/lab.c", Slurp(Runfile("solutions/00_default_stream.c")));
    Spit(subs + "/ref/" + kLabFile, Reference());
    Outcome r = Grade({"--submissions", subs, "--out", out, "--seed", "5", "--rubric", dir + "/rubric.json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;

    std::string csv = Slurp(out + "/gradebook.csv");
    EXPECT_EQ(csv,
              "student,score,max_score,00_default_stream correct,00_default_stream race_free,00_default_stream speedup,"
              "00_default_stream adjustment,00_default_stream adjustment_note,"
              "03_double_buffer correct,03_double_buffer race_free,03_double_buffer speedup,03_double_buffer measurement,"
              "03_double_buffer adjustment,03_double_buffer adjustment_note,note\r\n"
              "ref,200.00,220.00,40.00,20.00,40.00,,,40.00,20.00,40.00,0.00,,,03_double_buffer: measurement not "
              "accepted\r\n");
    cJSON *j = ParseFile(out + "/ref/results.json");
    ASSERT_NE(j, nullptr);
    EXPECT_EQ(Num(j, "score"), 200);
    EXPECT_EQ(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "tests")), 7);
    const cJSON *m = FindTest(j, "03_double_buffer: measurement");
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(Num(m, "score"), 0);
    EXPECT_EQ(Num(m, "max_score"), 20);
    EXPECT_EQ(Str(m, "status"), "failed");
    EXPECT_EQ(Str(m, "output"), "the lab reported no measurement");
    EXPECT_EQ(FindTest(j, "00_default_stream: measurement"), nullptr);
    cJSON_Delete(j);
    std::string junit = Slurp(out + "/junit.xml");
    EXPECT_NE(junit.find("<testsuite name=\"ref\" tests=\"7\" failures=\"1\""), std::string::npos) << junit;
    std::string report = Slurp(out + "/ref/report.txt");
    EXPECT_NE(report.find("[FAIL] measurement   0.00 / 20.00  the lab reported no measurement\n"), std::string::npos)
        << report;
    EXPECT_NE(report.find("== 03_double_buffer (labs/03_double_buffer/lab.c): 100.00 / 120.00\n"), std::string::npos)
        << report;
    EXPECT_NE(r.out.find("100/120: measurement"), std::string::npos) << r.out;
}

// Lab 02 is graded in two parts besides correctness: speed, and the measurement of the
// combine stage. Ordered by events but timed with a host clock earns the speed and not the
// measurement; the skeleton earns neither; the reference earns both.
TEST(Grader, Lab02GradesSpeedAndMeasurementApart) {
    const char lab02[] = "labs/02_events/lab.c";
    const std::string variants = Slurp(Runfile("labs/02_events/testdata/variants.c"));
    std::string subs = TempDir("lab02_subs"), out = TempDir("lab02_out");
    Spit(subs + "/alice/" + lab02, Slurp(Runfile("solutions/02_events.c")));
    Spit(subs + "/bob/" + lab02, "#define LAB_VARIANT_EVENTS_HOST_TIMED\n" + variants);
    Spit(subs + "/carol/" + lab02, Slurp(Runfile("labs/02_events/lab.c")));
    Outcome r = Grade({"--submissions", subs, "--out", out, "--labs", "02", "--jobs", "2", "--seed", "11"});
    ASSERT_EQ(r.exit_code, 0) << r.err;

    std::string csv = Slurp(out + "/gradebook.csv");
    EXPECT_EQ(csv.rfind("student,score,max_score,02_events correct,02_events race_free,02_events speedup,"
                        "02_events measurement,02_events adjustment,02_events adjustment_note,note\r\n",
                        0),
              0u)
        << csv;
    EXPECT_NE(csv.find("\r\nalice,100.00,100.00,40.00,20.00,20.00,20.00,"), std::string::npos) << csv;
    EXPECT_NE(csv.find("\r\nbob,80.00,100.00,40.00,20.00,20.00,0.00,"), std::string::npos) << csv;
    EXPECT_NE(csv.find("\r\ncarol,60.00,100.00,40.00,20.00,0.00,0.00,"), std::string::npos) << csv;
    cJSON *j = ParseFile(out + "/bob/results.json");
    const cJSON *m = FindTest(j, "02_events: measurement");
    EXPECT_EQ(Str(m, "status"), "failed");
    EXPECT_NE(Str(m, "output").find("Time them on the GPU, with events"), std::string::npos) << Str(m, "output");
    cJSON_Delete(j);
}

// Lab 04 is graded on the requests' p99 latency, and the grader says so in milliseconds:
// the reference earns everything, the skeleton's equal priorities nothing for speed.
TEST(Grader, Lab04IsGradedOnTheRequestsLatency) {
    const char lab04[] = "labs/04_priorities/lab.c";
    std::string subs = TempDir("lab04_subs"), out = TempDir("lab04_out");
    Spit(subs + "/alice/" + lab04, Slurp(Runfile("solutions/04_priorities.c")));
    Spit(subs + "/bob/" + lab04, Slurp(Runfile("labs/04_priorities/lab.c")));
    Outcome r = Grade({"--submissions", subs, "--out", out, "--labs", "04", "--jobs", "2", "--seed", "11"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::string csv = Slurp(out + "/gradebook.csv");
    EXPECT_NE(csv.find("\r\nalice,100.00,100.00,40.00,20.00,40.00,"), std::string::npos) << csv;
    EXPECT_NE(csv.find("\r\nbob,60.00,100.00,40.00,20.00,0.00,"), std::string::npos) << csv;
    cJSON *j = ParseFile(out + "/alice/results.json");
    std::string speed = Str(FindTest(j, "04_priorities: speed"), "output");
    EXPECT_EQ(speed.rfind("p99 0.0", 0), 0u) << speed;
    EXPECT_NE(speed.find("of the idle-device bound p99 0.0"), std::string::npos) << speed;
    cJSON_Delete(j);
}

// Lab 05 gives race-freedom's points in proportion to the planted races fixed: two of
// five is two fifths, and the reason says so.
TEST(Grader, Lab05GivesPartialCreditPerRaceFixed) {
    const char lab05[] = "labs/05_cross_stream_races/lab.c";
    const std::string variants = Slurp(Runfile("labs/05_cross_stream_races/testdata/variants.c"));
    std::string subs = TempDir("lab05_subs"), out = TempDir("lab05_out");
    Spit(subs + "/alice/" + lab05, Slurp(Runfile("solutions/05_cross_stream_races.c")));
    Spit(subs + "/bob/" + lab05, "#define LAB_VARIANT_FIXED_2\n" + variants);
    Spit(subs + "/carol/" + lab05, "#define LAB_VARIANT_OVER_SYNCED\n" + variants);
    Outcome r = Grade({"--submissions", subs, "--out", out, "--labs", "05", "--jobs", "2", "--seed", "11"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::string csv = Slurp(out + "/gradebook.csv");
    EXPECT_NE(csv.find("\r\nalice,100.00,100.00,30.00,50.00,20.00,"), std::string::npos) << csv;
    // bob: wrong results, 2 of 5 planted races fixed: 20 of 50.
    EXPECT_NE(csv.find("\r\nbob,20.00,100.00,0.00,20.00,0.00,"), std::string::npos) << csv;
    // carol: right and race-free, no faster than the baseline.
    EXPECT_NE(csv.find("\r\ncarol,80.00,100.00,30.00,50.00,0.00,"), std::string::npos) << csv;
    cJSON *j = ParseFile(out + "/bob/results.json");
    std::string why = Str(FindTest(j, "05_cross_stream_races: race-free"), "output");
    EXPECT_EQ(why.rfind("2 of 5 planted races fixed, 20.00 of 50 points; ", 0), 0u) << why;
    cJSON_Delete(j);
}

// Lab 06 (a stream pool): the reference earns everything; a pool too small for the
// requests in flight is right and race-free and earns part of the latency points; a pool
// that reuses buffer sets across streams without events is right this time and racy, so
// it earns the correctness points only, and the feedback names the race.
TEST(Grader, Lab06GradesThePoolsLatency) {
    const char lab06[] = "labs/06_stream_pool/lab.c";
    const std::string variants = Slurp(Runfile("labs/06_stream_pool/testdata/variants.c"));
    std::string subs = TempDir("lab06_subs"), out = TempDir("lab06_out");
    Spit(subs + "/alice/" + lab06, Slurp(Runfile("solutions/06_stream_pool.c")));
    Spit(subs + "/bob/" + lab06, "#define LAB_VARIANT_SMALL_POOL\n" + variants);
    Spit(subs + "/carol/" + lab06, "#define LAB_VARIANT_RING_NO_EVENTS\n" + variants);
    Outcome r = Grade({"--submissions", subs, "--out", out, "--labs", "06", "--jobs", "2", "--seed", "11"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::string csv = Slurp(out + "/gradebook.csv");
    EXPECT_NE(csv.find("\r\nalice,100.00,100.00,40.00,20.00,40.00,"), std::string::npos) << csv;
    // bob: right, race-free, and part of the way from the baseline's p99 to the target.
    size_t bob = csv.find("\r\nbob,");
    ASSERT_NE(bob, std::string::npos) << csv;
    double bob_score = std::atof(csv.c_str() + bob + 6);
    EXPECT_GT(bob_score, 60.0) << csv;
    EXPECT_LT(bob_score, 100.0) << csv;
    EXPECT_NE(csv.find(",40.00,20.00,", bob), std::string::npos) << csv;
    EXPECT_NE(csv.find("\r\ncarol,40.00,100.00,40.00,0.00,0.00,"), std::string::npos) << csv;
    std::string carol = Slurp(out + "/carol/results.json");
    EXPECT_NE(carol.find("buffers of their own"), std::string::npos) << carol;
}

// Lab 07 (CUDA graphs): the reference earns everything; a graph made in every run() is
// right and part of the way to the target; a graph that captured step 0's copies is wrong;
// a synchronisation inside the capture fails setup(), and the feedback shows the refused
// call and the capture rule.
TEST(Grader, Lab07GradesGraphsAndShowsCaptureErrors) {
    const char lab07[] = "labs/07_cuda_graphs/lab.c";
    const std::string variants = Slurp(Runfile("labs/07_cuda_graphs/testdata/variants.c"));
    std::string subs = TempDir("lab07_subs"), out = TempDir("lab07_out");
    Spit(subs + "/alice/" + lab07, Slurp(Runfile("solutions/07_cuda_graphs.c")));
    Spit(subs + "/bob/" + lab07, "#define LAB_VARIANT_REBUILT_GRAPH\n" + variants);
    Spit(subs + "/carol/" + lab07, "#define LAB_VARIANT_COPIES_IN_GRAPH\n" + variants);
    Spit(subs + "/dave/" + lab07, "#define LAB_VARIANT_SYNC_IN_CAPTURE\n" + variants);
    Outcome r = Grade({"--submissions", subs, "--out", out, "--labs", "07", "--jobs", "2", "--seed", "11"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::string csv = Slurp(out + "/gradebook.csv");
    EXPECT_NE(csv.find("\r\nalice,100.00,100.00,40.00,20.00,40.00,"), std::string::npos) << csv;
    // bob: right, race-free, and most of the way from the baseline to the target.
    size_t bob = csv.find("\r\nbob,");
    ASSERT_NE(bob, std::string::npos) << csv;
    double bob_score = std::atof(csv.c_str() + bob + 6);
    EXPECT_GT(bob_score, 75.0) << csv;
    EXPECT_LT(bob_score, 100.0) << csv;
    EXPECT_NE(csv.find(",40.00,20.00,", bob), std::string::npos) << csv;
    EXPECT_NE(csv.find("\r\ncarol,20.00,100.00,0.00,20.00,0.00,"), std::string::npos) << csv;
    EXPECT_NE(csv.find("\r\ndave,0.00,100.00,0.00,0.00,0.00,"), std::string::npos) << csv;
    std::string dave = Slurp(out + "/dave/results.json");
    EXPECT_NE(dave.find("cudaErrorStreamCaptureUnsupported"), std::string::npos) << dave;
    EXPECT_NE(dave.find("stream capture: this call is not allowed while a stream is being captured"),
              std::string::npos)
        << dave;
}

// Lab 08 (a prefetching loader): the reference earns everything; a loader that waits for
// every upload (one buffer) is right and part of the way to the target; one that never
// waits is racy, and wrong under a perturbed schedule (an upload sends a batch the loader
// has already replaced), so it earns nothing; an upload queued from a host function
// fails, and the feedback shows the runtime's error and what a host function may do.
TEST(Grader, Lab08GradesTheLoaderAndShowsHostFunctionErrors) {
    const char lab08[] = "labs/08_prefetch_loader/lab.c";
    const std::string variants = Slurp(Runfile("labs/08_prefetch_loader/testdata/variants.c"));
    std::string subs = TempDir("lab08_subs"), out = TempDir("lab08_out");
    Spit(subs + "/alice/" + lab08, Slurp(Runfile("solutions/08_prefetch_loader.c")));
    Spit(subs + "/bob/" + lab08, "#define LAB_VARIANT_ONE_BUFFER\n" + variants);
    Spit(subs + "/carol/" + lab08, "#define LAB_VARIANT_NO_WAIT\n" + variants);
    Spit(subs + "/dave/" + lab08, "#define LAB_VARIANT_UPLOAD_IN_HOST_FN\n" + variants);
    Outcome r = Grade({"--submissions", subs, "--out", out, "--labs", "08", "--jobs", "2", "--seed", "11"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::string csv = Slurp(out + "/gradebook.csv");
    EXPECT_NE(csv.find("\r\nalice,100.00,100.00,30.00,30.00,40.00,"), std::string::npos) << csv;
    // bob: right, race-free, and part of the way from the baseline to the target.
    size_t bob = csv.find("\r\nbob,");
    ASSERT_NE(bob, std::string::npos) << csv;
    double bob_score = std::atof(csv.c_str() + bob + 6);
    EXPECT_GT(bob_score, 60.0) << csv;
    EXPECT_LT(bob_score, 100.0) << csv;
    EXPECT_NE(csv.find(",30.00,30.00,", bob), std::string::npos) << csv;
    EXPECT_NE(csv.find("\r\ncarol,0.00,100.00,0.00,0.00,0.00,,,08_prefetch_loader: wrong results"), std::string::npos)
        << csv;
    EXPECT_NE(csv.find("\r\ndave,0.00,100.00,0.00,0.00,0.00,"), std::string::npos) << csv;
    std::string dave = Slurp(out + "/dave/results.json");
    EXPECT_NE(dave.find("cudaErrorNotPermitted"), std::string::npos) << dave;
    EXPECT_NE(dave.find("host function: a function queued with cudaLaunchHostFunc must not call CUDA"),
              std::string::npos)
        << dave;
}

// Lab 09 (two GPUs, on the simulated pair of H200s): the reference earns everything; the
// same pipeline without peer access is right and race-free but short of the target, and
// the feedback names the staged peer copies; a stage 2 that does not wait for its peer
// copy reads the batch too early: wrong results, no points.
TEST(Grader, Lab09GradesTheTwoGpuPipelineAndNamesStagedPeerCopies) {
    const char lab09[] = "labs/09_two_gpus/lab.c";
    const std::string variants = Slurp(Runfile("labs/09_two_gpus/testdata/variants.c"));
    std::string subs = TempDir("lab09_subs"), out = TempDir("lab09_out");
    Spit(subs + "/alice/" + lab09, Slurp(Runfile("solutions/09_two_gpus.c")));
    Spit(subs + "/bob/" + lab09, "#define LAB_VARIANT_PEER_ACCESS_OFF\n" + variants);
    Spit(subs + "/carol/" + lab09, "#define LAB_VARIANT_STAGE2_UNORDERED\n" + variants);
    Outcome r = Grade({"--submissions", subs, "--out", out, "--labs", "09", "--jobs", "2", "--seed", "11"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::string csv = Slurp(out + "/gradebook.csv");
    EXPECT_NE(csv.find("\r\nalice,100.00,100.00,30.00,30.00,40.00,"), std::string::npos) << csv;
    size_t bob = csv.find("\r\nbob,");
    ASSERT_NE(bob, std::string::npos) << csv;
    double bob_score = std::atof(csv.c_str() + bob + 6);
    EXPECT_GT(bob_score, 60.0) << csv;
    EXPECT_LT(bob_score, 100.0) << csv;
    EXPECT_NE(csv.find(",30.00,30.00,", bob), std::string::npos) << csv;
    std::string bob_json = Slurp(out + "/bob/results.json");
    EXPECT_NE(bob_json.find("peer access is not enabled"), std::string::npos) << bob_json;
    EXPECT_NE(csv.find("\r\ncarol,0.00,100.00,0.00,0.00,0.00,,,09_two_gpus: wrong results"), std::string::npos) << csv;
}

TEST(Grader, ABrokenRubricStopsItWithTheFileAndFieldNamed) {
    std::string subs = TempDir("rubric_subs"), out = TempDir("rubric_out");
    Spit(subs + "/ref/" + kLabFile, Reference());
    std::string rubric = Runfile("grading/testdata/rubrics/floor_above_target.json");
    Outcome r = Grade({"--submissions", subs, "--out", out, "--rubric", rubric});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("floor_above_target.json: labs.03_double_buffer.speedup: floor (0.9) must be below target (0.65)"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(out + "/ref"));
}

TEST(Grader, BadUsageAndMissingInputsSayWhat) {
    std::string out = TempDir("usage_out");
    Outcome r = Grade({"--submissions", out, "--out", out, "--labs", "99_nothing"});
    EXPECT_EQ(r.exit_code, 64);
    EXPECT_NE(r.err.find("--labs: 99_nothing names no lab of the rubric"), std::string::npos) << r.err;
    r = Grade({"--submissions", out});
    EXPECT_EQ(r.exit_code, 64);
    EXPECT_NE(r.err.find("--out"), std::string::npos) << r.err;
    r = Grade({"--submissions", out + "/no_such_folder", "--out", out});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("no_such_folder"), std::string::npos) << r.err;
    r = Grade({"--submissions", out, "--out", out, "--jobs", "zero"});
    EXPECT_EQ(r.exit_code, 64);
    EXPECT_NE(r.err.find("--jobs must be a whole number"), std::string::npos) << r.err;
}

}  // namespace
