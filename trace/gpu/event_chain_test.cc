// trace/gpu/event_chain_test.cc: with one event per op, an op starts no earlier than its
// enqueue, the end of the op before it on its stream, and the legacy stream's barrier.
#include <gtest/gtest.h>

#include <cstdint>

extern "C" {
#include "trace/gpu/event_chain.h"
}

namespace {

const void *h(uintptr_t a) { return reinterpret_cast<const void *>(a); }

class Chain : public ::testing::Test {
  protected:
    void SetUp() override {
        c = trace_gpu_chain_create();
        ASSERT_NE(c, nullptr);
    }
    void TearDown() override { trace_gpu_chain_destroy(c); }
    trace_gpu_chain *c = nullptr;
};

TEST_F(Chain, AnIdleStreamStartsAtTheEnqueue) {
    EXPECT_EQ(trace_gpu_chain_start(c, h(0x10), TRACE_GPU_STREAM_NONBLOCKING, 500), 500u);
}

TEST_F(Chain, BackToBackOpsStartWhenThePreviousEnded) {
    ASSERT_EQ(trace_gpu_chain_end(c, h(0x10), TRACE_GPU_STREAM_NONBLOCKING, 900), 0);
    EXPECT_EQ(trace_gpu_chain_start(c, h(0x10), TRACE_GPU_STREAM_NONBLOCKING, 500), 900u);
    // An op enqueued after the previous one ended starts at its enqueue.
    EXPECT_EQ(trace_gpu_chain_start(c, h(0x10), TRACE_GPU_STREAM_NONBLOCKING, 1000), 1000u);
    // Another stream is not held back.
    EXPECT_EQ(trace_gpu_chain_start(c, h(0x20), TRACE_GPU_STREAM_NONBLOCKING, 500), 500u);
}

TEST_F(Chain, TheLegacyStreamWaitsForBlockingStreamsButNotNonBlockingOnes) {
    ASSERT_EQ(trace_gpu_chain_end(c, h(0x10), TRACE_GPU_STREAM_BLOCKING, 700), 0);
    ASSERT_EQ(trace_gpu_chain_end(c, h(0x20), TRACE_GPU_STREAM_NONBLOCKING, 900), 0);
    EXPECT_EQ(trace_gpu_chain_start(c, nullptr, TRACE_GPU_STREAM_LEGACY, 100), 700u);
    ASSERT_EQ(trace_gpu_chain_end(c, nullptr, TRACE_GPU_STREAM_LEGACY, 1200), 0);
    // Blocking streams wait for the legacy stream; non-blocking ones do not.
    EXPECT_EQ(trace_gpu_chain_start(c, h(0x10), TRACE_GPU_STREAM_BLOCKING, 100), 1200u);
    EXPECT_EQ(trace_gpu_chain_start(c, h(0x30), TRACE_GPU_STREAM_BLOCKING, 100), 1200u);
    EXPECT_EQ(trace_gpu_chain_start(c, h(0x20), TRACE_GPU_STREAM_NONBLOCKING, 100), 900u);
}

TEST_F(Chain, BothLegacyHandlesAreOneStream) {
    ASSERT_EQ(trace_gpu_chain_end(c, h(0x1), TRACE_GPU_STREAM_LEGACY, 800), 0);
    EXPECT_EQ(trace_gpu_chain_start(c, nullptr, TRACE_GPU_STREAM_LEGACY, 100), 800u);
}

TEST_F(Chain, EndsNeverMoveBackwards) {
    ASSERT_EQ(trace_gpu_chain_end(c, h(0x10), TRACE_GPU_STREAM_NONBLOCKING, 900), 0);
    ASSERT_EQ(trace_gpu_chain_end(c, h(0x10), TRACE_GPU_STREAM_NONBLOCKING, 800), 0);
    EXPECT_EQ(trace_gpu_chain_start(c, h(0x10), TRACE_GPU_STREAM_NONBLOCKING, 0), 900u);
}

TEST_F(Chain, ADestroyedStreamsHandleStartsAfresh) {
    ASSERT_EQ(trace_gpu_chain_end(c, h(0x10), TRACE_GPU_STREAM_NONBLOCKING, 900), 0);
    trace_gpu_chain_forget(c, h(0x10));
    EXPECT_EQ(trace_gpu_chain_start(c, h(0x10), TRACE_GPU_STREAM_NONBLOCKING, 100), 100u);
    for (uintptr_t i = 1; i <= 100; ++i)  // many streams
        ASSERT_EQ(trace_gpu_chain_end(c, h(0x1000 + i), TRACE_GPU_STREAM_NONBLOCKING, i), 0);
    EXPECT_EQ(trace_gpu_chain_start(c, h(0x1000 + 77), TRACE_GPU_STREAM_NONBLOCKING, 0), 77u);
}

}  // namespace
