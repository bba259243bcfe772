// trace/export_chrome_test.cc: the Chrome/Perfetto exporter writes a file that loads back
// with one named track per engine and per stream, "X" events in microseconds with their
// args, instant events for markers and races.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

extern "C" {
#include <cjson/cJSON.h>

#include "trace/view/export_chrome.h"
#include "trace/check/racecheck.h"
}

#include "trace/view/two_devices_test.h"

namespace {

trace_op Op(uint64_t id, trace_op_kind kind, trace_copy_dir dir, trace_engine engine, int32_t stream, uint64_t start,
            uint64_t end, int32_t batch) {
    trace_op op = {};
    op.id = id;
    op.kind = kind;
    op.dir = dir;
    op.engine = engine;
    op.stream = stream;
    op.start_ns = start;
    op.end_ns = end;
    op.batch = batch;
    op.run = 0;
    op.timed = true;
    return op;
}

class ChromeExport : public ::testing::Test {
  protected:
    void SetUp() override {
        tl = trace_timeline_create();
        trace_stream s1 = {}, s2 = {};
        s1.id = 1;
        snprintf(s1.name, sizeof(s1.name), "buf A");
        s2.id = 2;
        s2.priority = -5;
        snprintf(s2.name, sizeof(s2.name), "s2");
        trace_timeline_add_stream(tl, &s1);
        trace_timeline_add_stream(tl, &s2);
        // Times start far from zero, as CUPTI's do: the export is relative to the first op.
        const uint64_t base = 1700000000000000000ull;
        trace_op h2d = Op(1, TRACE_OP_COPY, TRACE_COPY_H2D, TRACE_ENGINE_H2D, 1, base, base + 4000, 3);
        h2d.bytes = 200000;
        h2d.pinned = true;
        trace_op k = Op(2, TRACE_OP_KERNEL, TRACE_COPY_NONE, TRACE_ENGINE_COMPUTE, 2, base + 4000, base + 6500, 3);
        snprintf(k.name, sizeof(k.name), "process");
        k.grid[0] = 132;
        k.grid[1] = k.grid[2] = 1;
        k.block[0] = 256;
        k.block[1] = k.block[2] = 1;
        trace_op rec = Op(3, TRACE_OP_EVENT_RECORD, TRACE_COPY_NONE, TRACE_ENGINE_NONE, 1, base + 4000, base + 4000, -1);
        trace_op sync = Op(4, TRACE_OP_SYNC, TRACE_COPY_NONE, TRACE_ENGINE_HOST, 2, base + 1000, base + 6500, -1);
        snprintf(sync.name, sizeof(sync.name), "cudaStreamSynchronize");
        trace_op phase = Op(5, TRACE_OP_PHASE, TRACE_COPY_NONE, TRACE_ENGINE_HOST, -1, base, base + 7000, -1);
        snprintf(phase.name, sizeof(phase.name), "run 0");
        for (const trace_op &op : {h2d, k, rec, sync, phase}) trace_timeline_add_op(tl, &op);
    }
    void TearDown() override { trace_timeline_destroy(tl); }
    trace_timeline *tl;
};

std::string Slurp(const std::string &path) {
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

TEST_F(ChromeExport, WritesAFileThatLoadsBackWithTracksAndEvents) {
    trace_race race = {};
    race.seq = 1;
    race.kind = TRACE_RACE_RAW;
    race.first.id = 1;
    race.first.kind = TRACE_OP_COPY;
    race.first.dir = TRACE_COPY_H2D;
    race.first.batch = 3;
    snprintf(race.first.stream_name, sizeof(race.first.stream_name), "buf A");
    race.second.id = 2;
    race.second.kind = TRACE_OP_KERNEL;
    race.second.batch = 3;
    snprintf(race.second.name, sizeof(race.second.name), "process");
    snprintf(race.second.stream_name, sizeof(race.second.stream_name), "s2");
    snprintf(race.first.line, sizeof(race.first.line), "labs/05_cross_stream_races/lab.c:41");
    snprintf(race.second.line, sizeof(race.second.line), "labs/05_cross_stream_races/lab.c:57");
    race.first.stream = 1;
    race.second.stream = 2;
    race.first.run = 0;
    race.second.run = 0;
    trace_race_make_fix(&race);

    std::string path = std::string(getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp") + "/trace.json";
    char err[256] = "";
    ASSERT_EQ(trace_export_chrome_file(tl, TRACE_RUN_ANY, &race, 1, path.c_str(), err, sizeof(err)), 0) << err;
    std::string text = Slurp(path);
    cJSON *root = cJSON_Parse(text.c_str());
    ASSERT_NE(root, nullptr) << "not JSON: " << text.substr(0, 200);
    cJSON *events = cJSON_GetObjectItemCaseSensitive(root, "traceEvents");
    ASSERT_TRUE(cJSON_IsArray(events));

    std::map<std::pair<int, int>, std::string> thread_names;
    std::map<int, std::string> process_names;
    std::map<std::string, std::vector<cJSON *>> by_name;
    cJSON *e;
    cJSON_ArrayForEach(e, events) {
        std::string ph = cJSON_GetObjectItemCaseSensitive(e, "ph")->valuestring;
        int pid = cJSON_GetObjectItemCaseSensitive(e, "pid")->valueint;
        int tid = cJSON_GetObjectItemCaseSensitive(e, "tid")->valueint;
        std::string name = cJSON_GetObjectItemCaseSensitive(e, "name")->valuestring;
        cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
        if (ph == "M" && name == "thread_name")
            thread_names[{pid, tid}] = cJSON_GetObjectItemCaseSensitive(args, "name")->valuestring;
        else if (ph == "M" && name == "process_name")
            process_names[pid] = cJSON_GetObjectItemCaseSensitive(args, "name")->valuestring;
        else
            by_name[name].push_back(e);
    }
    EXPECT_EQ(process_names[TRACE_CHROME_PID_ENGINES], "engines");
    EXPECT_EQ(process_names[TRACE_CHROME_PID_STREAMS], "streams");
    EXPECT_EQ((thread_names[{TRACE_CHROME_PID_ENGINES, TRACE_ENGINE_H2D}]), "H2D engine");
    EXPECT_EQ((thread_names[{TRACE_CHROME_PID_ENGINES, TRACE_ENGINE_COMPUTE}]), "compute");
    EXPECT_EQ((thread_names[{TRACE_CHROME_PID_STREAMS, 2}]), "s1 \"buf A\"");
    EXPECT_EQ((thread_names[{TRACE_CHROME_PID_STREAMS, 3}]), "s2 p-5");

    // The H2D: once on its engine, once on its stream, in microseconds from the origin.
    ASSERT_EQ(by_name["H2D batch 3"].size(), 2u);
    for (cJSON *h2d : by_name["H2D batch 3"]) {
        EXPECT_STREQ(cJSON_GetObjectItemCaseSensitive(h2d, "ph")->valuestring, "X");
        EXPECT_DOUBLE_EQ(cJSON_GetObjectItemCaseSensitive(h2d, "ts")->valuedouble, 0.0);
        EXPECT_DOUBLE_EQ(cJSON_GetObjectItemCaseSensitive(h2d, "dur")->valuedouble, 4.0);
        cJSON *args = cJSON_GetObjectItemCaseSensitive(h2d, "args");
        EXPECT_EQ(cJSON_GetObjectItemCaseSensitive(args, "bytes")->valuedouble, 200000.0);
        EXPECT_STREQ(cJSON_GetObjectItemCaseSensitive(args, "kind")->valuestring, "copy");
        EXPECT_STREQ(cJSON_GetObjectItemCaseSensitive(args, "dir")->valuestring, "H2D");
        EXPECT_EQ(cJSON_GetObjectItemCaseSensitive(args, "batch")->valueint, 3);
        EXPECT_EQ(cJSON_GetObjectItemCaseSensitive(args, "stream")->valueint, 1);
        EXPECT_STREQ(cJSON_GetObjectItemCaseSensitive(args, "stream_name")->valuestring, "buf A");
        EXPECT_DOUBLE_EQ(cJSON_GetObjectItemCaseSensitive(args, "GB/s")->valuedouble, 200000.0 / 4000.0);
    }
    std::vector<int> h2d_tids;
    for (cJSON *h2d : by_name["H2D batch 3"]) h2d_tids.push_back(cJSON_GetObjectItemCaseSensitive(h2d, "tid")->valueint);
    EXPECT_EQ(h2d_tids, (std::vector<int>{TRACE_ENGINE_H2D, 2}));

    ASSERT_EQ(by_name["process batch 3"].size(), 2u);
    cJSON *k = by_name["process batch 3"][0];
    EXPECT_DOUBLE_EQ(cJSON_GetObjectItemCaseSensitive(k, "ts")->valuedouble, 4.0);
    EXPECT_DOUBLE_EQ(cJSON_GetObjectItemCaseSensitive(k, "dur")->valuedouble, 2.5);
    EXPECT_STREQ(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(k, "args"), "grid")->valuestring,
                 "[132,1,1]");

    // The host's sync is on the host track only; the event record is an instant on s1.
    ASSERT_EQ(by_name["cudaStreamSynchronize"].size(), 1u);
    EXPECT_EQ(cJSON_GetObjectItemCaseSensitive(by_name["cudaStreamSynchronize"][0], "tid")->valueint,
              TRACE_ENGINE_HOST);
    ASSERT_EQ(by_name["event_record"].size(), 1u);
    EXPECT_STREQ(cJSON_GetObjectItemCaseSensitive(by_name["event_record"][0], "ph")->valuestring, "i");
    ASSERT_EQ(by_name["run 0"].size(), 1u);
    EXPECT_EQ(cJSON_GetObjectItemCaseSensitive(by_name["run 0"][0], "tid")->valueint, TRACE_CHROME_TID_PHASES);

    // The race on the races track, at the kernel's start, with its number, kind, both ops,
    // the student's lines and its fix.
    ASSERT_EQ(by_name["RAW race 1: H2D batch 3 / kernel process batch 3"].size(), 1u);
    cJSON *r = by_name["RAW race 1: H2D batch 3 / kernel process batch 3"][0];
    EXPECT_EQ(cJSON_GetObjectItemCaseSensitive(r, "tid")->valueint, TRACE_CHROME_TID_RACES);
    EXPECT_STREQ(cJSON_GetObjectItemCaseSensitive(r, "s")->valuestring, "t");  // not a line across every track
    EXPECT_DOUBLE_EQ(cJSON_GetObjectItemCaseSensitive(r, "ts")->valuedouble, 4.0);
    cJSON *rargs = cJSON_GetObjectItemCaseSensitive(r, "args");
    EXPECT_EQ(cJSON_GetObjectItemCaseSensitive(rargs, "race")->valueint, 1);
    EXPECT_STREQ(cJSON_GetObjectItemCaseSensitive(rargs, "kind")->valuestring, "RAW");
    EXPECT_STREQ(cJSON_GetObjectItemCaseSensitive(rargs, "first_line")->valuestring, "labs/05_cross_stream_races/lab.c:41");
    EXPECT_STREQ(cJSON_GetObjectItemCaseSensitive(rargs, "second_line")->valuestring, "labs/05_cross_stream_races/lab.c:57");
    std::string fix = cJSON_GetObjectItemCaseSensitive(rargs, "fix")->valuestring;
    EXPECT_NE(fix.find("cudaStreamWaitEvent"), std::string::npos);

    // Both ops marked on their own stream's track, at their start.
    ASSERT_EQ(by_name["race 1 RAW (earlier op)"].size(), 1u);
    ASSERT_EQ(by_name["race 1 RAW (later op)"].size(), 1u);
    cJSON *m1 = by_name["race 1 RAW (earlier op)"][0], *m2 = by_name["race 1 RAW (later op)"][0];
    EXPECT_EQ(cJSON_GetObjectItemCaseSensitive(m1, "pid")->valueint, TRACE_CHROME_PID_STREAMS);
    EXPECT_EQ(cJSON_GetObjectItemCaseSensitive(m1, "tid")->valueint, 2);  // s1
    EXPECT_DOUBLE_EQ(cJSON_GetObjectItemCaseSensitive(m1, "ts")->valuedouble, 0.0);
    EXPECT_EQ(cJSON_GetObjectItemCaseSensitive(m2, "tid")->valueint, 3);  // s2
    EXPECT_DOUBLE_EQ(cJSON_GetObjectItemCaseSensitive(m2, "ts")->valuedouble, 4.0);
    EXPECT_STREQ(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(m2, "args"), "kind")->valuestring,
                 "RAW");

    // A flow arrow from the H2D's bar to the kernel's, inside each, with one id.
    ASSERT_EQ(by_name["race 1 RAW"].size(), 2u);
    cJSON *fs = by_name["race 1 RAW"][0], *ff = by_name["race 1 RAW"][1];
    EXPECT_STREQ(cJSON_GetObjectItemCaseSensitive(fs, "ph")->valuestring, "s");
    EXPECT_STREQ(cJSON_GetObjectItemCaseSensitive(ff, "ph")->valuestring, "f");
    EXPECT_STREQ(cJSON_GetObjectItemCaseSensitive(ff, "bp")->valuestring, "e");
    EXPECT_EQ(cJSON_GetObjectItemCaseSensitive(fs, "id")->valueint, cJSON_GetObjectItemCaseSensitive(ff, "id")->valueint);
    EXPECT_EQ(cJSON_GetObjectItemCaseSensitive(fs, "tid")->valueint, 2);
    EXPECT_EQ(cJSON_GetObjectItemCaseSensitive(ff, "tid")->valueint, 3);
    EXPECT_DOUBLE_EQ(cJSON_GetObjectItemCaseSensitive(fs, "ts")->valuedouble, 2.0);   // inside [0, 4)
    EXPECT_DOUBLE_EQ(cJSON_GetObjectItemCaseSensitive(ff, "ts")->valuedouble, 5.25);  // inside [4, 6.5)

    // Both bars name the race, with the other op and its line.
    for (cJSON *h2d : by_name["H2D batch 3"]) {
        cJSON *list = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(h2d, "args"), "races");
        ASSERT_TRUE(cJSON_IsArray(list));
        EXPECT_STREQ(cJSON_GetArrayItem(list, 0)->valuestring,
                     "race 1 RAW (read-after-write) with kernel process batch 3 on s2, "
                     "labs/05_cross_stream_races/lab.c:57");
    }
    cJSON *klist = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(k, "args"), "races");
    ASSERT_TRUE(cJSON_IsArray(klist));
    EXPECT_NE(std::string(cJSON_GetArrayItem(klist, 0)->valuestring).find("with H2D batch 3 on buf A"),
              std::string::npos);
    cJSON_Delete(root);
}

TEST_F(ChromeExport, AnUnwritablePathIsAClearError) {
    char err[256] = "";
    EXPECT_EQ(trace_export_chrome_file(tl, TRACE_RUN_ANY, nullptr, 0, "/nonexistent-dir/x/trace.json", err, sizeof(err)),
              -1);
    EXPECT_NE(std::string(err).find("/nonexistent-dir/x/trace.json"), std::string::npos) << err;
}

TEST(ChromeExportEmpty, AnEmptyTimelineIsStillAValidTrace) {
    trace_timeline *tl = trace_timeline_create();
    cJSON *root = trace_export_chrome_json(tl, TRACE_RUN_ANY, nullptr, 0);
    ASSERT_NE(root, nullptr);
    EXPECT_TRUE(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(root, "traceEvents")));
    cJSON_Delete(root);
    trace_timeline_destroy(tl);
}

TEST(ChromeExportTwoDevices, AProcessPerDeviceAndOneForTheLink) {
    trace_timeline *tl = two_devices::Timeline();
    // Printed and parsed back, as a viewer reads it (numbers go in as raw JSON text).
    cJSON *built = trace_export_chrome_json(tl, TRACE_RUN_ANY, nullptr, 0);
    ASSERT_NE(built, nullptr);
    char *printed = cJSON_PrintUnformatted(built);
    cJSON_Delete(built);
    cJSON *root = cJSON_Parse(printed);
    free(printed);
    ASSERT_NE(root, nullptr);
    std::map<std::pair<int, int>, std::string> thread_names;
    std::map<int, std::string> process_names;
    std::map<std::string, std::vector<cJSON *>> by_name;
    cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(root, "traceEvents")) {
        std::string ph = cJSON_GetObjectItemCaseSensitive(e, "ph")->valuestring;
        int pid = cJSON_GetObjectItemCaseSensitive(e, "pid")->valueint;
        int tid = cJSON_GetObjectItemCaseSensitive(e, "tid")->valueint;
        std::string name = cJSON_GetObjectItemCaseSensitive(e, "name")->valuestring;
        cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
        if (ph == "M" && name == "thread_name")
            thread_names[{pid, tid}] = cJSON_GetObjectItemCaseSensitive(args, "name")->valuestring;
        else if (ph == "M" && name == "process_name")
            process_names[pid] = cJSON_GetObjectItemCaseSensitive(args, "name")->valuestring;
        else if (ph != "M")
            by_name[name].push_back(e);
    }
    EXPECT_EQ(process_names[TRACE_CHROME_PID_ENGINES], "host");
    EXPECT_EQ(process_names[TRACE_CHROME_PID_DEVICE(0)], "GPU 0");
    EXPECT_EQ(process_names[TRACE_CHROME_PID_DEVICE(1)], "GPU 1");
    EXPECT_EQ(process_names[TRACE_CHROME_PID_LINK], "link");
    EXPECT_EQ(process_names.count(TRACE_CHROME_PID_STREAMS), 0u);
    EXPECT_EQ((thread_names[{TRACE_CHROME_PID_DEVICE(0), TRACE_ENGINE_H2D}]), "H2D engine");
    EXPECT_EQ((thread_names[{TRACE_CHROME_PID_DEVICE(1), TRACE_ENGINE_COMPUTE}]), "compute");
    EXPECT_EQ((thread_names[{TRACE_CHROME_PID_DEVICE(1), TRACE_ENGINE_D2H}]), "D2H engine");
    EXPECT_EQ((thread_names[{TRACE_CHROME_PID_DEVICE(0), TRACE_CHROME_TID_STREAM_BASE + 1}]), "s1 \"a\"");
    EXPECT_EQ((thread_names[{TRACE_CHROME_PID_DEVICE(1), TRACE_CHROME_TID_STREAM_BASE + 2}]), "s2 \"b\"");
    EXPECT_EQ((thread_names[{TRACE_CHROME_PID_LINK, TRACE_CHROME_TID_LINK(0, 1)}]), "GPU 0 -> GPU 1");
    EXPECT_EQ(thread_names.count({TRACE_CHROME_PID_DEVICE(1), TRACE_ENGINE_H2D}), 0u) << "GPU 1 uploads nothing";

    auto where = [](cJSON *ev) {
        return std::make_pair(cJSON_GetObjectItemCaseSensitive(ev, "pid")->valueint,
                              cJSON_GetObjectItemCaseSensitive(ev, "tid")->valueint);
    };
    // Stage 2: on GPU 1's compute track and on s2's, with its device.
    ASSERT_EQ(by_name["stage2 batch 0"].size(), 2u);
    EXPECT_EQ(where(by_name["stage2 batch 0"][0]), std::make_pair(TRACE_CHROME_PID_DEVICE(1), (int)TRACE_ENGINE_COMPUTE));
    EXPECT_EQ(where(by_name["stage2 batch 0"][1]),
              std::make_pair(TRACE_CHROME_PID_DEVICE(1), TRACE_CHROME_TID_STREAM_BASE + 2));
    cJSON *args = cJSON_GetObjectItemCaseSensitive(by_name["stage2 batch 0"][0], "args");
    EXPECT_EQ(cJSON_GetObjectItemCaseSensitive(args, "device")->valueint, 1);
    // The peer copy: on the link's track and on s1 (GPU 0), with both devices.
    ASSERT_EQ(by_name["D2D batch 0"].size(), 2u);
    EXPECT_EQ(where(by_name["D2D batch 0"][0]), std::make_pair(TRACE_CHROME_PID_LINK, TRACE_CHROME_TID_LINK(0, 1)));
    EXPECT_EQ(where(by_name["D2D batch 0"][1]),
              std::make_pair(TRACE_CHROME_PID_DEVICE(0), TRACE_CHROME_TID_STREAM_BASE + 1));
    args = cJSON_GetObjectItemCaseSensitive(by_name["D2D batch 0"][0], "args");
    EXPECT_EQ(cJSON_GetObjectItemCaseSensitive(args, "src_device")->valueint, 0);
    EXPECT_EQ(cJSON_GetObjectItemCaseSensitive(args, "dst_device")->valueint, 1);
    // The host's wait on the host track.
    ASSERT_EQ(by_name["cudaDeviceSynchronize"].size(), 1u);
    EXPECT_EQ(where(by_name["cudaDeviceSynchronize"][0]), std::make_pair(TRACE_CHROME_PID_ENGINES, (int)TRACE_ENGINE_HOST));
    cJSON_Delete(root);
    trace_timeline_destroy(tl);
}

TEST_F(ChromeExport, OneDeviceHasNoDeviceArgs) {
    cJSON *root = trace_export_chrome_json(tl, TRACE_RUN_ANY, nullptr, 0);
    char *text = cJSON_PrintUnformatted(root);
    std::string t = text;
    EXPECT_EQ(t.find("\"device\""), std::string::npos);
    EXPECT_EQ(t.find("GPU 0"), std::string::npos);
    free(text);
    cJSON_Delete(root);
}

// On two devices, a race's marks and flow arrow bind to each op's stream track in its device's
// process: the peer copy on GPU 0's s1, stage 2 on GPU 1's s2.
TEST(ChromeExportTwoDevices, ARaceIsLinkedAcrossTheDevicesProcesses) {
    trace_timeline *tl = two_devices::Timeline();
    trace_race race = {};
    race.seq = 4;
    race.kind = TRACE_RACE_RAW;
    race.first.id = 3;
    race.first.kind = TRACE_OP_COPY;
    race.first.dir = TRACE_COPY_D2D;
    race.first.stream = 1;
    race.first.run = 0;
    race.second.id = 4;
    race.second.kind = TRACE_OP_KERNEL;
    race.second.stream = 2;
    race.second.run = 0;
    snprintf(race.second.name, sizeof(race.second.name), "stage2");
    cJSON *root = trace_export_chrome_json(tl, TRACE_RUN_ANY, &race, 1);
    ASSERT_NE(root, nullptr);
    char *printed = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    root = cJSON_Parse(printed);
    free(printed);
    ASSERT_NE(root, nullptr);
    int flows = 0;
    cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(root, "traceEvents")) {
        std::string ph = cJSON_GetObjectItemCaseSensitive(e, "ph")->valuestring;
        if (ph != "s" && ph != "f") continue;
        flows++;
        int pid = cJSON_GetObjectItemCaseSensitive(e, "pid")->valueint;
        int tid = cJSON_GetObjectItemCaseSensitive(e, "tid")->valueint;
        EXPECT_EQ(cJSON_GetObjectItemCaseSensitive(e, "id")->valueint, 4);
        if (ph == "s") {
            EXPECT_EQ(pid, TRACE_CHROME_PID_DEVICE(0));
            EXPECT_EQ(tid, TRACE_CHROME_TID_STREAM_BASE + 1);
        } else {
            EXPECT_EQ(pid, TRACE_CHROME_PID_DEVICE(1));
            EXPECT_EQ(tid, TRACE_CHROME_TID_STREAM_BASE + 2);
        }
    }
    EXPECT_EQ(flows, 2);
    cJSON_Delete(root);
    trace_timeline_destroy(tl);
}

}  // namespace
