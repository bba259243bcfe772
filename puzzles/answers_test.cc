// puzzles/answers_test.cc: every puzzle's answer comes out of running it. Each puzzle's
// variants run on the simulated H200 and the judge reads their timelines; the choice it
// returns must be the one the puzzle's explanation is written for. A puzzle whose model
// changes (a profile refit, a scheduler change) fails here with the judge's reason.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "puzzles/play.h"
#include "puzzles/puzzle.h"

namespace {

std::vector<std::string> Ids() {
    std::vector<std::string> ids;
    for (const puzzle *const *p = puzzle_all(); *p; p++) ids.push_back((*p)->id);
    return ids;
}

class Answers : public ::testing::TestWithParam<std::string> {
  protected:
    static void SetUpTestSuite() {
        char err[256];
        puzzle_backend b;
        ASSERT_EQ(puzzle_backend_start("sim", "h200", &b, err, sizeof(err)), 0) << err;
    }
};

TEST_P(Answers, TheSimulatedRunsGiveTheExpectedAnswer) {
    const puzzle *p = puzzle_find(GetParam().c_str());
    ASSERT_NE(p, nullptr);
    puzzle_run runs[PUZZLE_MAX_VARIANTS] = {};
    ASSERT_EQ(puzzle_play(p, 100, false, runs), 0) << p->id << ": a variant failed";
    char why[512];
    int shown = puzzle_judge(p, runs, why, sizeof(why));
    EXPECT_EQ(shown, p->answer) << p->id << ": " << why;
    for (int i = 0; i < p->n_variants; i++) {
        EXPECT_GT(runs[i].span_ms, 0.0) << p->variants[i].name << " ran nothing on the device";
        ASSERT_NE(runs[i].timeline, nullptr);
    }
    puzzle_runs_free(runs, p->n_variants);
}

INSTANTIATE_TEST_SUITE_P(EveryPuzzle, Answers, ::testing::ValuesIn(Ids()),
                         [](const ::testing::TestParamInfo<std::string> &info) { return "p" + info.param; });

// The registry is well formed: ids in order, unique, with their files' names; each puzzle
// has a question, 2-5 choices, an answer among them, 2+ variants and a judge.
TEST(Registry, EveryPuzzleIsComplete) {
    std::string previous;
    int count = 0;
    for (const puzzle *const *pp = puzzle_all(); *pp; pp++, count++) {
        const puzzle *p = *pp;
        EXPECT_LT(previous, p->id);
        previous = p->id;
        EXPECT_EQ(std::string(p->source), "puzzles/" + std::string(p->id) + ".c");
        EXPECT_TRUE(p->title && p->setup && p->question && p->explanation) << p->id;
        int n = 0;
        while (n < PUZZLE_MAX_CHOICES && p->choices[n]) n++;
        EXPECT_GE(n, 2) << p->id;
        EXPECT_GE(p->answer, 0) << p->id;
        EXPECT_LT(p->answer, n) << p->id;
        EXPECT_GE(p->n_variants, 2) << p->id;
        EXPECT_LE(p->n_variants, PUZZLE_MAX_VARIANTS) << p->id;
        EXPECT_NE(p->judge, nullptr) << p->id;
        for (int i = 0; i < p->n_variants; i++) EXPECT_NE(p->variants[i].run, nullptr) << p->id;
    }
    EXPECT_GE(count, 1);
}

}  // namespace
