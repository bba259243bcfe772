// trace/gpu/correlation_test.cc: CUPTI's device records reach the right recorder ops
// whatever order the records and the binding come in.
#include <gtest/gtest.h>

#include <vector>

extern "C" {
#include "trace/gpu/correlation.h"
}

namespace {

class Corr : public ::testing::Test {
  protected:
    void SetUp() override { c = trace_gpu_corr_create(4, 5); ASSERT_NE(c, nullptr); }
    void TearDown() override { trace_gpu_corr_destroy(c); }
    std::vector<trace_gpu_timing> take() {
        std::vector<trace_gpu_timing> out(64);
        out.resize(trace_gpu_corr_take_ready(c, out.data(), out.size()));
        return out;
    }
    trace_gpu_corr *c = nullptr;
};

TEST_F(Corr, RejectsBadSizes) {
    EXPECT_EQ(trace_gpu_corr_create(0, 4), nullptr);
    EXPECT_EQ(trace_gpu_corr_create(4, 25), nullptr);
}

TEST_F(Corr, LinkThenDeviceRecordThenBind) {
    uint64_t t = trace_gpu_corr_new_token(c);
    EXPECT_EQ(t, 1u);
    trace_gpu_corr_link(c, 700, t);
    trace_gpu_corr_device(c, 700, 100, 200);
    EXPECT_TRUE(take().empty());  // not bound yet: the op is not recorded
    trace_gpu_corr_bind(c, t, 42, 0);
    auto got = take();
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].op_id, 42u);
    EXPECT_EQ(got[0].start_ns, 100u);
    EXPECT_EQ(got[0].end_ns, 200u);
    EXPECT_TRUE(take().empty());  // handed out once
}

TEST_F(Corr, DeviceRecordBeforeItsLink) {
    uint64_t t = trace_gpu_corr_new_token(c);
    trace_gpu_corr_bind(c, t, 7, 0);
    trace_gpu_corr_device(c, 31, 500, 900);
    EXPECT_TRUE(take().empty());
    trace_gpu_corr_link(c, 31, t);
    auto got = take();
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].op_id, 7u);
    EXPECT_EQ(got[0].start_ns, 500u);
    EXPECT_EQ(got[0].end_ns, 900u);
}

TEST_F(Corr, SeveralCorrelationIdsOfOneCallReachTheSameOp) {
    // The runtime call and the driver call inside it each get an external correlation
    // record; the device record carries one of their ids.
    uint64_t t = trace_gpu_corr_new_token(c);
    trace_gpu_corr_link(c, 10, t);
    trace_gpu_corr_link(c, 11, t);
    trace_gpu_corr_bind(c, t, 3, 0);
    trace_gpu_corr_device(c, 11, 40, 50);
    auto got = take();
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].op_id, 3u);
}

TEST_F(Corr, ChunkedCopyRecordsMergeIntoOneSpan) {
    uint64_t t = trace_gpu_corr_new_token(c);
    trace_gpu_corr_link(c, 5, t);
    trace_gpu_corr_device(c, 5, 300, 400);
    trace_gpu_corr_device(c, 5, 100, 200);
    trace_gpu_corr_device(c, 5, 410, 480);
    trace_gpu_corr_bind(c, t, 9, 0);
    auto got = take();
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].start_ns, 100u);
    EXPECT_EQ(got[0].end_ns, 480u);
}

TEST_F(Corr, ARecordWithoutTimesGivesTheEnqueueTime) {
    uint64_t t = trace_gpu_corr_new_token(c);
    trace_gpu_corr_link(c, 12, t);
    trace_gpu_corr_device(c, 12, 0, 0);
    trace_gpu_corr_bind(c, t, 4, 12345);
    auto got = take();
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].start_ns, 12345u);
    EXPECT_EQ(got[0].end_ns, 12345u);
}

TEST_F(Corr, ATimedRecordWinsOverOneWithoutTimes) {
    uint64_t t = trace_gpu_corr_new_token(c);
    trace_gpu_corr_device(c, 13, 0, 0);    // orphan without times
    trace_gpu_corr_device(c, 13, 70, 80);  // then a timed one for the same call
    trace_gpu_corr_link(c, 13, t);
    trace_gpu_corr_device(c, 13, 0, 0);
    trace_gpu_corr_bind(c, t, 5, 10);
    auto got = take();
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].start_ns, 70u);
    EXPECT_EQ(got[0].end_ns, 80u);
}

TEST_F(Corr, CancelledTokensAreNeverHandedOut) {
    uint64_t t = trace_gpu_corr_new_token(c);
    trace_gpu_corr_link(c, 8, t);
    trace_gpu_corr_cancel(c, t);
    trace_gpu_corr_device(c, 8, 1, 2);
    trace_gpu_corr_bind(c, t, 77, 0);
    EXPECT_TRUE(take().empty());
    EXPECT_EQ(trace_gpu_corr_get_stats(c).late, 1u);
}

TEST_F(Corr, ManyOpsInterleaved) {
    std::vector<uint64_t> tokens;
    for (int i = 0; i < 10; ++i) tokens.push_back(trace_gpu_corr_new_token(c));
    for (int i = 9; i >= 0; --i) trace_gpu_corr_device(c, 100 + i, 1000 * i, 1000 * i + 10);
    for (int i = 0; i < 10; ++i) trace_gpu_corr_bind(c, tokens[i], 500 + i, 0);
    for (int i = 0; i < 10; ++i) trace_gpu_corr_link(c, 100 + i, tokens[i]);
    auto got = take();
    ASSERT_EQ(got.size(), 10u);
    for (const auto &g : got) {
        uint64_t i = g.op_id - 500;
        EXPECT_EQ(g.start_ns, 1000 * i);
        EXPECT_EQ(g.end_ns, 1000 * i + 10);
    }
    auto st = trace_gpu_corr_get_stats(c);
    EXPECT_EQ(st.tokens, 10u);
    EXPECT_EQ(st.device_records, 10u);
    EXPECT_EQ(st.matched_records, 10u);
    EXPECT_EQ(st.timed, 10u);
    EXPECT_EQ(st.lost, 0u);
}

TEST_F(Corr, TakeReadyHonoursItsLimitAndKeepsTheRest) {
    for (int i = 0; i < 5; ++i) {
        uint64_t t = trace_gpu_corr_new_token(c);
        trace_gpu_corr_link(c, 200 + i, t);
        trace_gpu_corr_device(c, 200 + i, i, i + 1);
        trace_gpu_corr_bind(c, t, 1 + i, 0);
    }
    std::vector<trace_gpu_timing> out(2);
    ASSERT_EQ(trace_gpu_corr_take_ready(c, out.data(), 2), 2u);
    EXPECT_EQ(out[0].op_id, 1u);
    EXPECT_EQ(out[1].op_id, 2u);
    auto rest = take();
    ASSERT_EQ(rest.size(), 3u);
    EXPECT_EQ(rest[0].op_id, 3u);
    EXPECT_EQ(rest[2].op_id, 5u);
}

TEST_F(Corr, RingOverwriteCountsLostTokens) {
    // 16 token slots: the 17th token reuses the first token's slot before it was timed.
    uint64_t first = trace_gpu_corr_new_token(c);
    trace_gpu_corr_bind(c, first, 1, 0);
    for (int i = 0; i < 16; ++i) trace_gpu_corr_new_token(c);
    trace_gpu_corr_link(c, 1, first);
    trace_gpu_corr_device(c, 1, 5, 6);
    EXPECT_TRUE(take().empty());
    EXPECT_GE(trace_gpu_corr_get_stats(c).lost, 1u);
}

TEST_F(Corr, BindByCorrelationIdBeforeOrAfterTheDeviceRecord) {
    // The callback API gave the call's correlation id at once: the record comes later...
    trace_gpu_corr_bind_correlation(c, 40, 11, 5);
    EXPECT_TRUE(trace_gpu_corr_knows(c, 40));
    EXPECT_FALSE(trace_gpu_corr_knows(c, 41));
    trace_gpu_corr_device(c, 40, 60, 70);
    // ... or CUPTI's thread delivered it before the op was bound.
    trace_gpu_corr_device(c, 41, 80, 90);
    EXPECT_FALSE(trace_gpu_corr_knows(c, 41));  // an orphan record is not a link
    trace_gpu_corr_bind_correlation(c, 41, 12, 6);
    auto got = take();
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[0].op_id, 11u);
    EXPECT_EQ(got[0].start_ns, 60u);
    EXPECT_EQ(got[1].op_id, 12u);
    EXPECT_EQ(got[1].end_ns, 90u);
    trace_gpu_corr_bind_correlation(c, 42, 0, 0);  // no op: nothing
    EXPECT_FALSE(trace_gpu_corr_knows(c, 42));
}

}  // namespace
