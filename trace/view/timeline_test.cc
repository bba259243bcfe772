// trace/timeline_test.cc: the timeline store keeps timed ops in start order whatever
// order they arrive in, filters runs, knows streams, and names its lanes.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

extern "C" {
#include "trace/view/timeline.h"
}

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

}  // namespace
