// labs/harness/options_test.cc: every lab option parses as documented, and every wrong one
// is refused with a message that names it (the binary then exits 64).
#include <gtest/gtest.h>

#include <list>
#include <string>
#include <vector>

extern "C" {
#include "labs/harness/options.h"
}

namespace {

struct Parsed {
    int rc;
    lab_options o;
    std::string err;
};

// lab_options points into argv, as it does into main()'s: keep every argument alive for
// the whole test program.
std::list<std::string> &kept() {
    static std::list<std::string> strings;
    return strings;
}

Parsed parse(std::vector<std::string> args) {
    args.insert(args.begin(), "lab");
    std::vector<char *> argv;
    for (auto &a : args) argv.push_back(kept().emplace_back(a).data());
    argv.push_back(nullptr);
    Parsed p;
    char err[256];
    p.rc = lab_parse_options(static_cast<int>(args.size()), argv.data(), &p.o, err, sizeof(err));
    p.err = err;
    return p;
}

TEST(Options, DefaultsWhenNoneAreGiven) {
    Parsed p = parse({});
    ASSERT_EQ(p.rc, 0);
    EXPECT_EQ(p.o.backend, LAB_BACKEND_AUTO);
    EXPECT_EQ(p.o.runs, 5);
    EXPECT_FALSE(p.o.seed_given);
    EXPECT_EQ(p.o.events_fd, -1);
    EXPECT_EQ(p.o.schedules, 2);
    EXPECT_EQ(p.o.timeout_s, 60);
    EXPECT_EQ(p.o.harness_timeout_s, 600);
    EXPECT_FALSE(p.o.json);
    EXPECT_EQ(p.o.trace_path, nullptr);
}

TEST(Options, EveryOptionIsRead) {
    Parsed p = parse({"--backend=sim", "--profile=h100", "--runs", "7", "--seed", "0x2A", "--trace", "t.json",
                      "--json", "--events-fd", "3", "--schedules=0", "--quiet", "--timeout", "5", "--width",
                      "120", "--tui", "--harness-timeout", "90"});
    ASSERT_EQ(p.rc, 0) << p.err;
    EXPECT_EQ(p.o.backend, LAB_BACKEND_SIM);
    EXPECT_STREQ(p.o.profile, "h100");
    EXPECT_EQ(p.o.runs, 7);
    EXPECT_TRUE(p.o.seed_given);
    EXPECT_EQ(p.o.seed, 42u);
    EXPECT_STREQ(p.o.trace_path, "t.json");
    EXPECT_TRUE(p.o.json);
    EXPECT_EQ(p.o.events_fd, 3);
    EXPECT_EQ(p.o.schedules, 0);
    EXPECT_TRUE(p.o.schedules_given);
    EXPECT_TRUE(p.o.quiet);
    EXPECT_EQ(p.o.timeout_s, 5);
    EXPECT_EQ(p.o.harness_timeout_s, 90);
    EXPECT_EQ(p.o.width, 120);
    EXPECT_TRUE(p.o.tui);
}

TEST(Options, WrongOnesAreRefusedByName) {
    struct Case {
        std::vector<std::string> args;
        std::string says;
    };
    const std::vector<Case> cases = {
        {{"--backend=cpu"}, "--backend must be auto, gpu or sim, not 'cpu'"},
        {{"--runs", "0"}, "--runs must be a whole number from 1 to 1000, not '0'"},
        {{"--runs", "many"}, "not 'many'"},
        {{"--seed", "-1"}, "--seed must be a non-negative whole number"},
        {{"--seed", "12abc"}, "not '12abc'"},
        {{"--events-fd", "x"}, "--events-fd must be an open file descriptor number"},
        {{"--timeout", "0"}, "--timeout must be a number of seconds"},
        {{"--harness-timeout", "soon"}, "--harness-timeout must be a number of seconds from 1 to 86400, not 'soon'"},
        {{"--width", "10"}, "--width must be a number of columns from 40"},
        {{"--frobnicate"}, "unknown option '--frobnicate'"},
        {{"--runs"}, "option '--runs' needs a value"},
        {{"stray"}, "unexpected argument 'stray'"},
        {{"--trace="}, "--trace needs a file name"},
    };
    for (const Case &c : cases) {
        Parsed p = parse(c.args);
        EXPECT_EQ(p.rc, LAB_EXIT_USAGE) << c.args[0];
        EXPECT_NE(p.err.find(c.says), std::string::npos) << "got: " << p.err;
    }
}

}  // namespace
