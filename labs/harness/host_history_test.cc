// labs/harness/host_history_test.cc: each command of a run is charged the least time spent
// before it in that run and the earlier ones (host_history.h): noise that strikes one run
// is not charged, host work that every run does is.
#include "labs/harness/host_history.h"

#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

namespace {

constexpr uint64_t kUs = 1000;

// One run's commands through the history; what each is charged.
std::vector<uint64_t> OneRun(lab_host_history *h, const std::vector<uint64_t> &spent) {
    lab_host_history_begin_run(h);
    std::vector<uint64_t> charged;
    for (uint64_t s : spent) charged.push_back(lab_host_history_filter(h, s));
    return charged;
}

TEST(HostHistory, TheFirstRunIsChargedAsMeasured) {
    lab_host_history h = {};
    EXPECT_EQ(OneRun(&h, {10 * kUs, 3000 * kUs, 12 * kUs}), (std::vector<uint64_t>{10 * kUs, 3000 * kUs, 12 * kUs}));
    lab_host_history_reset(&h);
}

TEST(HostHistory, NoiseInOneRunIsNotCharged) {
    lab_host_history h = {};
    OneRun(&h, {10 * kUs, 11 * kUs, 9 * kUs, 10 * kUs});  // the warm-up
    // A spike of 5 ms in the second run, at another command in the third: neither is charged.
    EXPECT_EQ(OneRun(&h, {10 * kUs, 5000 * kUs, 9 * kUs, 10 * kUs})[1], 11 * kUs);
    EXPECT_EQ(OneRun(&h, {10 * kUs, 11 * kUs, 9 * kUs, 4000 * kUs})[3], 10 * kUs);
    lab_host_history_reset(&h);
}

TEST(HostHistory, WorkEveryRunDoesIsChargedInEveryRun) {
    lab_host_history h = {};
    // A memcpy of 600 us before the second command of each batch, as a program that stages
    // its inputs with the host does: the same in every run, give or take noise.
    std::vector<uint64_t> run = {10 * kUs, 600 * kUs, 12 * kUs, 610 * kUs};
    OneRun(&h, run);
    std::vector<uint64_t> second = OneRun(&h, {11 * kUs, 640 * kUs, 10 * kUs, 605 * kUs});
    EXPECT_EQ(second[1], 600 * kUs);
    EXPECT_EQ(second[3], 605 * kUs);
    std::vector<uint64_t> third = OneRun(&h, run);
    EXPECT_EQ(third[1], 600 * kUs);
    EXPECT_EQ(third[3], 605 * kUs) << "the least so far";
    lab_host_history_reset(&h);
}

TEST(HostHistory, ARunWithMoreCommandsIsChargedWhatItMeasuredForTheExtraOnes) {
    lab_host_history h = {};
    OneRun(&h, {10 * kUs, 10 * kUs});
    std::vector<uint64_t> longer = OneRun(&h, {20 * kUs, 30 * kUs, 700 * kUs});
    EXPECT_EQ(longer, (std::vector<uint64_t>{10 * kUs, 10 * kUs, 700 * kUs}));
    // And the next run meets it there.
    EXPECT_EQ(OneRun(&h, {10 * kUs, 10 * kUs, 650 * kUs})[2], 650 * kUs);
    lab_host_history_reset(&h);
}

TEST(HostHistory, AResetForgetsEveryRun) {
    lab_host_history h = {};
    OneRun(&h, {1 * kUs});
    lab_host_history_reset(&h);
    EXPECT_EQ(h.runs, 0);
    EXPECT_EQ(OneRun(&h, {900 * kUs})[0], 900 * kUs);
    lab_host_history_reset(&h);
}

}  // namespace
