// grading/grade_result_version_test.cc: the grader reads a lab's result only at a version
// it knows (grading/score/grade_result_version.h, labs/harness/result_schema.h): a newer
// one is refused with both versions named; a result stored before versions were written
// is read as version 1 and scores as it did; a stored class with a newer result is refused
// whole.
#include <gtest/gtest.h>

#include <string>

#include <cjson/cJSON.h>

extern "C" {
#include "grading/base/grade_text.h"
#include "grading/score/grade_result_version.h"
#include "grading/score/grade_score.h"
#include "labs/harness/result_schema.h"
}

namespace {

// A result as the harness writes it, without its version; `version` (raw JSON) added
// first when given.
cJSON *Result(const std::string &version = "") {
    std::string text = "{";
    if (!version.empty()) text += "\"" LAB_KEY_VERSION "\":" + version + ",";
    text += R"("lab":"03_double_buffer","status":"pass","correct":true,"races":0,"speedup":2.5,
               "pipeline_bound":2.6,"target":1.7,"runs":5,"schedules":2})";
    cJSON *r = cJSON_Parse(text.c_str());
    EXPECT_NE(r, nullptr) << text;
    return r;
}

std::string Why(const cJSON *r, bool required, int *rc) {
    char why[400];
    *rc = grade_result_version_check(r, required, why, sizeof(why));
    return why;
}

TEST(ResultVersion, ThisGradersVersionIsRead) {
    cJSON *r = Result(std::to_string(LAB_RESULT_VERSION));
    int rc;
    EXPECT_EQ(Why(r, true, &rc), "");
    EXPECT_EQ(rc, 0);
    cJSON_Delete(r);
}

TEST(ResultVersion, ANewerVersionIsRefusedNamingBoth) {
    const int newer = LAB_RESULT_VERSION + 1;
    cJSON *r = Result(std::to_string(newer));
    for (bool required : {true, false}) {
        int rc;
        std::string why = Why(r, required, &rc);
        EXPECT_EQ(rc, -1);
        EXPECT_EQ(why, "the lab binary writes result version " + std::to_string(newer) +
                           "; this grader reads version " + std::to_string(LAB_RESULT_VERSION) +
                           ": rebuild the grader from the same kit");
    }
    cJSON_Delete(r);
}

TEST(ResultVersion, WhatIsNoVersionIsRefused) {
    for (const char *bad : {"0", "-1", "1.5", "\"1\"", "null", "true", "[1]"}) {
        cJSON *r = Result(bad);
        int rc;
        std::string why = Why(r, false, &rc);
        EXPECT_EQ(rc, -1) << bad;
        EXPECT_NE(why.find("which is no version"), std::string::npos) << bad << ": " << why;
        cJSON_Delete(r);
    }
}

// Results stored in --out by a kit before versions (--rescore, --resume): version 1.
TEST(ResultVersion, NoVersionIsVersionOneWhereNoneIsRequired) {
    cJSON *r = Result();
    int rc;
    EXPECT_EQ(Why(r, false, &rc), "");
    EXPECT_EQ(rc, 0);
    // A lab binary of this grader's kits writes one: a result without it is another kit's.
    std::string why = Why(r, true, &rc);
    EXPECT_EQ(rc, -1);
    EXPECT_NE(why.find("no \"result_version\""), std::string::npos) << why;
    EXPECT_NE(why.find("rebuild the grader from the same kit"), std::string::npos) << why;
    cJSON_Delete(r);
}

// A result without a version scores exactly as the same result of version 1.
TEST(ResultVersion, AResultWithoutAVersionScoresAsBefore) {
    grade_rubric_lab rule = {};
    snprintf(rule.id, sizeof(rule.id), "03_double_buffer");
    rule.correct_points = 40;
    rule.race_free_points = 20;
    rule.speed = {40, GRADE_UNIT_BOUND_FRACTION, true, 0, true, 0};
    grade_lab labs[2];
    for (int k = 0; k < 2; k++) {
        double max[GRADE_CHECKS] = {40, 20, 40, 0};
        grade_lab_init(&labs[k], "03_double_buffer", "labs/03_double_buffer/lab.c", max);
        labs[k].submitted = true;
        labs[k].attempts = 1;
        labs[k].speedup = 2.5;
        labs[k].pipeline_bound = 2.6;
        labs[k].lab_target = 1.7;
        labs[k].bound_fraction = 2.5 / 2.6;
        labs[k].result = k == 0 ? Result() : Result("1");
        grade_score_lab(&rule, &labs[k]);
    }
    for (int c = 0; c < GRADE_CHECKS; c++) {
        EXPECT_EQ(labs[0].checks[c].points, labs[1].checks[c].points) << grade_check_names[c];
        EXPECT_STREQ(labs[0].checks[c].reason, labs[1].checks[c].reason) << grade_check_names[c];
    }
    EXPECT_EQ(grade_lab_score(&labs[0]), 100);
    for (grade_lab &l : labs) grade_lab_free(&l);
}

// A student as --out stores them (grade_student_to_json), read back as --rescore does.
grade_student Stored(cJSON *second_result) {
    grade_student s = {};
    s.name = grade_strdup("alice");
    s.n_labs = 2;
    s.labs = static_cast<grade_lab *>(calloc(2, sizeof(grade_lab)));
    double max[GRADE_CHECKS] = {40, 20, 40, 0};
    grade_lab_init(&s.labs[0], "01_pinned_memory", "labs/01_pinned_memory/lab.c", max);
    grade_lab_init(&s.labs[1], "03_double_buffer", "labs/03_double_buffer/lab.c", max);
    s.labs[0].result = Result();
    s.labs[1].result = second_result;
    cJSON *j = grade_student_to_json(&s);
    grade_student_free(&s);
    grade_student back;
    EXPECT_EQ(grade_student_from_json(j, &back), 0);
    cJSON_Delete(j);
    return back;
}

TEST(ResultVersion, StoredResultsWithoutAVersionRescore) {
    grade_student s = Stored(Result());
    char why[600] = "";
    EXPECT_EQ(grade_student_version_check(&s, why, sizeof(why)), 0) << why;
    grade_student_free(&s);
}

TEST(ResultVersion, AStoredResultOfANewerVersionIsRefusedNamingStudentAndLab) {
    grade_student s = Stored(Result(std::to_string(LAB_RESULT_VERSION + 1)));
    char why[600] = "";
    EXPECT_EQ(grade_student_version_check(&s, why, sizeof(why)), -1);
    std::string w = why;
    EXPECT_EQ(w.find("the stored result of alice, lab 03_double_buffer: the lab binary writes result version " +
                     std::to_string(LAB_RESULT_VERSION + 1)),
              0u)
        << w;
    grade_student_free(&s);
}

}  // namespace
