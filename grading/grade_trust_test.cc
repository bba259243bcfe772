// grading/grade_trust_test.cc: a result the harness could have sent is believed; one that
// comes twice, names another seed or another target than the lab's, or claims a speed past
// the lab's bound is not.
#include "grading/run/grade_trust.h"

#include <gtest/gtest.h>

#include <string>

namespace {

cJSON *Result(double seed, double bound_fraction) {
    cJSON *r = cJSON_CreateObject();
    cJSON_AddNumberToObject(r, "seed", seed);
    cJSON_AddNumberToObject(r, "bound_fraction", bound_fraction);
    return r;
}

TEST(Trust, TheHarnessesOwnResultIsBelieved) {
    cJSON *r = Result(21, 0.98);
    char why[300];
    EXPECT_EQ(grade_result_trust(r, 21, 1, 0, why, sizeof(why)), GRADE_TRUST_OK);
    EXPECT_STREQ(why, "");
    // A little past the bound is timing noise (a GPU run measured up to 104%; lab 06's latency 140%).
    cJSON_ReplaceItemInObject(r, "bound_fraction", cJSON_CreateNumber(1.41));
    EXPECT_EQ(grade_result_trust(r, 21, 1, 0, why, sizeof(why)), GRADE_TRUST_OK);
    cJSON_ReplaceItemInObject(r, "bound_fraction", cJSON_CreateNumber(GRADE_BOUND_FRACTION_MAX));
    EXPECT_EQ(grade_result_trust(r, 21, 1, 0, why, sizeof(why)), GRADE_TRUST_OK);
    cJSON_ReplaceItemInObject(r, "bound_fraction", cJSON_CreateNumber(GRADE_BOUND_FRACTION_MAX + 0.01));
    EXPECT_EQ(grade_result_trust(r, 21, 1, 0, why, sizeof(why)), GRADE_TRUST_NO_SPEED);
    cJSON_Delete(r);
}

TEST(Trust, ASecondResultMeansNoneIsBelieved) {
    cJSON *r = Result(21, 0.98);
    char why[300];
    EXPECT_EQ(grade_result_trust(r, 21, 2, 0, why, sizeof(why)), GRADE_TRUST_NONE);
    EXPECT_NE(std::string(why).find("2 results"), std::string::npos) << why;
    cJSON_Delete(r);
}

TEST(Trust, AnotherSeedIsNotThisRunsResult) {
    char why[300];
    for (double seed : {22.0, 0.0, -1.0}) {
        cJSON *r = Result(seed, 0.98);
        EXPECT_EQ(grade_result_trust(r, 21, 1, 0, why, sizeof(why)), GRADE_TRUST_NONE) << seed;
        EXPECT_NE(std::string(why).find("not the seed 21"), std::string::npos) << why;
        cJSON_Delete(r);
    }
    cJSON *none = cJSON_CreateObject();
    EXPECT_EQ(grade_result_trust(none, 21, 1, 0, why, sizeof(why)), GRADE_TRUST_NONE) << "no seed at all";
    cJSON_Delete(none);
}

TEST(Trust, ASpeedFarPastTheBoundEarnsNoSpeedPoints) {
    // A forged result: 246 times the pipeline bound.
    cJSON *r = Result(21, 246.16);
    char why[300];
    EXPECT_EQ(grade_result_trust(r, 21, 1, 0, why, sizeof(why)), GRADE_TRUST_NO_SPEED);
    EXPECT_NE(std::string(why).find("24616%"), std::string::npos) << why;
    cJSON_Delete(r);
}

TEST(Trust, AnotherTargetThanThePreflightRunsEarnsNoSpeedPoints) {
    char why[300];
    cJSON *r = Result(21, 0.98);
    cJSON_AddNumberToObject(r, "target_bound_fraction", 0.65);
    EXPECT_EQ(grade_result_trust(r, 21, 1, 0.65, why, sizeof(why)), GRADE_TRUST_OK) << why;
    EXPECT_EQ(grade_result_trust(r, 21, 1, 0, why, sizeof(why)), GRADE_TRUST_OK) << "no pre-flight target known";
    EXPECT_EQ(grade_result_trust(r, 21, 1, 0.5, why, sizeof(why)), GRADE_TRUST_NO_SPEED);
    EXPECT_NE(std::string(why).find("target of 0.65"), std::string::npos) << why;
    EXPECT_NE(std::string(why).find("own is 0.5"), std::string::npos) << why;
    cJSON *none = Result(21, 0.98);
    EXPECT_EQ(grade_result_trust(none, 21, 1, 0.65, why, sizeof(why)), GRADE_TRUST_NO_SPEED) << "no target at all";
    cJSON_Delete(none);
    cJSON_Delete(r);
}

}  // namespace
