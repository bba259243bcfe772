// puzzles/runner_test.cc: what a puzzle shows and how the runner finds puzzles: the code
// between the [show] markers of its own file, nothing outside them; ids found whole, by
// number and by a unique prefix.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "puzzles/puzzle.h"
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

}  // namespace
