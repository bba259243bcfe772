// labs/referee/spin_test.cc: spinning for a time before sleeping (spin.h).
#include "labs/referee/spin.h"

#include <gtest/gtest.h>

TEST(Spin, ABudgetOfNothingSleepsAtOnce) {
    lab_spin s = lab_spin_start(0);
    EXPECT_FALSE(lab_spin_again(&s));
    EXPECT_FALSE(lab_spin_again(&s));
}

TEST(Spin, ABudgetIsSpentAndStaysSpent) {
    lab_spin s = lab_spin_start(200000); /* 0.2 ms */
    EXPECT_TRUE(lab_spin_again(&s)) << "the first look spins";
    unsigned long looks = 1;
    while (lab_spin_again(&s)) looks++;
    EXPECT_GT(looks, 1u);
    for (int i = 0; i < 1000; i++) EXPECT_FALSE(lab_spin_again(&s)) << "once over, never again";
}
