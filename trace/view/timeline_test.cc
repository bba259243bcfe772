// trace/timeline_test.cc: the timeline store keeps timed ops in start order whatever
// order they arrive in, filters runs, knows streams, and names its lanes.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

extern "C" {
#include "trace/view/timeline.h"
}

#include "trace/view/two_devices_test.h"

namespace {

trace_op Op(uint64_t id, trace_op_kind kind, trace_engine engine, int32_t stream, uint64_t start, uint64_t end,
            int32_t run = -1) {
    trace_op op = {};
    op.id = id;
    op.kind = kind;
    op.engine = engine;
    op.stream = stream;
    op.start_ns = start;
    op.end_ns = end;
    op.run = run;
    op.batch = -1;
    op.timed = true;
    return op;
}

TEST(Timeline, SortsOpsThatArriveOutOfOrder) {
    trace_timeline *tl = trace_timeline_create();
    std::vector<uint64_t> starts;
    std::mt19937 rng(7);
    for (uint64_t id = 1; id <= 5000; id++) {
        uint64_t start = rng() % 100000;
        starts.push_back(start);
        trace_op op = Op(id, TRACE_OP_KERNEL, TRACE_ENGINE_COMPUTE, 1, start, start + 10);
        trace_timeline_add_op(tl, &op);
    }
    std::sort(starts.begin(), starts.end());
    ASSERT_EQ(trace_timeline_count(tl), starts.size());
    for (size_t i = 0; i < starts.size(); i++) EXPECT_EQ(trace_timeline_get(tl, i)->start_ns, starts[i]);
    // Equal starts are in id order.
    for (size_t i = 1; i < starts.size(); i++) {
        const trace_op *a = trace_timeline_get(tl, i - 1), *b = trace_timeline_get(tl, i);
        if (a->start_ns == b->start_ns) {
            EXPECT_LT(a->id, b->id);
        }
    }
    EXPECT_EQ(trace_timeline_get(tl, starts.size()), nullptr);
    trace_timeline_destroy(tl);
}

TEST(Timeline, KeepsOnlyTimedOpsOfChosenRuns) {
    trace_timeline *tl = trace_timeline_create();
    trace_timeline_keep_run(tl, 2);
    trace_timeline_keep_run(tl, 4);
    for (int run = 0; run < 6; run++) {
        trace_op op = Op(static_cast<uint64_t>(run + 1), TRACE_OP_KERNEL, TRACE_ENGINE_COMPUTE, 1, 100u * run,
                         100u * run + 50, run);
        trace_timeline_add_op(tl, &op);
    }
    trace_op untimed = Op(99, TRACE_OP_KERNEL, TRACE_ENGINE_COMPUTE, 1, 0, 0, 2);
    untimed.timed = false;
    trace_timeline_add_op(tl, &untimed);
    ASSERT_EQ(trace_timeline_count(tl), 2u);
    EXPECT_EQ(trace_timeline_get(tl, 0)->run, 2);
    EXPECT_EQ(trace_timeline_get(tl, 1)->run, 4);
    uint64_t t0, t1;
    ASSERT_TRUE(trace_timeline_span(tl, 4, &t0, &t1));
    EXPECT_EQ(t0, 400u);
    EXPECT_EQ(t1, 450u);
    EXPECT_FALSE(trace_timeline_span(tl, 3, &t0, &t1));
    trace_timeline_destroy(tl);
}

TEST(Timeline, LanesAreEnginesThenStreamsWithNamesAndPriorities) {
    trace_timeline *tl = trace_timeline_create();
    trace_stream s2 = {};
    s2.id = 2;
    s2.priority = -5;
    snprintf(s2.name, sizeof(s2.name), "urgent");
    trace_timeline_add_stream(tl, &s2);
    trace_op ops[] = {
        Op(1, TRACE_OP_COPY, TRACE_ENGINE_D2H, 1, 0, 10),
        Op(2, TRACE_OP_KERNEL, TRACE_ENGINE_COMPUTE, 2, 0, 10),
        Op(3, TRACE_OP_COPY, TRACE_ENGINE_H2D, 1, 0, 10),
        Op(4, TRACE_OP_SYNC, TRACE_ENGINE_HOST, 1, 0, 10),  // a host wait: host lane only
        Op(5, TRACE_OP_PHASE, TRACE_ENGINE_HOST, TRACE_STREAM_NONE, 0, 100),
    };
    for (const trace_op &op : ops) trace_timeline_add_op(tl, &op);
    trace_lane lanes[8];
    size_t n = trace_timeline_lanes(tl, TRACE_RUN_ANY, lanes, 8);
    ASSERT_EQ(n, 6u);
    EXPECT_STREQ(lanes[0].label, "H2D engine");
    EXPECT_STREQ(lanes[1].label, "compute");
    EXPECT_STREQ(lanes[2].label, "D2H engine");
    EXPECT_STREQ(lanes[3].label, "host");
    EXPECT_STREQ(lanes[4].label, "s1");
    EXPECT_STREQ(lanes[5].label, "s2 \"urgent\" p-5");
    EXPECT_TRUE(trace_lane_has(&lanes[4], &ops[0]));
    EXPECT_FALSE(trace_lane_has(&lanes[4], &ops[3]));  // the sync is the host's
    EXPECT_TRUE(trace_lane_has(&lanes[3], &ops[3]));
    EXPECT_FALSE(trace_lane_has(&lanes[3], &ops[4]));  // phases are on no lane
    // A short output array still reports how many lanes there are.
    EXPECT_EQ(trace_timeline_lanes(tl, TRACE_RUN_ANY, lanes, 2), 6u);
    // The phase does not stretch the span.
    uint64_t t0, t1;
    ASSERT_TRUE(trace_timeline_span(tl, TRACE_RUN_ANY, &t0, &t1));
    EXPECT_EQ(t1, 10u);
    trace_timeline_destroy(tl);
}

TEST(Timeline, InstalledAsASinkItSeesStreamsAndLateTimes) {
    trace_reset();
    int early = 0, late = 0;
    trace_stream_created(&early, 0, 0);
    trace_stream_set_name(&early, "loader");
    trace_timeline *tl = trace_timeline_create();
    ASSERT_EQ(trace_timeline_install(tl), 0);
    ASSERT_EQ(trace_timeline_install(tl), 0);  // installing twice is harmless
    trace_stream_created(&late, 1, 0);
    trace_op op = Op(0, TRACE_OP_KERNEL, TRACE_ENGINE_COMPUTE, 0, 0, 0);
    op.timed = false;
    uint64_t id = trace_record(&op, &late);
    EXPECT_EQ(trace_timeline_count(tl), 0u);
    trace_op_timed(id, 500, 900);
    ASSERT_EQ(trace_timeline_count(tl), 1u);
    EXPECT_EQ(trace_timeline_get(tl, 0)->end_ns, 900u);
    EXPECT_EQ(trace_timeline_get(tl, 0)->stream, 2);
    ASSERT_NE(trace_timeline_stream(tl, 1), nullptr);
    EXPECT_STREQ(trace_timeline_stream(tl, 1)->name, "loader");
    ASSERT_NE(trace_timeline_stream(tl, 2), nullptr);
    EXPECT_EQ(trace_timeline_stream(tl, 2)->flags, 1u);
    trace_timeline_destroy(tl);
    EXPECT_FALSE(trace_active());
    trace_reset();
}

TEST(Timeline, TwoDevicesGroupLanesByDeviceThenTheLink) {
    trace_timeline *tl = two_devices::Timeline();
    EXPECT_TRUE(trace_timeline_multi_device(tl, TRACE_RUN_ANY));
    trace_lane lanes[16];
    size_t n = trace_timeline_lanes(tl, TRACE_RUN_ANY, lanes, 16);
    const char *want[] = {"host", "GPU 0", "H2D engine", "compute", "s1 \"a\"", "GPU 1", "compute", "D2H engine",
                          "s2 \"b\"", "link", "GPU 0 -> GPU 1"};
    ASSERT_EQ(n, sizeof(want) / sizeof(want[0]));
    for (size_t i = 0; i < n; i++) EXPECT_STREQ(lanes[i].label, want[i]) << i;
    EXPECT_TRUE(lanes[1].heading);
    EXPECT_TRUE(lanes[5].heading);
    EXPECT_TRUE(lanes[9].heading);
    EXPECT_EQ(lanes[9].engine, TRACE_ENGINE_LINK);
    EXPECT_EQ(lanes[6].device, 1u);
    two_devices::Run r = two_devices::Ops();
    // Each device's compute lane holds its own stage; headings hold nothing.
    EXPECT_TRUE(trace_lane_has(&lanes[3], &r.ops[1]));
    EXPECT_FALSE(trace_lane_has(&lanes[3], &r.ops[3]));
    EXPECT_TRUE(trace_lane_has(&lanes[6], &r.ops[3]));
    EXPECT_FALSE(trace_lane_has(&lanes[6], &r.ops[1]));
    for (const trace_op &op : r.ops) EXPECT_FALSE(trace_lane_has(&lanes[5], &op));
    // The peer copy: on the link lane of its direction and on the stream that issued it.
    EXPECT_TRUE(trace_lane_has(&lanes[10], &r.ops[2]));
    EXPECT_TRUE(trace_lane_has(&lanes[4], &r.ops[2]));
    EXPECT_FALSE(trace_lane_has(&lanes[3], &r.ops[2]));
    trace_lane back = lanes[10];
    back.device = 1;
    back.dst_device = 0;
    EXPECT_FALSE(trace_lane_has(&back, &r.ops[2]));
    // The host lane takes host ops of any device.
    EXPECT_TRUE(trace_lane_has(&lanes[0], &r.ops[5]));
    trace_timeline_destroy(tl);
}

TEST(Timeline, OneDeviceIsNotGroupedAndAStreamOfAnotherDeviceGroupsIt) {
    trace_timeline *tl = trace_timeline_create();
    trace_op k = Op(1, TRACE_OP_KERNEL, TRACE_ENGINE_COMPUTE, 1, 0, 10);
    trace_timeline_add_op(tl, &k);
    EXPECT_FALSE(trace_timeline_multi_device(tl, TRACE_RUN_ANY));
    trace_lane lanes[8];
    ASSERT_EQ(trace_timeline_lanes(tl, TRACE_RUN_ANY, lanes, 8), 2u);
    EXPECT_STREQ(lanes[0].label, "compute");
    EXPECT_FALSE(lanes[0].heading);
    // An event record on a stream of device 1 (no engine work there) is enough.
    trace_stream s2 = {};
    s2.id = 2;
    s2.device = 1;
    trace_timeline_add_stream(tl, &s2);
    trace_op rec = Op(2, TRACE_OP_EVENT_RECORD, TRACE_ENGINE_NONE, 2, 5, 5);
    trace_timeline_add_op(tl, &rec);
    EXPECT_TRUE(trace_timeline_multi_device(tl, TRACE_RUN_ANY));
    size_t n = trace_timeline_lanes(tl, TRACE_RUN_ANY, lanes, 8);
    ASSERT_EQ(n, 5u);  // GPU 0, compute, s1, GPU 1, s2
    EXPECT_STREQ(lanes[0].label, "GPU 0");
    EXPECT_STREQ(lanes[3].label, "GPU 1");
    EXPECT_STREQ(lanes[4].label, "s2");
    trace_timeline_destroy(tl);
}

TEST(Timeline, TheRecorderGivesOpsTheirStreamsDevice) {
    trace_reset();
    trace_timeline *tl = trace_timeline_create();
    ASSERT_EQ(trace_timeline_install(tl), 0);
    int h0 = 0, h1 = 0;
    trace_stream_created(&h0, 1, 0);
    EXPECT_EQ(trace_stream_created_on(&h1, 1, 0, 1), 2);
    EXPECT_EQ(trace_stream_get(2)->device, 1u);
    ASSERT_NE(trace_timeline_stream(tl, 2), nullptr);
    EXPECT_EQ(trace_timeline_stream(tl, 2)->device, 1u);
    trace_op k = Op(0, TRACE_OP_KERNEL, TRACE_ENGINE_COMPUTE, 0, 0, 10);
    trace_record(&k, &h1);
    EXPECT_EQ(k.device, 1u);  // inherited from its stream
    trace_op up = Op(0, TRACE_OP_COPY, TRACE_ENGINE_H2D, 0, 0, 10);
    trace_op_set_device(&up, 0);  // device 0's copy engine, issued on device 1's stream
    trace_record(&up, &h1);
    EXPECT_EQ(up.device, 0u);
    EXPECT_EQ(up.stream, 2);
    trace_op peer = Op(0, TRACE_OP_COPY, TRACE_ENGINE_NONE, 0, 0, 10);
    trace_op_set_peer(&peer, 1, 0);
    trace_record(&peer, &h0);
    EXPECT_EQ(peer.engine, TRACE_ENGINE_LINK);
    EXPECT_EQ(peer.device, 1u);
    EXPECT_EQ(peer.dst_device, 0u);
    trace_op api = Op(0, TRACE_OP_API, TRACE_ENGINE_HOST, 0, 0, 10);
    trace_record(&api, nullptr);
    EXPECT_EQ(api.device, 0u);
    trace_timeline_destroy(tl);
    trace_reset();
}

}  // namespace
