// labs/lesson_test.cc: a lab's spec and its lesson tell the same story. Built once per lab
// (labs/BUILD) with that lab's spec: every step the spec declares is a numbered TODO in
// the skeleton, and every hint --hint can give is in the lesson, word for word (line
// breaks aside), so the two cannot drift apart.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "labs/harness/spec.h"

namespace {

std::string Slurp(const std::string &rel) {
    const char *dir = std::getenv("TEST_SRCDIR");
    std::ifstream in(std::string(dir ? dir : ".") + "/streamlab/" + rel);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// Runs of white space become one space, so that a hint wrapped differently still matches.
std::string Squeeze(const std::string &text) {
    std::string out;
    bool space = false;
    for (char c : text) {
        if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
            space = true;
            continue;
        }
        if (space && !out.empty()) out += ' ';
        space = false;
        out += c;
    }
    return out;
}

TEST(Lesson, EveryStepIsANumberedTodoOfTheSkeleton) {
    const char *id = LAB_SPEC.id;
    std::string skeleton = Slurp(std::string("labs/") + id + "/lab.c");
    ASSERT_FALSE(skeleton.empty());
    ASSERT_GT(LAB_SPEC.n_steps, 0) << id << " declares no steps";
    for (int i = 0; i < LAB_SPEC.n_steps; i++) {
        std::string todo = "TODO " + std::to_string(i + 1);
        EXPECT_EQ(std::string(LAB_SPEC.steps[i].todo).rfind(todo + " (", 0), 0u) << LAB_SPEC.steps[i].todo;
        EXPECT_NE(skeleton.find(todo + ":"), std::string::npos) << "lab.c has no \"" << todo << ":\"";
    }
    EXPECT_EQ(skeleton.find("TODO " + std::to_string(LAB_SPEC.n_steps + 1) + ":"), std::string::npos)
        << "lab.c has more TODOs than the spec has steps";
}

TEST(Lesson, EveryHintIsInTheLesson) {
    std::string lesson = Squeeze(Slurp(LAB_SPEC.lesson));
    ASSERT_FALSE(lesson.empty()) << LAB_SPEC.lesson;
    for (int i = 0; i < LAB_SPEC.n_steps; i++) {
        for (int t = 0; t < LAB_HINT_TIERS; t++) {
            const char *hint = LAB_SPEC.steps[i].hints[t];
            ASSERT_NE(hint, nullptr) << "step " << i + 1 << " tier " << t + 1;
            EXPECT_NE(lesson.find(Squeeze(hint)), std::string::npos)
                << LAB_SPEC.lesson << " lacks step " << i + 1 << "'s hint " << t + 1 << ":\n" << hint;
        }
        EXPECT_NE(lesson.find("TODO " + std::to_string(i + 1) + ", hint 1"), std::string::npos)
            << "the lesson has no collapsible hints for TODO " << i + 1;
    }
}

}  // namespace
