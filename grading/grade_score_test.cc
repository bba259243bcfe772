// grading/grade_score_test.cc: scoring by the rubric: thresholds in both units, the linear
// scale between floor and target, the noise band, and each check's points and reason for
// every way a lab run can end.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include <cjson/cJSON.h>

extern "C" {
#include "grading/base/grade_text.h"
#include "grading/score/grade_score.h"
}

namespace {

grade_rubric_lab Rule(grade_speed_unit unit, bool floor_baseline, double floor, bool target_lab, double target) {
    grade_rubric_lab r = {};
    snprintf(r.id, sizeof(r.id), "03_double_buffer");
    r.correct_points = 40;
    r.race_free_points = 20;
    r.speed = {40, unit, floor_baseline, floor, target_lab, target};
    return r;
}

TEST(Score, ThresholdsInBothUnits) {
    double f = 0, t = 0;
    char why[256];
    // Fractions of the pipeline bound scale with the bound.
    grade_rubric_lab r = Rule(GRADE_UNIT_BOUND_FRACTION, false, 0.4, false, 0.8);
    ASSERT_EQ(grade_speed_thresholds(&r.speed, 2.5, 1.7, &f, &t, why, sizeof(why)), 0);
    EXPECT_DOUBLE_EQ(f, 0.4 * 2.5);
    EXPECT_DOUBLE_EQ(t, 0.8 * 2.5);
    // "baseline" is speedup 1, "lab" the lab's own target, whatever the unit.
    r = Rule(GRADE_UNIT_BOUND_FRACTION, true, 0, true, 0);
    ASSERT_EQ(grade_speed_thresholds(&r.speed, 2.5, 1.7, &f, &t, why, sizeof(why)), 0);
    EXPECT_EQ(f, 1.0);
    EXPECT_EQ(t, 1.7);
    // Absolute speedups ignore the bound, and need none.
    r = Rule(GRADE_UNIT_SPEEDUP, false, 1.2, false, 2.0);
    ASSERT_EQ(grade_speed_thresholds(&r.speed, 0, 0, &f, &t, why, sizeof(why)), 0);
    EXPECT_EQ(f, 1.2);
    EXPECT_EQ(t, 2.0);
    // A figure that is needed but unknown.
    r = Rule(GRADE_UNIT_BOUND_FRACTION, false, 0.4, true, 0);
    EXPECT_EQ(grade_speed_thresholds(&r.speed, 0, 1.7, &f, &t, why, sizeof(why)), -1);
    EXPECT_NE(std::string(why).find("could not measure its bound"), std::string::npos);
    r = Rule(GRADE_UNIT_SPEEDUP, true, 0, true, 0);
    EXPECT_EQ(grade_speed_thresholds(&r.speed, 2.5, 0, &f, &t, why, sizeof(why)), -1);
    EXPECT_NE(std::string(why).find("no target"), std::string::npos);
}

// The issue-22 case: floor 0.9 of a 2.6x bound (2.34x) above the lab's own target 1.69x.
// Scoring must never give full marks between them: no points, and the reason says why.
TEST(Score, AFloorAtOrAboveTheLabsTargetScoresNothing) {
    double f = 0, t = 0;
    char why[256];
    grade_rubric_lab r = Rule(GRADE_UNIT_BOUND_FRACTION, false, 0.9, true, 0);
    EXPECT_EQ(grade_speed_thresholds(&r.speed, 2.6, 1.69, &f, &t, why, sizeof(why)), -1);
    EXPECT_NE(std::string(why).find("floor (speedup 2.340) is not below its target (speedup 1.690)"),
              std::string::npos)
        << why;
}

TEST(Score, SpeedPointsAreLinearBetweenFloorAndTarget) {
    const double floor_s = 1.0, target_s = 2.0;
    EXPECT_EQ(grade_speed_fraction(0.5, floor_s, target_s), 0);
    EXPECT_EQ(grade_speed_fraction(floor_s, floor_s, target_s), 0);
    EXPECT_DOUBLE_EQ(grade_speed_fraction(1.25, floor_s, target_s), 0.25);
    EXPECT_DOUBLE_EQ(grade_speed_fraction(1.5, floor_s, target_s), 0.5);
    EXPECT_EQ(grade_speed_fraction(target_s, floor_s, target_s), 1);
    EXPECT_EQ(grade_speed_fraction(9.0, floor_s, target_s), 1);
    // A target at or below the floor is a step.
    EXPECT_EQ(grade_speed_fraction(1.1, 1.2, 1.2), 0);
    EXPECT_EQ(grade_speed_fraction(1.3, 1.2, 1.2), 1);
}

TEST(Score, TheNoiseBandIsAroundTheTarget) {
    EXPECT_TRUE(grade_speed_near_target(1.95, 2.0, 0.05));
    EXPECT_TRUE(grade_speed_near_target(2.09, 2.0, 0.05));
    EXPECT_FALSE(grade_speed_near_target(1.89, 2.0, 0.05));
    EXPECT_FALSE(grade_speed_near_target(2.0, 2.0, 0));
}

TEST(Score, MedianOfAttempts) {
    const double v[] = {3, 1, 2};
    EXPECT_EQ(grade_median(v, 3), 2);
    EXPECT_EQ(grade_median(v, 2), 2);
    EXPECT_EQ(grade_median(v, 0), 0);
}

// A lab with a result object as the harness writes it (and a measurement check of
// `measurement` points, when given).
struct Lab {
    grade_lab lab;
    explicit Lab(const std::string &result_json, double measurement = 0) {
        double max[GRADE_CHECKS] = {40, 20, 40, measurement};
        grade_lab_init(&lab, "03_double_buffer", "labs/03_double_buffer/lab.c", max);
        lab.submitted = true;
        if (!result_json.empty()) {
            lab.result = cJSON_Parse(result_json.c_str());
            lab.attempts = 1;
            const cJSON *s = cJSON_GetObjectItem(lab.result, "speedup");
            const cJSON *b = cJSON_GetObjectItem(lab.result, "pipeline_bound");
            const cJSON *t = cJSON_GetObjectItem(lab.result, "target");
            lab.speedup = s ? s->valuedouble : 0;
            lab.pipeline_bound = b ? b->valuedouble : 0;
            lab.lab_target = t ? t->valuedouble : 0;
            lab.bound_fraction = lab.pipeline_bound > 0 ? lab.speedup / lab.pipeline_bound : 0;
        }
    }
    ~Lab() { grade_lab_free(&lab); }
    double Points(grade_check_id c) const { return lab.checks[c].points; }
    std::string Reason(grade_check_id c) const { return lab.checks[c].reason; }
};

const grade_rubric_lab kRule = Rule(GRADE_UNIT_BOUND_FRACTION, true, 0, true, 0);

TEST(Score, AFastCorrectRaceFreeLabGetsEverything) {
    Lab l(R"({"status":"pass","correct":true,"races":0,"speedup":2.5,"pipeline_bound":2.6,"target":1.7,"runs":5})");
    grade_score_lab(&kRule, &l.lab);
    EXPECT_EQ(l.Points(GRADE_CORRECT), 40);
    EXPECT_EQ(l.Points(GRADE_RACE_FREE), 20);
    EXPECT_EQ(l.Points(GRADE_SPEEDUP), 40);
    EXPECT_NE(l.Reason(GRADE_SPEEDUP).find("2.50x over the baseline"), std::string::npos) << l.Reason(GRADE_SPEEDUP);
}

TEST(Score, PartOfTheWayGetsPartOfThePoints) {
    Lab l(R"({"status":"below_target","correct":true,"races":0,"speedup":1.35,"pipeline_bound":2.6,"target":1.7})");
    grade_score_lab(&kRule, &l.lab);
    EXPECT_DOUBLE_EQ(l.Points(GRADE_SPEEDUP), grade_round_points(40 * (1.35 - 1.0) / (1.7 - 1.0)));
    EXPECT_FALSE(l.lab.checks[GRADE_SPEEDUP].passed);
    EXPECT_NE(l.Reason(GRADE_SPEEDUP).find("50% of the way"), std::string::npos) << l.Reason(GRADE_SPEEDUP);
}

TEST(Score, WrongResultsGetNoCorrectOrSpeedPoints) {
    Lab l(R"({"status":"incorrect","correct":false,"races":0,"speedup":2.5,"pipeline_bound":2.6,"target":1.7,
              "first_mismatch":{"run":"run 2","batch":3,"index":17,"got":1,"expected":2,"wrong_batches":1,
                                "why":"it equals the batch's input"}})");
    grade_score_lab(&kRule, &l.lab);
    EXPECT_EQ(l.Points(GRADE_CORRECT), 0);
    EXPECT_EQ(l.Points(GRADE_RACE_FREE), 20);
    EXPECT_EQ(l.Points(GRADE_SPEEDUP), 0);
    EXPECT_NE(l.Reason(GRADE_CORRECT).find("wrong results in run 2: batch 3, element 17: got 0x00000001, expected "
                                           "0x00000002 (1 wrong batch); it equals the batch's input"),
              std::string::npos)
        << l.Reason(GRADE_CORRECT);
}

// The rubric's race_free.needs_correct: a lab that never ran its kernels is race-free and
// wrong; by default race-freedom is judged on its own, with the setting it needs correct
// results. A correct race-free lab keeps its points either way.
TEST(Score, RaceFreedomCanNeedCorrectResults) {
    const char wrong[] = R"({"status":"incorrect","correct":false,"races":0,"speedup":3.0,"pipeline_bound":2.6,
                             "target":1.7})";
    Lab by_default(wrong);
    grade_score_lab(&kRule, &by_default.lab);
    EXPECT_EQ(by_default.Points(GRADE_RACE_FREE), 20);
    grade_rubric_lab strict = kRule;
    strict.race_needs_correct = true;
    Lab needs(wrong);
    grade_score_lab(&strict, &needs.lab);
    EXPECT_EQ(needs.Points(GRADE_RACE_FREE), 0);
    EXPECT_FALSE(needs.lab.checks[GRADE_RACE_FREE].passed);
    EXPECT_NE(needs.Reason(GRADE_RACE_FREE).find("not scored: race-freedom counts only for correct results"),
              std::string::npos)
        << needs.Reason(GRADE_RACE_FREE);
    Lab right(R"({"status":"pass","correct":true,"races":0,"speedup":2.5,"pipeline_bound":2.6,"target":1.7})");
    grade_score_lab(&strict, &right.lab);
    EXPECT_EQ(right.Points(GRADE_RACE_FREE), 20);
}

TEST(Score, ARaceCostsRaceAndSpeedPoints) {
    Lab l(R"({"status":"racy","correct":true,"races":3,"speedup":2.5,"pipeline_bound":2.6,"target":1.7,
              "race_reports":[{"kind":"WAR","first":"kernel batch 0","first_stream":"s1","second":"H2D batch 2",
                               "second_stream":"s2","bytes":4096,"fix":"record an event"}]})");
    grade_score_lab(&kRule, &l.lab);
    EXPECT_EQ(l.Points(GRADE_CORRECT), 40);
    EXPECT_EQ(l.Points(GRADE_RACE_FREE), 0);
    EXPECT_EQ(l.Points(GRADE_SPEEDUP), 0);
    // Streams the student did not name are the trace's s1, s2: said bare, with how to name them.
    EXPECT_EQ(l.Reason(GRADE_RACE_FREE).rfind(
                  "3 races found; the first: WAR between kernel batch 0 on s1 and H2D batch 2 on s2 (4096 bytes); "
                  "fix: record an event (s2, s3, ...: the trace's numbers for streams you did not name",
                  0),
              0u)
        << l.Reason(GRADE_RACE_FREE);
    EXPECT_NE(l.Reason(GRADE_RACE_FREE).find("lab_name_stream"), std::string::npos);
}

// A race between streams the student named speaks of them by those names only.
TEST(Score, ARaceOnNamedStreamsUsesTheStudentsNames) {
    Lab l(R"({"status":"racy","correct":true,"races":1,"speedup":2.5,"pipeline_bound":2.6,"target":1.7,
              "race_reports":[{"kind":"WAW","first":"memset","first_stream":"buf A","second":"kernel batch 1",
                               "second_stream":"buf B","bytes":64,"fix":"give \"buf A\" and \"buf B\" buffers"}]})");
    grade_score_lab(&kRule, &l.lab);
    EXPECT_EQ(l.Reason(GRADE_RACE_FREE),
              "1 race found; the first: WAW between memset on \"buf A\" and kernel batch 1 on \"buf B\" (64 bytes); "
              "fix: give \"buf A\" and \"buf B\" buffers");
    // A name that only looks like a number ("s2x") is the student's.
    char *own = grade_race_stream("s2x"), *num = grade_race_stream("s12"), *host = grade_race_stream("host");
    EXPECT_STREQ(own, "\"s2x\"");
    EXPECT_STREQ(num, "s12");
    EXPECT_STREQ(host, "the host");
    free(own);
    free(num);
    free(host);
}

TEST(Score, AnErrorInTheLabGetsNothing) {
    Lab l(R"({"status":"error","error":"your setup() returned 1","correct":true,"races":0})");
    grade_score_lab(&kRule, &l.lab);
    for (int c = 0; c < GRADE_CHECKS; c++) EXPECT_EQ(l.lab.checks[c].points, 0);
    EXPECT_EQ(l.Reason(GRADE_CORRECT), "error: your setup() returned 1");
}

TEST(Score, NotSubmittedNotBuiltNotFinished) {
    Lab missing("");
    missing.lab.submitted = false;
    missing.lab.missing = grade_strdup("no labs/03_double_buffer/lab.c");
    grade_score_lab(&kRule, &missing.lab);
    EXPECT_EQ(missing.Reason(GRADE_SPEEDUP), "not submitted: no labs/03_double_buffer/lab.c");

    Lab broken("");
    broken.lab.build_error = grade_strdup("does not compile: lab.c:1:1: error: x");
    grade_score_lab(&kRule, &broken.lab);
    EXPECT_EQ(broken.Reason(GRADE_CORRECT), "does not compile: lab.c:1:1: error: x");
    EXPECT_EQ(broken.Reason(GRADE_RACE_FREE), "not checked: does not compile: lab.c:1:1: error: x");

    Lab crashed("");
    crashed.lab.failure = grade_strdup("crashed with SIGSEGV in run() of your lab");
    grade_score_lab(&kRule, &crashed.lab);
    EXPECT_EQ(crashed.Reason(GRADE_CORRECT), "crashed with SIGSEGV in run() of your lab");
    for (const Lab *l : {&missing, &broken, &crashed})
        for (int c = 0; c < GRADE_CHECKS; c++) EXPECT_EQ(l->lab.checks[c].points, 0);
}

TEST(Score, AnUnknownBoundMeansNoSpeedPointsAndSaysWhy) {
    Lab l(R"({"status":"below_target","correct":true,"races":0,"speedup":2.0,"pipeline_bound":0,"target":0})");
    grade_rubric_lab r = Rule(GRADE_UNIT_BOUND_FRACTION, false, 0.4, false, 0.65);
    grade_score_lab(&r, &l.lab);
    EXPECT_EQ(l.Points(GRADE_SPEEDUP), 0);
    EXPECT_NE(l.Reason(GRADE_SPEEDUP).find("could not measure its bound"), std::string::npos);
}

// ---- the measurement check (lab 02: a stage timed with CUDA events and reported) ----------

grade_rubric_lab MeasuredRule() {
    grade_rubric_lab r = Rule(GRADE_UNIT_BOUND_FRACTION, true, 0, true, 0);
    snprintf(r.id, sizeof(r.id), "02_events");
    r.measurement_points = 20;
    return r;
}

// A correct, race-free, fast result with the given "measurement" member (none when empty).
std::string Measured(const std::string &measurement, const std::string &head = R"("correct":true,"races":0)") {
    return "{\"status\":\"pass\"," + head + R"(,"speedup":2.5,"pipeline_bound":2.6,"target":1.7,"runs":5)" +
           (measurement.empty() ? "" : ",\"measurement\":" + measurement) + "}";
}

const char kCombineOk[] = R"({"name":"combine","reported":true,"reported_ms":1.65,"device_ms":1.62,"ops":24,"ok":true,
    "why":"you reported 1.650 ms; the GPU ran its 24 combine kernels for 1.620 ms: right"})";
const char kSplitWrong[] = R"({"name":"split","reported":true,"reported_ms":0.05,"device_ms":0.9,"ops":24,"ok":false,
    "why":"you reported 0.050 ms, but the GPU ran its 24 split kernels for 0.900 ms: a host clock"})";

TEST(Score, AnAcceptedMeasurementGetsItsPoints) {
    grade_rubric_lab rule = MeasuredRule();
    Lab l(Measured(std::string(R"({"ok":true,"stages":[)") + kCombineOk + "]}"), 20);
    grade_score_lab(&rule, &l.lab);
    EXPECT_TRUE(grade_lab_has_check(&l.lab, GRADE_MEASUREMENT));
    EXPECT_EQ(l.Points(GRADE_MEASUREMENT), 20);
    EXPECT_TRUE(l.lab.checks[GRADE_MEASUREMENT].passed);
    EXPECT_EQ(l.Reason(GRADE_MEASUREMENT),
              "the lab accepted your timing of 1 stage: combine: you reported 1.650 ms; the GPU ran its 24 combine "
              "kernels for 1.620 ms: right");
    // The other checks are scored as ever.
    EXPECT_EQ(l.Points(GRADE_CORRECT), 40);
    EXPECT_EQ(l.Points(GRADE_SPEEDUP), 40);
}

TEST(Score, ARejectedMeasurementGetsNoneAndSaysWhyForTheStagesThatFailed) {
    grade_rubric_lab rule = MeasuredRule();
    Lab l(Measured(std::string(R"({"ok":false,"stages":[)") + kCombineOk + "," + kSplitWrong + "]}"), 20);
    grade_score_lab(&rule, &l.lab);
    EXPECT_EQ(l.Points(GRADE_MEASUREMENT), 0);
    EXPECT_FALSE(l.lab.checks[GRADE_MEASUREMENT].passed);
    EXPECT_EQ(l.Reason(GRADE_MEASUREMENT),
              "the lab did not accept your timing of 1 of 2 stages: split: you reported 0.050 ms, but the GPU ran its "
              "24 split kernels for 0.900 ms: a host clock");
    // Speed is independent of it.
    EXPECT_EQ(l.Points(GRADE_SPEEDUP), 40);

    // A stage without words of its own is described by its figures.
    Lab bare(Measured(R"({"ok":false,"stages":[{"name":"combine","reported":false,"reported_ms":0,"device_ms":1.5,
                           "ops":24,"ok":false}]})"),
             20);
    grade_score_lab(&rule, &bare.lab);
    EXPECT_EQ(bare.Points(GRADE_MEASUREMENT), 0);
    EXPECT_EQ(bare.Reason(GRADE_MEASUREMENT),
              "the lab did not accept your timing of 1 stage: combine: not reported; the GPU ran 24 ops for 1.500 ms");
}

TEST(Score, NoMeasurementInTheResultGetsNoneWhenTheRubricWantsOne) {
    grade_rubric_lab rule = MeasuredRule();
    Lab l(Measured(""), 20);
    grade_score_lab(&rule, &l.lab);
    EXPECT_EQ(l.Points(GRADE_MEASUREMENT), 0);
    EXPECT_EQ(l.Reason(GRADE_MEASUREMENT), "the lab reported no measurement");
    Lab junk(Measured("17"), 20);
    grade_score_lab(&rule, &junk.lab);
    EXPECT_EQ(junk.Reason(GRADE_MEASUREMENT), "the lab reported no measurement");
    Lab empty(Measured(R"({"ok":false,"stages":[]})"), 20);
    grade_score_lab(&rule, &empty.lab);
    EXPECT_EQ(empty.Reason(GRADE_MEASUREMENT), "the lab did not accept your measurement (it reported no stage)");
}

TEST(Score, AMeasurementCountsOnlyForACorrectResultButARaceDoesNotCostIt) {
    grade_rubric_lab rule = MeasuredRule();
    std::string ok = std::string(R"({"ok":true,"stages":[)") + kCombineOk + "]}";
    Lab wrong(Measured(ok, R"("correct":false,"races":0)"), 20);
    grade_score_lab(&rule, &wrong.lab);
    EXPECT_EQ(wrong.Points(GRADE_MEASUREMENT), 0);
    EXPECT_EQ(wrong.Reason(GRADE_MEASUREMENT), "not scored: a measurement counts only for correct results");

    Lab racy(Measured(ok, R"("correct":true,"races":2)"), 20);
    grade_score_lab(&rule, &racy.lab);
    EXPECT_EQ(racy.Points(GRADE_RACE_FREE), 0);
    EXPECT_EQ(racy.Points(GRADE_SPEEDUP), 0);
    EXPECT_EQ(racy.Points(GRADE_MEASUREMENT), 20);
}

TEST(Score, AMeasurementOfALabThatDidNotFinishGetsNothing) {
    grade_rubric_lab rule = MeasuredRule();
    std::string ok = std::string(R"({"ok":true,"stages":[)") + kCombineOk + "]}";
    Lab error(R"({"status":"error","error":"your setup() returned 1","correct":true,"races":0,"measurement":)" + ok + "}",
              20);
    grade_score_lab(&rule, &error.lab);
    EXPECT_EQ(error.Points(GRADE_MEASUREMENT), 0);
    EXPECT_EQ(error.Reason(GRADE_MEASUREMENT), "not checked: the lab stopped with an error (your setup() returned 1)");

    Lab crashed("", 20);
    crashed.lab.failure = grade_strdup("crashed with SIGSEGV in run() of your lab");
    grade_score_lab(&rule, &crashed.lab);
    EXPECT_EQ(crashed.Points(GRADE_MEASUREMENT), 0);
    EXPECT_EQ(crashed.Reason(GRADE_MEASUREMENT),
              "not checked: the lab did not run to the end (crashed with SIGSEGV in run() of your lab)");

    Lab broken("", 20);
    broken.lab.build_error = grade_strdup("does not compile: lab.c:1:1: error: x");
    grade_score_lab(&rule, &broken.lab);
    EXPECT_EQ(broken.Reason(GRADE_MEASUREMENT), "not checked: does not compile: lab.c:1:1: error: x");

    Lab missing("", 20);
    missing.lab.submitted = false;
    missing.lab.missing = grade_strdup("no labs/02_events/lab.c");
    grade_score_lab(&rule, &missing.lab);
    EXPECT_EQ(missing.Reason(GRADE_MEASUREMENT), "not submitted: no labs/02_events/lab.c");
    for (const Lab *l : {&error, &crashed, &broken, &missing}) EXPECT_EQ(l->Points(GRADE_MEASUREMENT), 0);
}

TEST(Score, ALabWithoutMeasurementPointsHasNoSuchCheck) {
    // Even when its result carries a measurement, a rubric without the check gives nothing
    // for it and takes nothing: the lab's total is what it always was.
    Lab l(Measured(std::string(R"({"ok":true,"stages":[)") + kCombineOk + "]}"));
    grade_score_lab(&kRule, &l.lab);
    EXPECT_FALSE(grade_lab_has_check(&l.lab, GRADE_MEASUREMENT));
    EXPECT_EQ(grade_lab_checks(&l.lab), 3);
    EXPECT_EQ(l.Points(GRADE_MEASUREMENT), 0);
    EXPECT_EQ(l.lab.checks[GRADE_MEASUREMENT].max, 0);
    for (grade_check_id c : {GRADE_CORRECT, GRADE_RACE_FREE, GRADE_SPEEDUP}) EXPECT_TRUE(grade_lab_has_check(&l.lab, c));
}

}  // namespace
