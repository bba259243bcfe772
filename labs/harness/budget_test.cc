// labs/harness/budget_test.cc: the harness's budget follows the calibration run, never
// falls below the floor nor rises above --harness-timeout, and the test hooks are read as
// budget.h says (a bad value is ignored).
#include <gtest/gtest.h>

#include <cstdlib>

extern "C" {
#include "labs/harness/budget.h"
}

namespace {

class Budget : public ::testing::Test {
  protected:
    void SetUp() override {
        unsetenv("STREAMLAB_TEST_HARNESS_BUDGET_S");
        unsetenv("STREAMLAB_TEST_SLOW_BASELINE_MS");
    }
    void TearDown() override { SetUp(); }
};

TEST_F(Budget, StartsAtTheFloorUnderTheCap) {
    EXPECT_DOUBLE_EQ(lab_harness_budget_start(600), LAB_HARNESS_FLOOR_S);
    EXPECT_DOUBLE_EQ(lab_harness_budget_start(5), 5.0);
}

TEST_F(Budget, AFastMachineKeepsTheFloor) {
    EXPECT_DOUBLE_EQ(lab_harness_budget(0.01, 14, 0.2, 600), LAB_HARNESS_FLOOR_S);
    EXPECT_DOUBLE_EQ(lab_harness_budget(0, 14, 0, 600), LAB_HARNESS_FLOOR_S);
}

TEST_F(Budget, ASlowMachineGetsTimeInProportionToTheCalibrationRun) {
    // 2 s a run, 14 runs' worth to come, 3 s spent: 3 + 4 x 2 x 14.
    EXPECT_DOUBLE_EQ(lab_harness_budget(2.0, 14, 3.0, 600), 3.0 + LAB_HARNESS_FACTOR * 2.0 * 14);
    // Twice as slow a run, twice the time to come.
    EXPECT_DOUBLE_EQ(lab_harness_budget(4.0, 14, 3.0, 600) - 3.0, 2 * (lab_harness_budget(2.0, 14, 3.0, 600) - 3.0));
}

TEST_F(Budget, NeverAboveTheCap) {
    EXPECT_DOUBLE_EQ(lab_harness_budget(20.0, 14, 3.0, 600), 600.0);
    EXPECT_DOUBLE_EQ(lab_harness_budget(0.01, 14, 0.2, 30), 30.0);
}

TEST_F(Budget, NonsenseInputsCountAsNothing) {
    EXPECT_DOUBLE_EQ(lab_harness_budget(-5.0, -3, -1.0, 600), LAB_HARNESS_FLOOR_S);
    EXPECT_DOUBLE_EQ(lab_harness_budget(0.0 / 0.0, 14, 0.0 / 0.0, 600), LAB_HARNESS_FLOOR_S);
}

TEST_F(Budget, TheBudgetHookReplacesTheScaledBudgetButNotTheCap) {
    setenv("STREAMLAB_TEST_HARNESS_BUDGET_S", "3", 1);
    EXPECT_DOUBLE_EQ(lab_test_harness_budget_s(), 3.0);
    EXPECT_DOUBLE_EQ(lab_harness_budget_start(600), 3.0);
    EXPECT_DOUBLE_EQ(lab_harness_budget(2.0, 14, 3.0, 600), 3.0);
    setenv("STREAMLAB_TEST_HARNESS_BUDGET_S", "900", 1);
    EXPECT_DOUBLE_EQ(lab_harness_budget(2.0, 14, 3.0, 600), 600.0);
}

TEST_F(Budget, TheSlowBaselineHookIsMilliseconds) {
    EXPECT_EQ(lab_test_slow_baseline_ms(), 0u);
    setenv("STREAMLAB_TEST_SLOW_BASELINE_MS", "1500", 1);
    EXPECT_EQ(lab_test_slow_baseline_ms(), 1500u);
}

TEST_F(Budget, ABadHookValueIsSaidAndIgnored) {
    setenv("STREAMLAB_TEST_SLOW_BASELINE_MS", "fast", 1);
    testing::internal::CaptureStderr();
    EXPECT_EQ(lab_test_slow_baseline_ms(), 0u);
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("STREAMLAB_TEST_SLOW_BASELINE_MS=fast ignored"), std::string::npos) << err;
    setenv("STREAMLAB_TEST_HARNESS_BUDGET_S", "0", 1);
    EXPECT_DOUBLE_EQ(lab_test_harness_budget_s(), 0.0);
    EXPECT_DOUBLE_EQ(lab_harness_budget_start(600), LAB_HARNESS_FLOOR_S);
}

}  // namespace
