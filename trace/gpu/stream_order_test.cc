// trace/gpu/stream_order_test.cc: device records reach the right ops by their order on each
// stream, with records of different classes interleaved, pieces merged, and records that
// belong to no known op counted and dropped rather than shifting the later ones.
#include <gtest/gtest.h>

#include <vector>

extern "C" {
#include "trace/gpu/stream_order.h"
}

namespace {

class StreamOrder : public ::testing::Test {
  protected:
    void SetUp() override {
        s = trace_gpu_sorder_create();
        ASSERT_NE(s, nullptr);
    }
    void TearDown() override { trace_gpu_sorder_destroy(s); }
    std::vector<trace_gpu_timing> take() {
        std::vector<trace_gpu_timing> out(64);
        out.resize(trace_gpu_sorder_take_ready(s, out.data(), out.size()));
        return out;
    }
    void op(uint32_t stream, trace_gpu_rec_class cls, uint64_t id, uint64_t enqueue) {
        ASSERT_EQ(trace_gpu_sorder_op(s, stream, cls, id, enqueue), 0);
    }
    trace_gpu_sorder *s = nullptr;
};

TEST_F(StreamOrder, KthRecordOfAStreamTakesItsKthOp) {
    op(7, TRACE_GPU_REC_COPY, 1, 100);
    op(7, TRACE_GPU_REC_COPY, 2, 110);
    trace_gpu_sorder_record(s, 7, TRACE_GPU_REC_COPY, 50, 1000, 2000);
    trace_gpu_sorder_record(s, 7, TRACE_GPU_REC_COPY, 51, 2000, 3000);
    auto got = take();
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[0].op_id, 1u);
    EXPECT_EQ(got[0].start_ns, 1000u);
    EXPECT_EQ(got[0].end_ns, 2000u);
    EXPECT_EQ(got[1].op_id, 2u);
    EXPECT_EQ(got[1].start_ns, 2000u);
    EXPECT_TRUE(take().empty());
    EXPECT_EQ(trace_gpu_sorder_waiting(s), 0u);
    EXPECT_EQ(trace_gpu_sorder_get_stats(s).timed, 2u);
}

TEST_F(StreamOrder, ClassesAndStreamsHaveTheirOwnQueues) {
    // H2D copy, kernel, D2H copy on stream 1; a kernel on stream 2. Kernel records come
    // first, as if CUPTI delivered them in a different buffer.
    op(1, TRACE_GPU_REC_COPY, 10, 100);
    op(1, TRACE_GPU_REC_KERNEL, 11, 101);
    op(1, TRACE_GPU_REC_COPY, 12, 102);
    op(2, TRACE_GPU_REC_KERNEL, 13, 103);
    trace_gpu_sorder_record(s, 2, TRACE_GPU_REC_KERNEL, 4, 500, 600);
    trace_gpu_sorder_record(s, 1, TRACE_GPU_REC_KERNEL, 2, 300, 400);
    trace_gpu_sorder_record(s, 1, TRACE_GPU_REC_COPY, 1, 200, 300);
    trace_gpu_sorder_record(s, 1, TRACE_GPU_REC_COPY, 3, 400, 500);
    auto got = take();
    ASSERT_EQ(got.size(), 4u);
    EXPECT_EQ(got[0].op_id, 13u);
    EXPECT_EQ(got[0].start_ns, 500u);
    EXPECT_EQ(got[1].op_id, 11u);
    EXPECT_EQ(got[1].start_ns, 300u);
    EXPECT_EQ(got[2].op_id, 10u);
    EXPECT_EQ(got[2].start_ns, 200u);
    EXPECT_EQ(got[3].op_id, 12u);
    EXPECT_EQ(got[3].start_ns, 400u);
}

TEST_F(StreamOrder, PiecesOfOneOpMergeIntoItsSpan) {
    op(3, TRACE_GPU_REC_COPY, 1, 100);
    op(3, TRACE_GPU_REC_COPY, 2, 100);
    trace_gpu_sorder_record(s, 3, TRACE_GPU_REC_COPY, 9, 1000, 1100);
    trace_gpu_sorder_record(s, 3, TRACE_GPU_REC_COPY, 9, 1100, 1300);
    trace_gpu_sorder_record(s, 3, TRACE_GPU_REC_COPY, 10, 1400, 1500);
    auto got = take();
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[0].op_id, 1u);
    EXPECT_EQ(got[0].start_ns, 1000u);
    EXPECT_EQ(got[0].end_ns, 1300u);
    EXPECT_EQ(got[1].op_id, 2u);
    EXPECT_EQ(got[1].start_ns, 1400u);
    EXPECT_EQ(trace_gpu_sorder_get_stats(s).pieces, 1u);
}

TEST_F(StreamOrder, APieceAfterItsOpWasHandedOutShiftsNothing) {
    op(3, TRACE_GPU_REC_COPY, 1, 100);
    op(3, TRACE_GPU_REC_COPY, 2, 100);
    trace_gpu_sorder_record(s, 3, TRACE_GPU_REC_COPY, 9, 1000, 1100);
    ASSERT_EQ(take().size(), 1u);
    trace_gpu_sorder_record(s, 3, TRACE_GPU_REC_COPY, 9, 1100, 1200);  // late piece of op 1
    trace_gpu_sorder_record(s, 3, TRACE_GPU_REC_COPY, 10, 1300, 1400);
    auto got = take();
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].op_id, 2u);
    EXPECT_EQ(got[0].start_ns, 1300u);
    EXPECT_EQ(trace_gpu_sorder_get_stats(s).late_pieces, 1u);
}

TEST_F(StreamOrder, ARecordOfAnUnknownEarlierOpIsDroppedNotMatched) {
    // A kernel launched outside the interposer ran before the tracked one: its record
    // starts before the tracked kernel was enqueued.
    op(5, TRACE_GPU_REC_KERNEL, 1, 10000);
    trace_gpu_sorder_record(s, 5, TRACE_GPU_REC_KERNEL, 20, 5000, 9000);
    EXPECT_TRUE(take().empty());
    trace_gpu_sorder_record(s, 5, TRACE_GPU_REC_KERNEL, 21, 12000, 13000);
    auto got = take();
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].op_id, 1u);
    EXPECT_EQ(got[0].start_ns, 12000u);
    EXPECT_EQ(trace_gpu_sorder_get_stats(s).too_early, 1u);
}

TEST_F(StreamOrder, StartingWithinTheSlackOfTheEnqueueTimeStillMatches) {
    op(5, TRACE_GPU_REC_KERNEL, 1, 10000);
    trace_gpu_sorder_record(s, 5, TRACE_GPU_REC_KERNEL, 20, 10000 - TRACE_GPU_SORDER_SLACK_NS, 11000);
    ASSERT_EQ(take().size(), 1u);
}

TEST_F(StreamOrder, ACorrelationIdGoingBackwardsIsDropped) {
    op(5, TRACE_GPU_REC_KERNEL, 1, 10);
    op(5, TRACE_GPU_REC_KERNEL, 2, 20);
    trace_gpu_sorder_record(s, 5, TRACE_GPU_REC_KERNEL, 30, 100, 200);
    trace_gpu_sorder_record(s, 5, TRACE_GPU_REC_KERNEL, 29, 300, 400);
    EXPECT_EQ(take().size(), 1u);
    EXPECT_EQ(trace_gpu_sorder_waiting(s), 1u);
    EXPECT_EQ(trace_gpu_sorder_get_stats(s).out_of_order, 1u);
}

TEST_F(StreamOrder, ExtraRecordsAreCounted) {
    trace_gpu_sorder_record(s, 9, TRACE_GPU_REC_MEMSET, 1, 100, 200);  // no such queue
    op(9, TRACE_GPU_REC_MEMSET, 1, 10);
    trace_gpu_sorder_record(s, 9, TRACE_GPU_REC_MEMSET, 2, 100, 200);
    trace_gpu_sorder_record(s, 9, TRACE_GPU_REC_MEMSET, 3, 300, 400);  // queue empty
    EXPECT_EQ(take().size(), 1u);
    EXPECT_EQ(trace_gpu_sorder_get_stats(s).extra, 2u);
}

TEST_F(StreamOrder, AnUntimedRecordHandsTheOpOutAtItsEnqueueTime) {
    op(4, TRACE_GPU_REC_EVENT, 1, 777);
    trace_gpu_sorder_record(s, 4, TRACE_GPU_REC_EVENT, 5, 0, 0);
    auto got = take();
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].start_ns, 777u);
    EXPECT_EQ(got[0].end_ns, 777u);
}

TEST_F(StreamOrder, RecordsWaitForOpsEnqueuedLater) {
    // Ops are queued when bound, records may come before ops on other queues; a queue's
    // waiting ops stay until their records arrive, across many takes.
    for (uint64_t i = 1; i <= 1000; ++i) op(1, TRACE_GPU_REC_KERNEL, i, i * 10);
    size_t total = 0;
    for (uint32_t i = 1; i <= 1000; ++i) {
        trace_gpu_sorder_record(s, 1, TRACE_GPU_REC_KERNEL, i, i * 10 + 5, i * 10 + 8);
        if (i % 100 == 0) {
            auto got = take();
            ASSERT_EQ(got.size(), 64u);  // take() asks for at most 64
            total += got.size();
            while (!(got = take()).empty()) total += got.size();
        }
    }
    EXPECT_EQ(total, 1000u);
    EXPECT_EQ(trace_gpu_sorder_waiting(s), 0u);
}

TEST_F(StreamOrder, RejectsBadArguments) {
    EXPECT_EQ(trace_gpu_sorder_op(s, 1, TRACE_GPU_REC_CLASSES, 1, 0), -1);
    EXPECT_EQ(trace_gpu_sorder_op(s, 1, TRACE_GPU_REC_KERNEL, 0, 0), -1);
    trace_gpu_sorder_record(s, 1, TRACE_GPU_REC_CLASSES, 1, 1, 2);
    EXPECT_EQ(trace_gpu_sorder_get_stats(s).extra, 1u);
}

}  // namespace
