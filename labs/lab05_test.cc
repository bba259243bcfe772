// labs/lab05_test.cc: lab 05 end to end on the simulated GPU, as a student and the grader
// run it. The skeleton is fast and wrong, with five planted races of four kinds, each
// reported with both operations, their streams and the skeleton's lines (exit 2); fixing
// them one by one is counted ("2 of 5 races fixed"); the reference has none and passes
// (exit 0); synchronising the whole device after every batch is right and too slow
// (exit 1).
#include "labs/lab_test_support.h"

#include <set>
#include <string>

namespace {

using namespace labtest;

const cJSON *Planted(const cJSON *j) { return cJSON_GetObjectItemCaseSensitive(j, "planted_races"); }

TEST(Lab05, TheSkeletonIsFastWrongAndItsRacesAreNamed) {
    Outcome o = RunLab("labs/05_cross_stream_races_sim", Args({"--schedules", "0"}));
    EXPECT_EQ(o.exit_code, 2) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "lab"), "05_cross_stream_races");
    EXPECT_EQ(Str(j, "status"), "incorrect");  // wrong data, not only a report
    EXPECT_GT(Num(j, "races"), 5);
    const cJSON *p = Planted(j);
    ASSERT_NE(p, nullptr) << o.out;
    EXPECT_EQ(Num(p, "total"), 5);
    EXPECT_EQ(Num(p, "fixed"), 0);
    EXPECT_EQ(Num(p, "other"), 0);
    EXPECT_EQ(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(p, "left")), 5);
    // Every report shown names both operations, their streams and the lines of lab.c (the
    // harness's own read of the results, the second side of a host read, has none).
    std::set<std::string> kinds;
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(j, "race_reports")) {
        kinds.insert(Str(r, "kind"));
        EXPECT_EQ(Str(r, "first_line").rfind("labs/05_cross_stream_races/lab.c:", 0), 0u) << Str(r, "first_line");
        if (Str(r, "kind") != "host_read") {
            EXPECT_EQ(Str(r, "second_line").rfind("labs/05_cross_stream_races/lab.c:", 0), 0u) << Str(r, "second_line");
        }
        EXPECT_FALSE(Str(r, "first_stream").empty());
        EXPECT_FALSE(Str(r, "fix").empty());
    }
    EXPECT_TRUE(kinds.count("RAW")) << o.err;
    EXPECT_EQ(NextStep(j), "0/5 TODO 1 (the kernel waits for its upload)");
    cJSON_Delete(j);
    EXPECT_NE(FindFlat(o.err, "  planted    0 of 5 races fixed"), std::string::npos) << o.err;
}

TEST(Lab05, TheReferenceHasNoRaceAndPasses) {
    Outcome o = RunLab("solutions/05_cross_stream_races_sim", Args());
    EXPECT_EQ(o.exit_code, 0) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "pass");
    EXPECT_EQ(Num(j, "races"), 0);
    EXPECT_EQ(Num(Planted(j), "fixed"), 5);
    EXPECT_GE(Num(j, "bound_fraction"), 0.95);
    EXPECT_EQ(NextStep(j), "5/5 ");
    cJSON_Delete(j);
}

TEST(Lab05, FixedRacesAreCountedOneByOne) {
    Outcome two = RunLab("labs/05_cross_stream_races_fixed_2_sim", Args());
    Outcome four = RunLab("labs/05_cross_stream_races_fixed_4_sim", Args());
    EXPECT_EQ(two.exit_code, 2) << two.err;
    EXPECT_EQ(four.exit_code, 2) << four.err;
    cJSON *a = Json(two), *b = Json(four);
    EXPECT_EQ(Num(Planted(a), "fixed"), 2);
    EXPECT_EQ(Num(Planted(b), "fixed"), 4);
    EXPECT_EQ(NextStep(a), "2/5 TODO 3 (do not overwrite an input still being read)");
    EXPECT_EQ(NextStep(b), "4/5 TODO 5 (wait for the downloads before returning)");
    // The last one left is the host reading results the downloads have not written.
    const cJSON *left = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(Planted(b), "left"), 0);
    ASSERT_NE(left, nullptr);
    EXPECT_NE(std::string(cJSON_GetStringValue(left)).find("host read before completion"), std::string::npos);
    cJSON_Delete(a);
    cJSON_Delete(b);
    EXPECT_NE(FindFlat(two.err, "  planted    2 of 5 races fixed"), std::string::npos) << two.err;
}

TEST(Lab05, SynchronisingTheDeviceAfterEveryBatchIsRightAndTooSlow) {
    Outcome o = RunLab("labs/05_cross_stream_races_over_synced_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "below_target");
    EXPECT_EQ(Num(j, "races"), 0);
    EXPECT_LT(Num(j, "bound_fraction"), 0.5);
    cJSON_Delete(j);
}

// The kernel's stream waits on the upload's event, but the event was recorded on "compute"
// instead of "up": the wait orders nothing. The report says which stream the event was
// recorded on and gives the lines of the record and of the wait, and the fix says on which
// stream, after which operation, to record it.
TEST(Lab05, AnEventRecordedOnTheWrongStreamIsNamedWithBothLines) {
    const std::string file = "labs/05_cross_stream_races/testdata/variants.c";
    int record = LineOf(file, "/* wrong-stream record */");
    int wait = LineOf(file, "/* kernel waits for upload */");
    ASSERT_GT(record, 0);
    ASSERT_GT(wait, 0);
    Outcome o = RunLab("labs/05_cross_stream_races_wrong_stream_record_sim", Args({"--schedules", "0"}));
    EXPECT_EQ(o.exit_code, 2) << o.err;
    cJSON *j = Json(o);
    EXPECT_GT(Num(j, "races"), 0);
    const cJSON *named = nullptr, *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(j, "race_reports")) {
        if (cJSON_GetObjectItemCaseSensitive(r, "wrong_stream_record")) named = r;
    }
    ASSERT_NE(named, nullptr) << o.out;
    EXPECT_EQ(Str(named, "kind"), "RAW");
    EXPECT_EQ(Str(named, "first_stream"), "up");
    EXPECT_EQ(Str(named, "second_stream"), "compute");
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(named, "wrong_stream_record");
    EXPECT_EQ(Str(w, "recorded_on"), "compute");
    EXPECT_EQ(Str(w, "record_line"), file + ":" + std::to_string(record));
    EXPECT_EQ(Str(w, "wait_line"), file + ":" + std::to_string(wait));
    EXPECT_NE(Str(named, "fix").find("but it was recorded on \"compute\", not on \"up\""), std::string::npos)
        << Str(named, "fix");
    EXPECT_NE(Str(named, "fix").find("record it on \"up\" after H2D"), std::string::npos) << Str(named, "fix");
    cJSON_Delete(j);
    // The report a student reads says it too, with both lines.
    Outcome text = RunLab("labs/05_cross_stream_races_wrong_stream_record_sim",
                          {"--seed", "7", "--runs", "1", "--schedules", "0"});
    std::string report = text.out + text.err;
    EXPECT_NE(FindFlat(report, "\"compute\" waits on event "), std::string::npos) << report;
    EXPECT_NE(FindFlat(report, file + ":" + std::to_string(wait) + "), which was recorded on \"compute\" (op "),
              std::string::npos)
        << report;
    EXPECT_NE(FindFlat(report, file + ":" + std::to_string(record) + "), not on \"up\" where H2D batch "),
              std::string::npos)
        << report;
}

// Blocking streams (cudaStreamCreate) and cudaStreamSynchronize(0) at the end of run(): the
// legacy default stream waits for every blocking stream's earlier work, so the host waited
// for the downloads. Correct, no race, and as fast as the reference.
TEST(Lab05, BlockingStreamsAndALegacyStreamSyncAreOrdered) {
    Outcome o = RunLab("labs/05_cross_stream_races_blocking_legacy_sync_sim", Args());
    EXPECT_EQ(o.exit_code, 0) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "pass");
    EXPECT_TRUE(Bool(j, "correct"));
    EXPECT_EQ(Num(j, "races"), 0);
    EXPECT_EQ(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "race_reports")), 0);
    EXPECT_EQ(Num(Planted(j), "fixed"), 5);
    cJSON_Delete(j);
}

}  // namespace
