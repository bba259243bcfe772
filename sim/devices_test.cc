// sim/devices_test.cc: several devices (the h200x2 profile). Streams, events and
// allocations belong to the device current when they were made; a launch runs on its
// stream's device (as the CUDA 13 runtime does); peer access has the runtime's errors; peer copies go through the host
// without peer access and over the link with it; events order work across devices; each
// device has its own SMs and copy engines. Every expected time comes from the profile.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "sim/test_support.h"

namespace {

using simtest::Capture;
using simtest::Reset;
using simtest::Spin;

const double kMs = 1e6;
const size_t kMiB = 1u << 20;

void TwoGpus() { Reset("h200x2"); }

const sim_profile_link &Link() { return simtest::Profile().link; }

TEST(Devices, AOneDeviceProfileHasOneDevice) {
    Reset("h200");
    int n = 0, can = 7;
    ASSERT_EQ(cudaGetDeviceCount(&n), cudaSuccess);
    EXPECT_EQ(n, 1);
    EXPECT_EQ(cudaSetDevice(1), cudaErrorInvalidDevice);
    EXPECT_EQ(cudaDeviceCanAccessPeer(&can, 0, 1), cudaErrorInvalidDevice);
    EXPECT_EQ(cudaDeviceEnablePeerAccess(1, 0), cudaErrorInvalidDevice);
}

TEST(Devices, TheTwoGpuProfileHasTwoAndEachThreadItsCurrentDevice) {
    TwoGpus();
    int n = 0, d = -1;
    ASSERT_EQ(cudaGetDeviceCount(&n), cudaSuccess);
    EXPECT_EQ(n, 2);
    ASSERT_EQ(cudaGetDevice(&d), cudaSuccess);
    EXPECT_EQ(d, 0);
    ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
    ASSERT_EQ(cudaGetDevice(&d), cudaSuccess);
    EXPECT_EQ(d, 1);
    EXPECT_EQ(cudaSetDevice(2), cudaErrorInvalidDevice);
    EXPECT_EQ(cudaSetDevice(-1), cudaErrorInvalidDevice);
    int other = -1;
    std::thread t([&] { cudaGetDevice(&other); });
    t.join();
    EXPECT_EQ(other, 0) << "another host thread starts on device 0";
    cudaDeviceProp p0{}, p1{};
    ASSERT_EQ(cudaGetDeviceProperties(&p0, 0), cudaSuccess);
    ASSERT_EQ(cudaGetDeviceProperties(&p1, 1), cudaSuccess);
    EXPECT_EQ(p1.multiProcessorCount, p0.multiProcessorCount);
    EXPECT_NE(std::memcmp(p0.uuid.bytes, p1.uuid.bytes, 16), 0);
    EXPECT_EQ(cudaGetDeviceProperties(&p0, 2), cudaErrorInvalidDevice);
    int v = 0;
    EXPECT_EQ(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 1), cudaSuccess);
    EXPECT_EQ(v, p0.multiProcessorCount);
}

// As the CUDA 13 runtime does (measured on two H200s): a launch into another device's
// stream runs on that stream's device, whichever device is current.
TEST(Devices, ALaunchIntoAnotherDevicesStreamRunsOnThatDevice) {
    TwoGpus();
    cudaStream_t s1;
    ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
    ASSERT_EQ(cudaStreamCreate(&s1), cudaSuccess);
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    Capture cap;
    EXPECT_EQ(Spin(s1, 1000), cudaSuccess);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(s1), cudaSuccess);
    std::vector<trace_op> kernels = cap.Of(TRACE_OP_KERNEL);
    ASSERT_EQ(kernels.size(), 1u);
    EXPECT_EQ(kernels[0].device, 1u) << "the kernel runs on its stream's device";
    EXPECT_TRUE(kernels[0].timed);
    int current = -1;
    ASSERT_EQ(cudaGetDevice(&current), cudaSuccess);
    EXPECT_EQ(current, 0) << "the launch leaves the current device as it was";
}

TEST(Devices, EventsBelongToTheirDevice) {
    TwoGpus();
    cudaEvent_t e0, e1;
    cudaStream_t s1;
    ASSERT_EQ(cudaEventCreate(&e0), cudaSuccess);
    ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
    ASSERT_EQ(cudaEventCreate(&e1), cudaSuccess);
    ASSERT_EQ(cudaStreamCreate(&s1), cudaSuccess);
    EXPECT_EQ(cudaEventRecord(e0, s1), cudaErrorInvalidResourceHandle) << "device 0's event on device 1's stream";
    EXPECT_EQ(cudaEventRecord(e1, s1), cudaSuccess);
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    EXPECT_EQ(cudaEventRecord(e0, 0), cudaSuccess);
    EXPECT_EQ(cudaEventSynchronize(e1), cudaSuccess) << "waiting for another device's event is allowed";
    EXPECT_EQ(cudaEventSynchronize(e0), cudaSuccess);
    float ms = 0;
    EXPECT_EQ(cudaEventElapsedTime(&ms, e0, e1), cudaErrorInvalidResourceHandle);
    EXPECT_EQ(cudaEventElapsedTime(&ms, e0, e0), cudaSuccess);
}

TEST(Devices, EachDeviceHasItsOwnMemory) {
    TwoGpus();
    size_t total = (size_t)simtest::Profile().total_global_mem;
    void *a = nullptr, *b = nullptr, *c = nullptr;
    ASSERT_EQ(cudaMalloc(&a, total - 64 * kMiB), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&c, 128 * kMiB), cudaErrorMemoryAllocation) << "device 0 is full";
    ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&b, 128 * kMiB), cudaSuccess) << "device 1 is not";
    EXPECT_EQ(cudaFree(b), cudaSuccess);
    EXPECT_EQ(cudaFree(a), cudaSuccess);
}

TEST(Devices, PeerAccessHasTheRuntimesErrors) {
    TwoGpus();
    int can = -1;
    ASSERT_EQ(cudaDeviceCanAccessPeer(&can, 0, 1), cudaSuccess);
    EXPECT_EQ(can, 1);
    ASSERT_EQ(cudaDeviceCanAccessPeer(&can, 1, 1), cudaSuccess);
    EXPECT_EQ(can, 0) << "a device is not its own peer";
    EXPECT_EQ(cudaDeviceCanAccessPeer(&can, 0, 2), cudaErrorInvalidDevice);
    EXPECT_EQ(cudaDeviceCanAccessPeer(nullptr, 0, 1), cudaErrorInvalidValue);
    EXPECT_EQ(cudaDeviceEnablePeerAccess(0, 0), cudaErrorInvalidDevice) << "itself";
    EXPECT_EQ(cudaDeviceEnablePeerAccess(2, 0), cudaErrorInvalidDevice);
    EXPECT_EQ(cudaDeviceEnablePeerAccess(1, 1), cudaErrorInvalidValue) << "flags must be 0";
    EXPECT_EQ(cudaDeviceDisablePeerAccess(1), cudaErrorPeerAccessNotEnabled);
    EXPECT_EQ(cudaDeviceEnablePeerAccess(1, 0), cudaSuccess);
    EXPECT_EQ(cudaDeviceEnablePeerAccess(1, 0), cudaErrorPeerAccessAlreadyEnabled);
    EXPECT_EQ(cudaGetLastError(), cudaErrorPeerAccessAlreadyEnabled);
    EXPECT_EQ(cudaDeviceDisablePeerAccess(1), cudaSuccess);
    EXPECT_EQ(cudaDeviceDisablePeerAccess(1), cudaErrorPeerAccessNotEnabled);
}

// A kernel on device 1 that reads buf (on device 0).
cudaError_t ReadPeer(cudaStream_t s, const void *buf, size_t bytes) {
    sim_kernel_launch l{};
    l.name = "reader";
    l.grid = dim3(1);
    l.block = dim3(32);
    l.cost.fixed_ns = 1000;
    l.n_ranges = 1;
    l.ranges[0].addr = (uint64_t)(uintptr_t)buf;
    l.ranges[0].bytes = bytes;
    l.ranges[0].flags = TRACE_RANGE_READ;
    return sim_launch_kernel(&l, s);
}

TEST(Devices, AKernelTouchingPeerMemoryNeedsPeerAccess) {
    TwoGpus();
    void *d0;
    ASSERT_EQ(cudaMalloc(&d0, kMiB), cudaSuccess);
    ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
    cudaStream_t s1;
    ASSERT_EQ(cudaStreamCreate(&s1), cudaSuccess);
    EXPECT_EQ(ReadPeer(s1, d0, kMiB), cudaErrorPeerAccessNotEnabled);
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    ASSERT_EQ(cudaDeviceEnablePeerAccess(1, 0), cudaSuccess);
    ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
    EXPECT_EQ(ReadPeer(s1, d0, kMiB), cudaErrorPeerAccessNotEnabled) << "0 to 1 is not 1 to 0";
    ASSERT_EQ(cudaDeviceEnablePeerAccess(0, 0), cudaSuccess);
    EXPECT_EQ(ReadPeer(s1, d0, kMiB), cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(s1), cudaSuccess);
}

struct Pair {
    void *d0 = nullptr, *d1 = nullptr;
    cudaStream_t s0 = nullptr, s1 = nullptr;
};

Pair MakePair(size_t bytes) {
    Pair p;
    EXPECT_EQ(cudaSetDevice(0), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&p.d0, bytes), cudaSuccess);
    EXPECT_EQ(cudaStreamCreateWithFlags(&p.s0, cudaStreamNonBlocking), cudaSuccess);
    EXPECT_EQ(cudaSetDevice(1), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&p.d1, bytes), cudaSuccess);
    EXPECT_EQ(cudaStreamCreateWithFlags(&p.s1, cudaStreamNonBlocking), cudaSuccess);
    EXPECT_EQ(cudaSetDevice(0), cudaSuccess);
    return p;
}

void EnableBoth() {
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    ASSERT_EQ(cudaDeviceEnablePeerAccess(1, 0), cudaSuccess);
    ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
    ASSERT_EQ(cudaDeviceEnablePeerAccess(0, 0), cudaSuccess);
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
}

TEST(Devices, APeerCopyMovesTheBytes) {
    TwoGpus();
    const size_t n = 3 * kMiB + 5;
    Pair p = MakePair(n);
    std::vector<unsigned char> in(n), out(n, 0);
    for (size_t i = 0; i < n; i++) in[i] = (unsigned char)(i * 7 + 3);
    ASSERT_EQ(cudaMemcpy(p.d0, in.data(), n, cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemcpyPeerAsync(p.d1, 1, p.d0, 0, n, p.s0), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(p.s0), cudaSuccess);
    ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(out.data(), p.d1, n, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(in, out);
    // The synchronous form, the other way, with cudaMemcpyAsync's unified addressing too.
    std::vector<unsigned char> back(n, 0);
    ASSERT_EQ(cudaMemset(p.d1, 0x5a, n), cudaSuccess);
    ASSERT_EQ(cudaMemcpyPeer(p.d0, 0, p.d1, 1, n), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(back.data(), p.d0, n, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(back, std::vector<unsigned char>(n, 0x5a));
}

TEST(Devices, PeerCopiesRefuseBadArguments) {
    TwoGpus();
    Pair p = MakePair(kMiB);
    EXPECT_EQ(cudaMemcpyPeerAsync(p.d1, 2, p.d0, 0, kMiB, p.s0), cudaErrorInvalidDevice);
    EXPECT_EQ(cudaMemcpyPeerAsync(p.d1, 1, p.d0, -1, kMiB, p.s0), cudaErrorInvalidDevice);
    EXPECT_EQ(cudaMemcpyPeerAsync(p.d1, 0, p.d0, 1, kMiB, p.s0), cudaErrorInvalidValue) << "devices swapped";
    EXPECT_EQ(cudaMemcpyPeerAsync(p.d1, 1, p.d0, 0, 2 * kMiB, p.s0), cudaErrorInvalidValue) << "past the allocation";
    std::vector<char> host(kMiB);
    EXPECT_EQ(cudaMemcpyPeer(host.data(), 1, p.d0, 0, kMiB), cudaErrorInvalidValue) << "host memory";
    EXPECT_EQ(cudaMemcpyPeerAsync(p.d1, 1, p.d0, 0, 0, p.s0), cudaSuccess) << "nothing to copy";
}

// How long one peer copy of `bytes` on s0 takes on the device, from the trace.
uint64_t CopyNs(const Capture &cap) {
    auto copies = cap.Of(TRACE_OP_COPY);
    EXPECT_FALSE(copies.empty());
    return copies.empty() ? 0 : copies.back().end_ns - copies.back().start_ns;
}

TEST(Devices, WithoutPeerAccessACopyIsStagedWithItItTakesTheLink) {
    TwoGpus();
    const size_t n = 64 * kMiB;
    Pair p = MakePair(n);
    {
        Capture cap;
        ASSERT_EQ(cudaMemcpyPeerAsync(p.d1, 1, p.d0, 0, n, p.s0), cudaSuccess);
        ASSERT_EQ(cudaStreamSynchronize(p.s0), cudaSuccess);
        auto c = cap.Of(TRACE_OP_COPY).back();
        EXPECT_EQ(c.engine, TRACE_ENGINE_LINK);
        EXPECT_EQ(c.dir, TRACE_COPY_D2D);
        EXPECT_NEAR((double)CopyNs(cap), Link().staged_fixed_ns + n / Link().staged_gbps, 2);
    }
    EnableBoth();
    {
        Capture cap;
        ASSERT_EQ(cudaMemcpyPeerAsync(p.d1, 1, p.d0, 0, n, p.s0), cudaSuccess);
        ASSERT_EQ(cudaStreamSynchronize(p.s0), cudaSuccess);
        EXPECT_NEAR((double)CopyNs(cap), Link().peer_fixed_ns + n / Link().peer_gbps, 2);
    }
    {
        // cudaMemcpyAsync between two devices' memory is the same peer copy.
        Capture cap;
        ASSERT_EQ(cudaMemcpyAsync(p.d1, p.d0, n, cudaMemcpyDefault, p.s0), cudaSuccess);
        ASSERT_EQ(cudaStreamSynchronize(p.s0), cudaSuccess);
        EXPECT_EQ(cap.Of(TRACE_OP_COPY).back().engine, TRACE_ENGINE_LINK);
        EXPECT_NEAR((double)CopyNs(cap), Link().peer_fixed_ns + n / Link().peer_gbps, 2);
    }
}

TEST(Devices, BothDirectionsAtOnceShareTheLink) {
    TwoGpus();
    const size_t n = 64 * kMiB;
    Pair a = MakePair(n), b = MakePair(n);
    for (bool link : {false, true}) {
        if (link) EnableBoth();
        Capture cap;
        ASSERT_EQ(cudaMemcpyPeerAsync(a.d1, 1, a.d0, 0, n, a.s0), cudaSuccess);
        ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
        ASSERT_EQ(cudaMemcpyPeerAsync(b.d0, 0, b.d1, 1, n, a.s1), cudaSuccess);
        ASSERT_EQ(cudaStreamSynchronize(a.s1), cudaSuccess);
        ASSERT_EQ(cudaStreamSynchronize(a.s0), cudaSuccess);
        ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
        auto copies = cap.Of(TRACE_OP_COPY);
        ASSERT_EQ(copies.size(), 2u);
        EXPECT_LT(copies[1].start_ns, copies[0].end_ns) << "they run at once";
        double total = link ? Link().peer_bidir_total_gbps : Link().staged_bidir_total_gbps;
        double one = link ? Link().peer_gbps : Link().staged_gbps;
        // Each gets half the bidirectional total while both move bytes: slower than alone.
        double alone = n / one;
        double shared = n / (total / 2);
        uint64_t d = copies[0].end_ns - copies[0].start_ns;
        EXPECT_GT((double)d, alone + 1000) << (link ? "link" : "staged");
        EXPECT_LE((double)d, shared + (link ? Link().peer_fixed_ns : Link().staged_fixed_ns) * 2 + 1000);
    }
}

TEST(Devices, APeerCopyOverlapsAKernelOfItsDevice) {
    TwoGpus();
    const size_t n = 64 * kMiB;
    Pair p = MakePair(n);
    EnableBoth();
    cudaStream_t k;
    ASSERT_EQ(cudaStreamCreateWithFlags(&k, cudaStreamNonBlocking), cudaSuccess);
    const sim_profile &prof = simtest::Profile();
    // A kernel that fills every SM: a peer copy does not need them.
    unsigned blocks = (unsigned)(prof.sm_count * prof.max_blocks_per_sm);
    Capture cap;
    uint64_t t0 = sim_now_ns();
    ASSERT_EQ(Spin(k, 2 * kMs, blocks, 32, "fill"), cudaSuccess);
    ASSERT_EQ(cudaMemcpyPeerAsync(p.d1, 1, p.d0, 0, n, p.s0), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    auto c = cap.Of(TRACE_OP_COPY).back();
    trace_op f = cap.Kernel("fill");
    EXPECT_LT(c.start_ns, f.end_ns);
    EXPECT_LT(c.end_ns, f.end_ns) << "the copy (" << (c.end_ns - c.start_ns) << " ns) hides under the kernel";
    EXPECT_LT(sim_now_ns() - t0, simtest::Ns(2 * kMs + 2 * prof.launch_ns + prof.memcpy_call_ns + 100000));
}

TEST(Devices, EachDeviceHasItsOwnSms) {
    TwoGpus();
    const sim_profile &prof = simtest::Profile();
    unsigned blocks = (unsigned)(prof.sm_count * prof.max_blocks_per_sm);
    Pair p = MakePair(kMiB);
    cudaStream_t s0b;
    ASSERT_EQ(cudaStreamCreateWithFlags(&s0b, cudaStreamNonBlocking), cudaSuccess);
    // Two device-filling kernels on one device take turns...
    Capture cap;
    ASSERT_EQ(Spin(p.s0, 1 * kMs, blocks, 32, "a"), cudaSuccess);
    ASSERT_EQ(Spin(s0b, 1 * kMs, blocks, 32, "b"), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_GE(cap.Kernel("b").end_ns, cap.Kernel("a").end_ns + simtest::Ns(1 * kMs));
    // ...and on two devices run at once.
    ASSERT_EQ(Spin(p.s0, 1 * kMs, blocks, 32, "c"), cudaSuccess);
    ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
    ASSERT_EQ(Spin(p.s1, 1 * kMs, blocks, 32, "d"), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(p.s1), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(p.s0), cudaSuccess);
    EXPECT_LT(cap.Kernel("d").start_ns, cap.Kernel("c").end_ns);
    EXPECT_LT(cap.Kernel("d").end_ns, cap.Kernel("c").end_ns + simtest::Ns(0.1 * kMs));
}

TEST(Devices, EventsOrderWorkAcrossDevices) {
    TwoGpus();
    Pair p = MakePair(kMiB);
    cudaEvent_t e;
    ASSERT_EQ(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), cudaSuccess);
    Capture cap;
    ASSERT_EQ(Spin(p.s0, 2 * kMs, 1, 32, "first"), cudaSuccess);
    ASSERT_EQ(cudaEventRecord(e, p.s0), cudaSuccess);
    ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
    ASSERT_EQ(cudaStreamWaitEvent(p.s1, e, 0), cudaSuccess);
    ASSERT_EQ(Spin(p.s1, 2 * kMs, 1, 32, "second"), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(p.s1), cudaSuccess);
    EXPECT_GE(cap.Kernel("second").start_ns, cap.Kernel("first").end_ns);
}

TEST(Devices, DeviceSynchronizeWaitsForTheCurrentDeviceOnly) {
    TwoGpus();
    Pair p = MakePair(kMiB);
    ASSERT_EQ(Spin(p.s0, 5 * kMs), cudaSuccess);
    ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
    ASSERT_EQ(Spin(p.s1, 1 * kMs), cudaSuccess);
    uint64_t t0 = sim_now_ns();
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_LT(sim_now_ns() - t0, simtest::Ns(2 * kMs));
    EXPECT_EQ(cudaStreamQuery(p.s0), cudaErrorNotReady) << "device 0 is still busy";
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(cudaStreamQuery(p.s0), cudaSuccess);
}

TEST(Devices, EachDeviceHasItsOwnLegacyStream) {
    TwoGpus();
    cudaStream_t b0;
    ASSERT_EQ(cudaStreamCreate(&b0), cudaSuccess);  // blocking, device 0
    Capture cap;
    ASSERT_EQ(Spin(b0, 5 * kMs, 1, 32, "long"), cudaSuccess);
    ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
    ASSERT_EQ(Spin(0, 1 * kMs, 1, 32, "legacy1"), cudaSuccess);
    uint64_t t0 = sim_now_ns();
    ASSERT_EQ(cudaStreamSynchronize(0), cudaSuccess);
    EXPECT_LT(sim_now_ns() - t0, simtest::Ns(2 * kMs)) << "synchronising device 1's legacy stream";
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    ASSERT_EQ(Spin(0, 1 * kMs, 1, 32, "legacy0"), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(0), cudaSuccess);
    EXPECT_LT(cap.Kernel("legacy1").start_ns, cap.Kernel("long").end_ns)
        << "device 1's legacy stream does not wait for device 0's blocking streams";
    EXPECT_GE(cap.Kernel("legacy0").start_ns, cap.Kernel("long").end_ns);
}

TEST(Devices, TheRecordSaysWhichDeviceEachStreamAndOpBelongsTo) {
    TwoGpus();
    const size_t n = kMiB;
    Capture cap;
    Pair p = MakePair(n);
    EnableBoth();
    std::vector<unsigned char> host(n, 1);
    ASSERT_EQ(cudaMemcpyAsync(p.d0, host.data(), n, cudaMemcpyHostToDevice, p.s0), cudaSuccess);
    ASSERT_EQ(Spin(p.s0, 1000, 1, 32, "stage1"), cudaSuccess);
    ASSERT_EQ(cudaMemcpyPeerAsync(p.d1, 1, p.d0, 0, n, p.s0), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(p.s0), cudaSuccess);
    ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
    ASSERT_EQ(Spin(p.s1, 1000, 1, 32, "stage2"), cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(host.data(), p.d1, n, cudaMemcpyDeviceToHost, p.s1), cudaSuccess);
    ASSERT_EQ(Spin(0, 1000, 1, 32, "legacy1"), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    // Streams: the device current when they were made; device 1's default stream is a
    // stream of its own, of device 1; the legacy one (id 0) is device 0's.
    EXPECT_EQ(trace_stream_get(trace_stream_id(p.s0))->device, 0u);
    EXPECT_EQ(trace_stream_get(trace_stream_id(p.s1))->device, 1u);
    EXPECT_EQ(trace_stream_get(TRACE_STREAM_LEGACY)->device, 0u);
    trace_op legacy1 = cap.Kernel("legacy1");
    EXPECT_NE(legacy1.stream, TRACE_STREAM_LEGACY);
    EXPECT_EQ(trace_stream_get(legacy1.stream)->device, 1u);
    EXPECT_EQ(legacy1.device, 1u);
    // Engine ops: the device whose engine ran them.
    EXPECT_EQ(cap.Kernel("stage1").device, 0u);
    EXPECT_EQ(cap.Kernel("stage2").device, 1u);
    auto copies = cap.Of(TRACE_OP_COPY);
    ASSERT_EQ(copies.size(), 3u);
    EXPECT_EQ(copies[0].engine, TRACE_ENGINE_H2D);
    EXPECT_EQ(copies[0].device, 0u);
    EXPECT_EQ(copies[2].engine, TRACE_ENGINE_D2H);
    EXPECT_EQ(copies[2].device, 1u);
    // The peer copy: on the link, from device 0 to device 1, on device 0's stream.
    EXPECT_EQ(copies[1].engine, TRACE_ENGINE_LINK);
    EXPECT_EQ(copies[1].device, 0u);
    EXPECT_EQ(copies[1].dst_device, 1u);
    EXPECT_EQ(copies[1].stream, trace_stream_id(p.s0));
    // Its ranges know whose memory they are in.
    ASSERT_EQ(copies[1].n_ranges, 2u);
    EXPECT_EQ(trace_range_device(&copies[1].ranges[0]), 0);
    EXPECT_EQ(trace_range_device(&copies[1].ranges[1]), 1);
    EXPECT_EQ(trace_range_device(&copies[0].ranges[0]), -1) << "host memory";
    // Event waits and records on device 1's stream are device 1's.
    cudaEvent_t e;
    ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
    ASSERT_EQ(cudaEventCreate(&e), cudaSuccess);
    ASSERT_EQ(cudaEventRecord(e, p.s1), cudaSuccess);
    EXPECT_EQ(cap.Of(TRACE_OP_EVENT_RECORD).back().device, 1u);
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
}

TEST(Devices, OnOneDeviceEverythingIsDeviceZero) {
    Reset("h200");
    Capture cap;
    cudaStream_t s;
    void *d;
    ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d, kMiB), cudaSuccess);
    ASSERT_EQ(cudaMemsetAsync(d, 0, kMiB, s), cudaSuccess);
    ASSERT_EQ(Spin(s, 1000, 1, 32, "k"), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    EXPECT_EQ(trace_stream_get(trace_stream_id(s))->device, 0u);
    for (const auto &kv : cap.ops()) {
        EXPECT_EQ(kv.second.device, 0u) << trace_op_kind_name(kv.second.kind);
        EXPECT_NE(kv.second.engine, TRACE_ENGINE_LINK);
    }
}

TEST(Devices, AProfileWithABadLinkIsRefusedWithAReason) {
    sim_reset();
    std::string path = simtest::ProfileWith({{"link", "device_count", 3}}, "h200x2");
    EXPECT_NE(sim_select_profile(path.c_str()), 0);
    EXPECT_NE(std::string(sim_last_message()).find("link.device_count"), std::string::npos) << sim_last_message();
    path = simtest::ProfileWith({{"link", "peer_bidir_total_gbps", 100}}, "h200x2");
    EXPECT_NE(sim_select_profile(path.c_str()), 0);
    EXPECT_NE(std::string(sim_last_message()).find("bidirectional"), std::string::npos) << sim_last_message();
}

}  // namespace
