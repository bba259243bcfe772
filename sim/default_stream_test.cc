// sim/default_stream_test.cc: the default stream (stream 0) in the two modes of the CUDA
// Runtime API ("Stream synchronization behavior"). This file is compiled without
// CUDA_API_PER_THREAD_DEFAULT_STREAM, so its stream 0 is the legacy default stream; the
// sim_ptds_* calls come from per_thread_unit.c, compiled with it, where stream 0 is the
// per-thread default stream: a blocking stream that synchronises with the legacy stream
// and with nothing else. cudaStreamLegacy and cudaStreamPerThread mean the same in both.
#include <gtest/gtest.h>

#include <functional>
#include <set>

#include "sim/per_thread_unit.h"
#include "sim/test_support.h"

namespace {

using simtest::Capture;
using simtest::Reset;
using simtest::Spin;

const double kMs = 1e6;

// The host time two 5 ms kernels on two blocking streams take when they run at once, with
// one more launch on a blocking stream (the kernel in between) on the host's path.
uint64_t OverlappedPairWithALaunchBetweenNs(double kernel_ns) {
    const sim_profile &p = simtest::Profile();
    double launch = p.launch_ns + p.launch_blocking_extra_ns;
    return simtest::Ns(3 * launch + p.submit_latency_ns + p.kernel_overhead_ns + kernel_ns +
                       simtest::MaxTurnaround() + p.sync_wake_ns);
}

struct Between {
    trace_op a, middle, b;
    uint64_t elapsed_ns;
};

// Runs 5 ms on blocking stream s1, then enqueue_middle() (a kernel named "middle"), then
// 5 ms on blocking stream s2, and waits for the device.
Between RunBetweenTwoBlockingStreams(const std::function<cudaError_t()> &enqueue_middle) {
    Capture cap;
    cudaStream_t s1, s2;
    EXPECT_EQ(cudaStreamCreate(&s1), cudaSuccess);
    EXPECT_EQ(cudaStreamCreate(&s2), cudaSuccess);
    uint64_t t0 = sim_now_ns();
    EXPECT_EQ(Spin(s1, 5 * kMs, 1, 32, "a"), cudaSuccess);
    EXPECT_EQ(enqueue_middle(), cudaSuccess);
    EXPECT_EQ(Spin(s2, 5 * kMs, 1, 32, "b"), cudaSuccess);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    return {cap.Kernel("a"), cap.Kernel("middle"), cap.Kernel("b"), sim_now_ns() - t0};
}

TEST(DefaultStreams, PerThreadStreamZeroIsNotABarrierBetweenBlockingStreams) {
    Reset();
    Between r = RunBetweenTwoBlockingStreams([] { return sim_ptds_spin(0, "middle"); });
    EXPECT_LT(r.middle.start_ns, r.a.end_ns) << "the per-thread kernel does not wait for s1";
    EXPECT_LT(r.b.start_ns, r.a.end_ns) << "s2 does not wait for s1 through it";
    EXPECT_LE(r.elapsed_ns, OverlappedPairWithALaunchBetweenNs(5 * kMs)) << "two 5 ms kernels at once take 5 ms";
    EXPECT_EQ(r.middle.stream, trace_stream_id(cudaStreamPerThread));
}

TEST(DefaultStreams, LegacyStreamZeroIsABarrierBetweenBlockingStreams) {
    Reset();
    Between r = RunBetweenTwoBlockingStreams([] { return Spin(0, 0, 1, 32, "middle"); });
    EXPECT_GE(r.middle.start_ns, r.a.end_ns);
    EXPECT_GE(r.b.start_ns, r.middle.end_ns);
    EXPECT_GE(r.elapsed_ns, simtest::Ns(10 * kMs)) << "the two 5 ms kernels ran one after the other";
    EXPECT_EQ(r.middle.stream, TRACE_STREAM_LEGACY);
}

TEST(DefaultStreams, ExplicitLegacyHandleIsTheLegacyStreamInPerThreadCodeToo) {
    Reset();
    Between r = RunBetweenTwoBlockingStreams([] { return sim_ptds_spin_legacy(0, "middle"); });
    EXPECT_GE(r.middle.start_ns, r.a.end_ns);
    EXPECT_GE(r.b.start_ns, r.middle.end_ns);
    EXPECT_GE(r.elapsed_ns, simtest::Ns(10 * kMs));
    EXPECT_EQ(r.middle.stream, TRACE_STREAM_LEGACY);
}

TEST(DefaultStreams, PerThreadStreamZeroStillSynchronisesWithTheLegacyStream) {
    Reset();
    Capture cap;
    ASSERT_EQ(sim_ptds_spin(2 * kMs, "pt"), cudaSuccess);
    ASSERT_EQ(Spin(0, 2 * kMs, 1, 32, "legacy"), cudaSuccess);
    ASSERT_EQ(sim_ptds_spin(0, "pt2"), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    trace_op pt = cap.Kernel("pt"), l = cap.Kernel("legacy"), pt2 = cap.Kernel("pt2");
    EXPECT_GE(l.start_ns, pt.end_ns) << "legacy work waits for earlier per-thread work";
    EXPECT_GE(pt2.start_ns, l.end_ns) << "and later per-thread work waits for it";
}

// The per-thread stream is not a non-blocking stream, and has the default priority.
TEST(DefaultStreams, PerThreadStreamZeroHasTheFlagsOfABlockingStream) {
    Reset();
    unsigned flags = 99;
    int priority = 99;
    ASSERT_EQ(sim_ptds_get_flags(&flags), cudaSuccess);
    EXPECT_EQ(flags, (unsigned)cudaStreamDefault);
    ASSERT_EQ(sim_ptds_get_priority(&priority), cudaSuccess);
    EXPECT_EQ(priority, 0);
}

TEST(DefaultStreams, PerThreadSynchronizeOfStreamZeroWaitsOnlyForThePerThreadStream) {
    Reset();
    Capture cap;
    cudaStream_t s;
    ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
    ASSERT_EQ(Spin(s, 10 * kMs, 1, 32, "long"), cudaSuccess);
    ASSERT_EQ(sim_ptds_spin(1 * kMs, "short"), cudaSuccess);
    ASSERT_EQ(sim_ptds_synchronize(), cudaSuccess);
    trace_op shorter = cap.Kernel("short");
    ASSERT_TRUE(shorter.timed);
    EXPECT_EQ(sim_now_ns(), shorter.end_ns + simtest::Ns(simtest::Profile().sync_wake_ns))
        << "the host wakes when the per-thread kernel ends";
    EXPECT_FALSE(cap.Kernel("long").timed) << "the blocking stream's kernel is still running";
    std::vector<trace_op> syncs = cap.Of(TRACE_OP_SYNC);
    ASSERT_EQ(syncs.size(), 1u);
    EXPECT_EQ(syncs[0].sync, TRACE_SYNC_STREAM);
    EXPECT_EQ(syncs[0].stream, trace_stream_id(cudaStreamPerThread));
    // Stream 0 of a legacy unit is the legacy stream, which waits for the blocking stream.
    ASSERT_EQ(cudaStreamSynchronize(0), cudaSuccess);
    EXPECT_GE(sim_now_ns(), cap.Kernel("long").end_ns);
}

// As an H100 with CUDA 13.0 answers: with only legacy work pending the per-thread stream
// has nothing to wait for; once per-thread work is queued behind it, waiting for the
// per-thread stream waits for the legacy work too.
TEST(DefaultStreams, PerThreadSynchronizeOfStreamZeroWaitsForLegacyWorkOnlyBehindPerThreadWork) {
    Reset();
    Capture cap;
    ASSERT_EQ(Spin(0, 10 * kMs, 1, 32, "legacy"), cudaSuccess);
    ASSERT_EQ(sim_ptds_synchronize(), cudaSuccess);
    EXPECT_FALSE(cap.Kernel("legacy").timed) << "returned while the legacy kernel runs";
    ASSERT_EQ(sim_ptds_spin(0, "pt"), cudaSuccess);
    ASSERT_EQ(sim_ptds_synchronize(), cudaSuccess);
    trace_op l = cap.Kernel("legacy"), pt = cap.Kernel("pt");
    ASSERT_TRUE(l.timed && pt.timed);
    EXPECT_GE(pt.start_ns, l.end_ns);
    EXPECT_GE(sim_now_ns(), l.end_ns);
}

// As an H100 with CUDA 13.0 answers: stream 0 of a per-thread unit is idle while only the
// legacy stream is busy, and the legacy stream counts the per-thread stream's work.
TEST(DefaultStreams, QueriesOfStreamZeroInEachMode) {
    Reset();
    ASSERT_EQ(Spin(0, 10 * kMs), cudaSuccess);
    EXPECT_EQ(sim_ptds_query(), cudaSuccess) << "per-thread: nothing queued on the per-thread stream";
    EXPECT_EQ(cudaStreamQuery(0), cudaErrorNotReady) << "legacy: the legacy kernel runs";
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    ASSERT_EQ(sim_ptds_spin(10 * kMs, "pt"), cudaSuccess);
    EXPECT_EQ(sim_ptds_query(), cudaErrorNotReady);
    EXPECT_EQ(cudaStreamQuery(0), cudaErrorNotReady) << "legacy: the per-thread stream synchronises with it";
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(sim_ptds_query(), cudaSuccess);
    EXPECT_EQ(cudaStreamQuery(0), cudaSuccess);
}

// cudaMemcpy_ptds is on the per-thread stream: a blocking copy there waits for the
// per-thread stream only, where cudaMemcpy waits (through the legacy stream) for every
// blocking stream.
TEST(DefaultStreams, PerThreadMemcpyDoesNotWaitForOtherBlockingStreams) {
    Reset();
    Capture cap;
    const size_t n = 1 << 20;
    void *d = nullptr, *h = nullptr;
    ASSERT_EQ(cudaMalloc(&d, n), cudaSuccess);
    ASSERT_EQ(cudaMallocHost(&h, n), cudaSuccess);
    cudaStream_t s;
    ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
    ASSERT_EQ(Spin(s, 10 * kMs, 1, 32, "long"), cudaSuccess);
    ASSERT_EQ(sim_ptds_memcpy(h, d, n, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_FALSE(cap.Kernel("long").timed) << "the per-thread copy returned while s is busy";
    ASSERT_EQ(cudaMemcpy(h, d, n, cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_TRUE(cap.Kernel("long").timed);
    std::vector<trace_op> copies = cap.Of(TRACE_OP_COPY);
    ASSERT_EQ(copies.size(), 2u);
    EXPECT_EQ(copies[0].stream, trace_stream_id(cudaStreamPerThread));
    EXPECT_EQ(copies[1].stream, TRACE_STREAM_LEGACY);
    EXPECT_GE(copies[1].start_ns, cap.Kernel("long").end_ns);
}

int host_fn_runs = 0;
void CountRun(void *) { ++host_fn_runs; }

// Every call a per-thread unit makes with stream 0 is recorded on the per-thread stream,
// so the timeline and the race checker see what the device does.
TEST(DefaultStreams, RecorderSeesPerThreadCallsOnThePerThreadStream) {
    Reset();
    Capture cap;
    const size_t n = 1 << 16;
    void *d = nullptr, *h = nullptr;
    ASSERT_EQ(cudaMalloc(&d, n), cudaSuccess);
    ASSERT_EQ(cudaMallocHost(&h, n), cudaSuccess);
    cudaEvent_t e;
    ASSERT_EQ(cudaEventCreate(&e), cudaSuccess);
    host_fn_runs = 0;
    ASSERT_EQ(sim_ptds_memset_async(d, 1, n), cudaSuccess);
    ASSERT_EQ(sim_ptds_memcpy_async(d, h, n, cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(sim_ptds_spin(1000, "k"), cudaSuccess);
    ASSERT_EQ(sim_ptds_event_record(e), cudaSuccess);
    ASSERT_EQ(sim_ptds_wait_event(e), cudaSuccess);
    ASSERT_EQ(sim_ptds_host_func(CountRun, nullptr), cudaSuccess);
    ASSERT_EQ(sim_ptds_memset(d, 2, n), cudaSuccess);
    ASSERT_EQ(sim_ptds_memcpy(h, d, n, cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ(sim_ptds_synchronize(), cudaSuccess);
    EXPECT_EQ(host_fn_runs, 1);
    EXPECT_EQ(static_cast<unsigned char *>(h)[n - 1], 2) << "the copies and memsets ran in order";

    const int32_t pt = trace_stream_id(cudaStreamPerThread);
    ASSERT_GT(pt, TRACE_STREAM_LEGACY);
    std::multiset<trace_op_kind> kinds;
    for (const auto &kv : cap.ops()) {
        const trace_op &op = kv.second;
        bool on_stream = trace_op_kind_is_stream_work(op.kind) || (op.kind == TRACE_OP_SYNC && op.sync == TRACE_SYNC_STREAM);
        if (!on_stream) continue;
        kinds.insert(op.kind);
        EXPECT_EQ(op.stream, pt) << trace_op_kind_name(op.kind) << " op " << op.id << " is not on the per-thread stream";
    }
    EXPECT_EQ(kinds.count(TRACE_OP_MEMSET), 2u);
    EXPECT_EQ(kinds.count(TRACE_OP_COPY), 2u);
    EXPECT_EQ(kinds.count(TRACE_OP_KERNEL), 1u);
    EXPECT_EQ(kinds.count(TRACE_OP_EVENT_RECORD), 1u);
    EXPECT_EQ(kinds.count(TRACE_OP_EVENT_WAIT), 1u);
    EXPECT_EQ(kinds.count(TRACE_OP_HOST_FN), 1u);
    EXPECT_EQ(kinds.count(TRACE_OP_SYNC), 1u);
    EXPECT_EQ(trace_stream_count(), pt + 1) << "no other stream appeared";
}

}  // namespace
