// grading/grade_similarity_test.cc: the class's similarity report: Debian's
// similarity-tester (sim_c) through the grader's --similarity. A small lab-03 class: alice
// and bob share a copied function (bob renamed its variables and re-indented it), carol
// wrote her own, and dora and ed handed in the skeleton untouched. The report names the
// copied pair and no other, so the skeleton's lines alone make nobody similar; without
// sim_c (a --similarity-tool that is not there, or no sim_c on PATH) the grader says so in
// one line and grades as before, and --resume adds the report without grading anyone again.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "grading/grade_test_support.h"
#include "grading/similarity/grade_similarity.h"

namespace fs = std::filesystem;
using namespace gradetest;

namespace {

const char kLabFile[] = "labs/03_double_buffer/lab.c";

std::string Skeleton() { return Slurp(Runfile(kLabFile)); }

// The skeleton with a helper inserted before setup() and batch i's stream taken from it.
std::string WithHelper(const std::string &helper, const std::string &call) {
    std::string s = Skeleton();
    size_t at = s.find("static int setup");
    EXPECT_NE(at, std::string::npos);
    s.insert(at, helper + "\n");
    size_t pick = s.find("int s = 0;");
    EXPECT_NE(pick, std::string::npos);
    s.replace(pick, 10, "int s = " + call + ";");
    return s;
}

const char kCopied[] = R"(/* Picks the stream for a batch: neighbours apart, the least loaded first. */
static int load[NUM_STREAMS];
static int pick_stream(const lab_workload *w, int i) {
    int best = i % NUM_STREAMS;
    for (int k = 0; k < NUM_STREAMS; k++) {
        int c = (i + k) % NUM_STREAMS;
        if (load[c] < load[best]) best = c;
        if (w->batches > 4 && load[c] == 0) {
            best = c;
            break;
        }
    }
    load[best] += w->batch_elems > 1024 ? 2 : 1;
    return best;
}
)";

std::string Alice() { return WithHelper(kCopied, "pick_stream(w, i)"); }

// The same function, renamed and laid out differently.
std::string Bob() {
    std::string f = kCopied;
    for (auto [from, to] : std::vector<std::pair<std::string, std::string>>{
             {"pick_stream", "choose"}, {"best", "winner"}, {"load", "used"}, {"    ", "  "},
             {"Picks the stream for a batch: neighbours apart, the least loaded first.", "my stream chooser"}}) {
        for (size_t at = f.find(from); at != std::string::npos; at = f.find(from, at + to.size()))
            f.replace(at, from.size(), to);
    }
    return WithHelper(f, "choose(w, i)");
}

std::string Carol() {
    return WithHelper(R"(/* Round robin over the streams. */
static int turn;
static int next_stream(int i) {
    int s = turn;
    turn = (turn + 1) % NUM_STREAMS;
    return i >= 0 ? s : 0;
}
)",
                      "next_stream(i)");
}

bool HaveSimC() {
    char *tool = grade_similarity_find_tool(nullptr);
    bool have = tool != nullptr;
    free(tool);
    return have;
}

#define NEED_SIM_C()                                                                                      \
    if (!HaveSimC())                                                                                      \
    GTEST_SKIP() << "sim_c is not installed (Debian's similarity-tester; ./setup.sh installs it): the "  \
                    "report cannot be tested here"

// sim_c itself through grade_similarity_compare: the copied pair, and nobody else.
TEST(Similarity, CopiedPairOnlyAndTheSkeletonIsBoilerplate) {
    NEED_SIM_C();
    std::vector<std::string> files = {Alice(), Bob(), Carol(), Skeleton(), Skeleton()};
    std::vector<const char *> texts;
    std::vector<size_t> lens;
    for (auto &f : files) {
        texts.push_back(f.c_str());
        lens.push_back(f.size());
    }
    char *tool = grade_similarity_find_tool(nullptr);
    std::string skeleton = Runfile(kLabFile);
    grade_similarity_lab r;
    char err[512] = "";
    ASSERT_EQ(grade_similarity_compare(tool, skeleton.c_str(), texts.data(), lens.data(), files.size(),
                                       (ScratchDir("compare") + "/work").c_str(), &r, err, sizeof(err)),
              0)
        << err;
    ASSERT_GE(r.n_pairs, 1u);
    // Most similar first: alice (0) and bob (1), each almost all in the other.
    EXPECT_EQ(r.pairs[0].a, 0u);
    EXPECT_EQ(r.pairs[0].b, 1u);
    EXPECT_GE(r.pairs[0].a_in_b, 80);
    EXPECT_GE(r.pairs[0].b_in_a, 80);
    for (size_t k = 1; k < r.n_pairs; k++)
        EXPECT_LT(std::max(r.pairs[k].a_in_b, r.pairs[k].b_in_a), GRADE_SIMILARITY_THRESHOLD)
            << "pair " << r.pairs[k].a << " ~ " << r.pairs[k].b;
    // The skeleton is taken out: the two untouched skeletons have almost no code of their own.
    EXPECT_LT(r.own_tokens[3], 24);
    EXPECT_LT(r.own_tokens[4], 24);
    EXPECT_GT(r.own_tokens[0], 60);
    // The runs name alice's and bob's lines of the copied function.
    bool run = false;
    for (size_t k = 0; k < r.n_runs; k++) run |= r.runs[k].a == 0 && r.runs[k].b == 1 && r.runs[k].tokens >= 24;
    EXPECT_TRUE(run);
    grade_similarity_lab_free(&r);

    // Without taking the skeleton out, everyone would look alike: the reason for it.
    ASSERT_EQ(grade_similarity_compare(tool, nullptr, texts.data(), lens.data(),
                                       files.size(), (ScratchDir("compare_raw") + "/work").c_str(), &r, err,
                                       sizeof(err)),
              0)
        << err;
    size_t high = 0;
    for (size_t k = 0; k < r.n_pairs; k++)
        high += std::max(r.pairs[k].a_in_b, r.pairs[k].b_in_a) >= GRADE_SIMILARITY_THRESHOLD;
    EXPECT_GT(high, 3u);
    grade_similarity_lab_free(&r);
    free(tool);
}

TEST(Similarity, MissingToolIsOneLineWithTheInstallHint) {
    grade_submission_list subs = {};
    grade_similarity_class c = {};
    c.tool = "sim_c_that_is_not_installed";
    c.subs = &subs;
    c.out = "/nonexistent";
    char *line = nullptr;
    char err[256];
    EXPECT_EQ(grade_similarity_report(&c, &line, err, sizeof(err)), 1);
    ASSERT_NE(line, nullptr);
    std::string s = line;
    free(line);
    EXPECT_NE(s.find("is not installed"), std::string::npos) << s;
    EXPECT_NE(s.find("apt-get install similarity-tester"), std::string::npos) << s;
    EXPECT_EQ(s.find('\n'), s.size() - 1) << s;
}

// The grader end to end: four students, --similarity, then the same class without the tool.
TEST(Similarity, GraderWritesTheReportAndGradesAlikeWithoutTheTool) {
    std::string subs = TempDir("class");
    Spit(subs + "/alice/" + kLabFile, Alice());
    Spit(subs + "/bob/" + kLabFile, Bob());
    Spit(subs + "/carol/" + kLabFile, Carol());
    Spit(subs + "/dora/" + kLabFile, Skeleton());
    std::vector<std::string> common = {"--submissions", subs, "--labs", "03", "--jobs", "4", "--seed", "42",
                                       "--scratch", ScratchDir("scratch")};

    // No tool: one plain line, the grades and exit status as ever, no report.
    std::string out_none = TempDir("out_none") + "/out";
    std::vector<std::string> args = common;
    args.insert(args.end(), {"--out", out_none, "--similarity-tool", "/nowhere/sim_c"});
    Outcome none = Grade(args);
    ASSERT_EQ(none.exit_code, 0) << none.err;
    EXPECT_NE(none.err.find("--similarity-tool /nowhere/sim_c is not an executable file"), std::string::npos)
        << none.err;
    EXPECT_NE(none.err.find("grades are not affected"), std::string::npos) << none.err;
    EXPECT_FALSE(fs::exists(out_none + "/similarity.txt"));
    std::string gradebook = Slurp(out_none + "/gradebook.csv");
    EXPECT_NE(gradebook.find("dora"), std::string::npos);

    if (!HaveSimC()) GTEST_SKIP() << "sim_c is not installed: the report itself cannot be tested here";

    // --resume on the same folder: nobody graded again, the report added.
    args = common;
    args.insert(args.end(), {"--out", out_none, "--similarity", "--resume"});
    Outcome resumed = Grade(args);
    ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
    EXPECT_NE(resumed.err.find("grading the other 0"), std::string::npos) << resumed.err;
    EXPECT_TRUE(fs::exists(out_none + "/similarity.txt"));

    // With the tool, graded afresh: the same grades, and the report.
    std::string out = TempDir("out_sim") + "/out";
    args = common;
    args.insert(args.end(), {"--out", out, "--similarity"});
    Outcome r = Grade(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(Slurp(out + "/gradebook.csv"), gradebook);
    std::string report = Slurp(out + "/similarity.txt");
    size_t top = report.find("Most similar pairs");
    size_t below = report.find("\n\n", top);
    ASSERT_NE(top, std::string::npos) << report;
    std::string listed = report.substr(top, below - top);
    EXPECT_NE(listed.find("alice ~ bob"), std::string::npos) << report;
    for (const char *other : {"carol", "dora"}) EXPECT_EQ(listed.find(other), std::string::npos) << report;
    EXPECT_NE(report.find("not a verdict"), std::string::npos);
    EXPECT_NE(report.find("alice lines "), std::string::npos) << report;
    // The summary after the table says the same and where the report is.
    EXPECT_NE(r.out.find("03_double_buffer: alice ~ bob"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("similarity.txt"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("~ carol"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("~ dora"), std::string::npos) << r.out;
}

TEST(Similarity, NotInGradescopeMode) {
    Outcome r = RunProgram({Runfile("grading/grade"), "--gradescope", "--similarity"});
    EXPECT_EQ(r.exit_code, 64) << r.err;
    EXPECT_NE(r.err.find("--similarity compares a class's submissions"), std::string::npos) << r.err;
}

}  // namespace
