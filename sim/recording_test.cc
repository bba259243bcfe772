// sim/recording_test.cc: what the simulated runtime tells the recorder (trace/record/recorder.h).
// Every runtime call leaves its host span; streams and events are registered with their
// flags and priorities and their destruction is reported; every device op is recorded in
// program order and gets its simulated start and end; host waits are recorded as syncs; a
// query that answers not ready names what it asked about, one that answers cudaSuccess is a
// sync.
#include <gtest/gtest.h>

#include <cstring>

#include "sim/test_support.h"

namespace {

using simtest::Capture;
using simtest::Reset;
using simtest::Spin;

TEST(Recording, EveryRuntimeCallLeavesItsHostSpan) {
    Reset();
    Capture cap;
    cudaStream_t s;
    void *d;
    ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d, 64), cudaSuccess);
    ASSERT_EQ(cudaMemsetAsync(d, 0, 64, s), cudaSuccess);
    std::vector<trace_op> api = cap.Of(TRACE_OP_API);
    ASSERT_EQ(api.size(), 3u);
    EXPECT_STREQ(api[0].name, "cudaStreamCreate");
    EXPECT_STREQ(api[1].name, "cudaMalloc");
    EXPECT_STREQ(api[2].name, "cudaMemsetAsync");
    for (size_t i = 0; i < api.size(); i++) {
        EXPECT_EQ(api[i].engine, TRACE_ENGINE_HOST);
        EXPECT_EQ(api[i].stream, TRACE_STREAM_NONE);
        EXPECT_LT(api[i].start_ns, api[i].end_ns);
        if (i) {
            EXPECT_EQ(api[i].start_ns, api[i - 1].end_ns) << "the host did nothing in between";
        }
    }
    EXPECT_EQ(api.back().end_ns, sim_now_ns());
}

TEST(Recording, StreamsAreRegisteredWithFlagsAndPriorities) {
    Reset();
    int least, greatest;
    ASSERT_EQ(cudaDeviceGetStreamPriorityRange(&least, &greatest), cudaSuccess);
    cudaStream_t s;
    ASSERT_EQ(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, greatest), cudaSuccess);
    int32_t id = trace_stream_id(s);
    ASSERT_GE(id, 1);
    const trace_stream *ts = trace_stream_get(id);
    ASSERT_NE(ts, nullptr);
    EXPECT_EQ(ts->flags, (unsigned)cudaStreamNonBlocking);
    EXPECT_EQ(ts->priority, greatest);
    EXPECT_FALSE(ts->destroyed);
    ASSERT_EQ(cudaStreamDestroy(s), cudaSuccess);
    EXPECT_TRUE(trace_stream_get(id)->destroyed);
}

TEST(Recording, ResetReportsTheStreamsThatDie) {
    Reset();
    cudaStream_t s;
    ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
    int32_t id = trace_stream_id(s);
    sim_reset();
    EXPECT_TRUE(trace_stream_get(id)->destroyed);
}

TEST(Recording, EveryDeviceOpGetsItsTimes) {
    Reset();
    Capture cap;
    cudaStream_t s1, s2;
    ASSERT_EQ(cudaStreamCreate(&s1), cudaSuccess);
    ASSERT_EQ(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), cudaSuccess);
    cudaEvent_t e;
    ASSERT_EQ(cudaEventCreate(&e), cudaSuccess);
    void *h, *d;
    ASSERT_EQ(cudaMallocHost(&h, 1 << 20), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d, 1 << 20), cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(d, h, 1 << 20, cudaMemcpyHostToDevice, s1), cudaSuccess);
    ASSERT_EQ(Spin(s1, 1e5), cudaSuccess);
    ASSERT_EQ(cudaEventRecord(e, s1), cudaSuccess);
    ASSERT_EQ(cudaStreamWaitEvent(s2, e, 0), cudaSuccess);
    ASSERT_EQ(cudaMemsetAsync(d, 1, 1 << 20, s2), cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(h, d, 1 << 20, cudaMemcpyDeviceToHost, cudaStreamPerThread), cudaSuccess);
    EXPECT_GT(trace_pending_count(), 0u);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(trace_pending_count(), 0u);
    for (const auto &kv : cap.ops()) {
        const trace_op &op = kv.second;
        EXPECT_TRUE(op.timed) << trace_op_kind_name(op.kind);
        EXPECT_LE(op.start_ns, op.end_ns);
        if (op.kind != TRACE_OP_API && op.kind != TRACE_OP_SYNC) {
            EXPECT_LE(op.enqueue_ns, op.start_ns);
        }
    }
    std::vector<trace_op> waits = cap.Of(TRACE_OP_EVENT_WAIT), records = cap.Of(TRACE_OP_EVENT_RECORD);
    ASSERT_EQ(waits.size(), 1u);
    ASSERT_EQ(records.size(), 1u);
    EXPECT_EQ(waits[0].event, trace_event_id(e));
    EXPECT_EQ(records[0].event, trace_event_id(e));
    EXPECT_EQ(waits[0].stream, trace_stream_id(s2));
    EXPECT_EQ(records[0].stream, trace_stream_id(s1));
    const trace_stream *pt = trace_stream_get(trace_stream_id(cudaStreamPerThread));
    ASSERT_NE(pt, nullptr);
    EXPECT_TRUE(pt->per_thread);
}

TEST(Recording, OpsAreRecordedInProgramOrder) {
    Reset();
    Capture cap;
    cudaStream_t s1, s2;
    ASSERT_EQ(cudaStreamCreate(&s1), cudaSuccess);
    ASSERT_EQ(cudaStreamCreate(&s2), cudaSuccess);
    ASSERT_EQ(Spin(s1, 1e6, 1, 32, "first"), cudaSuccess);
    ASSERT_EQ(Spin(s2, 1e3, 1, 32, "second"), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    trace_op a = cap.Kernel("first"), b = cap.Kernel("second");
    EXPECT_LT(a.id, b.id);
    EXPECT_LT(a.enqueue_ns, b.enqueue_ns);
    EXPECT_GT(a.end_ns, b.end_ns) << "completion order is the device's, not the program's";
}

TEST(Recording, AQueryNamesWhatItAskedAboutEitherWay) {
    Reset();
    Capture cap;
    cudaStream_t s;
    cudaEvent_t e;
    ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaEventCreate(&e), cudaSuccess);
    ASSERT_EQ(Spin(s, 1e5), cudaSuccess);
    ASSERT_EQ(cudaEventRecord(e, s), cudaSuccess);
    int event_polls = 0, stream_polls = 0;
    cudaError_t err;
    while ((err = cudaEventQuery(e)) == cudaErrorNotReady) event_polls++;
    ASSERT_EQ(err, cudaSuccess);
    ASSERT_EQ(Spin(s, 1e5), cudaSuccess);
    while ((err = cudaStreamQuery(s)) == cudaErrorNotReady) stream_polls++;
    ASSERT_EQ(err, cudaSuccess);
    ASSERT_GT(event_polls, 0);
    ASSERT_GT(stream_polls, 0);
    int event_spans = 0, stream_spans = 0;
    for (const trace_op &op : cap.Of(TRACE_OP_API)) {
        if (op.sync == TRACE_SYNC_EVENT) {
            EXPECT_STREQ(op.name, "cudaEventQuery");
            EXPECT_EQ(op.event, trace_event_id(e));
            EXPECT_EQ(op.stream, TRACE_STREAM_NONE);
            event_spans++;
        } else if (op.sync == TRACE_SYNC_STREAM) {
            EXPECT_STREQ(op.name, "cudaStreamQuery");
            EXPECT_EQ(op.stream, trace_stream_id(s));
            stream_spans++;
        }
    }
    EXPECT_EQ(event_spans, event_polls);  // one named span per not-ready answer
    EXPECT_EQ(stream_spans, stream_polls);
    std::vector<trace_op> syncs = cap.Of(TRACE_OP_SYNC);
    ASSERT_EQ(syncs.size(), 2u);  // the successes
    EXPECT_STREQ(syncs[0].name, "cudaEventQuery");
    EXPECT_EQ(syncs[0].event, trace_event_id(e));
    EXPECT_STREQ(syncs[1].name, "cudaStreamQuery");
    EXPECT_EQ(syncs[1].stream, trace_stream_id(s));
}

TEST(Recording, WithoutASinkNothingIsKept) {
    Reset();
    ASSERT_FALSE(trace_active());
    ASSERT_EQ(Spin(0, 1e3), cudaSuccess);
    EXPECT_EQ(trace_pending_count(), 0u) << "the recorder only numbers ops when nobody listens";
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

}  // namespace
