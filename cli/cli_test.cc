// cli/cli_test.cc: the shared command-line helpers: numbers in a range and nothing else,
// seeds in decimal or hexadecimal, the messages for refused options, and user paths
// under `bazel run`; and addr2line's answers read.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli/addr2line.h"
#include "cli/cli.h"

namespace {

TEST(Cli, IntAcceptsWholeNumbersInRangeOnly) {
    long long v = -7;
    EXPECT_TRUE(cli_int("12", 1, 100, &v));
    EXPECT_EQ(v, 12);
    EXPECT_TRUE(cli_int("-3", -5, 5, &v));
    EXPECT_EQ(v, -3);
    v = 99;
    for (const char *bad : {"", "12x", " 12", "1e3", "0", "101", "+4", "x"}) {
        EXPECT_FALSE(cli_int(bad, 1, 100, &v)) << bad;
        EXPECT_EQ(v, 99) << bad;
    }
    EXPECT_FALSE(cli_int(nullptr, 1, 100, &v));
    EXPECT_FALSE(cli_int("99999999999999999999", 0, 1LL << 62, &v));
}

TEST(Cli, SeedsAreDecimalOrHexAndNeverNegative) {
    uint64_t s = 0;
    EXPECT_TRUE(cli_u64("544461931", &s));
    EXPECT_EQ(s, 544461931u);
    EXPECT_TRUE(cli_u64("0x10", &s));
    EXPECT_EQ(s, 16u);
    EXPECT_TRUE(cli_u64("18446744073709551615", &s));
    EXPECT_EQ(s, UINT64_MAX);
    for (const char *bad : {"", "-1", "12x", "18446744073709551616", " 1"}) EXPECT_FALSE(cli_u64(bad, &s)) << bad;
}

const struct option kOptions[] = {
    {"runs", required_argument, nullptr, 1000},
    {"json", no_argument, nullptr, 1001},
    {nullptr, 0, nullptr, 0},
};

std::string Refused(std::vector<std::string> args) {
    std::vector<char *> argv;
    for (auto &a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    optind = 1;
    opterr = 0;
    int argc = static_cast<int>(args.size());
    while (getopt_long(argc, argv.data(), "h", kOptions, nullptr) != '?') {
    }
    char err[256];
    cli_refused(argc, argv.data(), kOptions, err, sizeof(err));
    return err;
}

TEST(Cli, RefusedOptionsAreNamed) {
    EXPECT_EQ(Refused({"prog", "--runs"}), "option '--runs' needs a value");
    EXPECT_EQ(Refused({"prog", "--json=yes"}), "option '--json' takes no value");
    EXPECT_EQ(Refused({"prog", "--rnus", "3"}), "unknown option '--rnus'");
    EXPECT_EQ(Refused({"prog", "-x"}), "unknown option '-x'");
}

TEST(Cli, UserPathsUnderBazelRunAreTheUsers) {
    char buf[256];
    unsetenv("BUILD_WORKING_DIRECTORY");
    EXPECT_STREQ(cli_user_path("out.json", buf, sizeof(buf)), "out.json");
    setenv("BUILD_WORKING_DIRECTORY", "/home/s/kit", 1);
    EXPECT_STREQ(cli_user_path("out.json", buf, sizeof(buf)), "/home/s/kit/out.json");
    EXPECT_STREQ(cli_user_path("/tmp/out.json", buf, sizeof(buf)), "/tmp/out.json");
    unsetenv("BUILD_WORKING_DIRECTORY");
}

}  // namespace

// addr2line's answers: a line found (with a discriminator, under Bazel's sandbox prefix),
// and the answers for an address with no line.
TEST(Addr2line, TakesTheFileAndLineOfAFoundAddress) {
    char out[64];
    const std::string a = "/proc/self/cwd/labs/03_double_buffer/lab.c:41 (discriminator 2)";
    EXPECT_TRUE(cli_addr2line_take(a.data(), a.size(), out, sizeof(out)));
    EXPECT_STREQ(out, "labs/03_double_buffer/lab.c:41");
    const std::string b = "/home/me/lab.c:7";
    EXPECT_TRUE(cli_addr2line_take(b.data(), b.size(), out, sizeof(out)));
    EXPECT_STREQ(out, "/home/me/lab.c:7");
    char small[8];
    EXPECT_TRUE(cli_addr2line_take(b.data(), b.size(), small, sizeof(small)));
    EXPECT_STREQ(small, "/home/m");
}

TEST(Addr2line, AnAddressWithNoLineIsNotFound) {
    char out[64];
    for (const std::string s : {"??:0", "??:?", "runner.c:?", "runner.c:0", "no colon"})
        EXPECT_FALSE(cli_addr2line_take(s.data(), s.size(), out, sizeof(out))) << s;
    EXPECT_STREQ(out, "");
}

TEST(Cli, SignalsHaveTheirNamesAndOnlyRealOnesDo) {
    EXPECT_STREQ(cli_signal_name(SIGSEGV), "SIGSEGV");
    EXPECT_STREQ(cli_signal_name(SIGSYS), "SIGSYS");
    EXPECT_STREQ(cli_signal_name(SIGXFSZ), "SIGXFSZ");
    EXPECT_EQ(cli_signal_name(0), nullptr);
    EXPECT_EQ(cli_signal_name(-3), nullptr);
    EXPECT_EQ(cli_signal_name(NSIG + 5), nullptr);
}
