// trace/gpu/event_clock_test.cc: event-based timing places ops on the trace clock.
#include <gtest/gtest.h>

#include <cmath>

extern "C" {
#include "trace/gpu/event_clock.h"
}

namespace {

TEST(EventClock, BaseIsTheMidpointOfTheHostReads) {
    EXPECT_EQ(trace_gpu_event_base_ns(1000, 3000), 2000u);
    EXPECT_EQ(trace_gpu_event_base_ns(1000, 1001), 1000u);
    EXPECT_EQ(trace_gpu_event_base_ns(5000, 4000), 5000u);  // a clock going backwards is ignored
}

TEST(EventClock, ElapsedMillisecondsBecomeRoundedNanoseconds) {
    EXPECT_EQ(trace_gpu_event_ns(1000000, 0.0f), 1000000u);
    EXPECT_EQ(trace_gpu_event_ns(1000000, 1.5f), 2500000u);
    EXPECT_EQ(trace_gpu_event_ns(0, 0.0005f), 500u);
    // 0.0015 ms is not exact in float; the result is the nearest ns of the float's value.
    const float ms = 0.0015f;
    EXPECT_EQ(trace_gpu_event_ns(0, ms), (uint64_t)std::llround((double)ms * 1e6));
}

TEST(EventClock, NegativeElapsedGoesBeforeTheBaseButNotBelowZero) {
    EXPECT_EQ(trace_gpu_event_ns(1000000, -0.25f), 750000u);
    EXPECT_EQ(trace_gpu_event_ns(1000, -1.0f), 0u);
    EXPECT_EQ(trace_gpu_event_ns(1000, NAN), 1000u);
}

TEST(EventClock, SpanLiesBetweenItsEnqueueAndWhenTheHostSawItDone) {
    const uint64_t later = 5000000;
    uint64_t s = 0, e = 0;
    trace_gpu_event_span(1000000, 0.010f, 0.020f, 0, later, &s, &e);
    EXPECT_EQ(s, 1010000u);
    EXPECT_EQ(e, 1020000u);
    // The base's placement error puts the start 3 us before the host enqueued the op.
    trace_gpu_event_span(1000000, 0.010f, 0.020f, 1013000, later, &s, &e);
    EXPECT_EQ(s, 1013000u);
    EXPECT_EQ(e, 1020000u);
    trace_gpu_event_span(1000000, 0.010f, 0.020f, 1030000, later, &s, &e);
    EXPECT_EQ(s, 1030000u);
    EXPECT_EQ(e, 1030000u);
    // ... or the end after the host observed the op complete.
    trace_gpu_event_span(1000000, 0.010f, 0.020f, 0, 1015000, &s, &e);
    EXPECT_EQ(s, 1010000u);
    EXPECT_EQ(e, 1015000u);
    trace_gpu_event_span(1000000, 0.010f, 0.020f, 0, 1005000, &s, &e);
    EXPECT_EQ(s, 1005000u);
    EXPECT_EQ(e, 1005000u);
}

TEST(EventClock, RebaseWhenFloatMillisecondsGetCoarserThanEventResolution) {
    // A float of milliseconds at the rebase age still resolves half a microsecond.
    const double ms = TRACE_GPU_EVENT_REBASE_NS / 1e6;
    const double ulp_ns = (std::nextafter((float)ms, INFINITY) - (float)ms) * 1e6;
    EXPECT_LE(ulp_ns, 500.0);
    EXPECT_FALSE(trace_gpu_event_rebase_due(1000, 1000 + TRACE_GPU_EVENT_REBASE_NS - 1));
    EXPECT_TRUE(trace_gpu_event_rebase_due(1000, 1000 + TRACE_GPU_EVENT_REBASE_NS));
    EXPECT_FALSE(trace_gpu_event_rebase_due(5000, 1000));
}

}  // namespace
