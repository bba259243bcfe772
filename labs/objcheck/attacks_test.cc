// labs/objcheck/attacks_test.cc: every attack of grading/testdata/attacks/ is refused by
// objcheck with exactly the refusals its "// refused: MESSAGE" lines give (the symbol in
// the message, at that line), both by the library and by the Bazel rule labs/lab.bzl
// builds every lab binary through (its output: what the objcheck command printed).
#include <algorithm>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "labs/objcheck/objcheck_test_support.h"

namespace {

using objcheck_test::Check;
using objcheck_test::Lines;
using objcheck_test::Objects;
using objcheck_test::Runfile;
using objcheck_test::Slurp;

const std::string kDir = "grading/testdata/attacks";

// "grading/testdata/attacks/x.c:LINE: not accepted: MESSAGE" for each marked line.
std::vector<std::string> Expected(const std::string &name) {
    const std::string marker = "// refused: ";
    std::vector<std::string> want;
    std::vector<std::string> lines = Lines(Slurp(Runfile(kDir + "/" + name + ".c")));
    for (size_t i = 0; i < lines.size(); i++) {
        size_t at = lines[i].find(marker);
        if (at == std::string::npos) continue;
        want.push_back(kDir + "/" + name + ".c:" + std::to_string(i + 1) + ": not accepted: " +
                       lines[i].substr(at + marker.size()));
    }
    std::sort(want.begin(), want.end());
    return want;
}

// The attacks, by name, with their compiled objects.
std::map<std::string, std::string> Attacks() {
    std::map<std::string, std::string> attacks;
    for (const std::string &o : Objects(kDir + "/_objs")) {
        std::string name = std::filesystem::path(o).stem().string();  // x.pic
        name = name.substr(0, name.find('.'));
        attacks[name] = o;
    }
    return attacks;
}

TEST(Attacks, EveryClassOfAttackIsInTheCorpus) {
    std::map<std::string, std::string> attacks = Attacks();
    for (const char *name : {"constructor", "destructor", "ctors_section", "asm_init_array", "defines_harness",
                             "weak_harness", "helper_global", "sim_clock", "trace_sink", "spec_oracle", "loader",
                             "raw_syscall", "getenv_nonce", "processes_and_signals", "ifunc", "linker_sections"})
        EXPECT_TRUE(attacks.count(name)) << name << " has no object under " << kDir;
}

TEST(Attacks, EachIsRefusedWithItsSymbolsAndLines) {
    std::map<std::string, std::string> attacks = Attacks();
    ASSERT_FALSE(attacks.empty());
    for (const auto &[name, object] : attacks) {
        SCOPED_TRACE(name);
        std::vector<std::string> want = Expected(name);
        ASSERT_FALSE(want.empty()) << name << ".c marks no line with \"// refused: \"";
        std::string source = kDir + "/" + name + ".c";
        objcheck_test::Checked got = Check(object, source.c_str());
        EXPECT_EQ(got.rc, 1);
        EXPECT_EQ(got.error, "");
        std::vector<std::string> lines = got.lines;
        std::sort(lines.begin(), lines.end());
        EXPECT_EQ(lines, want);
        for (size_t i = 0; i < got.symbols.size(); i++)
            EXPECT_NE(got.messages[i].find(got.symbols[i]), std::string::npos)
                << "the refusal does not name its symbol " << got.symbols[i] << ": " << got.messages[i];
    }
}

TEST(Attacks, TheRuleLabBzlUsesRefusesEachWithTheSameLines) {
    std::map<std::string, std::string> attacks = Attacks();
    ASSERT_FALSE(attacks.empty());
    for (const auto &[name, object] : attacks) {
        SCOPED_TRACE(name);
        std::string printed = Slurp(Runfile(kDir + "/" + name + ".refusals"));
        ASSERT_FALSE(printed.empty()) << "no output of the rule for " << name;
        std::vector<std::string> lines = Lines(printed);
        std::sort(lines.begin(), lines.end());
        EXPECT_EQ(lines, Expected(name));
    }
}

TEST(Attacks, WithoutTheSourceTheObjectsOwnNameForItIsUsed) {
    std::map<std::string, std::string> attacks = Attacks();
    ASSERT_TRUE(attacks.count("defines_harness"));
    objcheck_test::Checked got = Check(attacks["defines_harness"], nullptr);
    ASSERT_FALSE(got.lines.empty());
    EXPECT_EQ(got.lines[0].rfind(kDir + "/defines_harness.c:", 0), 0u) << got.lines[0];
}

TEST(Attacks, WhatIsNotAnObjectIsRefusedWithAReason) {
    objcheck_test::Checked source = Check(Runfile(kDir + "/constructor.c"), nullptr);
    EXPECT_EQ(source.rc, 1);
    EXPECT_NE(source.error.find("not an ELF object"), std::string::npos) << source.error;
    objcheck_test::Checked missing = Check("no/such/lab.o", nullptr);
    EXPECT_EQ(missing.rc, 1);
    EXPECT_NE(missing.error.find("cannot open no/such/lab.o"), std::string::npos) << missing.error;
    // A truncated object: its section headers are cut off.
    std::string object = Slurp(Attacks().begin()->second);
    std::string cut = std::string(getenv("TEST_TMPDIR")) + "/cut.o";
    std::ofstream(cut, std::ios::binary) << object.substr(0, 200);
    objcheck_test::Checked truncated = Check(cut, nullptr);
    EXPECT_EQ(truncated.rc, 1);
    EXPECT_FALSE(truncated.error.empty());
}

// Objects with bytes changed all over their ELF header, section headers and tables are
// refused with a reason or read, never a crash (the sanitizer build runs this too).
TEST(Attacks, ACorruptedObjectIsRefusedOrReadWithoutCrashing) {
    std::map<std::string, std::string> attacks = Attacks();
    ASSERT_TRUE(attacks.count("constructor"));
    const std::string object = Slurp(attacks["constructor"]);
    ASSERT_GT(object.size(), 1024u);
    const std::string path = std::string(getenv("TEST_TMPDIR")) + "/corrupt.o";
    size_t refused = 0, runs = 0;
    for (size_t at = 0; at < object.size(); at += 1 + at / 64) {
        for (unsigned char flip : {0xffu, 0x80u}) {
            std::string bad = object;
            bad[at] = static_cast<char>(static_cast<unsigned char>(bad[at]) ^ flip);
            std::ofstream(path, std::ios::binary | std::ios::trunc) << bad;
            objcheck_test::Checked c = Check(path, nullptr);
            ASSERT_TRUE(c.rc == 0 || c.rc == 1) << "byte " << at;
            refused += c.rc == 1;
            runs++;
        }
    }
    EXPECT_GT(refused, runs / 2) << "most changes keep the constructor or break the object";
}

}  // namespace
