// grading/grade_reports_test.cc: what the reports are made of: cleaning untrusted text,
// XML and CSV quoting, and the four writers (report.txt, results.json, junit.xml,
// gradebook.csv) on students whose names and messages hold anything a submission can put
// there.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include <cjson/cJSON.h>

extern "C" {
#include "grading/base/grade_text.h"
#include "grading/reports/grade_gradebook.h"
#include "grading/reports/grade_progress.h"
#include "grading/reports/grade_report_gradescope.h"
#include "grading/reports/grade_report_junit.h"
#include "grading/reports/grade_report_text.h"
#include "grading/score/grade_result.h"
}

namespace {

std::string Take(char *s) {
    std::string r = s ? s : "";
    free(s);
    return r;
}

std::string Clean(const std::string &s, size_t max = 1 << 20) { return Take(grade_text_clean(s.data(), s.size(), max)); }

TEST(Text, CleanKeepsValidUtf8AndLayout) {
    EXPECT_EQ(Clean("plain\ttext\nline two\n"), "plain\ttext\nline two\n");
    EXPECT_EQ(Clean("bl\xc3\xa9 \xe2\x96\x88 \xf0\x9f\x98\x80"), "bl\xc3\xa9 \xe2\x96\x88 \xf0\x9f\x98\x80");
}

TEST(Text, CleanReplacesWhatCannotBeShown) {
    EXPECT_EQ(Clean("a\x1b[2Jb"), "a?[2Jb");                   // escape sequences
    EXPECT_EQ(Clean("crlf\r\n"), "crlf\n");                     // carriage returns
    EXPECT_EQ(Clean(std::string("nul\0byte", 8)), "nul?byte");  // NUL
    EXPECT_EQ(Clean("\xff\xfe"), "\xef\xbf\xbd\xef\xbf\xbd");   // not UTF-8
    EXPECT_EQ(Clean("\xc0\x80"), "\xef\xbf\xbd\xef\xbf\xbd");   // overlong NUL
    EXPECT_EQ(Clean("\xed\xa0\x80"), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");  // a surrogate
    EXPECT_EQ(Clean("\xc2\x9b"), "\xef\xbf\xbd\xef\xbf\xbd");  // C1 control (CSI)
    EXPECT_EQ(Clean("\xe2\x96"), "\xef\xbf\xbd\xef\xbf\xbd");  // cut sequence
}

TEST(Text, CleanCutsLongTextAndSaysHowMuch) {
    std::string s(1000, 'x');
    EXPECT_EQ(Clean(s, 10), "xxxxxxxxxx\n[... 990 more bytes not shown]\n");
}

TEST(Text, FirstLineAndReplace) {
    EXPECT_EQ(Take(grade_text_first_line("one\ntwo", 100)), "one");
    // Never cut inside a UTF-8 sequence.
    EXPECT_EQ(Take(grade_text_first_line("ab\xc3\xa9", 3)), "ab");
    EXPECT_EQ(Take(grade_text_replace("/s/x/a.c and /s/x/b.c", "/s/x/", "")), "a.c and b.c");
}

TEST(Xml, EscapesMarkupAndControls) {
    EXPECT_EQ(Take(grade_xml_escape("<a href=\"x\">&'</a>")), "&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;");
    EXPECT_EQ(Take(grade_xml_escape("line\nnext\x01\x07")), "line&#10;next??");
    EXPECT_EQ(Take(grade_xml_escape("\xff")), "\xef\xbf\xbd");
}

TEST(Csv, QuotesOnlyWhatNeedsIt) {
    EXPECT_EQ(Take(grade_csv_field("alice")), "alice");
    EXPECT_EQ(Take(grade_csv_field("smith, alice")), "\"smith, alice\"");
    EXPECT_EQ(Take(grade_csv_field("say \"hi\"")), "\"say \"\"hi\"\"\"");
    EXPECT_EQ(Take(grade_csv_field("two\nlines")), "\"two\nlines\"");
    EXPECT_EQ(Take(grade_csv_field("")), "");
}

// A cell a spreadsheet would run as a formula is shown as text (a ' before it).
TEST(Csv, EscapesCellsASpreadsheetWouldRunAsAFormula) {
    EXPECT_EQ(Take(grade_csv_field("=HYPERLINK(\"http://x\")")), "\"'=HYPERLINK(\"\"http://x\"\")\"");
    EXPECT_EQ(Take(grade_csv_field("+1")), "'+1");
    EXPECT_EQ(Take(grade_csv_field("-2")), "'-2");
    EXPECT_EQ(Take(grade_csv_field("@SUM(A1)")), "'@SUM(A1)");
    EXPECT_EQ(Take(grade_csv_field("a=b")), "a=b");
}

// A student with one lab: correct full, race-free partial... as given.
struct Student {
    grade_student s;
    explicit Student(const std::string &name, const std::string &reason, double correct = 40) {
        memset(&s, 0, sizeof(s));
        s.name = grade_strdup(name.c_str());
        s.source = grade_strdup("alice/ (a folder)");
        s.labs = static_cast<grade_lab *>(calloc(1, sizeof(grade_lab)));
        s.n_labs = 1;
        double max[GRADE_CHECKS] = {40, 20, 40};
        grade_lab_init(&s.labs[0], "03_double_buffer", "labs/03_double_buffer/lab.c", max);
        s.labs[0].submitted = true;
        grade_check_set(&s.labs[0].checks[GRADE_CORRECT], correct, reason.c_str());
        grade_check_set(&s.labs[0].checks[GRADE_RACE_FREE], 20, "no races");
        grade_check_set(&s.labs[0].checks[GRADE_SPEEDUP], 13.333, "part of the way");
        grade_student_total(&s);
    }
    ~Student() { grade_student_free(&s); }
};

const grade_report_context kCtx = {"the SIMULATED GPU", "sandboxed", "2 runs", "today", nullptr};

TEST(Reports, ChecksArePointsRoundedAndTotalled) {
    Student st("alice", "fine");
    EXPECT_EQ(st.s.labs[0].checks[GRADE_SPEEDUP].points, 13.33);
    EXPECT_FALSE(st.s.labs[0].checks[GRADE_SPEEDUP].passed);
    EXPECT_TRUE(st.s.labs[0].checks[GRADE_CORRECT].passed);
    EXPECT_EQ(st.s.score, 73.33);
    EXPECT_EQ(st.s.max_score, 100);
    // Points never leave 0..max.
    grade_check_set(&st.s.labs[0].checks[GRADE_CORRECT], 99, "too many");
    EXPECT_EQ(st.s.labs[0].checks[GRADE_CORRECT].points, 40);
    grade_check_set(&st.s.labs[0].checks[GRADE_CORRECT], -1, "too few");
    EXPECT_EQ(st.s.labs[0].checks[GRADE_CORRECT].points, 0);
}

TEST(Reports, GradescopeJsonHasTheFormatAndSurvivesAnyText) {
    Student st("alice", "wrong: got \"\xff\x1b[31m\" </failure>", 0);
    std::string text = Take(grade_report_gradescope(&st.s, &kCtx));
    cJSON *j = cJSON_Parse(text.c_str());
    ASSERT_NE(j, nullptr) << text;
    EXPECT_EQ(cJSON_GetObjectItem(j, "score")->valuedouble, st.s.score);
    cJSON *tests = cJSON_GetObjectItem(j, "tests");
    ASSERT_EQ(cJSON_GetArraySize(tests), 3);
    cJSON *first = cJSON_GetArrayItem(tests, 0);
    EXPECT_STREQ(cJSON_GetObjectItem(first, "name")->valuestring, "03_double_buffer: correct");
    EXPECT_EQ(cJSON_GetObjectItem(first, "score")->valuedouble, 0);
    EXPECT_EQ(cJSON_GetObjectItem(first, "max_score")->valuedouble, 40);
    EXPECT_STREQ(cJSON_GetObjectItem(first, "status")->valuestring, "failed");
    EXPECT_STREQ(cJSON_GetObjectItem(first, "visibility")->valuestring, "visible");
    // Every string is valid UTF-8 without control characters: cleaning changes nothing.
    std::string out = cJSON_GetObjectItem(first, "output")->valuestring;
    EXPECT_EQ(Clean(out), out);
    EXPECT_EQ(out.find('\x1b'), std::string::npos);
    cJSON_Delete(j);
}

TEST(Reports, JunitEscapesEverything) {
    Student st("a<b>&\"c\"", "x < y && \"z\"\x01", 0);
    std::string xml = Take(grade_report_junit_student(&st.s));
    EXPECT_EQ(xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites", 0), 0u);
    EXPECT_NE(xml.find("name=\"a&lt;b&gt;&amp;&quot;c&quot;: 03_double_buffer\""), std::string::npos) << xml;
    EXPECT_NE(xml.find("<failure message=\"x &lt; y &amp;&amp; &quot;z&quot;?\" type=\"failed\">"), std::string::npos)
        << xml;
    // The speed check got part of its points: a failure of type partial.
    EXPECT_NE(xml.find("type=\"partial\">13.33 of 40.00 points"), std::string::npos) << xml;
    EXPECT_NE(xml.find("<system-out>20.00 of 20.00 points: no races</system-out>"), std::string::npos) << xml;
    EXPECT_NE(xml.find("tests=\"3\" failures=\"2\""), std::string::npos) << xml;
    const grade_student *list[] = {&st.s};
    std::string cls = Take(grade_report_junit_class(list, 1));
    EXPECT_NE(cls.find("<testsuite name=\"a&lt;b&gt;&amp;&quot;c&quot;\" tests=\"3\" failures=\"2\""), std::string::npos)
        << cls;
}

TEST(Reports, GradebookIsRfc4180) {
    Student a("smith, alice", "fine"), b("bob \"the builder\"", "wrong\nresults", 0);
    const grade_student *list[] = {&a.s, &b.s};
    std::string csv = Take(grade_gradebook_csv(list, 2));
    EXPECT_EQ(csv,
              "student,score,max_score,03_double_buffer correct,03_double_buffer race_free,03_double_buffer "
              "speedup,03_double_buffer adjustment,03_double_buffer adjustment_note,note\r\n"
              "\"smith, alice\",73.33,100.00,40.00,20.00,13.33,,,03_double_buffer: below the speed target\r\n"
              "\"bob \"\"the builder\"\"\",33.33,100.00,0.00,20.00,13.33,,,03_double_buffer: wrong results\r\n");
}

TEST(Reports, TextReportShowsEveryCheckAndTheContext) {
    Student st("alice", "every output bit matched");
    std::string text = Take(grade_report_text(&st.s, &kCtx));
    EXPECT_NE(text.find("streamlab grade report: alice\nscore 73.33 / 100.00\n"), std::string::npos) << text;
    EXPECT_NE(text.find("on          the SIMULATED GPU"), std::string::npos) << text;
    EXPECT_NE(text.find("sandbox     sandboxed"), std::string::npos) << text;
    EXPECT_NE(text.find("[PASS] correct    40.00 / 40.00  every output bit matched"), std::string::npos) << text;
    EXPECT_NE(text.find("[PART] speed      13.33 / 40.00  part of the way"), std::string::npos) << text;
}

TEST(Reports, StudentsSurviveTheTripThroughJson) {
    Student st("alice", "fine");
    st.s.labs[0].seed = (1ull << 53) - 1;
    st.s.labs[0].attempts = 2;
    st.s.labs[0].speedups[0] = 1.5;
    st.s.labs[0].speedups[1] = 1.7;
    st.s.labs[0].result = cJSON_Parse("{\"status\":\"pass\",\"races\":0}");
    cJSON *j = grade_student_to_json(&st.s);
    grade_student back;
    ASSERT_EQ(grade_student_from_json(j, &back), 0);
    EXPECT_STREQ(back.name, "alice");
    EXPECT_EQ(back.score, st.s.score);
    ASSERT_EQ(back.n_labs, 1u);
    EXPECT_EQ(back.labs[0].seed, (1ull << 53) - 1);
    EXPECT_EQ(back.labs[0].attempts, 2);
    EXPECT_EQ(back.labs[0].speedups[1], 1.7);
    EXPECT_STREQ(back.labs[0].checks[GRADE_SPEEDUP].reason, "part of the way");
    EXPECT_EQ(back.labs[0].checks[GRADE_SPEEDUP].points, 13.33);
    EXPECT_STREQ(cJSON_GetObjectItem(back.labs[0].result, "status")->valuestring, "pass");
    grade_student_free(&back);
    cJSON_Delete(j);
    grade_student junk;
    cJSON *bad = cJSON_Parse("[1]");
    EXPECT_EQ(grade_student_from_json(bad, &junk), -1);
    cJSON_Delete(bad);
}

// A student with two labs: 02_events, whose rubric gives the measurement check 20 points,
// and 03_double_buffer, whose rubric has no such check. Everything passes but, unless
// `measured`, the measurement.
struct TwoLabs {
    grade_student s;
    explicit TwoLabs(const std::string &name, bool measured = false) {
        memset(&s, 0, sizeof(s));
        s.name = grade_strdup(name.c_str());
        s.source = grade_strdup("alice/ (a folder)");
        s.labs = static_cast<grade_lab *>(calloc(2, sizeof(grade_lab)));
        s.n_labs = 2;
        double with[GRADE_CHECKS] = {40, 20, 40, 20}, without[GRADE_CHECKS] = {40, 20, 40};
        grade_lab_init(&s.labs[0], "02_events", "labs/02_events/lab.c", with);
        grade_lab_init(&s.labs[1], "03_double_buffer", "labs/03_double_buffer/lab.c", without);
        for (grade_lab *l : {&s.labs[0], &s.labs[1]}) {
            l->submitted = true;
            grade_check_set(&l->checks[GRADE_CORRECT], 40, "fine");
            grade_check_set(&l->checks[GRADE_RACE_FREE], 20, "no races");
            grade_check_set(&l->checks[GRADE_SPEEDUP], 40, "fast");
            grade_check_set(&l->checks[GRADE_MEASUREMENT], 0, "the lab reported no measurement");
        }
        grade_check_set(&s.labs[0].checks[GRADE_MEASUREMENT], measured ? 20 : 0,
                        measured ? "the lab accepted your timing of 1 stage: combine: right"
                                 : "the lab did not accept your timing of 1 stage: combine: a host clock");
        grade_student_total(&s);
    }
    ~TwoLabs() { grade_student_free(&s); }
};

TEST(Measurement, OnlyLabsWhoseRubricGivesItPointsHaveTheCheck) {
    TwoLabs st("alice");
    EXPECT_TRUE(grade_lab_has_check(&st.s.labs[0], GRADE_MEASUREMENT));
    EXPECT_FALSE(grade_lab_has_check(&st.s.labs[1], GRADE_MEASUREMENT));
    EXPECT_EQ(grade_lab_checks(&st.s.labs[0]), 4);
    EXPECT_EQ(grade_lab_checks(&st.s.labs[1]), 3);
    EXPECT_EQ(st.s.score, 200);
    EXPECT_EQ(st.s.max_score, 220);
}

TEST(Measurement, GradebookHasAColumnOnlyForLabsWithTheCheck) {
    TwoLabs a("alice"), b("bob", true);
    const grade_student *list[] = {&a.s, &b.s};
    std::string csv = Take(grade_gradebook_csv(list, 2));
    EXPECT_EQ(csv,
              "student,score,max_score,02_events correct,02_events race_free,02_events speedup,02_events measurement,"
              "02_events adjustment,02_events adjustment_note,"
              "03_double_buffer correct,03_double_buffer race_free,03_double_buffer speedup,"
              "03_double_buffer adjustment,03_double_buffer adjustment_note,note\r\n"
              "alice,200.00,220.00,40.00,20.00,40.00,0.00,,,40.00,20.00,40.00,,,02_events: measurement not accepted\r\n"
              "bob,220.00,220.00,40.00,20.00,40.00,20.00,,,40.00,20.00,40.00,,,\r\n");
    EXPECT_EQ(csv.find("03_double_buffer measurement"), std::string::npos);
}

TEST(Measurement, GradescopeHasATestOnlyForLabsWithTheCheck) {
    TwoLabs st("alice");
    std::string text = Take(grade_report_gradescope(&st.s, &kCtx));
    cJSON *j = cJSON_Parse(text.c_str());
    ASSERT_NE(j, nullptr) << text;
    cJSON *tests = cJSON_GetObjectItem(j, "tests");
    ASSERT_EQ(cJSON_GetArraySize(tests), 7);
    std::vector<std::string> names;
    const cJSON *t;
    cJSON_ArrayForEach(t, tests) names.push_back(cJSON_GetObjectItem(t, "name")->valuestring);
    EXPECT_EQ(names, (std::vector<std::string>{"02_events: correct", "02_events: race-free", "02_events: speed",
                                               "02_events: measurement", "03_double_buffer: correct",
                                               "03_double_buffer: race-free", "03_double_buffer: speed"}));
    const cJSON *m = cJSON_GetArrayItem(tests, 3);
    EXPECT_EQ(cJSON_GetObjectItem(m, "score")->valuedouble, 0);
    EXPECT_EQ(cJSON_GetObjectItem(m, "max_score")->valuedouble, 20);
    EXPECT_STREQ(cJSON_GetObjectItem(m, "status")->valuestring, "failed");
    EXPECT_STREQ(cJSON_GetObjectItem(m, "output")->valuestring,
                 "the lab did not accept your timing of 1 stage: combine: a host clock");
    EXPECT_EQ(cJSON_GetObjectItem(j, "score")->valuedouble, 200);
    cJSON_Delete(j);
}

TEST(Measurement, JunitCountsTheCheckOnlyForLabsWithIt) {
    TwoLabs st("alice");
    std::string xml = Take(grade_report_junit_student(&st.s));
    EXPECT_NE(xml.find("<testsuite name=\"alice: 02_events\" tests=\"4\" failures=\"1\""), std::string::npos) << xml;
    EXPECT_NE(xml.find("<testsuite name=\"alice: 03_double_buffer\" tests=\"3\" failures=\"0\""), std::string::npos)
        << xml;
    EXPECT_NE(xml.find("<testcase classname=\"alice.02_events\" name=\"measurement\""), std::string::npos) << xml;
    EXPECT_EQ(xml.find("<testcase classname=\"alice.03_double_buffer\" name=\"measurement\""), std::string::npos) << xml;
    EXPECT_NE(xml.find("type=\"failed\">0.00 of 20.00 points: the lab did not accept"), std::string::npos) << xml;
    const grade_student *list[] = {&st.s};
    std::string cls = Take(grade_report_junit_class(list, 1));
    EXPECT_NE(cls.find("<testsuite name=\"alice\" tests=\"7\" failures=\"1\""), std::string::npos) << cls;
}

TEST(Measurement, TextReportShowsTheCheckOnlyForLabsWithIt) {
    TwoLabs st("alice");
    std::string text = Take(grade_report_text(&st.s, &kCtx));
    EXPECT_NE(text.find("== 02_events (labs/02_events/lab.c): 100.00 / 120.00\n"), std::string::npos) << text;
    // The lab with the check widens its title column for it; the other keeps its own.
    EXPECT_NE(text.find("  [PASS] correct      40.00 / 40.00  fine\n"), std::string::npos) << text;
    EXPECT_NE(text.find("  [FAIL] measurement   0.00 / 20.00  the lab did not accept your timing of 1 stage: "
                        "combine: a host clock\n"),
              std::string::npos)
        << text;
    size_t lab03 = text.find("== 03_double_buffer");
    ASSERT_NE(lab03, std::string::npos) << text;
    EXPECT_NE(text.find("  [PASS] correct    40.00 / 40.00  fine\n", lab03), std::string::npos) << text;
    EXPECT_EQ(text.find("measurement", lab03), std::string::npos) << text;
}

TEST(Measurement, ProgressSaysWhatWasMissed) {
    TwoLabs a("alice"), b("bob", true);
    EXPECT_EQ(Take(grade_lab_outcome(&a.s.labs[0])), "100/120: measurement");
    EXPECT_EQ(Take(grade_lab_outcome(&a.s.labs[1])), "100: pass");
    EXPECT_EQ(Take(grade_lab_outcome(&b.s.labs[0])), "120: pass");
    const grade_student *list[] = {&a.s, &b.s};
    std::string table = Take(grade_summary_table(list, 2));
    EXPECT_NE(table.find("100/120: measurement"), std::string::npos) << table;
    EXPECT_NE(table.find("mean score 210.00 / 220.00"), std::string::npos) << table;
}

TEST(Measurement, TheCheckSurvivesTheTripThroughJsonAndItsAbsenceToo) {
    TwoLabs st("alice");
    cJSON *j = grade_student_to_json(&st.s);
    const cJSON *labs = cJSON_GetObjectItem(j, "labs");
    EXPECT_NE(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(labs, 0), "checks"), "measurement"), nullptr);
    // A lab without the check writes what it wrote before the check existed.
    EXPECT_EQ(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(labs, 1), "checks"), "measurement"), nullptr);
    grade_student back;
    ASSERT_EQ(grade_student_from_json(j, &back), 0);
    ASSERT_EQ(back.n_labs, 2u);
    EXPECT_TRUE(grade_lab_has_check(&back.labs[0], GRADE_MEASUREMENT));
    EXPECT_EQ(back.labs[0].checks[GRADE_MEASUREMENT].max, 20);
    EXPECT_EQ(back.labs[0].checks[GRADE_MEASUREMENT].points, 0);
    EXPECT_FALSE(back.labs[0].checks[GRADE_MEASUREMENT].passed);
    EXPECT_STREQ(back.labs[0].checks[GRADE_MEASUREMENT].reason,
                 "the lab did not accept your timing of 1 stage: combine: a host clock");
    EXPECT_FALSE(grade_lab_has_check(&back.labs[1], GRADE_MEASUREMENT));
    // And the writers say the same of it as of the original.
    const grade_student *originals[] = {&st.s}, *backs[] = {&back};
    std::string a = Take(grade_gradebook_csv(originals, 1));
    EXPECT_EQ(Take(grade_gradebook_csv(backs, 1)), a);
    grade_student_free(&back);
    cJSON_Delete(j);
}

// Display width: what a terminal gives a name, not its bytes.
TEST(Text, WidthAndPaddingCountColumnsNotBytes) {
    EXPECT_EQ(grade_text_width("alice"), 5u);
    EXPECT_EQ(grade_text_width("Zo\xc3\xab"), 3u);                  // Zoë: 4 bytes, 3 columns
    EXPECT_EQ(grade_text_width("\xe6\x9d\x8e\xe9\x9b\xb7"), 4u);    // 李雷: 6 bytes, 2 wide characters
    EXPECT_EQ(grade_text_width("e\xcc\x81"), 1u);                  // e + combining acute
    EXPECT_EQ(Take(grade_text_pad("Zo\xc3\xab", 5)), "Zo\xc3\xab  ");
    // Cut between characters, never inside one, and never past the width.
    EXPECT_EQ(Take(grade_text_pad("\xe6\x9d\x8e\xe9\x9b\xb7", 3)), "\xe6\x9d\x8e ");
    EXPECT_EQ(Take(grade_text_pad("alice\nbob", 3)), "ali");
}

// Every row of the table has its columns at the same display positions, whatever the names.
TEST(Summary, ColumnsAlignByDisplayWidthAndReasonsAreWhole) {
    Student a("alice", "fine"), b("Zo\xc3\xab \xc5\xa0im\xc5\xaf", "fine"), c("\xe6\x9d\x8e\xe9\x9b\xb7", "wrong", 0);
    grade_check_set(&c.s.labs[0].checks[GRADE_RACE_FREE], 0, "2 races found");
    grade_check_set(&c.s.labs[0].checks[GRADE_SPEEDUP], 0, "not scored");
    grade_student_total(&c.s);
    const grade_student *list[] = {&a.s, &b.s, &c.s};
    std::string table = Take(grade_summary_table(list, 3));
    std::vector<std::string> lines;
    std::stringstream ss(table);
    for (std::string line; std::getline(ss, line);) lines.push_back(line);
    ASSERT_EQ(lines.size(), 5u) << table;
    // The score column ends at the same column on every row.
    std::vector<size_t> ends;
    for (size_t i = 0; i < 4; i++) {
        size_t slash = lines[i].find(i == 0 ? "score" : " / 100.00");
        ASSERT_NE(slash, std::string::npos) << lines[i];
        std::string before = lines[i].substr(0, slash);
        ends.push_back(grade_text_width(before.c_str()) + (i == 0 ? 5 : 9));
    }
    for (size_t e : ends) EXPECT_EQ(e, ends[0]) << table;
    // Both of c's failures are named, not only the first.
    EXPECT_NE(lines[3].find("0/100: wrong and racy"), std::string::npos) << table;
    EXPECT_EQ(Take(grade_lab_outcome(&a.s.labs[0])), "73.33/100: slow");
}

TEST(Summary, AFailureShowsItsWholeFirstLine) {
    Student a("alice", "fine");
    a.s.labs[0].failure = grade_strdup("crashed with SIGSEGV in run() of your lab\nmore on the next line");
    for (int c = 0; c < GRADE_CHECKS; c++) a.s.labs[0].checks[c].points = 0;  // as scoring a failure leaves them
    EXPECT_EQ(Take(grade_lab_outcome(&a.s.labs[0])), "0: crashed with SIGSEGV in run() of your lab");
}

// A lab that stopped on an error of the program's (its setup() returned 1) is an error in
// the summary and the gradebook, with the lab's words, not "wrong and racy": its race
// check was never made.
TEST(Summary, AnErrorIsNamedAsTheLabSaidIt) {
    Student a("alice", "error: your setup() returned 1 after cudaHostRegister failed", 0);
    grade_lab *lab = &a.s.labs[0];
    lab->result = cJSON_Parse(
        "{\"status\": \"error\", \"error\": \"your setup() returned 1 after cudaHostRegister failed: "
        "cudaErrorInvalidValue (invalid argument)\"}");
    ASSERT_NE(lab->result, nullptr);
    for (int c = 0; c < GRADE_CHECKS; c++) grade_check_set(&lab->checks[c], 0, "not checked");
    grade_student_total(&a.s);
    EXPECT_EQ(Take(grade_lab_outcome(lab)),
              "0/100: error: your setup() returned 1 after cudaHostRegister failed: cudaErrorInvalidValue (invalid "
              "argument)");
    const grade_student *list[] = {&a.s};
    std::string csv = Take(grade_gradebook_csv(list, 1));
    EXPECT_NE(csv.find("03_double_buffer: your setup() returned 1 after cudaHostRegister failed"), std::string::npos)
        << csv;
    EXPECT_EQ(csv.find("wrong results"), std::string::npos) << csv;
}

// A check has one name in every report: report.txt, the JUnit testcase and the Gradescope
// test (the gradebook's columns keep the rubric's keys).
TEST(Reports, ChecksAreNamedTheSameWayInEveryReport) {
    TwoLabs st("alice");
    std::string text = Take(grade_report_text(&st.s, &kCtx));
    std::string xml = Take(grade_report_junit_student(&st.s));
    std::string json = Take(grade_report_gradescope(&st.s, &kCtx));
    for (int c = 0; c < GRADE_CHECKS; c++) {
        std::string title = grade_check_titles[c];
        EXPECT_NE(text.find("] " + title + " "), std::string::npos) << title << "\n" << text;
        EXPECT_NE(xml.find("<testcase classname=\"alice.02_events\" name=\"" + title + "\""), std::string::npos)
            << title << "\n" << xml;
        EXPECT_NE(json.find("\"02_events: " + title + "\""), std::string::npos) << title << "\n" << json;
    }
    EXPECT_EQ(xml.find("name=\"race_free\""), std::string::npos) << xml;
    EXPECT_EQ(xml.find("name=\"speedup\""), std::string::npos) << xml;
}

// Gradescope's settings: the output formats that keep aligned text, visibility for the whole
// result and per check, and a leaderboard of speedups.
std::string Str(const cJSON *o, const char *key) {
    const cJSON *v = cJSON_GetObjectItem(o, key);
    return cJSON_IsString(v) ? v->valuestring : "(missing)";
}

TEST(Gradescope, DefaultsAreTextFormatsVisibleAndNoLeaderboard) {
    Student st("alice", "fine");
    std::string text = Take(grade_report_gradescope(&st.s, &kCtx));
    cJSON *j = cJSON_Parse(text.c_str());
    ASSERT_NE(j, nullptr) << text;
    EXPECT_EQ(Str(j, "output_format"), "text");
    EXPECT_EQ(Str(j, "test_output_format"), "text");
    EXPECT_EQ(Str(j, "visibility"), "visible");
    EXPECT_EQ(cJSON_GetObjectItem(j, "leaderboard"), nullptr);
    const cJSON *t;
    cJSON_ArrayForEach(t, cJSON_GetObjectItem(j, "tests")) EXPECT_EQ(Str(t, "visibility"), "visible");
    cJSON_Delete(j);
}

TEST(Gradescope, VisibilityPerResultAndPerCheck) {
    grade_gradescope_settings g;
    grade_gradescope_settings_init(&g);
    char err[256];
    ASSERT_EQ(grade_gradescope_parse_visibility("after_due_date,speed=hidden,race_free=after_published", &g, err,
                                                sizeof(err)),
              0)
        << err;
    Student st("alice", "fine");
    grade_report_context ctx = kCtx;
    ctx.gradescope = &g;
    std::string text = Take(grade_report_gradescope(&st.s, &ctx));
    cJSON *j = cJSON_Parse(text.c_str());
    ASSERT_NE(j, nullptr) << text;
    EXPECT_EQ(Str(j, "visibility"), "after_due_date");
    std::vector<std::string> seen;
    const cJSON *t;
    cJSON_ArrayForEach(t, cJSON_GetObjectItem(j, "tests")) seen.push_back(Str(t, "name") + "=" + Str(t, "visibility"));
    EXPECT_EQ(seen, (std::vector<std::string>{"03_double_buffer: correct=after_due_date",
                                              "03_double_buffer: race-free=after_published",
                                              "03_double_buffer: speed=hidden"}));
    cJSON_Delete(j);
}

TEST(Gradescope, BadVisibilityIsRefusedAndChangesNothing) {
    grade_gradescope_settings g;
    grade_gradescope_settings_init(&g);
    char err[256];
    EXPECT_EQ(grade_gradescope_parse_visibility("speed=hidden,later", &g, err, sizeof(err)), -1);
    EXPECT_NE(std::string(err).find("'later' is not a Gradescope visibility"), std::string::npos) << err;
    EXPECT_EQ(grade_gradescope_parse_visibility("style=hidden", &g, err, sizeof(err)), -1);
    EXPECT_NE(std::string(err).find("'style' is not a check"), std::string::npos) << err;
    EXPECT_EQ(grade_gradescope_parse_visibility("", &g, err, sizeof(err)), -1);
    EXPECT_STREQ(g.visibility, "visible");
    EXPECT_EQ(g.test_visibility[GRADE_SPEEDUP], nullptr);
    EXPECT_EQ(grade_gradescope_parse_format("html", &g, err, sizeof(err)), -1);
    EXPECT_STREQ(g.format, "text");
}

// "md": the lab's report (timeline, race reports) sits in a code block whose fence no
// backticks in the student's output can close.
TEST(Gradescope, MarkdownPutsTheReportInACodeBlockTheOutputCannotClose) {
    grade_gradescope_settings g;
    grade_gradescope_settings_init(&g);
    char err[256];
    ASSERT_EQ(grade_gradescope_parse_format("md", &g, err, sizeof(err)), 0);
    Student st("alice", "fine");
    free(st.s.labs[0].output);
    st.s.labs[0].output = grade_strdup("student says ````\n# not a heading\n");
    grade_report_context ctx = kCtx;
    ctx.gradescope = &g;
    std::string text = Take(grade_report_gradescope(&st.s, &ctx));
    cJSON *j = cJSON_Parse(text.c_str());
    ASSERT_NE(j, nullptr) << text;
    EXPECT_EQ(Str(j, "output_format"), "md");
    EXPECT_EQ(Str(j, "test_output_format"), "md");
    std::string out = Str(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "tests"), 0), "output");
    size_t open = out.find("\n`````\n");
    ASSERT_NE(open, std::string::npos) << out;
    EXPECT_NE(out.find("student says ````"), std::string::npos) << out;
    EXPECT_GT(out.find("student says ````"), open) << out;
    EXPECT_EQ(out.substr(out.size() - 6), "`````\n") << out;
    cJSON_Delete(j);
}

TEST(Gradescope, LeaderboardRanksSpeedupOfCorrectLabsOnly) {
    grade_gradescope_settings g;
    grade_gradescope_settings_init(&g);
    g.leaderboard = true;
    grade_report_context ctx = kCtx;
    ctx.gradescope = &g;
    for (bool correct : {true, false}) {
        Student st("alice", correct ? "fine" : "wrong", correct ? 40 : 0);
        st.s.labs[0].speedup = 1.734;
        std::string text = Take(grade_report_gradescope(&st.s, &ctx));
        cJSON *j = cJSON_Parse(text.c_str());
        ASSERT_NE(j, nullptr) << text;
        const cJSON *board = cJSON_GetObjectItem(j, "leaderboard");
        ASSERT_EQ(cJSON_GetArraySize(board), 1) << text;
        const cJSON *e = cJSON_GetArrayItem(board, 0);
        EXPECT_EQ(Str(e, "name"), "03_double_buffer speedup");
        EXPECT_EQ(Str(e, "order"), "desc");
        EXPECT_DOUBLE_EQ(cJSON_GetObjectItem(e, "value")->valuedouble, correct ? 1.73 : 0) << text;
        cJSON_Delete(j);
    }
}

}  // namespace
