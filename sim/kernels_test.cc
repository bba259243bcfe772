// sim/kernels_test.cc: kernels on the simulated SMs. A block runs for the time the cost
// formula gives on the profile; blocks beyond what the SMs hold run in waves; kernels of
// different streams share SMs when their blocks fit, and then share those SMs' throughput
// (two that each fill the pipes take twice as long together; two on different SMs, or
// waiting on their chains, as long as alone); pending blocks of a higher-priority stream
// dispatch first but running blocks are never preempted; the CPU body runs for every
// block once, when its block group retires, with the arguments as they were at launch; a
// launch touching memory outside every allocation faults (sticky); bad launch
// configurations get the runtime's error codes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "sim/kernels.h"
#include "sim/test_support.h"

namespace {

using simtest::Capture;
using simtest::MaxTurnaround;
using simtest::MinTurnaround;
using simtest::Profile;
using simtest::Reset;
using simtest::Spin;

double Duration(const trace_op &op) { return (double)(op.end_ns - op.start_ns); }

sim_kernel_launch Launch(const char *name, unsigned blocks, unsigned threads) {
    sim_kernel_launch l{};
    l.name = name;
    l.grid = dim3(blocks);
    l.block = dim3(threads);
    return l;
}

unsigned Sms() { return (unsigned)Profile().sm_count; }

TEST(Kernels, OneBlockRunsForItsCostPlusTurnaround) {
    Reset();
    Capture cap;
    sim_kernel_launch l = Launch("k", 1, 256);
    l.cost.fixed_ns = 100;
    l.cost.fp32_ops = 256.0 * 1000;
    l.cost.int_ops = 256.0 * 10;
    l.cost.dram_bytes = 2048;
    l.cost.chain_ops = 10;
    ASSERT_EQ(sim_launch_kernel(&l, 0), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const sim_profile &p = Profile();
    double thr = std::max({l.cost.fp32_ops / p.sm_fp32_ops_per_ns, l.cost.int_ops / p.sm_int_ops_per_ns,
                           l.cost.dram_bytes / (p.dram_gbps / p.sm_count)});
    double block_ns = l.cost.fixed_ns + std::max(thr, l.cost.chain_ops * p.op_latency_ns);
    // On an idle device the first block lands on SM 0, whose turnaround is the minimum.
    EXPECT_NEAR(Duration(cap.Kernel("k")), block_ns + MinTurnaround(), 1.0);
}

TEST(Kernels, ADependentChainBoundsALonelyBlock) {
    Reset();
    Capture cap;
    sim_kernel_launch l = Launch("k", 1, 32);
    l.cost.fp32_ops = 32.0 * 5000;
    l.cost.chain_ops = 5000;
    ASSERT_EQ(sim_launch_kernel(&l, 0), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    ASSERT_GT(5000 * Profile().op_latency_ns, l.cost.fp32_ops / Profile().sm_fp32_ops_per_ns);
    EXPECT_NEAR(Duration(cap.Kernel("k")), 5000 * Profile().op_latency_ns + MinTurnaround(), 1.0);
}

TEST(Kernels, BlocksSharingAnSmShareItsThroughput) {
    Reset();
    Capture cap;
    const sim_profile &p = Profile();
    uint32_t residency = sim_kernel_residency(&p, 256, 32, 0);
    ASSERT_EQ(residency, (uint32_t)(p.max_threads_per_sm / 256));
    sim_kernel_launch l = Launch("k", Sms() * residency, 256);
    l.cost.fp32_ops = 256.0 * 2000;
    l.cost.chain_ops = 2000;
    ASSERT_EQ(sim_launch_kernel(&l, 0), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    double block_ns = std::max(residency * l.cost.fp32_ops / p.sm_fp32_ops_per_ns, 2000 * p.op_latency_ns);
    double d = Duration(cap.Kernel("k"));
    EXPECT_GE(d, block_ns + MinTurnaround() - 1);
    EXPECT_LE(d, block_ns + MaxTurnaround() + 1) << "one full wave";
}

TEST(Kernels, GridsLargerThanTheSmsHoldRunInWaves) {
    Reset();
    Capture cap;
    const double block_ns = 10000;
    unsigned wave = Sms() * sim_kernel_residency(&Profile(), 128, 32, 0);
    ASSERT_EQ(Spin(0, block_ns, 3 * wave, 128, "k"), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    double d = Duration(cap.Kernel("k"));
    EXPECT_GE(d, 3 * (block_ns + MinTurnaround()) - 1);
    EXPECT_LE(d, 3 * (block_ns + MaxTurnaround()) + 1);
}

TEST(Kernels, KernelsOfTwoStreamsShareSmsWhenTheirBlocksFit) {
    Reset();
    Capture cap;
    cudaStream_t s1, s2;
    ASSERT_EQ(cudaStreamCreate(&s1), cudaSuccess);
    ASSERT_EQ(cudaStreamCreate(&s2), cudaSuccess);
    // Each kernel puts one 1024-thread block on every SM: half of what an SM holds.
    ASSERT_EQ(Spin(s1, 1e6, Sms(), 1024, "a"), cudaSuccess);
    ASSERT_EQ(Spin(s2, 1e6, Sms(), 1024, "b"), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_LT(cap.Kernel("b").start_ns, cap.Kernel("a").end_ns);
}

// A kernel of one 256-thread block per SM whose blocks need the SM's whole fp32
// throughput for about 1 ms (no dependent chain to wait on).
sim_kernel_launch PipeFilling(const char *name, unsigned blocks) {
    sim_kernel_launch l = Launch(name, blocks, 256);
    l.cost.fp32_ops = 1e6 * Profile().sm_fp32_ops_per_ns;
    return l;
}

TEST(Kernels, TwoKernelsThatFillThePipesTakeTwiceAsLongTogether) {
    Reset();
    Capture cap;
    cudaStream_t s1, s2;
    ASSERT_EQ(cudaStreamCreate(&s1), cudaSuccess);
    ASSERT_EQ(cudaStreamCreate(&s2), cudaSuccess);
    sim_kernel_launch alone = PipeFilling("alone", Sms()), a = PipeFilling("a", Sms()), b = PipeFilling("b", Sms());
    ASSERT_EQ(sim_launch_kernel(&alone, s1), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    // Both fit on the SMs at once (one block of each per SM) and share every SM.
    ASSERT_EQ(sim_launch_kernel(&a, s1), cudaSuccess);
    ASSERT_EQ(sim_launch_kernel(&b, s2), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    double one = Duration(cap.Kernel("alone"));
    trace_op ta = cap.Kernel("a"), tb = cap.Kernel("b");
    double lag = (double)(tb.start_ns - ta.start_ns);
    ASSERT_LT(tb.start_ns, ta.end_ns);
    ASSERT_LT(lag, one / 100) << "b starts while a has barely begun";
    // Their total work takes what it takes one after the other; a ran alone until b came.
    EXPECT_NEAR((double)(std::max(ta.end_ns, tb.end_ns) - ta.start_ns), 2 * one, lag + 1);
    EXPECT_NEAR(Duration(ta), 2 * one - lag, lag + 1);
    EXPECT_NEAR(Duration(tb), 2 * one - lag, lag + 1);
}

TEST(Kernels, KernelsOnDifferentSmsOverlapForFree) {
    Reset();
    Capture cap;
    cudaStream_t s1, s2;
    ASSERT_EQ(cudaStreamCreate(&s1), cudaSuccess);
    ASSERT_EQ(cudaStreamCreate(&s2), cudaSuccess);
    // A quarter of the SMs each: b's blocks go to SMs a left idle.
    sim_kernel_launch a = PipeFilling("a", Sms() / 4), b = PipeFilling("b", Sms() / 4);
    ASSERT_EQ(sim_launch_kernel(&a, s1), cudaSuccess);
    ASSERT_EQ(sim_launch_kernel(&b, s2), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    trace_op ta = cap.Kernel("a"), tb = cap.Kernel("b");
    ASSERT_LT(tb.start_ns, ta.end_ns);
    for (const trace_op &t : {ta, tb}) {
        EXPECT_GE(Duration(t), 1e6 + MinTurnaround() - 1) << t.name;
        EXPECT_LE(Duration(t), 1e6 + MaxTurnaround() + 1) << t.name << " runs as fast as alone";
    }
}

TEST(Kernels, KernelsWaitingOnTheirChainsShareAnSmForFree) {
    Reset();
    Capture cap;
    cudaStream_t s1, s2;
    ASSERT_EQ(cudaStreamCreate(&s1), cudaSuccess);
    ASSERT_EQ(cudaStreamCreate(&s2), cudaSuccess);
    // One 32-thread block per SM each, a 5000-deep dependent chain a thread: the SMs'
    // pipes stay mostly idle, so the two kernels on the same SMs do not slow each other.
    sim_kernel_launch a = Launch("a", Sms(), 32);
    a.cost.fp32_ops = 32.0 * 5000;
    a.cost.chain_ops = 5000;
    sim_kernel_launch b = a;
    b.name = "b";
    const sim_profile &p = Profile();
    double chain = 5000 * p.op_latency_ns;
    ASSERT_LT(2 * a.cost.fp32_ops / p.sm_fp32_ops_per_ns, chain);
    ASSERT_EQ(sim_launch_kernel(&a, s1), cudaSuccess);
    ASSERT_EQ(sim_launch_kernel(&b, s2), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    trace_op ta = cap.Kernel("a"), tb = cap.Kernel("b");
    ASSERT_LT(tb.start_ns, ta.end_ns);
    for (const trace_op &t : {ta, tb}) {
        EXPECT_GE(Duration(t), chain + MinTurnaround() - 1) << t.name;
        EXPECT_LE(Duration(t), chain + MaxTurnaround() + 1) << t.name << " runs as fast as alone";
    }
}

TEST(Kernels, AKernelWaitsForRoomWhenTheSmsAreFull) {
    Reset();
    Capture cap;
    cudaStream_t s1, s2;
    ASSERT_EQ(cudaStreamCreate(&s1), cudaSuccess);
    ASSERT_EQ(cudaStreamCreate(&s2), cudaSuccess);
    // Two 1024-thread blocks per SM fill every SM's threads.
    ASSERT_EQ(Spin(s1, 1e6, 2 * Sms(), 1024, "a"), cudaSuccess);
    ASSERT_EQ(Spin(s2, 1e6, 1, 32, "b"), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    trace_op a = cap.Kernel("a"), b = cap.Kernel("b");
    EXPECT_GE(b.start_ns, a.start_ns + simtest::Ns(1e6 + MinTurnaround()));
}

TEST(Kernels, SharedMemoryLimitsResidency) {
    Reset();
    Capture cap;
    const sim_profile &p = Profile();
    size_t smem = 40 * 1024;
    uint32_t residency = sim_kernel_residency(&p, 128, 32, smem);
    ASSERT_EQ(residency, (uint32_t)(p.shared_mem_per_sm / (smem + p.reserved_shared_mem_per_block)));
    sim_kernel_launch one = Launch("one", Sms() * residency, 128);
    one.shared_bytes = smem;
    one.cost.fixed_ns = 10000;
    sim_kernel_launch two = one;
    two.name = "two";
    two.grid = dim3(Sms() * residency + 1);
    ASSERT_EQ(sim_launch_kernel(&one, 0), cudaSuccess);
    ASSERT_EQ(sim_launch_kernel(&two, 0), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_LE(Duration(cap.Kernel("one")), 10000 + MaxTurnaround() + 1);
    EXPECT_GE(Duration(cap.Kernel("two")), 2 * (10000 + MinTurnaround()) - 1) << "one block more: a second wave";
}

TEST(Kernels, RegistersLimitResidency) {
    const sim_profile *p;
    Reset();
    p = &Profile();
    // 128 registers x 256 threads = 32K registers a block: two fit in 64K.
    EXPECT_EQ(sim_kernel_residency(p, 256, 128, 0), (uint32_t)(p->regs_per_sm / (128 * 256)));
    EXPECT_EQ(sim_kernel_residency(p, 256, 32, 0), (uint32_t)(p->max_threads_per_sm / 256));
}

// Background: two full waves of 1 ms blocks on a low-priority stream; urgent: one block
// per SM, issued 100 us later, in the middle of the first wave.
struct PriorityRun {
    trace_op bg, urgent;
};

const double kBlockNs = 1e6;

PriorityRun RunPriorityScenario(bool urgent_high) {
    Reset();
    Capture cap;
    int least = 0, greatest = 0;
    EXPECT_EQ(cudaDeviceGetStreamPriorityRange(&least, &greatest), cudaSuccess);
    cudaStream_t bg, urgent;
    EXPECT_EQ(cudaStreamCreateWithPriority(&bg, cudaStreamNonBlocking, least), cudaSuccess);
    EXPECT_EQ(cudaStreamCreateWithPriority(&urgent, cudaStreamNonBlocking, urgent_high ? greatest : least),
              cudaSuccess);
    // Two full waves: every SM holds as many 128-thread blocks as it can.
    EXPECT_EQ(Spin(bg, kBlockNs, Sms() * sim_kernel_residency(&Profile(), 128, 32, 0) * 2, 128, "bg"),
              cudaSuccess);
    sim_host_work(100000);
    EXPECT_EQ(Spin(urgent, 20000, Sms(), 128, "urgent"), cudaSuccess);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    return {cap.Kernel("bg"), cap.Kernel("urgent")};
}

TEST(Kernels, RunningBlocksAreNeverPreempted) {
    PriorityRun r = RunPriorityScenario(true);
    // Every SM is full of background blocks when the urgent kernel arrives; even at the
    // highest priority it only gets slots that retiring blocks free.
    EXPECT_GE(r.urgent.start_ns, r.bg.start_ns + simtest::Ns(kBlockNs + MinTurnaround()));
}

TEST(Kernels, HigherPriorityBlocksDispatchBeforePendingLowerPriorityBlocks) {
    PriorityRun r = RunPriorityScenario(true);
    // At the first wave's end the urgent blocks go ahead of the background's second wave.
    EXPECT_LE(r.urgent.start_ns, r.bg.start_ns + simtest::Ns(kBlockNs + MaxTurnaround()));
    EXPECT_LT(r.urgent.end_ns, r.bg.end_ns);
    EXPECT_GE(Duration(r.bg), 2 * (kBlockNs + MinTurnaround()) + 20000 - 1)
        << "the background blocks it displaced started only after the urgent blocks";
}

TEST(Kernels, EqualPriorityWaitsUntilEarlierKernelsAreDispatched) {
    PriorityRun r = RunPriorityScenario(false);
    // Its blocks go only once the last background block is on an SM: after the second
    // wave, not at the end of the first.
    EXPECT_GE(r.urgent.start_ns, r.bg.start_ns + simtest::Ns(2 * (kBlockNs + MinTurnaround())));
    EXPECT_LE(Duration(r.bg), 2 * (kBlockNs + MaxTurnaround()) + 1) << "the background was not displaced";
}

struct CopyArgs {
    const int *in;
    int *out;
    int add;
};

void AddBody(const void *args, uint32_t b0, uint32_t b1) {
    const CopyArgs *a = static_cast<const CopyArgs *>(args);
    for (uint32_t b = b0; b < b1; b++)
        for (int t = 0; t < 256; t++) a->out[b * 256 + t] = a->in[b * 256 + t] + a->add;
}

sim_kernel_launch AddLaunch(const CopyArgs &a, unsigned blocks) {
    sim_kernel_launch l = Launch("add", blocks, 256);
    l.body = AddBody;
    l.args = &a;
    l.args_size = sizeof(a);
    l.cost.int_ops = 256;
    l.cost.dram_bytes = 2048;
    l.n_ranges = 2;
    l.ranges[0] = {(uint64_t)(uintptr_t)a.in, (uint64_t)blocks * 1024, TRACE_RANGE_READ};
    l.ranges[1] = {(uint64_t)(uintptr_t)a.out, (uint64_t)blocks * 1024, TRACE_RANGE_WRITE};
    return l;
}

TEST(Kernels, ArgumentsAreCopiedAtLaunch) {
    Reset();
    const unsigned blocks = 8;
    int *in, *out;
    ASSERT_EQ(cudaMalloc(&in, blocks * 1024), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&out, blocks * 1024), cudaSuccess);
    CopyArgs a{in, out, 5};
    sim_kernel_launch l = AddLaunch(a, blocks);
    ASSERT_EQ(sim_launch_kernel(&l, 0), cudaSuccess);
    a.add = 1000;  // too late: the launch has its own copy
    std::vector<int> h(blocks * 256);
    ASSERT_EQ(cudaMemcpy(h.data(), out, blocks * 1024, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(h[0], 5);
    EXPECT_EQ(h.back(), 5);
}

std::vector<std::pair<uint32_t, uint32_t>> g_ranges;
void RecordRanges(const void *, uint32_t b0, uint32_t b1) { g_ranges.emplace_back(b0, b1); }

TEST(Kernels, TheBodyRunsForEveryBlockExactlyOnceInGroups) {
    Reset();
    g_ranges.clear();
    sim_kernel_launch l = Launch("k", 3 * Sms() * 16 + 7, 128);
    l.body = RecordRanges;
    l.cost.fixed_ns = 1000;
    ASSERT_EQ(sim_launch_kernel(&l, 0), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<int> seen(l.grid.x, 0);
    for (auto &r : g_ranges)
        for (uint32_t b = r.first; b < r.second; b++) seen[b]++;
    for (unsigned b = 0; b < l.grid.x; b++) ASSERT_EQ(seen[b], 1) << "block " << b;
    EXPECT_LE(g_ranges.size(), 4 * (size_t)Profile().sm_classes)
        << "blocks retiring together are one group, not one call per block";
}

TEST(Kernels, TheBodyRunsWhenItsBlocksRetireNotAtLaunch) {
    Reset();
    const unsigned blocks = 4;
    int *in, *out, *h;
    ASSERT_EQ(cudaMalloc(&in, blocks * 1024), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&out, blocks * 1024), cudaSuccess);
    ASSERT_EQ(cudaMallocHost(&h, blocks * 1024), cudaSuccess);
    ASSERT_EQ(cudaMemset(in, 0, blocks * 1024), cudaSuccess);
    ASSERT_EQ(cudaMemset(out, 0xff, blocks * 1024), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    cudaStream_t s1, s2;
    ASSERT_EQ(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), cudaSuccess);
    CopyArgs a{in, out, 1};
    sim_kernel_launch l = AddLaunch(a, blocks);
    l.cost.fixed_ns = 1e6;  // the kernel runs for a millisecond
    ASSERT_EQ(sim_launch_kernel(&l, s1), cudaSuccess);
    // A copy on another stream with no ordering reads `out` while the kernel runs.
    ASSERT_EQ(cudaMemcpyAsync(h, out, blocks * 1024, cudaMemcpyDeviceToHost, s2), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(h[0], -1) << "the racing copy saw the old contents";
    ASSERT_EQ(cudaMemcpy(h, out, blocks * 1024, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(h[0], 1);
}

TEST(Kernels, AnInputOverwrittenWhileAKernelRunsGivesWrongResults) {
    Reset();
    const unsigned blocks = 4;
    const size_t bytes = blocks * 1024;
    int *in, *out, *h;
    ASSERT_EQ(cudaMalloc(&in, bytes), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&out, bytes), cudaSuccess);
    ASSERT_EQ(cudaMallocHost(&h, bytes), cudaSuccess);
    ASSERT_EQ(cudaMemset(in, 0, bytes), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    for (unsigned i = 0; i < blocks * 256; i++) h[i] = 100;
    cudaStream_t s1, s2;
    ASSERT_EQ(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), cudaSuccess);
    CopyArgs a{in, out, 1};
    sim_kernel_launch l = AddLaunch(a, blocks);
    l.cost.fixed_ns = 1e6;
    ASSERT_EQ(sim_launch_kernel(&l, s1), cudaSuccess);
    // The next batch's upload into `in`, not ordered after the kernel: a WAR race.
    ASSERT_EQ(cudaMemcpyAsync(in, h, bytes, cudaMemcpyHostToDevice, s2), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(h, out, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(h[0], 101) << "the kernel read the overwritten input, as on hardware";
}

TEST(Kernels, TouchingMemoryOutsideEveryAllocationFaultsStickily) {
    Reset();
    g_ranges.clear();
    std::vector<char> pageable(4096);
    sim_kernel_launch l = Launch("bad", 4, 32);
    l.body = RecordRanges;
    l.n_ranges = 1;
    l.ranges[0] = {(uint64_t)(uintptr_t)pageable.data(), 4096, TRACE_RANGE_WRITE};
    ASSERT_EQ(sim_launch_kernel(&l, 0), cudaSuccess) << "the launch itself succeeds";
    EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
    EXPECT_TRUE(g_ranges.empty()) << "the faulting kernel's body is not run";
    void *d = nullptr;
    EXPECT_EQ(cudaMalloc(&d, 16), cudaErrorIllegalAddress) << "every later call reports it";
    EXPECT_EQ(cudaGetLastError(), cudaErrorIllegalAddress);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "the last-error slot is cleared, as CUDA 13 does";
    EXPECT_EQ(cudaStreamSynchronize(0), cudaErrorIllegalAddress) << "but the context stays broken";
    EXPECT_EQ(cudaDeviceReset(), cudaSuccess);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&d, 16), cudaSuccess);
}

TEST(Kernels, AFaultStopsLaterWorkFromTouchingData) {
    Reset();
    int *d, *h;
    ASSERT_EQ(cudaMalloc(&d, 4096), cudaSuccess);
    ASSERT_EQ(cudaMallocHost(&h, 4096), cudaSuccess);
    h[0] = 42;
    std::vector<char> pageable(64);
    sim_kernel_launch bad = Launch("bad", 1, 32);
    bad.n_ranges = 1;
    bad.ranges[0] = {(uint64_t)(uintptr_t)pageable.data(), 64, TRACE_RANGE_READ};
    ASSERT_EQ(sim_launch_kernel(&bad, 0), cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(h, d, 4096, cudaMemcpyDeviceToHost, 0), cudaSuccess);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
    EXPECT_EQ(h[0], 42) << "the copy queued behind the fault moved nothing";
}

// Shapes the device can never run are invalid values in CUDA 13 (what the runtime
// returned on an H200; see sim/conformance).
TEST(Kernels, BadConfigurationsAreRejected) {
    Reset();
    sim_kernel_launch l = Launch("k", 0, 32);
    EXPECT_EQ(sim_launch_kernel(&l, 0), cudaErrorInvalidValue);
    l = Launch("k", 1, 1025);
    EXPECT_EQ(sim_launch_kernel(&l, 0), cudaErrorInvalidValue);
    l = Launch("k", 1, 1);
    l.block = dim3(1, 1, 65);
    EXPECT_EQ(sim_launch_kernel(&l, 0), cudaErrorInvalidValue);
    l = Launch("k", 1, 1);
    l.grid = dim3(1, 65536, 1);
    EXPECT_EQ(sim_launch_kernel(&l, 0), cudaErrorInvalidValue);
    l = Launch("k", 1, 32);
    l.shared_bytes = (size_t)Profile().shared_mem_per_block + 1;
    EXPECT_EQ(sim_launch_kernel(&l, 0), cudaErrorInvalidValue);
    l = Launch("k", 1, 1024);
    l.cost.regs_per_thread = 255;
    EXPECT_EQ(sim_launch_kernel(&l, 0), cudaErrorLaunchOutOfResources);
    l = Launch("k", 1, 32);
    l.cost.fp32_ops = -1;
    EXPECT_EQ(sim_launch_kernel(&l, 0), cudaErrorInvalidValue);
    l = Launch("k", 1, 32);
    l.args_size = 8;
    EXPECT_EQ(sim_launch_kernel(&l, 0), cudaErrorInvalidValue);
    EXPECT_EQ(sim_launch_kernel(nullptr, 0), cudaErrorInvalidValue);
    l = Launch("k", 1, 32);
    EXPECT_EQ(sim_launch_kernel(&l, (cudaStream_t)(uintptr_t)0x40), cudaErrorInvalidResourceHandle);
    EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidResourceHandle);
    EXPECT_EQ(sim_launch_kernel(&l, 0), cudaSuccess) << "launch errors are not sticky";
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

TEST(Kernels, ALaunchIsRecordedWithItsShapeAndRanges) {
    Reset();
    Capture cap;
    int *in, *out;
    ASSERT_EQ(cudaMalloc(&in, 8192), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&out, 8192), cudaSuccess);
    CopyArgs a{in, out, 0};
    sim_kernel_launch l = AddLaunch(a, 8);
    cudaStream_t s;
    ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
    ASSERT_EQ(sim_launch_kernel(&l, s), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    trace_op k = cap.Kernel("add");
    EXPECT_EQ(k.engine, TRACE_ENGINE_COMPUTE);
    EXPECT_EQ(k.grid[0], 8u);
    EXPECT_EQ(k.block[0], 256u);
    EXPECT_EQ(k.stream, trace_stream_id(s));
    ASSERT_EQ(k.n_ranges, 2u);
    EXPECT_EQ(k.ranges[0].addr, (uint64_t)(uintptr_t)in);
    /* Written, and in device 0's memory. */
    EXPECT_EQ(k.ranges[1].flags, TRACE_RANGE_WRITE | TRACE_RANGE_DEVICE(0));
    EXPECT_EQ(trace_range_device(&k.ranges[1]), 0);
    EXPECT_EQ(k.device, 0u);
    EXPECT_TRUE(k.timed);
}

}  // namespace
