// grading/testdata/refereed/referee_attacks_test.cc: every attack on the referee in this
// folder gets what its expected.json says, run as the grader runs a lab (the live event
// stream on descriptor 3 with a nonce, --json): the lab binary //labs:03_double_buffer_sim
// referees the attack's student program (--student). For each, from its "referee" object:
// the exit status, the event stream (clean, one result or none, the bye's reason), the
// result's status and the work it says was missing, and the words the student sees; and its
// "checks" agree with that result: a check has full points exactly when the grader gives
// them (correct: right results in a run that ended; race-free: no race in such a run;
// speed: a pass), and each reason is either the lab's own words (in its report, its
// --json or its bye) or the grader's fixed words for that verdict.
#include "labs/lab_test_support.h"

#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace labtest;

const char kDir[] = "grading/testdata/refereed";

// The grader's own words for verdicts (grading/score/grade_score.c, grading/run/grade_runner.c): a
// reason made of them says what the grader writes for the verdict the test checks.
const std::vector<std::string> kGraderWords = {
    "every output bit matched",
    "no unordered",
    "speed counts only for correct results",
    "no points at or below",
    "not checked: the lab did not run to the end",
    "not measured",
    "not measured: the lab stopped with an error",
    "crashed with SIGSEGV in run() of your lab",
    "broke its connection to the harness in run() of your lab",
};

std::vector<std::string> Cases() {
    std::vector<std::string> names;
    std::string dir = Binary(kDir);
    DIR *d = opendir(dir.c_str());
    if (!d) return names;
    while (dirent *e = readdir(d)) {
        std::string name = e->d_name;
        if (name[0] != '.' && std::ifstream(dir + "/" + name + "/expected.json").good()) names.push_back(name);
    }
    closedir(d);
    std::sort(names.begin(), names.end());
    return names;
}

std::string Slurp(const std::string &path) {
    std::ifstream f(path);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

std::vector<std::string> Strings(const cJSON *array) {
    std::vector<std::string> out;
    const cJSON *x;
    cJSON_ArrayForEach(x, array) if (cJSON_IsString(x)) out.push_back(x->valuestring);
    return out;
}

class Attack : public ::testing::TestWithParam<std::string> {};

TEST_P(Attack, GetsWhatItsExpectedJsonSays) {
    const std::string name = GetParam();
    cJSON *expected = cJSON_Parse(Slurp(Binary(std::string(kDir) + "/" + name + "/expected.json")).c_str());
    ASSERT_NE(expected, nullptr) << name << "/expected.json is not JSON";
    const cJSON *want = cJSON_GetObjectItemCaseSensitive(expected, "referee");
    ASSERT_NE(want, nullptr) << "no \"referee\" in " << name << "/expected.json";

    // One timed run (after the fast settings' three): no attack here waits for a later run,
    // and the referee checks every call of every run, the warm-up's first.
    Outcome o = RunLab("labs/03_double_buffer_sim",
                       Args({"--runs", "1", "--student", Binary(std::string(kDir) + "/" + name + "_student")}),
                       "s3cret");
    SCOPED_TRACE(o.err.substr(0, 6000));

    // The exit status, and the event stream: nothing but the referee's lines, its bye.
    EXPECT_EQ(o.exit_code, static_cast<int>(Num(want, "exit_code")));
    Events e = ReadEvents(o.events, "s3cret");
    EXPECT_TRUE(e.errors.empty()) << e.errors.size() << " bad lines, the first: " << (e.errors.empty() ? "" : e.errors[0]);
    EXPECT_EQ(e.bye_status, o.exit_code);
    EXPECT_EQ(e.bye_reason, Str(want, "bye_reason"));
    long results = std::count(e.types.begin(), e.types.end(), TRACE_EVENT_RESULT);
    EXPECT_EQ(o.out.find("s3cret"), std::string::npos);
    EXPECT_EQ(o.err.find("s3cret"), std::string::npos);

    // The result, where the lab ended with one.
    std::string status = Str(want, "status");
    bool have_result = !status.empty();
    EXPECT_EQ(results, have_result ? 1 : 0);
    bool correct = false, race_free = false, passed = false;
    std::string words = o.err + "\n" + e.bye_reason;
    if (have_result) {
        cJSON *j = Json(o);
        ASSERT_NE(j, nullptr);
        words += "\n" + o.out;
        EXPECT_EQ(Str(j, "status"), status);
        bool ended = status != "error";
        correct = ended && Bool(j, "correct");
        race_free = ended && Num(j, "races") == 0;
        passed = status == "pass";
        const cJSON *work = cJSON_GetObjectItemCaseSensitive(j, "work");
        const cJSON *missing = cJSON_GetObjectItemCaseSensitive(want, "work_missing");
        if (missing) {
            ASSERT_NE(work, nullptr);
            EXPECT_FALSE(Bool(work, "ok"));
            std::vector<std::string> got = Strings(cJSON_GetObjectItemCaseSensitive(work, "missing")),
                                     exp = Strings(missing);
            std::sort(got.begin(), got.end());
            std::sort(exp.begin(), exp.end());
            EXPECT_EQ(got, exp);
            if (Bool(j, "correct")) {
                // The speed a grade reads is none; what was measured stays beside it.
                EXPECT_EQ(Num(j, "speedup"), 0);
                EXPECT_EQ(Num(j, "bound_fraction"), 0);
                EXPECT_GT(Num(cJSON_GetObjectItemCaseSensitive(work, "measured"), "speedup"), 0);
                EXPECT_FALSE(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
                    cJSON_GetObjectItemCaseSensitive(j, "metric"), "counted")));
            }
        }
        if (Bool(want, "work_ok")) {
            ASSERT_NE(work, nullptr);
            EXPECT_TRUE(Bool(work, "ok")) << Str(work, "why");
        }
        // Host work is charged: slower than the sequential baseline.
        if (Bool(want, "slower_than_baseline")) {
            EXPECT_LT(Num(j, "speedup"), 1.0);
        }
        cJSON_Delete(j);
    } else {
        EXPECT_TRUE(o.out.empty()) << o.out;
    }

    // What the student sees, at its line where the expected.json names one.
    for (const std::string &s : Strings(cJSON_GetObjectItemCaseSensitive(want, "stderr_contains"))) {
        EXPECT_NE(FindFlat(o.err, s), std::string::npos) << "stderr should contain \"" << s << "\"";
    }
    std::string marker = Str(want, "line_of");
    if (!marker.empty()) {
        std::string file = std::string(kDir) + "/" + name + "/labs/03_double_buffer/lab.c";
        int line = LineOf(file, marker);
        ASSERT_GT(line, 0) << marker;
        EXPECT_NE(o.err.find("\n  at " + file + ":" + std::to_string(line) + "\n"), std::string::npos);
    }

    // The checks: their points follow from the result, their reasons are the lab's words or
    // the grader's.
    const cJSON *checks = cJSON_GetObjectItemCaseSensitive(expected, "checks");
    const std::pair<const char *, bool> verdicts[] = {{"correct", correct}, {"race_free", race_free}, {"speedup", passed}};
    for (const auto &[check, full] : verdicts) {
        SCOPED_TRACE(check);
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(checks, check);
        ASSERT_NE(c, nullptr);
        EXPECT_EQ(Str(c, "points"), full ? "full" : "none");
        std::string reason = Str(c, "reason");
        bool grader = std::find(kGraderWords.begin(), kGraderWords.end(), reason) != kGraderWords.end();
        EXPECT_TRUE(grader || words.find(reason) != std::string::npos)
            << "the reason \"" << reason << "\" is neither the lab's words nor the grader's";
    }
    for (const std::string &s : Strings(cJSON_GetObjectItemCaseSensitive(expected, "report_contains"))) {
        EXPECT_NE(words.find(s), std::string::npos) << "the lab's words should contain \"" << s << "\"";
    }
    cJSON_Delete(expected);
}

INSTANTIATE_TEST_SUITE_P(Refereed, Attack, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<std::string> &info) { return info.param; });

// Every attack with an expected.json is built (ATTACKS in the BUILD file).
TEST(Refereed, EveryAttackHasItsExpectations) {
    std::vector<std::string> cases = Cases();
    EXPECT_GE(cases.size(), 11u);
    for (const std::string &name : cases) {
        EXPECT_TRUE(std::ifstream(Binary(std::string(kDir) + "/" + name + "_student")).good()) << name << " is not built";
    }
}

}  // namespace
