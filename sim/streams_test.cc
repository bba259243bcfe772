// sim/streams_test.cc: stream semantics. Work in a stream runs in order (a kernel queued
// behind another sets up while it runs); streams run concurrently; the legacy default
// stream is a barrier against blocking streams and not against cudaStreamNonBlocking ones;
// cudaStreamPerThread synchronises with the legacy stream; synchronising or querying the
// legacy stream covers the blocking streams; and the stream calls answer as the runtime
// does.
#include <gtest/gtest.h>

#include "sim/test_support.h"

namespace {

using simtest::Capture;
using simtest::Reset;
using simtest::Spin;

const double kMs = 1e6;

// The host time, from the first launch, until two kernels launched back to back on
// streams of the given kind, both running at once, have finished and the host has been
// woken by cudaDeviceSynchronize.
uint64_t ConcurrentPairNs(double kernel_ns, bool blocking) {
    const sim_profile &p = simtest::Profile();
    double launch = p.launch_ns + (blocking ? p.launch_blocking_extra_ns : 0);
    return simtest::Ns(2 * launch + p.submit_latency_ns + p.kernel_overhead_ns + kernel_ns +
                       simtest::MaxTurnaround() + p.sync_wake_ns);
}

TEST(Streams, WorkInOneStreamRunsInOrder) {
    Reset();
    Capture cap;
    cudaStream_t s;
    ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
    ASSERT_EQ(Spin(s, 1 * kMs, 1, 32, "a"), cudaSuccess);
    ASSERT_EQ(Spin(s, 1 * kMs, 1, 32, "b"), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    trace_op a = cap.Kernel("a"), b = cap.Kernel("b");
    ASSERT_TRUE(a.timed && b.timed);
    // b starts only after a ended and b's own set-up passed: queued behind a, it set up
    // while a ran, so it pays kernel_queued_overhead_ns, less than a kernel alone.
    EXPECT_EQ(b.start_ns, a.end_ns + simtest::Ns(simtest::Profile().kernel_queued_overhead_ns));
    EXPECT_LT(simtest::Profile().kernel_queued_overhead_ns, simtest::Profile().kernel_overhead_ns);
}

// A kernel that reaches the device after the one before it in its stream ended (nothing
// to overlap its set-up with), or behind work that is not a kernel, pays
// kernel_overhead_ns in full.
TEST(Streams, AKernelNotQueuedBehindAKernelPaysItsWholeSetUp) {
    Reset();
    Capture cap;
    cudaStream_t s;
    cudaEvent_t e;
    ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
    ASSERT_EQ(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), cudaSuccess);
    ASSERT_EQ(Spin(s, 1 * kMs, 1, 32, "a"), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    ASSERT_EQ(Spin(s, 1 * kMs, 1, 32, "late"), cudaSuccess); /* a ended before it was launched */
    ASSERT_EQ(cudaEventRecord(e, s), cudaSuccess);
    ASSERT_EQ(Spin(s, 1 * kMs, 1, 32, "behind_record"), cudaSuccess); /* queued, behind a record */
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    trace_op late = cap.Kernel("late"), behind = cap.Kernel("behind_record");
    const uint64_t full = simtest::Ns(simtest::Profile().kernel_overhead_ns);
    EXPECT_GE(late.start_ns, cap.Kernel("a").end_ns + full);
    EXPECT_EQ(behind.start_ns, late.end_ns + full);
}

TEST(Streams, KernelsInTwoStreamsOverlap) {
    Reset();
    Capture cap;
    cudaStream_t s1, s2;
    ASSERT_EQ(cudaStreamCreate(&s1), cudaSuccess);
    ASSERT_EQ(cudaStreamCreate(&s2), cudaSuccess);
    uint64_t t0 = sim_now_ns();
    ASSERT_EQ(Spin(s1, 5 * kMs, 1, 32, "a"), cudaSuccess);
    ASSERT_EQ(Spin(s2, 5 * kMs, 1, 32, "b"), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    trace_op a = cap.Kernel("a"), b = cap.Kernel("b");
    EXPECT_LT(b.start_ns, a.end_ns);
    EXPECT_LE(sim_now_ns() - t0, ConcurrentPairNs(5 * kMs, true)) << "two 5 ms kernels on two streams take 5 ms";
}

TEST(Streams, LegacyStreamOpIsABarrierBetweenBlockingStreams) {
    Reset();
    Capture cap;
    cudaStream_t s1, s2;
    ASSERT_EQ(cudaStreamCreate(&s1), cudaSuccess);
    ASSERT_EQ(cudaStreamCreate(&s2), cudaSuccess);
    uint64_t t0 = sim_now_ns();
    ASSERT_EQ(Spin(s1, 5 * kMs, 1, 32, "a"), cudaSuccess);
    ASSERT_EQ(Spin(0, 0, 1, 1, "legacy"), cudaSuccess);
    ASSERT_EQ(Spin(s2, 5 * kMs, 1, 32, "b"), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    trace_op a = cap.Kernel("a"), l = cap.Kernel("legacy"), b = cap.Kernel("b");
    EXPECT_GE(l.start_ns, a.end_ns) << "the legacy-stream op waits for earlier work in s1";
    EXPECT_GE(b.start_ns, l.end_ns) << "later work in s2 waits for the legacy-stream op";
    EXPECT_GE(sim_now_ns() - t0, simtest::Ns(10 * kMs));
}

TEST(Streams, NonBlockingStreamsIgnoreTheLegacyStream) {
    Reset();
    Capture cap;
    cudaStream_t s1, s2;
    ASSERT_EQ(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), cudaSuccess);
    uint64_t t0 = sim_now_ns();
    ASSERT_EQ(Spin(s1, 5 * kMs, 1, 32, "a"), cudaSuccess);
    ASSERT_EQ(Spin(0, 0, 1, 1, "legacy"), cudaSuccess);
    ASSERT_EQ(Spin(s2, 5 * kMs, 1, 32, "b"), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    trace_op a = cap.Kernel("a"), l = cap.Kernel("legacy"), b = cap.Kernel("b");
    EXPECT_LT(l.end_ns, a.end_ns) << "the legacy-stream op does not wait for a non-blocking stream";
    EXPECT_LT(b.start_ns, a.end_ns) << "and the non-blocking stream does not wait for it";
    // Plus the launch of the legacy-stream kernel in between.
    const sim_profile &p = simtest::Profile();
    EXPECT_LE(sim_now_ns() - t0, ConcurrentPairNs(5 * kMs, false) + simtest::Ns(p.launch_ns + p.launch_blocking_extra_ns));
}

TEST(Streams, LegacyStreamOpWaitsForEveryEarlierBlockingStream) {
    Reset();
    Capture cap;
    cudaStream_t s1, s2;
    ASSERT_EQ(cudaStreamCreate(&s1), cudaSuccess);
    ASSERT_EQ(cudaStreamCreate(&s2), cudaSuccess);
    ASSERT_EQ(Spin(s1, 2 * kMs, 1, 32, "a"), cudaSuccess);
    ASSERT_EQ(Spin(s2, 3 * kMs, 1, 32, "b"), cudaSuccess);
    ASSERT_EQ(Spin(0, 0, 1, 1, "legacy"), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    trace_op a = cap.Kernel("a"), b = cap.Kernel("b"), l = cap.Kernel("legacy");
    EXPECT_GE(l.start_ns, a.end_ns);
    EXPECT_GE(l.start_ns, b.end_ns);
}

TEST(Streams, PerThreadStreamSynchronisesWithTheLegacyStream) {
    Reset();
    Capture cap;
    ASSERT_EQ(Spin(cudaStreamPerThread, 2 * kMs, 1, 32, "pt"), cudaSuccess);
    ASSERT_EQ(Spin(cudaStreamLegacy, 0, 1, 1, "legacy"), cudaSuccess);
    ASSERT_EQ(Spin(cudaStreamPerThread, 0, 1, 1, "pt2"), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    trace_op pt = cap.Kernel("pt"), l = cap.Kernel("legacy"), pt2 = cap.Kernel("pt2");
    EXPECT_GE(l.start_ns, pt.end_ns);
    EXPECT_GE(pt2.start_ns, l.end_ns);
}

TEST(Streams, PerThreadStreamRunsConcurrentlyWithOtherStreams) {
    Reset();
    Capture cap;
    cudaStream_t s;
    ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
    ASSERT_EQ(Spin(cudaStreamPerThread, 2 * kMs, 1, 32, "pt"), cudaSuccess);
    ASSERT_EQ(Spin(s, 2 * kMs, 1, 32, "s"), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_LT(cap.Kernel("s").start_ns, cap.Kernel("pt").end_ns);
}

TEST(Streams, QueryIsNotReadyUntilTheWorkIsDone) {
    Reset();
    cudaStream_t s;
    ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
    EXPECT_EQ(cudaStreamQuery(s), cudaSuccess);
    ASSERT_EQ(Spin(s, 1 * kMs), cudaSuccess);
    EXPECT_EQ(cudaStreamQuery(s), cudaErrorNotReady);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "cudaErrorNotReady is not recorded as an error";
    sim_host_work(2 * (uint64_t)kMs);
    EXPECT_EQ(cudaStreamQuery(s), cudaSuccess);
}

TEST(Streams, SynchronizeReturnsWhenTheStreamsWorkCompletes) {
    Reset();
    Capture cap;
    cudaStream_t s;
    ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
    ASSERT_EQ(Spin(s, 3 * kMs, 1, 32, "k"), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    trace_op k = cap.Kernel("k");
    ASSERT_TRUE(k.timed);
    EXPECT_EQ(sim_now_ns(), k.end_ns + simtest::Ns(simtest::Profile().sync_wake_ns))
        << "the host wakes sync_wake_ns after the kernel ends";
    std::vector<trace_op> syncs = cap.Of(TRACE_OP_SYNC);
    ASSERT_EQ(syncs.size(), 1u);
    EXPECT_EQ(syncs[0].sync, TRACE_SYNC_STREAM);
    EXPECT_EQ(syncs[0].end_ns, sim_now_ns());
}

TEST(Streams, SynchronizeOnOneStreamDoesNotWaitForAnother) {
    Reset();
    cudaStream_t s1, s2;
    ASSERT_EQ(cudaStreamCreate(&s1), cudaSuccess);
    ASSERT_EQ(cudaStreamCreate(&s2), cudaSuccess);
    ASSERT_EQ(Spin(s1, 10 * kMs), cudaSuccess);
    ASSERT_EQ(Spin(s2, 1 * kMs), cudaSuccess);
    uint64_t t0 = sim_now_ns();
    ASSERT_EQ(cudaStreamSynchronize(s2), cudaSuccess);
    EXPECT_LT(sim_now_ns() - t0, simtest::Ns(10 * kMs)) << "back before the 10 ms kernel ends";
    EXPECT_EQ(cudaStreamQuery(s1), cudaErrorNotReady);
}

// As on an H200 (CUDA 13.0): synchronising the legacy stream waits for the work of the
// streams that synchronise with it, and not for non-blocking streams.
TEST(Streams, SynchronizingTheLegacyStreamWaitsForBlockingStreamsOnly) {
    Reset();
    Capture cap;
    cudaStream_t b, nb;
    ASSERT_EQ(cudaStreamCreate(&b), cudaSuccess);
    ASSERT_EQ(cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(Spin(b, 5 * kMs, 1, 32, "blocking"), cudaSuccess);
    ASSERT_EQ(Spin(nb, 20 * kMs, 1, 32, "nonblocking"), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(0), cudaSuccess);
    EXPECT_GE(sim_now_ns(), cap.Kernel("blocking").end_ns);
    EXPECT_FALSE(cap.Kernel("nonblocking").timed) << "still running";
    EXPECT_EQ(cudaStreamQuery(nb), cudaErrorNotReady);
}

// As an H100 with CUDA 13.0 answers: querying the legacy stream asks about the work that
// synchronising it waits for, that of the blocking streams included.
TEST(Streams, QueryingTheLegacyStreamCoversBlockingStreamsOnly) {
    Reset();
    cudaStream_t b, nb;
    ASSERT_EQ(cudaStreamCreate(&b), cudaSuccess);
    ASSERT_EQ(cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(Spin(nb, 5 * kMs), cudaSuccess);
    EXPECT_EQ(cudaStreamQuery(0), cudaSuccess) << "a busy non-blocking stream is not waited for";
    ASSERT_EQ(Spin(b, 5 * kMs), cudaSuccess);
    EXPECT_EQ(cudaStreamQuery(0), cudaErrorNotReady);
    EXPECT_EQ(cudaStreamQuery(cudaStreamLegacy), cudaErrorNotReady);
    ASSERT_EQ(cudaStreamSynchronize(b), cudaSuccess);
    EXPECT_EQ(cudaStreamQuery(0), cudaSuccess);
}

TEST(Streams, DestroyedStreamFinishesItsWorkButItsHandleIsDead) {
    Reset();
    Capture cap;
    cudaStream_t s;
    ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
    ASSERT_EQ(Spin(s, 1 * kMs, 1, 32, "k"), cudaSuccess);
    ASSERT_EQ(cudaStreamDestroy(s), cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(s), cudaErrorInvalidResourceHandle);
    EXPECT_EQ(Spin(s, 1), cudaErrorInvalidResourceHandle);
    EXPECT_EQ(cudaStreamDestroy(s), cudaErrorInvalidResourceHandle);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_TRUE(cap.Kernel("k").timed) << "work queued before the destroy still ran";
}

TEST(Streams, DefaultStreamsCannotBeDestroyed) {
    Reset();
    EXPECT_EQ(cudaStreamDestroy(0), cudaErrorInvalidResourceHandle);
    EXPECT_EQ(cudaStreamDestroy(cudaStreamLegacy), cudaErrorInvalidResourceHandle);
    EXPECT_EQ(cudaStreamDestroy(cudaStreamPerThread), cudaErrorInvalidResourceHandle);
}

TEST(Streams, PrioritiesOutsideTheRangeAreClamped) {
    Reset();
    int least = 0, greatest = 0;
    ASSERT_EQ(cudaDeviceGetStreamPriorityRange(&least, &greatest), cudaSuccess);
    EXPECT_EQ(least, (int)simtest::Profile().priority_least);
    EXPECT_EQ(greatest, (int)simtest::Profile().priority_greatest);
    cudaStream_t hi, lo, mid;
    ASSERT_EQ(cudaStreamCreateWithPriority(&hi, 0, greatest - 100), cudaSuccess);
    ASSERT_EQ(cudaStreamCreateWithPriority(&lo, 0, least + 100), cudaSuccess);
    ASSERT_EQ(cudaStreamCreateWithPriority(&mid, 0, greatest + 1), cudaSuccess);
    int p = 99;
    ASSERT_EQ(cudaStreamGetPriority(hi, &p), cudaSuccess);
    EXPECT_EQ(p, greatest);
    ASSERT_EQ(cudaStreamGetPriority(lo, &p), cudaSuccess);
    EXPECT_EQ(p, least);
    ASSERT_EQ(cudaStreamGetPriority(mid, &p), cudaSuccess);
    EXPECT_EQ(p, greatest + 1);
    ASSERT_EQ(cudaStreamGetPriority(0, &p), cudaSuccess);
    EXPECT_EQ(p, 0);
}

TEST(Streams, FlagsAreReported) {
    Reset();
    cudaStream_t nb, b;
    ASSERT_EQ(cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaStreamCreate(&b), cudaSuccess);
    unsigned f = 99;
    ASSERT_EQ(cudaStreamGetFlags(nb, &f), cudaSuccess);
    EXPECT_EQ(f, (unsigned)cudaStreamNonBlocking);
    ASSERT_EQ(cudaStreamGetFlags(b, &f), cudaSuccess);
    EXPECT_EQ(f, (unsigned)cudaStreamDefault);
    EXPECT_EQ(cudaStreamCreateWithFlags(&b, 0x4), cudaErrorInvalidValue);
    EXPECT_EQ(cudaStreamCreate(nullptr), cudaErrorInvalidValue);
}

TEST(Streams, MadeUpHandlesAreRejected) {
    Reset();
    cudaStream_t bogus = (cudaStream_t)(uintptr_t)0x1234560;
    EXPECT_EQ(cudaStreamSynchronize(bogus), cudaErrorInvalidResourceHandle);
    EXPECT_EQ(cudaStreamQuery(bogus), cudaErrorInvalidResourceHandle);
    EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidResourceHandle);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "cudaGetLastError resets the last error";
}

TEST(Streams, HandlesFromBeforeAResetAreDead) {
    Reset();
    cudaStream_t s;
    ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
    Reset();
    cudaStream_t t;
    ASSERT_EQ(cudaStreamCreate(&t), cudaSuccess);
    EXPECT_EQ(cudaStreamQuery(s), cudaErrorInvalidResourceHandle);
    EXPECT_EQ(cudaStreamQuery(t), cudaSuccess);
}

}  // namespace
