// sim/conformance/conformance_test.cc: //sim:conformance_sim prints, case by case, the
// error code the simulated runtime returns for each misuse; the output must equal the
// checked-in conformance.expected exactly. A difference is reported line by line.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string Runfile(const std::string &path) {
    const char *srcdir = std::getenv("TEST_SRCDIR");
    const char *ws = std::getenv("TEST_WORKSPACE");
    return std::string(srcdir ? srcdir : ".") + "/" + (ws ? ws : "streamlab") + "/" + path;
}

std::vector<std::string> Lines(const std::string &text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

TEST(Conformance, OutputMatchesTheExpectedFile) {
    std::string cmd = Runfile("sim/conformance_sim") + " 2>&1";
    FILE *p = popen(cmd.c_str(), "r");
    ASSERT_NE(p, nullptr);
    std::string out;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
    int status = pclose(p);
    EXPECT_EQ(status, 0) << out;
    std::ifstream f(Runfile("sim/conformance/conformance.expected"));
    ASSERT_TRUE(f.good());
    std::stringstream expected;
    expected << f.rdbuf();
    std::vector<std::string> got = Lines(out), want = Lines(expected.str());
    for (size_t i = 0; i < std::max(got.size(), want.size()); i++) {
        std::string g = i < got.size() ? got[i] : "(missing)";
        std::string w = i < want.size() ? want[i] : "(missing)";
        EXPECT_EQ(g, w) << "line " << i + 1;
    }
}

}  // namespace
