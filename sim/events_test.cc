// sim/events_test.cc: events. Timing between records, cudaEventDisableTiming and
// unrecorded events (cudaErrorInvalidResourceHandle from cudaEventElapsedTime), queries
// (what each answer costs) and synchronisation, cross-stream waits on the record as it was at the call, and the
// host cost of a record.
#include <gtest/gtest.h>

#include <cmath>

#include "sim/test_support.h"

namespace {

using simtest::Capture;
using simtest::Profile;
using simtest::Reset;
using simtest::Spin;

const double kMs = 1e6;

std::vector<trace_op> Records(const Capture &cap) { return cap.Of(TRACE_OP_EVENT_RECORD); }

TEST(Events, ElapsedTimeIsTheTimeBetweenTheRecordsCompleting) {
    Reset();
    Capture cap;
    cudaStream_t s;
    ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
    cudaEvent_t a, b;
    ASSERT_EQ(cudaEventCreate(&a), cudaSuccess);
    ASSERT_EQ(cudaEventCreate(&b), cudaSuccess);
    ASSERT_EQ(cudaEventRecord(a, s), cudaSuccess);
    ASSERT_EQ(Spin(s, 2 * kMs, 1, 32, "k"), cudaSuccess);
    ASSERT_EQ(cudaEventRecord(b, s), cudaSuccess);
    ASSERT_EQ(cudaEventSynchronize(b), cudaSuccess);
    float ms = 0;
    ASSERT_EQ(cudaEventElapsedTime(&ms, a, b), cudaSuccess);
    std::vector<trace_op> r = Records(cap);
    ASSERT_EQ(r.size(), 2u);
    EXPECT_FLOAT_EQ(ms, (float)((double)(r[1].end_ns - r[0].end_ns) / 1e6));
    trace_op k = cap.Kernel("k");
    EXPECT_EQ(r[1].end_ns, k.end_ns) << "b completes when the kernel before it does";
    EXPECT_GT(ms, 2.0f);
    float back = 0;
    ASSERT_EQ(cudaEventElapsedTime(&back, b, a), cudaSuccess);
    EXPECT_FLOAT_EQ(back, -ms);
}

TEST(Events, DisableTimingEventsHaveNoElapsedTime) {
    Reset();
    cudaEvent_t a, b;
    ASSERT_EQ(cudaEventCreate(&a), cudaSuccess);
    ASSERT_EQ(cudaEventCreateWithFlags(&b, cudaEventDisableTiming), cudaSuccess);
    ASSERT_EQ(cudaEventRecord(a, 0), cudaSuccess);
    ASSERT_EQ(cudaEventRecord(b, 0), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    float ms = 0;
    EXPECT_EQ(cudaEventElapsedTime(&ms, a, b), cudaErrorInvalidResourceHandle);
    EXPECT_EQ(cudaEventElapsedTime(&ms, b, a), cudaErrorInvalidResourceHandle);
    EXPECT_EQ(cudaEventQuery(b), cudaSuccess) << "they still work for synchronisation";
}

TEST(Events, NeverRecordedEventsAreCompleteButHaveNoTime) {
    Reset();
    cudaEvent_t a, b;
    ASSERT_EQ(cudaEventCreate(&a), cudaSuccess);
    ASSERT_EQ(cudaEventCreate(&b), cudaSuccess);
    EXPECT_EQ(cudaEventQuery(a), cudaSuccess);
    EXPECT_EQ(cudaEventSynchronize(a), cudaSuccess);
    ASSERT_EQ(cudaEventRecord(b, 0), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    float ms = 0;
    EXPECT_EQ(cudaEventElapsedTime(&ms, a, b), cudaErrorInvalidResourceHandle);
}

TEST(Events, ElapsedTimeOfAnUnfinishedRecordIsNotReady) {
    Reset();
    cudaEvent_t a, b;
    ASSERT_EQ(cudaEventCreate(&a), cudaSuccess);
    ASSERT_EQ(cudaEventCreate(&b), cudaSuccess);
    ASSERT_EQ(cudaEventRecord(a, 0), cudaSuccess);
    ASSERT_EQ(Spin(0, 5 * kMs), cudaSuccess);
    ASSERT_EQ(cudaEventRecord(b, 0), cudaSuccess);
    float ms = 0;
    EXPECT_EQ(cudaEventElapsedTime(&ms, a, b), cudaErrorNotReady);
    EXPECT_EQ(cudaEventQuery(b), cudaErrorNotReady);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "not-ready is not an error";
    ASSERT_EQ(cudaEventSynchronize(b), cudaSuccess);
    EXPECT_EQ(cudaEventElapsedTime(&ms, a, b), cudaSuccess);
}

// A query that returned cudaSuccess is recorded as the host synchronising with what it
// asked about (the race checker orders the host after it); one that returned
// cudaErrorNotReady is not: it waited for nothing.
TEST(Events, OnlyAQueryThatSucceededIsRecordedAsAHostSync) {
    Reset();
    Capture cap;
    cudaStream_t s;
    ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
    cudaEvent_t e;
    ASSERT_EQ(cudaEventCreate(&e), cudaSuccess);
    ASSERT_EQ(Spin(s, 3 * kMs), cudaSuccess);
    ASSERT_EQ(cudaEventRecord(e, s), cudaSuccess);
    ASSERT_EQ(cudaEventQuery(e), cudaErrorNotReady);
    ASSERT_EQ(cudaStreamQuery(s), cudaErrorNotReady);
    EXPECT_TRUE(cap.Of(TRACE_OP_SYNC).empty());
    int polls = 0;
    while (cudaEventQuery(e) == cudaErrorNotReady) polls++;
    EXPECT_GT(polls, 0);
    std::vector<trace_op> syncs = cap.Of(TRACE_OP_SYNC);
    ASSERT_EQ(syncs.size(), 1u);
    EXPECT_EQ(syncs[0].sync, TRACE_SYNC_EVENT);
    EXPECT_EQ(syncs[0].event, trace_event_id(e));
    EXPECT_STREQ(syncs[0].name, "cudaEventQuery");
    ASSERT_EQ(cudaStreamQuery(s), cudaSuccess);
    syncs = cap.Of(TRACE_OP_SYNC);
    ASSERT_EQ(syncs.size(), 2u);
    EXPECT_EQ(syncs[1].sync, TRACE_SYNC_STREAM);
    EXPECT_EQ(syncs[1].stream, trace_stream_id(s));
    EXPECT_STREQ(syncs[1].name, "cudaStreamQuery");
    EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "cudaErrorNotReady is not an error";
}

TEST(Events, SynchronizeWakesTheHostWhenTheRecordCompletes) {
    Reset();
    Capture cap;
    cudaEvent_t e;
    ASSERT_EQ(cudaEventCreate(&e), cudaSuccess);
    ASSERT_EQ(Spin(0, 3 * kMs), cudaSuccess);
    ASSERT_EQ(cudaEventRecord(e, 0), cudaSuccess);
    ASSERT_EQ(cudaEventSynchronize(e), cudaSuccess);
    std::vector<trace_op> r = Records(cap);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(sim_now_ns(), r[0].end_ns + simtest::Ns(Profile().sync_wake_ns));
    std::vector<trace_op> syncs = cap.Of(TRACE_OP_SYNC);
    ASSERT_EQ(syncs.size(), 1u);
    EXPECT_EQ(syncs[0].sync, TRACE_SYNC_EVENT);
    EXPECT_EQ(syncs[0].event, r[0].event);
}

TEST(Events, AStreamWaitsForAnEventRecordedInAnother) {
    Reset();
    Capture cap;
    cudaStream_t s1, s2;
    ASSERT_EQ(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), cudaSuccess);
    cudaEvent_t e;
    ASSERT_EQ(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), cudaSuccess);
    ASSERT_EQ(Spin(s1, 2 * kMs, 1, 32, "producer"), cudaSuccess);
    ASSERT_EQ(cudaEventRecord(e, s1), cudaSuccess);
    ASSERT_EQ(cudaStreamWaitEvent(s2, e, 0), cudaSuccess);
    ASSERT_EQ(Spin(s2, 0, 1, 32, "consumer"), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_GE(cap.Kernel("consumer").start_ns, cap.Kernel("producer").end_ns);
    std::vector<trace_op> waits = cap.Of(TRACE_OP_EVENT_WAIT);
    ASSERT_EQ(waits.size(), 1u);
    EXPECT_EQ(waits[0].end_ns, cap.Kernel("producer").end_ns) << "released when the record completed";
}

TEST(Events, AWaitUsesTheRecordAsItWasWhenTheWaitWasIssued) {
    Reset();
    Capture cap;
    cudaStream_t s1, s2;
    ASSERT_EQ(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), cudaSuccess);
    cudaEvent_t e;
    ASSERT_EQ(cudaEventCreate(&e), cudaSuccess);
    ASSERT_EQ(Spin(s1, 1 * kMs, 1, 32, "first"), cudaSuccess);
    ASSERT_EQ(cudaEventRecord(e, s1), cudaSuccess);
    ASSERT_EQ(cudaStreamWaitEvent(s2, e, 0), cudaSuccess);
    ASSERT_EQ(Spin(s1, 5 * kMs, 1, 32, "second"), cudaSuccess);
    ASSERT_EQ(cudaEventRecord(e, s1), cudaSuccess);  // a later record: not what s2 waits for
    ASSERT_EQ(Spin(s2, 0, 1, 32, "consumer"), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    trace_op c = cap.Kernel("consumer");
    EXPECT_GE(c.start_ns, cap.Kernel("first").end_ns);
    EXPECT_LT(c.start_ns, cap.Kernel("second").end_ns);
}

TEST(Events, WaitingOnANeverRecordedEventWaitsForNothing) {
    Reset();
    Capture cap;
    cudaStream_t s1, s2;
    ASSERT_EQ(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), cudaSuccess);
    cudaEvent_t e;
    ASSERT_EQ(cudaEventCreate(&e), cudaSuccess);
    ASSERT_EQ(Spin(s1, 2 * kMs, 1, 32, "busy"), cudaSuccess);
    ASSERT_EQ(cudaStreamWaitEvent(s2, e, 0), cudaSuccess);
    ASSERT_EQ(Spin(s2, 0, 1, 32, "free"), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_LT(cap.Kernel("free").end_ns, cap.Kernel("busy").end_ns);
}

TEST(Events, ARecordOnTheLegacyStreamWaitsForBlockingStreams) {
    Reset();
    Capture cap;
    cudaStream_t s;
    ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
    cudaEvent_t e;
    ASSERT_EQ(cudaEventCreate(&e), cudaSuccess);
    ASSERT_EQ(Spin(s, 2 * kMs, 1, 32, "k"), cudaSuccess);
    ASSERT_EQ(cudaEventRecord(e, 0), cudaSuccess);
    ASSERT_EQ(cudaEventSynchronize(e), cudaSuccess);
    EXPECT_GE(Records(cap)[0].end_ns, cap.Kernel("k").end_ns);
}

TEST(Events, RecordingCostsTheMeasuredHostTime) {
    Reset();
    cudaEvent_t timed, untimed;
    ASSERT_EQ(cudaEventCreate(&timed), cudaSuccess);
    ASSERT_EQ(cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming), cudaSuccess);
    uint64_t t0 = sim_now_ns();
    ASSERT_EQ(cudaEventRecord(timed, 0), cudaSuccess);
    uint64_t t1 = sim_now_ns();
    ASSERT_EQ(cudaEventRecord(untimed, 0), cudaSuccess);
    uint64_t t2 = sim_now_ns();
    EXPECT_EQ(t1 - t0, simtest::Ns(Profile().event_record_ns));
    EXPECT_EQ(t2 - t1, simtest::Ns(Profile().event_record_no_timing_ns));
}

// A query costs what its answer costs: query_ns when the event is complete,
// query_pending_ns when not (measured apart on GPUs: 0.205 and 0.171 us on an H200), and
// cudaStreamQuery stream_query_ns.
TEST(Events, AQueryCostsWhatItsAnswerCosts) {
    Reset(simtest::ProfileWith({{"host", "query_ns", 900}, {"host", "query_pending_ns", 400},
                                {"host", "stream_query_ns", 650}})
              .c_str());
    cudaStream_t s;
    cudaEvent_t e;
    ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), cudaSuccess);
    ASSERT_EQ(Spin(s, 1 * kMs, 1, 32, "k"), cudaSuccess);
    ASSERT_EQ(cudaEventRecord(e, s), cudaSuccess);
    uint64_t t0 = sim_now_ns();
    ASSERT_EQ(cudaEventQuery(e), cudaErrorNotReady);
    uint64_t t1 = sim_now_ns();
    ASSERT_EQ(cudaStreamQuery(s), cudaErrorNotReady);
    uint64_t t2 = sim_now_ns();
    EXPECT_EQ(t1 - t0, 400u);
    EXPECT_EQ(t2 - t1, 650u);
    ASSERT_EQ(cudaEventSynchronize(e), cudaSuccess);
    uint64_t t3 = sim_now_ns();
    ASSERT_EQ(cudaEventQuery(e), cudaSuccess);
    EXPECT_EQ(sim_now_ns() - t3, 900u);
}

// The answer is the device's state when the call returns: where an answer of "pending"
// costs more than one of "done", work that ends between the call's first look (after the
// cheaper answer's cost) and its return is seen, and the call costs the pending answer's
// time; work that ends before the first look costs the done answer's.
TEST(Events, AQueryAnswersAsTheDeviceIsWhenItReturns) {
    Reset(simtest::ProfileWith({{"host", "query_ns", 200}, {"host", "query_pending_ns", 2000}}).c_str());
    cudaStream_t s;
    cudaEvent_t e;
    ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), cudaSuccess);
    Capture cap;
    ASSERT_EQ(Spin(s, 1 * kMs, 1, 32, "k"), cudaSuccess);
    ASSERT_EQ(cudaEventRecord(e, s), cudaSuccess);
    // Poll until it succeeds: the kernel's end falls in one of the queries.
    int polls = 0;
    cudaError_t r;
    uint64_t last = sim_now_ns(); /* when the query that succeeded began */
    while ((r = cudaEventQuery(e)) == cudaErrorNotReady && polls < 10000) {
        last = sim_now_ns();
        polls++;
    }
    ASSERT_EQ(r, cudaSuccess);
    uint64_t returned = sim_now_ns(), end = cap.Kernel("k").end_ns;
    ASSERT_GT(end, last) << "the queries before it answered pending";
    if (end <= last + 200)
        EXPECT_EQ(returned, last + 200) << "ended before the first look: the done answer's cost";
    else
        EXPECT_EQ(returned, last + 2000) << "ended after the first look: seen at the return, the pending cost";
    // This kernel's end falls after the first look of its query (the case the rule is for).
    EXPECT_GT(end, last + 200);
}

TEST(Events, DestroyedEventsAreInvalidHandles) {
    Reset();
    cudaEvent_t e;
    ASSERT_EQ(cudaEventCreate(&e), cudaSuccess);
    ASSERT_EQ(cudaEventRecord(e, 0), cudaSuccess);
    ASSERT_EQ(cudaEventDestroy(e), cudaSuccess);
    EXPECT_EQ(cudaEventQuery(e), cudaErrorInvalidResourceHandle);
    EXPECT_EQ(cudaEventRecord(e, 0), cudaErrorInvalidResourceHandle);
    EXPECT_EQ(cudaEventSynchronize(e), cudaErrorInvalidResourceHandle);
    EXPECT_EQ(cudaStreamWaitEvent(0, e, 0), cudaErrorInvalidResourceHandle);
    EXPECT_EQ(cudaEventDestroy(e), cudaErrorInvalidResourceHandle);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess) << "its pending record still completed harmlessly";
}

TEST(Events, BadArgumentsAreInvalidValues) {
    Reset();
    cudaEvent_t e;
    EXPECT_EQ(cudaEventCreate(nullptr), cudaErrorInvalidValue);
    EXPECT_EQ(cudaEventCreateWithFlags(&e, 0x8), cudaErrorInvalidValue);
    EXPECT_EQ(cudaEventCreateWithFlags(&e, cudaEventInterprocess), cudaErrorInvalidValue)
        << "an interprocess event must disable timing";
    ASSERT_EQ(cudaEventCreateWithFlags(&e, cudaEventInterprocess | cudaEventDisableTiming), cudaSuccess);
    ASSERT_EQ(cudaEventCreate(&e), cudaSuccess);
    EXPECT_EQ(cudaEventElapsedTime(nullptr, e, e), cudaErrorInvalidValue);
    EXPECT_EQ(cudaStreamWaitEvent(0, e, 0x2), cudaErrorInvalidValue);
    EXPECT_EQ(cudaEventRecord(e, (cudaStream_t)(uintptr_t)0x99990), cudaErrorInvalidResourceHandle);
}

}  // namespace
