// sim/devices_race_test.cc: the race checker across two devices (the h200x2 profile). It
// sees peer copies (the source read on one device, the destination written on the other)
// and event waits across devices: a stage 2 on GPU 1 that reads a batch before its peer
// copy is ordered before it is a race; ordered by an event recorded on GPU 0, it is not;
// and cudaDeviceSynchronize of one device orders the host after that device's work only.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "sim/test_support.h"
#include "trace/check/racecheck.h"

namespace {

const size_t kBytes = 1u << 20;

// A one-block kernel that reads `in` and writes `out` (either may be NULL).
cudaError_t Stage(cudaStream_t s, const void *in, void *out, const char *name) {
    sim_kernel_launch l{};
    l.name = name;
    l.grid = dim3(1);
    l.block = dim3(32);
    l.cost.fixed_ns = 50000;
    if (in) {
        l.ranges[l.n_ranges].addr = (uint64_t)(uintptr_t)in;
        l.ranges[l.n_ranges].bytes = kBytes;
        l.ranges[l.n_ranges++].flags = TRACE_RANGE_READ;
    }
    if (out) {
        l.ranges[l.n_ranges].addr = (uint64_t)(uintptr_t)out;
        l.ranges[l.n_ranges].bytes = kBytes;
        l.ranges[l.n_ranges++].flags = TRACE_RANGE_WRITE;
    }
    return sim_launch_kernel(&l, s);
}

class TwoGpuRaces : public ::testing::Test {
  protected:
    void SetUp() override {
        simtest::Reset("h200x2");
        rc_ = trace_racecheck_create(16);
        ASSERT_EQ(trace_racecheck_install(rc_), 0);
        ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
        ASSERT_EQ(cudaMalloc(&a_, kBytes), cudaSuccess);
        ASSERT_EQ(cudaStreamCreateWithFlags(&s0_, cudaStreamNonBlocking), cudaSuccess);
        ASSERT_EQ(cudaEventCreateWithFlags(&copied_, cudaEventDisableTiming), cudaSuccess);
        ASSERT_EQ(cudaDeviceEnablePeerAccess(1, 0), cudaSuccess);
        ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
        ASSERT_EQ(cudaMalloc(&b_, kBytes), cudaSuccess);
        ASSERT_EQ(cudaMalloc(&c_, kBytes), cudaSuccess);
        ASSERT_EQ(cudaStreamCreateWithFlags(&s1_, cudaStreamNonBlocking), cudaSuccess);
        ASSERT_EQ(cudaDeviceEnablePeerAccess(0, 0), cudaSuccess);
    }
    void TearDown() override {
        trace_racecheck_uninstall(rc_);
        trace_racecheck_destroy(rc_);
        sim_reset();
    }
    // Stage 1 on GPU 0 writes a, a peer copy on GPU 0's stream moves it to b on GPU 1.
    void StageOneAndCopy() {
        ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
        ASSERT_EQ(Stage(s0_, nullptr, a_, "stage1"), cudaSuccess);
        ASSERT_EQ(cudaMemcpyPeerAsync(b_, 1, a_, 0, kBytes, s0_), cudaSuccess);
    }
    // The race found (one at least) names the peer copy and stage 2.
    bool RaceBetweenCopyAndStageTwo() {
        for (size_t i = 0; i < trace_racecheck_kept(rc_); i++) {
            const trace_race *r = trace_racecheck_report(rc_, i);
            bool copy = r->first.kind == TRACE_OP_COPY || r->second.kind == TRACE_OP_COPY;
            bool stage2 = !std::strcmp(r->first.name, "stage2") || !std::strcmp(r->second.name, "stage2");
            if (copy && stage2) return true;
        }
        return false;
    }
    trace_racecheck *rc_ = nullptr;
    void *a_ = nullptr, *b_ = nullptr, *c_ = nullptr;
    cudaStream_t s0_ = nullptr, s1_ = nullptr;
    cudaEvent_t copied_ = nullptr;
};

TEST_F(TwoGpuRaces, StageTwoReadingBeforeThePeerCopyIsOrderedIsARace) {
    StageOneAndCopy();
    ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
    ASSERT_EQ(Stage(s1_, b_, c_, "stage2"), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(s1_), cudaSuccess);
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(s0_), cudaSuccess);
    EXPECT_GE(trace_racecheck_count(rc_), 1u);
    EXPECT_TRUE(RaceBetweenCopyAndStageTwo());
    // The report names the devices: the bytes are GPU 1's, stage 2 ran on GPU 1, the peer
    // copy from GPU 0 to GPU 1 on GPU 0's stream.
    const trace_race *r = trace_racecheck_report(rc_, 0);
    ASSERT_NE(r, nullptr);
    EXPECT_TRUE(r->multi_device);
    EXPECT_EQ(r->buffer_device, 1);
    const trace_race_op &copy = r->first.kind == TRACE_OP_COPY ? r->first : r->second;
    const trace_race_op &stage2 = r->first.kind == TRACE_OP_COPY ? r->second : r->first;
    EXPECT_TRUE(copy.peer);
    EXPECT_EQ(copy.device, 0u);
    EXPECT_EQ(copy.dst_device, 1u);
    EXPECT_EQ(copy.stream_device, 0u);
    EXPECT_EQ(stage2.device, 1u);
    EXPECT_EQ(stage2.stream_device, 1u);
    char text[2048];
    trace_race_format(r, text, sizeof(text));
    std::string t = text;
    EXPECT_NE(t.find("(GPU 1 memory)"), std::string::npos) << t;
    EXPECT_NE(t.find("kernel stage2 (op"), std::string::npos) << t;
    EXPECT_NE(t.find("on GPU 1, stream s2"), std::string::npos) << t;
    EXPECT_NE(t.find("peer copy GPU 0 -> GPU 1 (op"), std::string::npos) << t;
    EXPECT_NE(t.find("on GPU 0, stream s1"), std::string::npos) << t;
}

TEST_F(TwoGpuRaces, AnEventRecordedOnGpuZeroOrdersStageTwo) {
    StageOneAndCopy();
    ASSERT_EQ(cudaEventRecord(copied_, s0_), cudaSuccess);
    ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
    ASSERT_EQ(cudaStreamWaitEvent(s1_, copied_, 0), cudaSuccess);
    ASSERT_EQ(Stage(s1_, b_, c_, "stage2"), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(s1_), cudaSuccess);
    EXPECT_EQ(trace_racecheck_count(rc_), 0u);
}

TEST_F(TwoGpuRaces, SynchronisingOneDeviceDoesNotOrderTheOther) {
    StageOneAndCopy();  // on GPU 0's stream
    ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // GPU 1 only: the copy is not waited for
    ASSERT_EQ(Stage(s1_, b_, c_, "stage2"), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(s1_), cudaSuccess);
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(s0_), cudaSuccess);
    EXPECT_TRUE(RaceBetweenCopyAndStageTwo());
}

TEST_F(TwoGpuRaces, SynchronisingTheCopysDeviceOrdersIt) {
    StageOneAndCopy();
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // GPU 0, where the copy ran
    ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
    ASSERT_EQ(Stage(s1_, b_, c_, "stage2"), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(s1_), cudaSuccess);
    EXPECT_EQ(trace_racecheck_count(rc_), 0u);
}

}  // namespace
