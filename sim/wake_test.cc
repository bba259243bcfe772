// sim/wake_test.cc: the device's wake-up (sim_profile_wake_ns). The first copy or kernel after
// the device idled starts the profile's wake_curve later, by how long it idled; work that
// reaches the device while it wakes starts with that work, not after a wake of its own; a
// device busy with other work does not wake; a profile without the curve never waits.
#include <gtest/gtest.h>

#include <vector>

#include "sim/test_support.h"

namespace {

using simtest::Capture;
using simtest::Profile;
using simtest::Reset;
using simtest::Spin;

constexpr double kIdleNs = 5e6;    // 5 ms, between two of the h200 curve's points
constexpr double kSlackNs = 200;   // the idle's few microseconds beyond kIdleNs, at the curve's slope

// How long after its launch returned a kernel started: once after the device just finished
// a kernel, once after the host (and with it the device) idled idle_ns.
double StartAfterLaunch(double idle_ns) {
    cudaStream_t s;
    EXPECT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    Capture cap;
    EXPECT_EQ(Spin(s, 10000, 1, 32, "before"), cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    if (idle_ns > 0) sim_host_work((uint64_t)idle_ns);
    EXPECT_EQ(Spin(s, 10000, 1, 32, "after"), cudaSuccess);
    uint64_t returned = sim_now_ns();
    EXPECT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    double start = (double)cap.Kernel("after").start_ns;
    EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
    return start - (double)returned;
}

TEST(Wake, TheFirstKernelAfterAnIdleStartsTheCurvesTimeLater) {
    Reset("h200");
    ASSERT_GT(Profile().wake_curve.n, 0) << "the h200 profile has a wake curve";
    double warm = StartAfterLaunch(0);
    double cold = StartAfterLaunch(kIdleNs);
    double wake = sim_profile_wake_ns(&Profile(), kIdleNs);
    EXPECT_GT(wake, 5000) << "the curve charges microseconds after 5 ms";
    EXPECT_NEAR(cold - warm, wake, kSlackNs);
}

TEST(Wake, GrowsWithTheIdle) {
    Reset("h200");
    double after_5ms = StartAfterLaunch(kIdleNs);
    double after_50ms = StartAfterLaunch(10 * kIdleNs);
    EXPECT_GT(after_50ms - after_5ms, 0.5 * (sim_profile_wake_ns(&Profile(), 10 * kIdleNs) -
                                             sim_profile_wake_ns(&Profile(), kIdleNs)));
}

TEST(Wake, WorkThatArrivesWhileTheDeviceWakesStartsWithIt) {
    Reset("h200");
    cudaStream_t a, b;
    ASSERT_EQ(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking), cudaSuccess);
    void *d, *h;
    ASSERT_EQ(cudaMalloc(&d, 4096), cudaSuccess);
    ASSERT_EQ(cudaMallocHost(&h, 4096), cudaSuccess);
    ASSERT_EQ(Spin(a, 10000), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    sim_host_work((uint64_t)kIdleNs);
    Capture cap;
    ASSERT_EQ(Spin(a, 10000, 1, 32, "first"), cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(d, h, 4096, cudaMemcpyHostToDevice, b), cudaSuccess);
    uint64_t queued = sim_now_ns();
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    trace_op kernel = cap.Kernel("first");
    std::vector<trace_op> copies = cap.Of(TRACE_OP_COPY);
    ASSERT_EQ(copies.size(), 1u);
    EXPECT_GT((double)kernel.start_ns - (double)queued, 0.5 * sim_profile_wake_ns(&Profile(), kIdleNs))
        << "the kernel waited for the wake";
    EXPECT_LE(copies[0].start_ns, kernel.start_ns + 1) << "the copy began with the kernel, not a wake after it";
    cudaFree(d);
    cudaFreeHost(h);
}

TEST(Wake, ABusyDeviceDoesNotWake) {
    Reset("h200");
    cudaStream_t a, b;
    ASSERT_EQ(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(Spin(a, 10000), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    Capture cap;
    // The long kernel starts after a short idle; the host then idles 5 ms while it runs.
    ASSERT_EQ(Spin(a, 2 * kIdleNs, 1, 32, "long"), cudaSuccess);
    sim_host_work((uint64_t)kIdleNs);
    ASSERT_EQ(Spin(b, 10000, 1, 32, "beside"), cudaSuccess);
    uint64_t returned = sim_now_ns();
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    double start = (double)cap.Kernel("beside").start_ns - (double)returned;
    EXPECT_LT(start, Profile().submit_latency_ns + Profile().kernel_overhead_ns + 1000)
        << "it started beside the long kernel without a wake";
}

TEST(Wake, AProfileWithoutTheCurveNeverWaits) {
    Reset("a100");
    ASSERT_EQ(Profile().wake_curve.n, 0);
    EXPECT_NEAR(StartAfterLaunch(kIdleNs), StartAfterLaunch(0), 1);
}

TEST(WakeCurve, ProportionalBelowItsShortestIdleAndFlatPastItsLongest) {
    Reset("h200");
    const sim_pageable_curve &c = Profile().wake_curve;
    ASSERT_GE(c.n, 2);
    for (int i = 0; i < c.n; i++) EXPECT_DOUBLE_EQ(sim_profile_wake_ns(&Profile(), c.bytes[i]), c.ns[i]);
    EXPECT_DOUBLE_EQ(sim_profile_wake_ns(&Profile(), c.bytes[0] / 4), c.ns[0] / 4);
    EXPECT_DOUBLE_EQ(sim_profile_wake_ns(&Profile(), 0), 0);
    EXPECT_DOUBLE_EQ(sim_profile_wake_ns(&Profile(), 10 * c.bytes[c.n - 1]), c.ns[c.n - 1]);
}

}  // namespace
