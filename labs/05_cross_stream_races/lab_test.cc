// labs/05_cross_stream_races/lab_test.cc: lab 05 end to end on the simulated GPU, as a
// student and the grader run it. The skeleton is fast and wrong, with five planted races of
// four kinds, each reported with both operations, their streams and the skeleton's lines
// (exit 2); fixing them one by one is counted ("2 of 5 races fixed"); the reference has
// none and passes (exit 0); synchronising the whole device after every batch, or the
// compute stream after every kernel, is right and too slow (exit 1), and the report names
// that wait, its line and its cost; the advice speaks of what the program does (which
// stream an event was recorded on, what run() waits for).
#include "labs/lab_test_support.h"

#include <set>
#include <string>

namespace {

using namespace labtest;

const cJSON *Planted(const cJSON *j) { return cJSON_GetObjectItemCaseSensitive(j, "planted_races"); }

TEST(Lab05, TheSkeletonIsFastWrongAndItsRacesAreNamed) {
    Outcome o = RunLabOnce("labs/05_cross_stream_races_sim", Args({"--schedules", "0"}));
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
    Outcome o = RunLabOnce("solutions/05_cross_stream_races_sim", Args());
    EXPECT_EQ(o.exit_code, 0) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "pass");
    EXPECT_EQ(Num(j, "races"), 0);
    EXPECT_EQ(Num(Planted(j), "fixed"), 5);
    EXPECT_GE(Num(j, "bound_fraction"), 0.95);
    EXPECT_EQ(NextStep(j), "5/5 ");
    // Its critical path is held by the events' waits only, and its final wait is not on it.
    EXPECT_EQ(OverSynced(j), "");
    EXPECT_EQ(Str(Blamed(j), "held"), "stream");
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "blame"), "waits")) {
        if (Str(w, "held") == "host") {
            EXPECT_EQ(Num(w, "on_path"), 0) << Str(w, "call");
        }
    }
    cJSON_Delete(j);
}

TEST(Lab05, FixedRacesAreCountedOneByOne) {
    Outcome two = RunLabOnce("labs/05_cross_stream_races_fixed_2_sim", Args());
    Outcome four = RunLabOnce("labs/05_cross_stream_races_fixed_4_sim", Args());
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

const char kVariants[] = "labs/05_cross_stream_races/testdata/variants.c";

// A race the host orders is not a step done: the least synchronisation is the lesson.
// Synchronising the device after every batch, or the compute stream after every kernel,
// is right and too slow; the report names the wait, its line and what it cost, and the
// next step is the first race an event does not order yet.
TEST(Lab05, AHostWaitInTheLoopIsNamedWithItsLineAndCost) {
    struct Case {
        const char *lab, *call, *marker;
        double max_fraction;
    } cases[] = {
        {"labs/05_cross_stream_races_over_synced_sim", "cudaDeviceSynchronize()", "LAB_CHECK(cudaDeviceSynchronize());",
         0.5},
        {"labs/05_cross_stream_races_sync_compute_sim", "cudaStreamSynchronize(\"compute\")",
         "cudaStreamSynchronize(compute)); /* orders", 0.6},
    };
    for (const Case &c : cases) {
        Outcome o = RunLabOnce(c.lab, Args());
        EXPECT_EQ(o.exit_code, 1) << c.lab << o.err;
        cJSON *j = Json(o);
        EXPECT_EQ(Str(j, "status"), "below_target") << c.lab;
        EXPECT_EQ(Num(j, "races"), 0) << c.lab;
        EXPECT_LT(Num(j, "bound_fraction"), c.max_fraction) << c.lab;
        EXPECT_EQ(Num(Planted(j), "fixed"), 5) << c.lab;
        // Every race is gone, and TODO 3's is ordered by the host: TODO 3 is where it stands.
        EXPECT_EQ(NextStep(j), "2/5 TODO 3 (do not overwrite an input still being read)") << c.lab;
        std::string line = ShortLine(kVariants, c.marker);
        EXPECT_NE(Why(j).find(std::string(c.call) + " at " + line + " held the host"), std::string::npos)
            << c.lab << ": " << Why(j);
        ExpectBlamed(Blamed(j), c.call, kVariants, c.marker);
        const cJSON *w = Blamed(j);
        EXPECT_EQ(Str(w, "held"), "host");
        EXPECT_TRUE(Bool(w, "in_loop"));
        EXPECT_GE(Num(w, "on_path"), Num(j, "batches") - 1) << c.lab;  // once a batch, bar the last
        EXPECT_GT(Num(w, "cost_ms"), 0.5 * Num(cJSON_GetObjectItemCaseSensitive(j, "blame"), "run_ms")) << c.lab;
        EXPECT_EQ(OverSynced(j).rfind(std::string(c.call) + " at " + line, 0), 0u) << OverSynced(j);
        cJSON_Delete(j);
        EXPECT_NE(o.err.find("  waits      " + std::string(c.call) + " at " + line), std::string::npos) << o.err;
        EXPECT_NE(o.err.find("Next: TODO 3"), std::string::npos) << o.err;
    }
}

// The target leaves room on both sides (spec.c), on each seed the class is graded with:
// every pipeline that keeps two batches in flight passes it by at least 5 points of the
// bound (the least order, and a buffer pair freed as one after its download, on the device
// or from the host: correct, and ordering more than it must), and every order that holds a
// stream back a whole batch misses it by at least as many.
TEST(Lab05, TheTargetLeavesFivePointsOfTheBoundOnEachSide) {
    const char *above[] = {"solutions/05_cross_stream_races_sim", "labs/05_cross_stream_races_blocking_legacy_sync_sim",
                           "labs/05_cross_stream_races_upload_waits_download_sim",
                           "labs/05_cross_stream_races_host_waits_reuse_sim"};
    const char *below[] = {"labs/05_cross_stream_races_one_event_each_sim",
                           "labs/05_cross_stream_races_sync_compute_sim",
                           "labs/05_cross_stream_races_download_on_compute_sim",
                           "labs/05_cross_stream_races_over_synced_sim"};
    for (const char *seed : {"21", "22", "23"}) {
        std::vector<std::string> args = {"--seed", seed, "--runs", "1", "--schedules", "0", "--json"};
        for (const char *lab : above) {
            Outcome o = RunLab(lab, args);
            EXPECT_EQ(o.exit_code, 0) << lab << o.err;
            cJSON *j = Json(o);
            EXPECT_EQ(Num(j, "races"), 0) << lab;
            EXPECT_GE(Num(j, "bound_fraction"), Num(j, "target_bound_fraction") + 0.05) << lab << " seed " << seed;
            cJSON_Delete(j);
        }
        for (const char *lab : below) {
            Outcome o = RunLab(lab, args);
            EXPECT_EQ(o.exit_code, 1) << lab << o.err;
            cJSON *j = Json(o);
            EXPECT_EQ(Str(j, "status"), "below_target") << lab;
            EXPECT_LE(Num(j, "bound_fraction"), Num(j, "target_bound_fraction") - 0.05) << lab << " seed " << seed;
            cJSON_Delete(j);
        }
    }
}

// Every wait in place, but one event per hand-over re-recorded every batch: each reuse wait
// names the latest record, the batch just before, where two buffers need only the one
// before that. Every TODO is done; the advice says what holds the pipeline back.
TEST(Lab05, OneEventPerHandOverIsToldToGiveEachBufferItsOwn) {
    Outcome o = RunLabOnce("labs/05_cross_stream_races_one_event_each_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "below_target");
    EXPECT_EQ(Num(j, "races"), 0);
    EXPECT_EQ(Num(Planted(j), "fixed"), 5);
    EXPECT_LT(Num(j, "bound_fraction"), 0.6);
    const std::string line = ShortLine(kVariants, "/* kernel's record */");
    const std::string next = Str(j, "next");
    EXPECT_EQ(next.rfind("the upload of batch b waits for the kernel of batch b - 1 (the record at " + line +
                             "), but with 2 input buffers the one it overwrites was last used by batch b - 2",
                         0),
              0u)
        << next;
    EXPECT_NE(next.find("Give each buffer its own events"), std::string::npos) << next;
    cJSON_Delete(j);
    // The reference, one event per buffer, is not told so: it passes.
    Outcome ref = RunLabOnce("solutions/05_cross_stream_races_sim", Args());
    EXPECT_EQ(ref.exit_code, 0) << ref.err;
    EXPECT_EQ(ref.err.find("Give each buffer its own events"), std::string::npos) << ref.err;
}

// --hint follows the same facts: a race the host orders is the step it stands at, and
// the hint says which wait orders it.
TEST(Lab05, HintsFollowTheFactsNotTheSpeed) {
    std::string state = std::string(std::getenv("TEST_TMPDIR")) + "/hint_state";
    setenv("XDG_STATE_HOME", state.c_str(), 1);
    Outcome o = RunLab("labs/05_cross_stream_races_sync_compute_sim",
                       {"--seed", "7", "--runs", "1", "--schedules", "0", "--hint"});
    unsetenv("XDG_STATE_HOME");
    EXPECT_EQ(o.exit_code, 1) << o.err;
    EXPECT_NE(o.out.find("You are at TODO 3 (do not overwrite an input still being read)."), std::string::npos)
        << o.out;
    EXPECT_NE(o.out.find("Why: the upload into d_in[k] and the kernel two batches back"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("cudaStreamSynchronize(\"compute\") at"), std::string::npos) << o.out;
    EXPECT_EQ(o.out.find("every step of this lab is done"), std::string::npos) << o.out;
}

// An event recorded on the wrong stream ("up", after the upload) is told as what it is,
// not as one recorded before the kernel; run() waiting for the wrong stream is told with
// its line.
TEST(Lab05, WhatAnEventMarksAndWhatRunWaitsForAreTheProgramsOwn) {
    Outcome o = RunLabOnce("labs/05_cross_stream_races_wrong_stream_sim", Args({"--schedules", "0"}));
    EXPECT_EQ(o.exit_code, 2) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(NextStep(j), "1/5 TODO 2 (record the event after the kernel)");
    std::string why = Why(j);
    EXPECT_NE(why.find("recorded on \"up\", after the upload (" + ShortLine(kVariants, "computed[k], up)") + ")"),
              std::string::npos)
        << why;
    EXPECT_NE(why.find("the kernel runs on \"compute\""), std::string::npos) << why;
    EXPECT_EQ(why.find("before the kernel"), std::string::npos) << why;
    EXPECT_EQ(OverSynced(j), "");
    cJSON_Delete(j);

    Outcome four = RunLabOnce("labs/05_cross_stream_races_fixed_4_sim", Args({"--schedules", "0"}));
    cJSON *f = Json(four);
    EXPECT_EQ(Why(f), "run() ends with cudaStreamSynchronize(\"compute\") at " +
                          ShortLine(kVariants, "cudaStreamSynchronize(compute)); /* TODO 5 left") +
                          ", and the downloads are on \"down\"");
    cJSON_Delete(f);
}

// Every variant's advice comes from what it does: where it stands, and the wait the blame
// puts first with its line (the skeleton's final wait; the download's wait on the kernel).
TEST(Lab05, EveryVariantIsAdvisedByWhatItDoes) {
    const std::string lab = "labs/05_cross_stream_races/lab.c", v = kVariants;
    const std::string down_waits = "cudaStreamWaitEvent(down, computed[EV(k)], 0)";
    for (const AdviceCase &c : std::vector<AdviceCase>{
             {"labs/05_cross_stream_races_sim", "0/5 TODO 1 (the kernel waits for its upload)",
              "cudaStreamSynchronize(\"compute\")", lab, "LAB_CHECK(cudaStreamSynchronize(compute));", false},
             {"labs/05_cross_stream_races_fixed_2_sim", "2/5 TODO 3 (do not overwrite an input still being read)",
              "cudaStreamWaitEvent(\"down\")", v, down_waits, false},
             {"labs/05_cross_stream_races_fixed_4_sim", "4/5 TODO 5 (wait for the downloads before returning)",
              "cudaStreamWaitEvent(\"down\")", v, down_waits, false},
             {"labs/05_cross_stream_races_wrong_stream_sim", "1/5 TODO 2 (record the event after the kernel)",
              "cudaStreamWaitEvent(\"compute\")", v, "cudaStreamWaitEvent(compute, uploaded[EV(k)], 0)", false},
         })
        ExpectAdvice(c, Args({"--schedules", "0"}));
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
    Outcome o = RunLabOnce("labs/05_cross_stream_races_wrong_stream_record_sim", Args({"--schedules", "0"}));
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
    // The event as the program named it (lab_name_event): the student's own variable.
    EXPECT_EQ(Str(w, "event_name").rfind("uploaded[", 0), 0u) << Str(w, "event_name");
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
    EXPECT_NE(FindFlat(report, "\"compute\" waits on event \"uploaded["), std::string::npos) << report;
    EXPECT_EQ(FindFlat(report, "waits on event 1"), std::string::npos) << report;
    EXPECT_NE(FindFlat(report, file + ":" + std::to_string(wait) + "), which was recorded on \"compute\" (op "),
              std::string::npos)
        << report;
    EXPECT_NE(FindFlat(report, file + ":" + std::to_string(record) + "), not on \"up\" where H2D batch "),
              std::string::npos)
        << report;
}

// The reference with one wait misplaced, every record where it should be: each race shown
// blames that wait, with its line and what is wrong with it (issued after the kernel, on the
// wrong stream, on the other buffer's event, before its record), and none tells the
// student to move a record, which would break what is right.
TEST(Lab05, AMisplacedWaitIsBlamedNotARecordThatIsRight) {
    const std::string v = kVariants;
    const std::string kernel = ShortLine(v, "/* the kernel */");
    struct Case {
        const char *lab, *fault, *stream, *event, *wait_marker, *record_marker;
        std::vector<std::string> fix;  // in the first race's fix, in this order
        const char *why;
    } cases[] = {
        {"labs/05_cross_stream_races_reuse_wait_after_kernel_sim", "late", "compute", "downloaded[",
         "/* reuse wait after the kernel */", "/* download's record */",
         {"the wait of \"compute\" on event \"downloaded[0]\" (" + ShortLine(v, "/* reuse wait after the kernel */") +
              ") comes after kernel process batch 2 (" + kernel + "), which it should order",
          "so issue it before the launch"},
         "on an event recorded after the download of another batch"},
        {"labs/05_cross_stream_races_reuse_wait_wrong_stream_sim", "other_stream", "down", "downloaded[",
         "/* reuse wait on the wrong stream */", "/* download's record */",
         {"\"down\" waits on event \"downloaded[0]\" (" + ShortLine(v, "/* reuse wait on the wrong stream */") +
              "), recorded on \"down\" after D2H batch 0, but kernel process batch 2 runs on \"compute\"",
          "make \"compute\" wait on it", "(a stream's wait on an event recorded on itself orders nothing)"},
         "is waited on by \"down\", the stream it was recorded on"},
        {"labs/05_cross_stream_races_wrong_event_index_sim", "other_event", "down", "computed[",
         "/* the other buffer's event */", "/* kernel's record */",
         {"\"down\" waits on event \"computed[1]\" (" + ShortLine(v, "/* the other buffer's event */") +
              "), which had not been recorded yet, so it orders nothing; it is event \"computed[0]\" that was "
              "recorded on \"compute\" after kernel process batch 0 (" +
              ShortLine(v, "/* kernel's record */") + "): wait on that one before D2H batch 0",
          "Its record is in the right place: the wait names the wrong event"},
         "on an event recorded after the kernel of another batch"},
        {"labs/05_cross_stream_races_wait_before_record_sim", "before_record", "compute", "uploaded[",
         "/* wait before its record */", "/* upload's record */",
         {"\"compute\" waits on event \"uploaded[0]\" (" + ShortLine(v, "/* wait before its record */") +
              ") before it is recorded after H2D batch 0 (" + ShortLine(v, "/* upload's record */") + ")",
          "so this one waits for nothing (the event had not been recorded yet)",
          "Issue the wait after the cudaEventRecord"},
         "on an event recorded after the upload of another batch"},
    };
    for (const Case &c : cases) {
        Outcome o = RunLabOnce(c.lab, Args({"--schedules", "0"}));
        EXPECT_EQ(o.exit_code, 2) << c.lab << o.err;
        cJSON *j = Json(o);
        const cJSON *reports = cJSON_GetObjectItemCaseSensitive(j, "race_reports");
        ASSERT_GT(cJSON_GetArraySize(reports), 0) << c.lab;
        const cJSON *r;
        cJSON_ArrayForEach(r, reports) {
            const std::string fix = Str(r, "fix");
            EXPECT_EQ(fix.find("record it"), std::string::npos) << c.lab << ": " << fix;
            const cJSON *b = cJSON_GetObjectItemCaseSensitive(r, "blamed_wait");
            ASSERT_NE(b, nullptr) << c.lab << ": " << fix;
            EXPECT_EQ(Str(b, "fault"), c.fault) << c.lab;
            EXPECT_EQ(Str(b, "stream"), c.stream) << c.lab;
            EXPECT_EQ(Str(b, "event_name").rfind(c.event, 0), 0u) << c.lab << ": " << Str(b, "event_name");
            EXPECT_EQ(Str(b, "wait_line"), v + ":" + std::to_string(LineOf(v, c.wait_marker))) << c.lab;
            EXPECT_EQ(Str(b, "record_line"), v + ":" + std::to_string(LineOf(v, c.record_marker))) << c.lab;
        }
        const std::string first = Str(cJSON_GetArrayItem(reports, 0), "fix");
        size_t at = 0;
        for (const std::string &part : c.fix) {
            size_t found = first.find(part, at);
            EXPECT_NE(found, std::string::npos) << c.lab << ": \"" << part << "\" in\n" << first;
            if (found != std::string::npos) at = found + part.size();
        }
        EXPECT_NE(Why(j).find(c.why), std::string::npos) << c.lab << ": " << Why(j);
        EXPECT_EQ(Why(j).find("not recorded in run()"), std::string::npos) << c.lab << ": " << Why(j);
        cJSON_Delete(j);
    }
}

// Blocking streams (cudaStreamCreate) and cudaStreamSynchronize(0) at the end of run(): the
// legacy default stream waits for every blocking stream's earlier work, so the host waited
// for the downloads. Correct, no race, and as fast as the reference.
TEST(Lab05, BlockingStreamsAndALegacyStreamSyncAreOrdered) {
    Outcome o = RunLabOnce("labs/05_cross_stream_races_blocking_legacy_sync_sim", Args());
    EXPECT_EQ(o.exit_code, 0) << o.err;
    cJSON *j = Json(o);
    EXPECT_EQ(Str(j, "status"), "pass");
    EXPECT_TRUE(Bool(j, "correct"));
    EXPECT_EQ(Num(j, "races"), 0);
    EXPECT_EQ(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "race_reports")), 0);
    EXPECT_EQ(Num(Planted(j), "fixed"), 5);
    cJSON_Delete(j);
}

// The downloads moved onto the kernels' stream: stream order hands each result over, so
// nothing races, but the kernels then wait behind the downloads. The Why says the two
// stages share one stream (not "a host wait", which the program has none of), and TODO 2
// names what it needs: an event after the kernel.
TEST(Lab05, DownloadsOnTheKernelsStreamAreToldTheyShareIt) {
    Outcome o = RunLabOnce("labs/05_cross_stream_races_download_on_compute_sim", Args());
    EXPECT_EQ(o.exit_code, 1) << o.err;
    cJSON *j = Json(o);
    EXPECT_TRUE(Bool(j, "correct"));
    EXPECT_EQ(Num(j, "races"), 0);
    EXPECT_EQ(NextStep(j), "1/5 TODO 2 (record the event after the kernel)");
    EXPECT_EQ(Why(j).rfind("the kernel and the download of its result no longer race because they run on one stream, "
                           "\"compute\"",
                           0),
              0u)
        << Why(j);
    EXPECT_EQ(Why(j).find("host"), std::string::npos) << Why(j);
    cJSON_Delete(j);
}

}  // namespace
