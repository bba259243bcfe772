// labs/harness/host_charge_test.cc: what the student's host work costs the simulated host
// (host_charge.h): noise in the measured CPU time of a program that only issues calls costs
// nothing, wherever it falls; work on the host costs what it takes beyond the calls' credit.
#include "labs/harness/host_charge.h"

#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

namespace {

constexpr uint64_t kUs = 1000;

// The total charged for a phase whose commands came after these CPU times.
uint64_t Charged(const std::vector<uint64_t> &spent) {
    lab_host_charge c;
    lab_host_charge_begin(&c);
    uint64_t total = 0;
    for (uint64_t s : spent) total += lab_host_charge_take(&c, s);
    return total;
}

TEST(HostCharge, IssuingCallsCostsNothingHoweverTheNoiseFalls) {
    // 60 commands of 40 us each, with a spike of 1.5 ms (five times the largest a command
    // that does nothing between calls spent under a full test load) at every position in
    // turn, and spikes at the start of the phase.
    for (size_t at = 0; at < 60; at++) {
        std::vector<uint64_t> spent(60, 40 * kUs);
        spent[at] = 1500 * kUs;
        EXPECT_EQ(Charged(spent), 0u) << "spike at command " << at;
    }
    std::vector<uint64_t> start(60, 40 * kUs);
    start[0] = start[1] = 1000 * kUs;
    EXPECT_EQ(Charged(start), 0u);
    // Every command as dear as the dearest a lab's reference showed under a full test load
    // once run() is filtered (host_history.h): 45 us, against a 50 us allowance.
    EXPECT_EQ(Charged(std::vector<uint64_t>(500, 45 * kUs)), 0u);
}

TEST(HostCharge, HostWorkIsChargedBeyondTheCreditInWholeSteps) {
    // Host work of 7 ms on the phase's first command (a memcpy of a lab's 64 MiB of inputs):
    // the phase's start credit and the command's allowance (2.05 ms) are free, the rest
    // charged in whole steps (4.9 ms now, 50 us owed).
    lab_host_charge c;
    lab_host_charge_begin(&c);
    EXPECT_EQ(lab_host_charge_take(&c, 7000 * kUs), 4900 * kUs);
    // Credit is spent: the next batch costs all but its command's allowance, which pays
    // what was owed.
    EXPECT_EQ(lab_host_charge_take(&c, 5000 * kUs), 5000 * kUs);
    // Whole steps: 250 us over is charged 200 us now and the 50 us later.
    EXPECT_EQ(lab_host_charge_take(&c, 300 * kUs), 200 * kUs);
    EXPECT_EQ(lab_host_charge_take(&c, 200 * kUs), 200 * kUs);
}

TEST(HostCharge, CheapCallsCannotPayInAdvanceForHostWork) {
    // 10,000 cheap calls, then 50 ms computed on the host: the credit is capped, so all but
    // the cap and one allowance is charged.
    std::vector<uint64_t> spent(10000, 1 * kUs);
    spent.push_back(50000 * kUs);
    uint64_t charged = Charged(spent);
    EXPECT_GE(charged, 50000 * kUs - LAB_HOST_CHARGE_CAP_NS - LAB_HOST_CHARGE_STEP_NS);
    EXPECT_LE(charged, 50000 * kUs - LAB_HOST_CHARGE_CAP_NS);
}

TEST(HostCharge, SpreadingHostWorkOverCallsBuysNoMoreThanTheirAllowance) {
    // 100 ms of host work spread over 200 commands (500 us each): each command's allowance is
    // free, the rest charged, in total as if the work were done in one place.
    uint64_t charged = Charged(std::vector<uint64_t>(200, 500 * kUs));
    uint64_t free_ns = LAB_HOST_CHARGE_START_NS + 200 * LAB_HOST_CHARGE_ALLOWANCE_NS;
    EXPECT_GE(charged + free_ns, 100000 * kUs - LAB_HOST_CHARGE_STEP_NS);
    EXPECT_LE(charged + free_ns, 100000 * kUs);
}

TEST(HostCharge, EachPhaseStartsWithItsOwnCredit) {
    lab_host_charge c;
    lab_host_charge_begin(&c);
    EXPECT_GT(lab_host_charge_take(&c, 30000 * kUs), 0u);
    lab_host_charge_begin(&c);
    EXPECT_EQ(lab_host_charge_take(&c, LAB_HOST_CHARGE_START_NS + LAB_HOST_CHARGE_ALLOWANCE_NS), 0u);
}

TEST(HostCharge, AClockGoneWrongIsBounded) {
    lab_host_charge c;
    lab_host_charge_begin(&c);
    uint64_t charged = lab_host_charge_take(&c, UINT64_MAX);
    EXPECT_GT(charged, LAB_HOST_CHARGE_CAP_NS * 999u);
    EXPECT_LE(charged, LAB_HOST_CHARGE_CAP_NS * 1000u);
}

TEST(HostCharge, AFilteredRunStartsWithItsSmallerCredit) {
    // A run after the first, whose noise the history took out, sees host work of a
    // millisecond: 0.5 ms of credit and one allowance are free, the rest charged.
    lab_host_charge c;
    lab_host_charge_begin_with(&c, LAB_HOST_CHARGE_FILTERED_START_NS);
    EXPECT_EQ(lab_host_charge_take(&c, 1000 * kUs), 400 * kUs);
    // No credit beyond the cap, whatever is asked.
    lab_host_charge_begin_with(&c, 1000 * LAB_HOST_CHARGE_CAP_NS);
    EXPECT_EQ(lab_host_charge_take(&c, LAB_HOST_CHARGE_CAP_NS + LAB_HOST_CHARGE_ALLOWANCE_NS), 0u);
    EXPECT_GT(lab_host_charge_take(&c, LAB_HOST_CHARGE_STEP_NS + LAB_HOST_CHARGE_ALLOWANCE_NS), 0u);
}

}  // namespace
