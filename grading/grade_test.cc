// grading/grade_test.cc: the grader end to end on the simulator, run as instructors run it
// (the real //grading:grade binary, as a child):
//  - every submission of the corpus in grading/testdata/ gets the points and the reason
//    its expected.json names, in one class run, and the grader exits 0;
//  - a bad submission graded beside a good one does not change the good one's grade or
//    figures;
//  - every lab of the catalog, in one class: its reference earns every point, and its
//    skeleton and variants the grade their manifest (labs/NN_topic/lab.json) names;
//  - the kit builds the reference exactly as Bazel does (same figures for the same seed);
//  - Gradescope mode writes results.json in Gradescope's format;
//  - a fix that blames a wait comes with the wait's and the record's lines;
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

// ASan's runtime entry point, present only where the binary was linked with it.
extern "C" void __asan_init(void) __attribute__((weak));

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
// A sanitizer build (--config=asan) links every binary with ASan's runtime but compiles
// this file as the default build does (.bazelrc), so the runtime tells, not
// __SANITIZE_ADDRESS__.
const cJSON *ForThisBuild(const cJSON *e) {
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(e, __asan_init != nullptr ? "sanitized" : "reads_confined");
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
    // Lab 03 only, the lab they all hand in: the grader's pre-flight run of every other
    // lab's skeleton would add nothing here.
    std::string alone = TempDir("iso_alone"), alone_out = TempDir("iso_alone_out");
    Spit(alone + "/a_good/" + kLabFile, Reference());
    Outcome r = Grade({"--submissions", alone, "--out", alone_out, "--labs", "03_double_buffer", "--jobs", "1", "--seed",
                       "4242"});
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
    r = Grade({"--submissions", mixed, "--out", mixed_out, "--labs", "03_double_buffer", "--jobs", "2", "--seed", "4242"});
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
    Outcome r = Grade({"--submissions", subs, "--out", out, "--labs", "03_double_buffer", "--scratch", scratch,
                       "--keep-scratch"});
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

// Every lab's grades, from its manifest (labs/NN_topic/lab.json): one class in which each
// lab's reference and each build whose manifest names a "grade" (the skeleton, a variant
// of testdata/variants.c) is a student handing in that lab's file, graded in one run with
// the course's rubric. The reference earns every point; each other student earns, check
// by check, what its manifest says: "full", "none", "part" (some, not all), a fraction of
// the check's points, or a range of fractions; and its feedback for that check contains
// the manifest's "says" texts. Every lab of the catalog is in the rubric, every check of
// the rubric is in each grade, and the gradebook has a column per lab and check.
const std::map<std::string, std::string> kCheckTitles = {
    {"correct", "correct"}, {"race_free", "race-free"}, {"speedup", "speed"}, {"measurement", "measurement"}};
const char *const kCheckOrder[] = {"correct", "race_free", "speedup", "measurement"};

struct LabStudent {
    std::string name, lab, build;  // build: "reference", "skeleton" or a variant's name
    const cJSON *grade;            // the manifest's; nullptr: every point (the reference's)
};

// One check of a student's results against what the manifest's grade says of it.
void ExpectCheck(const LabStudent &s, const cJSON *results, const std::string &check, double points,
                 const cJSON *want) {
    SCOPED_TRACE(s.lab + " " + s.build + ", " + check + " (labs/" + s.lab + "/lab.json)");
    const cJSON *test = FindTest(results, s.lab + ": " + kCheckTitles.at(check));
    ASSERT_NE(test, nullptr) << "no test " << s.lab << ": " << kCheckTitles.at(check);
    double score = Num(test, "score"), max = Num(test, "max_score");
    std::string status = Str(test, "status"), output = Str(test, "output");
    EXPECT_EQ(max, points) << "the rubric gives " << check << " " << points << " points";
    const cJSON *expected = cJSON_IsObject(want) ? cJSON_GetObjectItemCaseSensitive(want, "points") : want;
    if (cJSON_IsString(expected)) {
        std::string word = expected->valuestring;
        if (word == "full") {
            EXPECT_EQ(score, max) << output;
            EXPECT_EQ(status, "passed") << output;
        } else if (word == "none") {
            EXPECT_EQ(score, 0) << output;
            EXPECT_EQ(status, "failed") << output;
        } else if (word == "part") {
            EXPECT_GT(score, 0) << output;
            EXPECT_LT(score, max) << output;
            EXPECT_EQ(status, "failed") << output;
        } else {
            ADD_FAILURE() << "points \"" << word << "\" is not full, none or part";
        }
    } else if (cJSON_IsNumber(expected)) {
        EXPECT_NEAR(score, expected->valuedouble * max, 0.005) << output;
    } else if (cJSON_IsArray(expected) && cJSON_GetArraySize(expected) == 2) {
        EXPECT_GT(score, cJSON_GetArrayItem(expected, 0)->valuedouble * max) << output;
        EXPECT_LT(score, cJSON_GetArrayItem(expected, 1)->valuedouble * max) << output;
    } else {
        ADD_FAILURE() << "no points to expect";
    }
    const cJSON *says;
    cJSON_ArrayForEach(says, cJSON_GetObjectItemCaseSensitive(want, "says")) {
        EXPECT_NE(output.find(says->valuestring), std::string::npos)
            << "the feedback should say \"" << says->valuestring << "\":\n" << output;
    }
}

TEST(Grader, EveryLabGradesItsReferenceAndVariantsAsItsManifestSays) {
    cJSON *catalog = ParseFile(Runfile("labs/catalog.json"));
    cJSON *rubric = ParseFile(Runfile("grading/rubric.json"));
    ASSERT_NE(catalog, nullptr);
    ASSERT_NE(rubric, nullptr);
    const cJSON *rubric_labs = cJSON_GetObjectItemCaseSensitive(rubric, "labs");
    std::string subs = TempDir("labs_subs"), out = TempDir("labs_out");
    std::vector<LabStudent> students;
    std::vector<cJSON *> manifests;
    const cJSON *entry;
    cJSON_ArrayForEach(entry, cJSON_GetObjectItemCaseSensitive(catalog, "labs")) {
        std::string lab = Str(entry, "id"), file = Str(entry, "student_file");
        ASSERT_NE(cJSON_GetObjectItemCaseSensitive(rubric_labs, lab.c_str()), nullptr)
            << lab << " has no points in grading/rubric.json";
        cJSON *manifest = ParseFile(Runfile("labs/" + lab + "/lab.json"));
        ASSERT_NE(manifest, nullptr);
        manifests.push_back(manifest);
        auto hand_in = [&](const std::string &build, const std::string &text, const cJSON *grade) {
            std::string name = lab + "_" + build;
            Spit(subs + "/" + name + "/" + file, text);
            students.push_back({name, lab, build, grade});
        };
        const cJSON *reference = cJSON_GetObjectItemCaseSensitive(manifest, "reference");
        hand_in("reference", Slurp(Runfile("solutions/" + lab + ".c")), cJSON_GetObjectItemCaseSensitive(reference, "grade"));
        const cJSON *skeleton = cJSON_GetObjectItemCaseSensitive(manifest, "skeleton");
        if (const cJSON *grade = cJSON_GetObjectItemCaseSensitive(skeleton, "grade"))
            hand_in("skeleton", Slurp(Runfile(file)), grade);
        const cJSON *variant;
        cJSON_ArrayForEach(variant, cJSON_GetObjectItemCaseSensitive(manifest, "variants")) {
            const cJSON *grade = cJSON_GetObjectItemCaseSensitive(variant, "grade");
            if (!grade) continue;
            std::string name = Str(variant, "name"), macro = name;
            std::transform(macro.begin(), macro.end(), macro.begin(), ::toupper);
            hand_in(name, "#define LAB_VARIANT_" + macro + "\n" + Slurp(Runfile("labs/" + lab + "/testdata/variants.c")),
                    grade);
        }
    }
    ASSERT_EQ(manifests.size(), static_cast<size_t>(cJSON_GetArraySize(rubric_labs)))
        << "every lab of the rubric is a lab of the catalog";

    Outcome r = Grade({"--submissions", subs, "--out", out, "--jobs", "2", "--seed", "11"});
    ASSERT_EQ(r.exit_code, 0) << r.err;

    // The gradebook: a column per lab of the rubric and check it gives points.
    std::string header = "student,score,max_score,";
    const cJSON *rubric_lab;
    cJSON_ArrayForEach(rubric_lab, rubric_labs) {
        for (const char *check : kCheckOrder)
            if (cJSON_GetObjectItemCaseSensitive(rubric_lab, check)) header += std::string(rubric_lab->string) + " " + check + ",";
        header += std::string(rubric_lab->string) + " adjustment," + rubric_lab->string + " adjustment_note,";
    }
    header += "note\r\n";
    std::string csv = Slurp(out + "/gradebook.csv");
    EXPECT_EQ(csv.rfind(header, 0), 0u) << csv.substr(0, 2000);

    for (const LabStudent &s : students) {
        cJSON *results = ParseFile(out + "/" + s.name + "/results.json");
        ASSERT_NE(results, nullptr) << s.name;
        const cJSON *checks = cJSON_GetObjectItemCaseSensitive(rubric_labs, s.lab.c_str());
        const cJSON *check;
        cJSON_ArrayForEach(check, checks) {
            if (!kCheckTitles.count(check->string)) continue;  // not a check ("late", ...)
            double points = Num(check, "points");
            const cJSON *want = s.grade ? cJSON_GetObjectItemCaseSensitive(s.grade, check->string) : nullptr;
            if (s.grade && !want) {
                ADD_FAILURE() << "labs/" << s.lab << "/lab.json: the grade of " << s.build << " says nothing of "
                              << check->string << ", which the rubric gives points";
                continue;
            }
            cJSON *full = cJSON_CreateString("full");
            ExpectCheck(s, results, check->string, points, want ? want : full);
            cJSON_Delete(full);
        }
        const cJSON *named;
        cJSON_ArrayForEach(named, s.grade) {
            EXPECT_NE(cJSON_GetObjectItemCaseSensitive(checks, named->string), nullptr)
                << "labs/" << s.lab << "/lab.json: the grade of " << s.build << " names " << named->string
                << ", which grading/rubric.json does not give " << s.lab;
        }
        cJSON_Delete(results);
    }
    for (cJSON *m : manifests) cJSON_Delete(m);
    cJSON_Delete(rubric);
    cJSON_Delete(catalog);
}

// A fix that blames a wait (lab 05's reuse wait issued after the kernel it should hold
// back): the grader looks up the lines the sandboxed run could not, the wait's and the
// record's as well as the two sides', and the report shows them above the fix and in it.
TEST(Grader, TheWaitAFixBlamesIsShownWithItsLine) {
    std::string subs = TempDir("blamed_subs"), out = TempDir("blamed_out");
    const std::string file = "labs/05_cross_stream_races/lab.c";
    std::string text = "#define LAB_VARIANT_REUSE_WAIT_AFTER_KERNEL\n" +
                       Slurp(Runfile("labs/05_cross_stream_races/testdata/variants.c"));
    Spit(subs + "/late/" + file, text);
    auto line_of = [&](const std::string &marker) {
        std::istringstream in(text);
        std::string line;
        for (int n = 1; std::getline(in, line); n++)
            if (line.find(marker) != std::string::npos) return file + ":" + std::to_string(n);
        ADD_FAILURE() << marker << " not in the variants";
        return std::string();
    };
    Outcome r = Grade({"--submissions", subs, "--out", out, "--labs", "05", "--jobs", "1", "--seed", "3"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::string report = Slurp(out + "/late/report.txt");
    EXPECT_NE(report.find("       second: kernel process batch 2 on \"compute\", " + line_of("/* the kernel */") +
                          "\n       wait:   " + line_of("/* reuse wait after the kernel */") +
                          "\n       record: " + line_of("/* download's record */") +
                          "\n       fix:    the wait of \"compute\" on event \"downloaded[0]\" (" +
                          line_of("/* reuse wait after the kernel */") + ") comes after kernel process batch 2 (" +
                          line_of("/* the kernel */") + "), which it should order"),
              std::string::npos)
        << report;
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
