// puzzles/runner_test.cc: what a puzzle shows and how the runner finds puzzles: the code
// between the [show] markers of its own file, nothing outside them; ids found whole, by
// number and by a unique prefix.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "puzzles/puzzle.h"
#include "puzzles/score.h"
#include "puzzles/source.h"

namespace {

TEST(Source, EveryPuzzleShowsCodeFromItsOwnFileWithoutTheMarkers) {
    for (const puzzle *const *pp = puzzle_all(); *pp; pp++) {
        char *code = puzzle_shown_code((*pp)->source);
        ASSERT_NE(code, nullptr) << (*pp)->id << " shows no code";
        std::string s(code);
        free(code);
        EXPECT_EQ(s.find("[show]"), std::string::npos) << (*pp)->id;
        EXPECT_EQ(s.find("[/show]"), std::string::npos) << (*pp)->id;
        EXPECT_NE(s.find("cuda"), std::string::npos) << (*pp)->id << " shows no CUDA call:\n" << s;
        EXPECT_EQ(s.find("puzzle_"), std::string::npos) << (*pp)->id << " shows the runner's API:\n" << s;
    }
}

TEST(Source, AnUnknownFileShowsNothing) { EXPECT_EQ(puzzle_shown_code("puzzles/none.c"), nullptr); }

TEST(Registry, FindsByIdAndByUniquePrefix) {
    const puzzle *first = puzzle_all()[0];
    ASSERT_NE(first, nullptr);
    EXPECT_EQ(puzzle_find(first->id), first);
    EXPECT_EQ(puzzle_find(std::string(first->id).substr(0, 3).c_str()), first);
    EXPECT_EQ(puzzle_find("999_none"), nullptr);
    EXPECT_EQ(puzzle_find(""), nullptr);
}

// The record of answers: kept per puzzle, counted right and tried, in the state folder; a
// broken file starts afresh instead of failing.
TEST(Score, KeepsTriedAndRightPerPuzzleAndSurvivesABrokenFile) {
    std::string dir = std::string(getenv("TEST_TMPDIR")) + "/state";
    setenv("XDG_STATE_HOME", dir.c_str(), 1);
    char path[4096];
    ASSERT_TRUE(puzzle_score_path(path, sizeof(path)));
    EXPECT_EQ(std::string(path), dir + "/streamlab/puzzles.json");
    int tried = -1, right = -1;
    puzzle_score_get(path, "004_blocking_copies", &tried, &right);
    EXPECT_EQ(tried, 0);
    EXPECT_EQ(right, 0);
    ASSERT_EQ(puzzle_score_add(path, "004_blocking_copies", false), 0);
    ASSERT_EQ(puzzle_score_add(path, "004_blocking_copies", true), 0);
    ASSERT_EQ(puzzle_score_add(path, "001_legacy_barrier", true), 0);
    puzzle_score_get(path, "004_blocking_copies", &tried, &right);
    EXPECT_EQ(tried, 2);
    EXPECT_EQ(right, 1);
    puzzle_score_get(path, "001_legacy_barrier", &tried, &right);
    EXPECT_EQ(tried, 1);
    EXPECT_EQ(right, 1);
    FILE *f = fopen(path, "w");
    ASSERT_NE(f, nullptr);
    fputs("{ not json", f);
    fclose(f);
    puzzle_score_get(path, "004_blocking_copies", &tried, &right);
    EXPECT_EQ(tried, 0);
    ASSERT_EQ(puzzle_score_add(path, "004_blocking_copies", true), 0);
    puzzle_score_get(path, "004_blocking_copies", &tried, &right);
    EXPECT_EQ(tried, 1);
    EXPECT_EQ(right, 1);
}

}  // namespace
