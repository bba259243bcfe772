// tui/history_test.cc: each lab's last verdict kept between sessions: where it lives, a
// round trip through the file, and a damaged or unwritable file never stopping the TUI.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

extern "C" {
#include "tui/history.h"
}

namespace {

std::string TempDir() {
    const char *t = std::getenv("TEST_TMPDIR");
    std::string dir = std::string(t ? t : "/tmp") + "/history_XXXXXX";
    char *made = mkdtemp(dir.data());
    return made ? made : "/tmp";
}

TEST(History, TheDefaultPlaceFollowsXdg) {
    const char *old_state = std::getenv("XDG_STATE_HOME");
    const char *old_home = std::getenv("HOME");
    std::string keep_state = old_state ? old_state : "", keep_home = old_home ? old_home : "";
    char path[512];
    setenv("XDG_STATE_HOME", "/x/state", 1);
    ASSERT_EQ(tui_history_default_path(path, sizeof(path)), 0);
    EXPECT_STREQ(path, "/x/state/streamlab/last_results.json");
    setenv("XDG_STATE_HOME", "relative/is/ignored", 1);
    setenv("HOME", "/home/student", 1);
    ASSERT_EQ(tui_history_default_path(path, sizeof(path)), 0);
    EXPECT_STREQ(path, "/home/student/.local/state/streamlab/last_results.json");
    unsetenv("XDG_STATE_HOME");
    unsetenv("HOME");
    EXPECT_EQ(tui_history_default_path(path, sizeof(path)), -1);
    if (old_state) setenv("XDG_STATE_HOME", keep_state.c_str(), 1);
    if (old_home) setenv("HOME", keep_home.c_str(), 1);
}

TEST(History, ResultsSurviveARestart) {
    std::string path = TempDir() + "/deep/er/last_results.json";  // directories are made
    char err[512] = "";
    tui_history h;
    tui_history_open(&h, path.c_str(), err, sizeof(err));
    EXPECT_STREQ(err, "");  // no file yet is not a problem
    tui_last_result r = {"below_target", 1.02, 1.69, 1718000000};
    ASSERT_EQ(tui_history_put(&h, "03_double_buffer", "yours", &r, err, sizeof(err)), 0) << err;
    tui_last_result ref = {"pass", 2.57, 1.69, 1718000100};
    ASSERT_EQ(tui_history_put(&h, "03_double_buffer", "reference", &ref, err, sizeof(err)), 0) << err;
    tui_last_result again = {"pass", 1.8, 1.69, 1718000200};
    ASSERT_EQ(tui_history_put(&h, "03_double_buffer", "yours", &again, err, sizeof(err)), 0) << err;
    tui_history_close(&h);

    tui_history_open(&h, path.c_str(), err, sizeof(err));
    tui_last_result got;
    ASSERT_TRUE(tui_history_get(&h, "03_double_buffer", "yours", &got));
    EXPECT_STREQ(got.status, "pass");
    EXPECT_DOUBLE_EQ(got.speedup, 1.8);
    EXPECT_EQ(got.when, 1718000200);
    ASSERT_TRUE(tui_history_get(&h, "03_double_buffer", "reference", &got));
    EXPECT_DOUBLE_EQ(got.speedup, 2.57);
    EXPECT_FALSE(tui_history_get(&h, "04_priorities", "yours", &got));
    tui_history_close(&h);
}

TEST(History, ADamagedFileIsReplaced) {
    std::string path = TempDir() + "/last_results.json";
    for (const char *junk : {"{not json", "[1,2,3]", "{\"labs\": 7}", ""}) {
        std::ofstream(path) << junk;
        char err[512] = "";
        tui_history h;
        tui_history_open(&h, path.c_str(), err, sizeof(err));
        tui_last_result got;
        EXPECT_FALSE(tui_history_get(&h, "03_double_buffer", "yours", &got));
        if (*junk) {
            EXPECT_NE(std::string(err).find("not a results file"), std::string::npos) << junk << ": " << err;
        }
        tui_last_result r = {"pass", 2.0, 1.5, 1};
        EXPECT_EQ(tui_history_put(&h, "03_double_buffer", "yours", &r, err, sizeof(err)), 0) << err;
        tui_history_close(&h);
        tui_history_open(&h, path.c_str(), err, sizeof(err));
        EXPECT_TRUE(tui_history_get(&h, "03_double_buffer", "yours", &got));
        tui_history_close(&h);
    }
}

TEST(History, AnEntryOfTheWrongShapeIsIgnored) {
    std::string path = TempDir() + "/last_results.json";
    std::ofstream(path) << R"({"labs":{"03_double_buffer":{"yours":"pass","reference":{"speedup":2}}}})";
    tui_history h;
    tui_history_open(&h, path.c_str(), nullptr, 0);
    tui_last_result got;
    EXPECT_FALSE(tui_history_get(&h, "03_double_buffer", "yours", &got));
    EXPECT_FALSE(tui_history_get(&h, "03_double_buffer", "reference", &got));
    tui_last_result r = {"racy", 2.5, 1.6, 5};
    char err[512];
    EXPECT_EQ(tui_history_put(&h, "03_double_buffer", "yours", &r, err, sizeof(err)), 0) << err;
    EXPECT_TRUE(tui_history_get(&h, "03_double_buffer", "yours", &got));
    EXPECT_STREQ(got.status, "racy");
    tui_history_close(&h);
}

TEST(History, AnUnwritablePlaceIsAnErrorNotACrash) {
    // A file where the directory should be: no one, root included, can make it.
    std::string blocker = TempDir() + "/not_a_directory";
    std::ofstream(blocker) << "x";
    std::string path = blocker + "/streamlab/last_results.json";
    tui_history h;
    tui_history_open(&h, path.c_str(), nullptr, 0);
    tui_last_result r = {"pass", 2.0, 1.5, 1};
    char err[512] = "";
    EXPECT_EQ(tui_history_put(&h, "03_double_buffer", "yours", &r, err, sizeof(err)), -1);
    EXPECT_NE(std::string(err).find(blocker), std::string::npos) << err;
    tui_last_result got;
    EXPECT_TRUE(tui_history_get(&h, "03_double_buffer", "yours", &got));  // kept for this session
    tui_history_close(&h);
}

}  // namespace
