// trace/recorder_test.cc: the recorder numbers ops in program order, maps stream and
// event handles to ids, holds ops until their times arrive, and fans out to sinks.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

extern "C" {
#include "trace/record/copy_rules.h"
#include "trace/record/recorder.h"
}

namespace {

struct Seen {
    std::vector<trace_op> ops;
    std::vector<trace_op> timed;
    std::vector<trace_stream> streams;
};

void on_op(void *ctx, const trace_op *op) { static_cast<Seen *>(ctx)->ops.push_back(*op); }
void on_timed(void *ctx, const trace_op *op) { static_cast<Seen *>(ctx)->timed.push_back(*op); }
void on_stream(void *ctx, const trace_stream *s) { static_cast<Seen *>(ctx)->streams.push_back(*s); }

class RecorderTest : public ::testing::Test {
  protected:
    void SetUp() override {
        trace_reset();
        trace_sink sink = {&seen, on_stream, on_op, on_timed, nullptr};
        ASSERT_EQ(trace_add_sink(&sink), 0);
    }
    void TearDown() override { trace_reset(); }
    Seen seen;
};

trace_op kernel_op(const char *name) {
    trace_op op = {};
    op.kind = TRACE_OP_KERNEL;
    op.engine = TRACE_ENGINE_COMPUTE;
    op.batch = -1;
    snprintf(op.name, sizeof(op.name), "%s", name);
    return op;
}

TEST_F(RecorderTest, StreamHandlesMapToIdsInCreationOrder) {
    int a = 0, b = 0;
    EXPECT_EQ(trace_stream_created(&a, 0, 0), 1);
    EXPECT_EQ(trace_stream_created(&b, 1, -5), 2);
    EXPECT_EQ(trace_stream_id(&a), 1);
    EXPECT_EQ(trace_stream_id(&b), 2);
    EXPECT_EQ(trace_stream_id(nullptr), TRACE_STREAM_LEGACY);
    EXPECT_EQ(trace_stream_id(reinterpret_cast<void *>(0x1)), TRACE_STREAM_LEGACY);
    int32_t per_thread = trace_stream_id(reinterpret_cast<void *>(0x2));
    EXPECT_EQ(per_thread, 3);
    EXPECT_TRUE(trace_stream_get(per_thread)->per_thread);
    EXPECT_EQ(trace_stream_get(2)->priority, -5);
    EXPECT_EQ(trace_stream_get(2)->flags, 1u);
    int unknown = 0;
    EXPECT_EQ(trace_stream_id(&unknown), -1);
    trace_stream_set_name(&a, "buf A");
    EXPECT_STREQ(trace_stream_get(1)->name, "buf A");
    // A name says nothing of what a stream is: only the simulator marks a graph's branch.
    trace_stream_set_name(&b, "graph branch 1");
    EXPECT_EQ(trace_stream_get(2)->graph_branch, 0u);
    trace_stream_set_graph_branch(&b, 3);
    EXPECT_EQ(trace_stream_get(2)->graph_branch, 3u);
    EXPECT_EQ(seen.streams.back().graph_branch, 3u) << "the sinks hear of it";
    trace_stream_destroyed(&a);
    EXPECT_EQ(trace_stream_id(&a), -1);
    EXPECT_TRUE(trace_stream_get(1)->destroyed);
    // A new stream reusing the freed handle gets a new id.
    EXPECT_EQ(trace_stream_created(&a, 0, 0), 4);
    EXPECT_EQ(trace_stream_id(&a), 4);
    ASSERT_FALSE(seen.streams.empty());
    EXPECT_STREQ(seen.streams.back().name, "s4");
}

TEST_F(RecorderTest, OpsAreNumberedInProgramOrderAndTimedLater) {
    int s = 0;
    trace_stream_created(&s, 0, -2);
    trace_set_run(3);
    trace_op k1 = kernel_op("first");
    trace_op k2 = kernel_op("second");
    uint64_t id1 = trace_record(&k1, &s);
    uint64_t id2 = trace_record(&k2, nullptr);
    EXPECT_LT(id1, id2);
    ASSERT_EQ(seen.ops.size(), 2u);
    EXPECT_EQ(seen.ops[0].stream, 1);
    EXPECT_EQ(seen.ops[0].priority, -2);
    EXPECT_EQ(seen.ops[0].run, 3);
    EXPECT_EQ(seen.ops[1].stream, TRACE_STREAM_LEGACY);
    EXPECT_TRUE(seen.timed.empty());
    EXPECT_EQ(trace_pending_count(), 2u);

    trace_op_timed(id2, 100, 200);
    trace_op_timed(id1, 10, 50);
    trace_op_timed(id1, 999, 1000);  // already timed: ignored
    ASSERT_EQ(seen.timed.size(), 2u);
    EXPECT_STREQ(seen.timed[0].name, "second");
    EXPECT_EQ(seen.timed[0].start_ns, 100u);
    EXPECT_EQ(seen.timed[0].end_ns, 200u);
    EXPECT_TRUE(seen.timed[0].timed);
    EXPECT_STREQ(seen.timed[1].name, "first");
    EXPECT_EQ(trace_pending_count(), 0u);
}

TEST_F(RecorderTest, ManyPendingOpsSurviveOutOfOrderTiming) {
    std::vector<uint64_t> ids;
    for (int i = 0; i < 5000; i++) {
        trace_op op = kernel_op("k");
        op.batch = i;
        ids.push_back(trace_record(&op, nullptr));
    }
    // Time every third, then the rest in reverse: the map must keep every op findable.
    for (size_t i = 0; i < ids.size(); i += 3) trace_op_timed(ids[i], i, i + 1);
    for (size_t i = ids.size(); i-- > 0;)
        if (i % 3) trace_op_timed(ids[i], i, i + 1);
    ASSERT_EQ(seen.timed.size(), ids.size());
    for (const trace_op &op : seen.timed) EXPECT_EQ(op.start_ns, static_cast<uint64_t>(op.batch));
    EXPECT_EQ(trace_pending_count(), 0u);
}

TEST_F(RecorderTest, HostRecordsArriveTimedAndOffStream) {
    int buf[4] = {};
    int ev = 0;
    EXPECT_EQ(trace_event_created(&ev, 0), 1u);
    trace_record_host_access(buf, sizeof(buf), true, "lab_load_batch", 7, 42);
    trace_record_sync(TRACE_SYNC_EVENT, &ev, "cudaEventSynchronize", 50, 80);
    trace_record_phase("run 1", 0, 100);
    ASSERT_EQ(seen.ops.size(), 3u);
    ASSERT_EQ(seen.timed.size(), 3u);
    EXPECT_EQ(seen.ops[0].stream, TRACE_STREAM_NONE);
    EXPECT_EQ(seen.ops[0].batch, 7);
    ASSERT_EQ(seen.ops[0].n_ranges, 1u);
    EXPECT_EQ(seen.ops[0].ranges[0].flags, TRACE_RANGE_WRITE);
    EXPECT_EQ(seen.ops[0].ranges[0].bytes, sizeof(buf));
    EXPECT_EQ(seen.ops[1].event, 1u);
    EXPECT_EQ(seen.ops[1].sync, TRACE_SYNC_EVENT);
    EXPECT_EQ(seen.ops[1].end_ns, 80u);
    EXPECT_EQ(trace_pending_count(), 0u);
}

// An event the program named carries its name on every record and wait made after, for
// the race reports, the timeline and the Perfetto export; an unnamed one has none, and a
// name given to an unknown handle changes nothing.
TEST_F(RecorderTest, EventRecordsAndWaitsCarryTheEventsName) {
    int named = 0, plain = 0, unknown = 0;
    trace_event_created(&named, 0);
    trace_event_created(&plain, 0);
    trace_event_set_name(&named, "uploaded[2]");
    trace_event_set_name(&unknown, "nobody");
    trace_record_event_record(&named, nullptr, 10);
    trace_record_stream_wait(nullptr, &named, 11);
    trace_record_event_record(&plain, nullptr, 12);
    ASSERT_EQ(seen.ops.size(), 3u);
    EXPECT_STREQ(seen.ops[0].name, "uploaded[2]");
    EXPECT_EQ(seen.ops[0].kind, TRACE_OP_EVENT_RECORD);
    EXPECT_STREQ(seen.ops[1].name, "uploaded[2]");
    EXPECT_EQ(seen.ops[1].kind, TRACE_OP_EVENT_WAIT);
    EXPECT_STREQ(seen.ops[2].name, "");
    char label[64];
    trace_event_label(seen.ops[0].event, seen.ops[0].name, label, sizeof(label));
    EXPECT_STREQ(label, "event \"uploaded[2]\"");
    trace_event_label(seen.ops[2].event, seen.ops[2].name, label, sizeof(label));
    EXPECT_STREQ(label, "event 2");
}

// A graph launched as one op is named with its branches, and the name reads back: what
// the lab's facts know of a graph's concurrency on a GPU. Other ops have none.
TEST(GraphOp, NameCarriesItsBranches) {
    trace_op op;
    std::memset(&op, 0, sizeof(op));
    op.kind = TRACE_OP_KERNEL;
    trace_graph_op_name(op.name, sizeof(op.name), 70, 2);
    EXPECT_STREQ(op.name, "graph (70 nodes, 2 branches)");
    EXPECT_EQ(trace_graph_op_branches(&op), 2);
    trace_graph_op_name(op.name, sizeof(op.name), 1, 1);
    EXPECT_STREQ(op.name, "graph (1 node, 1 branch)");
    EXPECT_EQ(trace_graph_op_branches(&op), 1);
    trace_graph_op_name(op.name, sizeof(op.name), 64, 0);
    EXPECT_STREQ(op.name, "graph (64 nodes)");
    EXPECT_EQ(trace_graph_op_branches(&op), 0);
    std::snprintf(op.name, sizeof(op.name), "process");
    EXPECT_EQ(trace_graph_op_branches(&op), 0);
    trace_graph_op_name(op.name, sizeof(op.name), 6, 2);
    op.kind = TRACE_OP_API;
    EXPECT_EQ(trace_graph_op_branches(&op), 0);
}

// An op carries the call site of the outermost entry point it was recorded in: a launcher
// that calls the runtime keeps the program's site, not its own; outside any, none.
TEST_F(RecorderTest, OpsCarryTheOutermostCallSite) {
    trace_call_site_enter(reinterpret_cast<const void *>(0x1000));
    trace_call_site_enter(reinterpret_cast<const void *>(0x2000));
    EXPECT_EQ(trace_call_site(), 0x1000u);
    trace_op a = kernel_op("inner");
    trace_record(&a, nullptr);
    trace_call_site_exit();
    trace_op b = kernel_op("outer");
    trace_record(&b, nullptr);
    trace_call_site_exit();
    trace_op c = kernel_op("none");
    trace_record(&c, nullptr);
    trace_call_site_exit(); /* one exit too many changes nothing */
    trace_call_site_enter(reinterpret_cast<const void *>(0x3000));
    trace_op d = kernel_op("given");
    d.call_site = 0x4000; /* a source that knows the site keeps it */
    trace_record(&d, nullptr);
    trace_call_site_exit();
    ASSERT_EQ(seen.ops.size(), 4u);
    EXPECT_EQ(seen.ops[0].call_site, 0x1000u);
    EXPECT_EQ(seen.ops[1].call_site, 0x1000u);
    EXPECT_EQ(seen.ops[2].call_site, 0u);
    EXPECT_EQ(seen.ops[3].call_site, 0x4000u);
    EXPECT_EQ(trace_call_site(), 0u);
}

// The calls one makes for another (the referee's device synchronisation and unregistration
// that perform a program's cudaFreeHost) carry the program's call's name and one number, a
// new one for each such call; ops outside carry none.
TEST_F(RecorderTest, OpsOfOneCallMadeForAnotherShareItsNumber) {
    trace_record_api("cudaMalloc", 0, 1);
    trace_record_as("cudaFreeHost");
    trace_record_sync(TRACE_SYNC_DEVICE, nullptr, "cudaDeviceSynchronize", 2, 5);
    trace_record_api("cudaDeviceSynchronize", 2, 5);
    trace_record_api("cudaHostUnregister", 5, 6);
    trace_record_as(nullptr);
    trace_record_as("cudaFreeHost");
    trace_record_api("cudaHostUnregister", 7, 8);
    trace_record_as(nullptr);
    trace_record_api("cudaFree", 9, 10);
    ASSERT_EQ(seen.ops.size(), 6u);
    EXPECT_EQ(seen.ops[0].as_call, 0u);
    EXPECT_NE(seen.ops[1].as_call, 0u);
    EXPECT_STREQ(seen.ops[1].name, "cudaFreeHost");
    EXPECT_STREQ(seen.ops[3].name, "cudaFreeHost");
    EXPECT_EQ(seen.ops[2].as_call, seen.ops[1].as_call);
    EXPECT_EQ(seen.ops[3].as_call, seen.ops[1].as_call);
    EXPECT_NE(seen.ops[4].as_call, 0u);
    EXPECT_NE(seen.ops[4].as_call, seen.ops[1].as_call);
    EXPECT_EQ(seen.ops[5].as_call, 0u);
    EXPECT_STREQ(seen.ops[5].name, "cudaFree");
}

TEST(RecorderNoSink, NumbersOpsWithoutKeepingThem) {
    trace_reset();
    EXPECT_FALSE(trace_active());
    trace_op op = kernel_op("k");
    EXPECT_EQ(trace_record(&op, nullptr), 1u);
    EXPECT_EQ(trace_pending_count(), 0u);
}

TEST(CopyRules, MatchTheRuntimeDocumentation) {
    trace_copy_rule r = trace_copy_sync_rule(TRACE_COPY_H2D, true, false);
    EXPECT_TRUE(r.host_staged_src);
    EXPECT_FALSE(r.host_waits);
    EXPECT_FALSE(r.sync_before);
    r = trace_copy_sync_rule(TRACE_COPY_H2D, false, false);
    EXPECT_TRUE(r.host_staged_src);
    EXPECT_TRUE(r.sync_before);
    r = trace_copy_sync_rule(TRACE_COPY_H2D, true, true);
    EXPECT_FALSE(r.host_staged_src || r.host_waits || r.sync_before);
    EXPECT_TRUE(trace_copy_sync_rule(TRACE_COPY_H2D, false, true).host_waits);
    EXPECT_TRUE(trace_copy_sync_rule(TRACE_COPY_D2H, true, false).host_waits);
    EXPECT_FALSE(trace_copy_sync_rule(TRACE_COPY_D2H, true, true).host_waits);
    EXPECT_TRUE(trace_copy_sync_rule(TRACE_COPY_D2H, false, true).host_waits);
    EXPECT_FALSE(trace_copy_sync_rule(TRACE_COPY_D2D, false, false).host_waits);
    EXPECT_TRUE(trace_copy_sync_rule(TRACE_COPY_H2H, true, true).host_waits);
}

}  // namespace
