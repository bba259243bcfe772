// grading/grade_rubric_test.cc: the rubric loader: the shipped rubric loads; every kind of
// mistake an instructor can make is reported with the file, the field and the problem.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <cjson/cJSON.h>

extern "C" {
#include "grading/score/grade_rubric.h"
}

namespace {

std::string Runfile(const std::string &rel) {
    const char *dir = std::getenv("TEST_SRCDIR");
    return std::string(dir ? dir : ".") + "/streamlab/" + rel;
}

// Parses text as "r.json"; returns "" on success, else the message.
std::string Error(const std::string &text) {
    grade_rubric r;
    char err[1024];
    int rc = grade_rubric_parse(text.data(), text.size(), "r.json", &r, err, sizeof(err));
    if (rc == 0) {
        grade_rubric_free(&r);
        return "";
    }
    return err;
}

// A valid lab entry with one part replaced.
std::string Lab(const std::string &correct = R"({"points": 40})", const std::string &race = R"({"points": 20})",
                const std::string &speed = R"({"points": 40, "unit": "bound_fraction", "floor": "baseline", "target": "lab"})",
                const std::string &extra = "") {
    return R"({"labs": {"03_double_buffer": {"correct": )" + correct + R"(, "race_free": )" + race +
           R"(, "speedup": )" + speed + extra + "}}}";
}

TEST(Rubric, TheShippedRubricLoads) {
    grade_rubric r;
    char err[1024];
    ASSERT_EQ(grade_rubric_load(Runfile("grading/rubric.json").c_str(), &r, err, sizeof(err)), 0) << err;
    const grade_rubric_lab *lab = grade_rubric_find(&r, "03_double_buffer");
    ASSERT_NE(lab, nullptr);
    EXPECT_GT(grade_rubric_lab_points(lab), 0);
    EXPECT_GT(r.noise_band, 0);
    EXPECT_EQ(grade_rubric_find(&r, "99_nothing"), nullptr);
    grade_rubric_free(&r);
}

// The grader builds a kit for every lab in labs/catalog.json; the shipped rubric must
// give each of them its points, or a new lab could not be graded without editing it.
TEST(Rubric, TheShippedRubricScoresEveryLabInTheCatalog) {
    std::ifstream in(Runfile("labs/catalog.json"));
    std::stringstream text;
    text << in.rdbuf();
    cJSON *catalog = cJSON_Parse(text.str().c_str());
    ASSERT_NE(catalog, nullptr);
    grade_rubric r;
    char err[1024];
    ASSERT_EQ(grade_rubric_load(Runfile("grading/rubric.json").c_str(), &r, err, sizeof(err)), 0) << err;
    int labs = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(catalog, "labs")) {
        const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "id"));
        ASSERT_NE(id, nullptr);
        EXPECT_NE(grade_rubric_find(&r, id), nullptr) << "grading/rubric.json has no entry for " << id;
        labs++;
    }
    EXPECT_GE(labs, 2);
    EXPECT_EQ(r.n_labs, static_cast<size_t>(labs)) << "the rubric scores labs the catalog does not list";
    grade_rubric_free(&r);
    cJSON_Delete(catalog);
}

TEST(Rubric, LabsAreNamedByIdNumberOrUniquePrefix) {
    grade_rubric r;
    char err[1024];
    std::string two = R"({"labs": {"00_default_stream": {"correct": {"points": 40}, "race_free": {"points": 20},
        "speedup": {"points": 40, "unit": "bound_fraction", "floor": "baseline", "target": "lab"}},
        "03_double_buffer": {"correct": {"points": 40}, "race_free": {"points": 20},
        "speedup": {"points": 40, "unit": "bound_fraction", "floor": "baseline", "target": "lab"}}}})";
    ASSERT_EQ(grade_rubric_parse(two.data(), two.size(), "r.json", &r, err, sizeof(err)), 0) << err;
    auto id = [&](const char *name) {
        const grade_rubric_lab *l = grade_rubric_lookup(&r, name);
        return std::string(l ? l->id : "(none)");
    };
    EXPECT_EQ(id("03_double_buffer"), "03_double_buffer");
    EXPECT_EQ(id("03"), "03_double_buffer");
    EXPECT_EQ(id("3"), "03_double_buffer");
    EXPECT_EQ(id("0"), "00_default_stream");
    EXPECT_EQ(id("00_def"), "00_default_stream");
    EXPECT_EQ(id("0"), "00_default_stream");
    EXPECT_EQ(id("0_"), "(none)");
    EXPECT_EQ(id("04"), "(none)");
    EXPECT_EQ(id(""), "(none)");
    grade_rubric_free(&r);
}

TEST(Rubric, ValuesAreReadAsWritten) {
    grade_rubric r;
    char err[1024];
    std::string text = R"({"noise": {"band": 0.1, "max_reruns": 3}, "labs": {"03_double_buffer": {
        "correct": {"points": 5}, "race_free": {"points": 0.5},
        "speedup": {"points": 7, "unit": "speedup", "floor": 1.2, "target": 2.5}}}})";
    ASSERT_EQ(grade_rubric_parse(text.data(), text.size(), "r.json", &r, err, sizeof(err)), 0) << err;
    ASSERT_EQ(r.n_labs, 1u);
    const grade_rubric_lab &l = r.labs[0];
    EXPECT_EQ(l.correct_points, 5);
    EXPECT_EQ(l.race_free_points, 0.5);
    EXPECT_EQ(l.speed.points, 7);
    EXPECT_EQ(l.speed.unit, GRADE_UNIT_SPEEDUP);
    EXPECT_FALSE(l.speed.floor_is_baseline);
    EXPECT_EQ(l.speed.floor, 1.2);
    EXPECT_FALSE(l.speed.target_is_lab);
    EXPECT_EQ(l.speed.target, 2.5);
    EXPECT_EQ(r.noise_band, 0.1);
    EXPECT_EQ(r.max_reruns, 3);
    EXPECT_EQ(grade_rubric_lab_points(&l), 12.5);
    grade_rubric_free(&r);
}

TEST(Rubric, CommentsAreAllowedAnywhere) {
    EXPECT_EQ(Error(R"({"comment": "x", "labs": {"comment": "y", "03_double_buffer": {"comment": "z",
        "correct": {"points": 1, "comment": "w"}, "race_free": {"points": 1},
        "speedup": {"points": 1, "unit": "speedup", "floor": "baseline", "target": 2}}}})"),
              "");
}

TEST(Rubric, BrokenJsonSaysWhere) {
    EXPECT_EQ(Error("{\n  \"labs\": {,\n}"), "r.json: line 2, column 13: not valid JSON");
    EXPECT_EQ(Error("[1, 2]"), "r.json: must hold one JSON object {...}");
}

TEST(Rubric, UnknownKeysAreNamed) {
    EXPECT_EQ(Error(R"({"labs": {}, "bonus": 1})"), "r.json: bonus: unknown key (expected labs, noise, or comment)");
    EXPECT_EQ(Error(Lab(R"({"points": 40})", R"({"points": 20})",
                        R"({"points": 40, "unit": "speedup", "floor": 1, "target": 2, "stretch": 3})")),
              "r.json: labs.03_double_buffer.speedup.stretch: unknown key (expected points, unit, floor, target, or "
              "comment)");
    EXPECT_EQ(Error(Lab(R"({"points": 40})", R"({"points": 20})",
                        R"({"points": 40, "unit": "speedup", "floor": 1, "target": 2})", R"(, "style": {"points": 1})")),
              "r.json: labs.03_double_buffer.style: unknown key (expected correct, race_free, speedup, measurement, late, "
              "output, or comment)");
}

TEST(Rubric, MissingFieldsAreNamed) {
    EXPECT_EQ(Error(R"({"noise": {"band": 0.05}})"), "r.json: labs: missing (the labs to grade and their points)");
    EXPECT_EQ(Error(R"({"labs": {}})"), "r.json: labs: must be an object with at least one lab");
    EXPECT_EQ(Error(R"({"labs": {"03_double_buffer": {"correct": {"points": 1}, "race_free": {"points": 1}}}})"),
              "r.json: labs.03_double_buffer.speedup: missing");
    EXPECT_EQ(Error(Lab("{}")), "r.json: labs.03_double_buffer.correct.points: missing");
    EXPECT_EQ(Error(Lab(R"({"points": 40})", R"({"points": 20})", R"({"points": 40, "floor": 1, "target": 2})")),
              "r.json: labs.03_double_buffer.speedup.unit: missing (\"bound_fraction\" or \"speedup\")");
    EXPECT_EQ(Error(Lab(R"({"points": 40})", R"({"points": 20})", R"({"points": 40, "unit": "speedup", "floor": 1})")),
              "r.json: labs.03_double_buffer.speedup.target: missing");
}

TEST(Rubric, WrongValuesAreNamed) {
    EXPECT_EQ(Error(Lab(R"({"points": -5})")), "r.json: labs.03_double_buffer.correct.points: must not be negative (it is -5)");
    EXPECT_EQ(Error(Lab(R"({"points": "40"})")), "r.json: labs.03_double_buffer.correct.points: must be a number");
    EXPECT_EQ(Error(Lab(R"({"points": 40})", R"({"points": 20})",
                        R"({"points": 40, "unit": "percent", "floor": 1, "target": 2})")),
              "r.json: labs.03_double_buffer.speedup.unit: must be \"bound_fraction\" or \"speedup\"");
    EXPECT_EQ(Error(Lab(R"({"points": 40})", R"({"points": 20})",
                        R"({"points": 40, "unit": "bound_fraction", "floor": 0.9, "target": 0.65})")),
              "r.json: labs.03_double_buffer.speedup: floor (0.9) must be below target (0.65)");
    EXPECT_EQ(Error(Lab(R"({"points": 40})", R"({"points": 20})",
                        R"({"points": 40, "unit": "bound_fraction", "floor": 0.5, "target": 0.5})")),
              "r.json: labs.03_double_buffer.speedup: floor (0.5) must be below target (0.5)");
    EXPECT_EQ(Error(Lab(R"({"points": 40})", R"({"points": 20})",
                        R"({"points": 40, "unit": "bound_fraction", "floor": "baseline", "target": 1.5})")),
              "r.json: labs.03_double_buffer.speedup: target (1.5) is a fraction of the pipeline bound, which no run "
              "exceeds: use 1 or less");
    EXPECT_EQ(Error(Lab(R"({"points": 40})", R"({"points": 20})",
                        R"({"points": 40, "unit": "speedup", "floor": "baseline", "target": 0.8})")),
              "r.json: labs.03_double_buffer.speedup: target (0.8) must be above the baseline's speedup 1 when floor is "
              "\"baseline\"");
    EXPECT_EQ(Error(Lab(R"({"points": 40})", R"({"points": 20})",
                        R"({"points": 40, "unit": "speedup", "floor": "fast", "target": 2})")),
              "r.json: labs.03_double_buffer.speedup.floor: must be a number or \"baseline\"");
    EXPECT_EQ(Error(R"({"noise": {"band": 0.7}, "labs": {}})"),
              "r.json: noise.band: must be a fraction from 0 to below 0.5 (0.05 is 5%)");
    EXPECT_EQ(Error(R"({"noise": {"max_reruns": 1.5}, "labs": {}})"),
              "r.json: noise.max_reruns: must be a whole number from 0 to 10");
    EXPECT_EQ(Error(R"({"labs": {"Lab 3": {}}})"),
              "r.json: labs.Lab 3: is not a lab id (lower-case letters, digits and _, like 03_double_buffer)");
}

TEST(Rubric, ALabTwiceIsAnError) {
    std::string lab = R"("03_double_buffer": {"correct": {"points": 1}, "race_free": {"points": 1},
        "speedup": {"points": 1, "unit": "speedup", "floor": 1, "target": 2}})";
    EXPECT_EQ(Error("{\"labs\": {" + lab + ", " + lab + "}}"), "r.json: labs.03_double_buffer: appears twice");
}

TEST(Rubric, AMissingFileIsNamed) {
    grade_rubric r;
    char err[1024];
    EXPECT_EQ(grade_rubric_load("/nonexistent/rubric.json", &r, err, sizeof(err)), -1);
    EXPECT_EQ(std::string(err), "rubric /nonexistent/rubric.json: No such file or directory");
}

// The optional fourth check: points for a stage the student timed and reported (lab 02).
TEST(Rubric, MeasurementIsOptionalAndReadAsWritten) {
    grade_rubric r;
    char err[1024];
    std::string text = Lab(R"({"points": 40})", R"({"points": 20})",
                           R"({"points": 40, "unit": "bound_fraction", "floor": "baseline", "target": "lab"})",
                           R"(, "measurement": {"points": 20, "comment": "lab 02: the combine stage, timed with events"})");
    ASSERT_EQ(grade_rubric_parse(text.data(), text.size(), "r.json", &r, err, sizeof(err)), 0) << err;
    EXPECT_EQ(r.labs[0].measurement_points, 20);
    EXPECT_EQ(grade_rubric_lab_points(&r.labs[0]), 120);
    grade_rubric_free(&r);
    // Left out: no points, and no such check.
    text = Lab();
    ASSERT_EQ(grade_rubric_parse(text.data(), text.size(), "r.json", &r, err, sizeof(err)), 0) << err;
    EXPECT_EQ(r.labs[0].measurement_points, 0);
    EXPECT_EQ(grade_rubric_lab_points(&r.labs[0]), 100);
    grade_rubric_free(&r);
}

TEST(Rubric, ABadMeasurementFieldIsNamed) {
    const std::string speed = R"({"points": 40, "unit": "bound_fraction", "floor": "baseline", "target": "lab"})";
    auto with = [&](const std::string &m) { return Error(Lab(R"({"points": 40})", R"({"points": 20})", speed, m)); };
    EXPECT_EQ(with(R"(, "measurement": 20)"), "r.json: labs.03_double_buffer.measurement: must be an object {...}");
    EXPECT_EQ(with(R"(, "measurement": {})"), "r.json: labs.03_double_buffer.measurement.points: missing");
    EXPECT_EQ(with(R"(, "measurement": {"points": -20})"),
              "r.json: labs.03_double_buffer.measurement.points: must not be negative (it is -20)");
    EXPECT_EQ(with(R"(, "measurement": {"points": "20"})"),
              "r.json: labs.03_double_buffer.measurement.points: must be a number");
    EXPECT_EQ(with(R"(, "measurement": {"points": 1e9})"),
              "r.json: labs.03_double_buffer.measurement.points: is implausibly large (over a million points)");
    EXPECT_EQ(with(R"(, "measurement": {"points": 20, "tolerance": 0.1})"),
              "r.json: labs.03_double_buffer.measurement.tolerance: unknown key (expected points, or comment)");
}

// A lab key the course does not have is the rubric's mistake: said with the nearest lab,
// naming the rubric as the instructor gave it (not its place in Bazel's cache).
TEST(Rubric, ALabKeyWithATypoNamesTheNearestLab) {
    grade_rubric r;
    char err[1024];
    std::string text = Lab();
    size_t at = text.find("03_double_buffer");
    text.replace(at, 16, "03_double_bufer");
    const char *known[] = {"00_default_stream", "03_double_buffer", "05_cross_stream_races"};
    ASSERT_EQ(grade_rubric_parse(text.data(), text.size(), "grading/rubric.json", &r, err, sizeof(err)), 0) << err;
    EXPECT_EQ(grade_rubric_check_labs(&r, known, 3, err, sizeof(err)), -1);
    EXPECT_NE(std::string(err).find("grading/rubric.json: labs.03_double_bufer: no such lab: did you mean "
                                    "03_double_buffer?"),
              std::string::npos)
        << err;
    grade_rubric_free(&r);
    // Far from every lab: no guess, the list.
    text.replace(at, 15, "42_nothing_like");
    ASSERT_EQ(grade_rubric_parse(text.data(), text.size(), "my.json", &r, err, sizeof(err)), 0) << err;
    EXPECT_EQ(grade_rubric_check_labs(&r, known, 3, err, sizeof(err)), -1);
    EXPECT_EQ(std::string(err).find("did you mean"), std::string::npos) << err;
    EXPECT_NE(std::string(err).find("the labs are: 00_default_stream, 03_double_buffer"), std::string::npos) << err;
    grade_rubric_free(&r);
    ASSERT_EQ(grade_rubric_parse(Lab().data(), Lab().size(), "my.json", &r, err, sizeof(err)), 0) << err;
    EXPECT_EQ(grade_rubric_check_labs(&r, known, 3, err, sizeof(err)), 0) << err;
    grade_rubric_free(&r);

    // A file that cannot be read is named as given too.
    EXPECT_EQ(grade_rubric_load_as("/nowhere/rubric.json", "grading/rubric.json", &r, err, sizeof(err)), -1);
    EXPECT_NE(std::string(err).find("grading/rubric.json"), std::string::npos) << err;
    EXPECT_EQ(std::string(err).find("/nowhere"), std::string::npos) << err;
}

// Points that do not add up to 100 load, with a warning that says so.
TEST(Rubric, PointsThatDoNotAddUpTo100AreWarnedAbout) {
    grade_rubric r;
    char err[1024];
    std::string text = Lab(R"({"points": 50})");
    ASSERT_EQ(grade_rubric_parse(text.data(), text.size(), "r.json", &r, err, sizeof(err)), 0) << err;
    char *w = grade_rubric_warnings(&r);
    ASSERT_NE(w, nullptr);
    EXPECT_NE(std::string(w).find("r.json: labs.03_double_buffer: its checks give 110 points in all, not 100"),
              std::string::npos)
        << w;
    free(w);
    grade_rubric_free(&r);
    ASSERT_EQ(grade_rubric_parse(Lab().data(), Lab().size(), "r.json", &r, err, sizeof(err)), 0) << err;
    EXPECT_EQ(grade_rubric_warnings(&r), nullptr);
    grade_rubric_free(&r);
}

// The two settings: race points only with correct results, output past the limit cut.
TEST(Rubric, RaceNeedsCorrectAndOutputCut) {
    grade_rubric r;
    char err[1024];
    std::string text = Lab(R"({"points": 40})", R"({"points": 20, "needs_correct": true})",
                           R"({"points": 40, "unit": "bound_fraction", "floor": "baseline", "target": "lab"})",
                           R"(, "output": "cut")");
    ASSERT_EQ(grade_rubric_parse(text.data(), text.size(), "r.json", &r, err, sizeof(err)), 0) << err;
    EXPECT_TRUE(r.labs[0].race_needs_correct);
    EXPECT_TRUE(r.labs[0].output_cut);
    grade_rubric_free(&r);
    ASSERT_EQ(grade_rubric_parse(Lab().data(), Lab().size(), "r.json", &r, err, sizeof(err)), 0) << err;
    EXPECT_FALSE(r.labs[0].race_needs_correct);  // the defaults
    EXPECT_FALSE(r.labs[0].output_cut);
    grade_rubric_free(&r);
    EXPECT_NE(Error(Lab(R"({"points": 40})", R"({"points": 20, "needs_correct": "yes"})")).find(
                  "r.json: labs.03_double_buffer.race_free.needs_correct: must be true or false"),
              std::string::npos);
    EXPECT_NE(Error(Lab(R"({"points": 40})", R"({"points": 20})",
                        R"({"points": 40, "unit": "bound_fraction", "floor": "baseline", "target": "lab"})",
                        R"(, "output": "drop")"))
                  .find("r.json: labs.03_double_buffer.output: must be \"fail\""),
              std::string::npos);
}

}  // namespace
