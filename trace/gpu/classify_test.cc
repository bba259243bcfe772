// trace/gpu/classify_test.cc: the interposer's copy and memset records follow the CUDA
// runtime's documented behaviour: direction, engine, pinning, ranges and host waits.
#include <gtest/gtest.h>

extern "C" {
#include "trace/gpu/classify.h"
}

namespace {

char host_a[64], host_b[64], dev_a[64], dev_b[4096];

TEST(Classify, ExplicitKindsGiveDirectionAndEngine) {
    auto c = trace_gpu_classify_copy(TRACE_GPU_COPY_H2D, TRACE_GPU_MEM_PINNED, TRACE_GPU_MEM_DEVICE);
    EXPECT_EQ(c.dir, TRACE_COPY_H2D);
    EXPECT_EQ(c.engine, TRACE_ENGINE_H2D);
    EXPECT_TRUE(c.pinned);
    c = trace_gpu_classify_copy(TRACE_GPU_COPY_D2H, TRACE_GPU_MEM_DEVICE, TRACE_GPU_MEM_PAGEABLE);
    EXPECT_EQ(c.dir, TRACE_COPY_D2H);
    EXPECT_EQ(c.engine, TRACE_ENGINE_D2H);
    EXPECT_FALSE(c.pinned);
    c = trace_gpu_classify_copy(TRACE_GPU_COPY_D2D, TRACE_GPU_MEM_DEVICE, TRACE_GPU_MEM_DEVICE);
    EXPECT_EQ(c.dir, TRACE_COPY_D2D);
    EXPECT_EQ(c.engine, TRACE_ENGINE_COMPUTE);
    c = trace_gpu_classify_copy(TRACE_GPU_COPY_H2H, TRACE_GPU_MEM_PINNED, TRACE_GPU_MEM_PAGEABLE);
    EXPECT_EQ(c.dir, TRACE_COPY_H2H);
    EXPECT_EQ(c.engine, TRACE_ENGINE_HOST);
    EXPECT_FALSE(c.pinned);  // H2H counts as pinned only when both sides are
    EXPECT_TRUE(trace_gpu_classify_copy(TRACE_GPU_COPY_H2H, TRACE_GPU_MEM_PINNED, TRACE_GPU_MEM_PINNED).pinned);
}

TEST(Classify, PinnedIsTheHostSideOfTheCopy) {
    EXPECT_FALSE(trace_gpu_classify_copy(TRACE_GPU_COPY_H2D, TRACE_GPU_MEM_PAGEABLE, TRACE_GPU_MEM_DEVICE).pinned);
    EXPECT_TRUE(trace_gpu_classify_copy(TRACE_GPU_COPY_D2H, TRACE_GPU_MEM_DEVICE, TRACE_GPU_MEM_PINNED).pinned);
    EXPECT_FALSE(trace_gpu_classify_copy(TRACE_GPU_COPY_D2D, TRACE_GPU_MEM_DEVICE, TRACE_GPU_MEM_DEVICE).pinned);
}

TEST(Classify, DefaultKindIsInferredFromThePointers) {
    using M = trace_gpu_mem;
    struct Case {
        M src, dst;
        trace_copy_dir dir;
    } cases[] = {
        {TRACE_GPU_MEM_PAGEABLE, TRACE_GPU_MEM_DEVICE, TRACE_COPY_H2D},
        {TRACE_GPU_MEM_PINNED, TRACE_GPU_MEM_MANAGED, TRACE_COPY_H2D},
        {TRACE_GPU_MEM_DEVICE, TRACE_GPU_MEM_PINNED, TRACE_COPY_D2H},
        {TRACE_GPU_MEM_MANAGED, TRACE_GPU_MEM_PAGEABLE, TRACE_COPY_D2H},
        {TRACE_GPU_MEM_DEVICE, TRACE_GPU_MEM_MANAGED, TRACE_COPY_D2D},
        {TRACE_GPU_MEM_PAGEABLE, TRACE_GPU_MEM_PINNED, TRACE_COPY_H2H},
    };
    for (const Case &k : cases)
        EXPECT_EQ(trace_gpu_classify_copy(TRACE_GPU_COPY_DEFAULT, k.src, k.dst).dir, k.dir)
            << "src " << k.src << " dst " << k.dst;
}

TEST(CopyOp, PinnedAsyncH2DIsFullyAsynchronous) {
    trace_op op;
    auto cls = trace_gpu_classify_copy(TRACE_GPU_COPY_H2D, TRACE_GPU_MEM_PINNED, TRACE_GPU_MEM_DEVICE);
    trace_copy_rule r = trace_gpu_copy_op(&op, cls, dev_a, host_a, 64, true);
    EXPECT_FALSE(r.sync_before);
    EXPECT_FALSE(r.host_staged_src);
    EXPECT_FALSE(r.host_waits);
    EXPECT_EQ(op.kind, TRACE_OP_COPY);
    EXPECT_EQ(op.dir, TRACE_COPY_H2D);
    EXPECT_EQ(op.engine, TRACE_ENGINE_H2D);
    EXPECT_EQ(op.bytes, 64u);
    EXPECT_TRUE(op.pinned);
    EXPECT_EQ(op.batch, -1);
    EXPECT_FALSE(op.timed);
    ASSERT_EQ(op.n_ranges, 2u);
    EXPECT_EQ(op.ranges[0].addr, (uint64_t)(uintptr_t)host_a);
    EXPECT_EQ(op.ranges[0].flags, TRACE_RANGE_READ);
    EXPECT_EQ(op.ranges[1].addr, (uint64_t)(uintptr_t)dev_a);
    EXPECT_EQ(op.ranges[1].flags, TRACE_RANGE_WRITE);
}

TEST(CopyOp, PageableAsyncH2DStagesItsSourceOnTheHost) {
    trace_op op;
    auto cls = trace_gpu_classify_copy(TRACE_GPU_COPY_H2D, TRACE_GPU_MEM_PAGEABLE, TRACE_GPU_MEM_DEVICE);
    trace_copy_rule r = trace_gpu_copy_op(&op, cls, dev_a, host_a, 64, true);
    EXPECT_TRUE(r.host_staged_src);
    EXPECT_FALSE(r.sync_before);
    EXPECT_FALSE(r.host_waits);
    EXPECT_FALSE(op.pinned);
    EXPECT_EQ(op.ranges[0].flags, TRACE_RANGE_READ | TRACE_RANGE_HOST_ORDERED);
    EXPECT_EQ(op.ranges[1].flags, TRACE_RANGE_WRITE);
}

TEST(CopyOp, SyncPageableH2DWaitsForTheStreamFirst) {
    trace_op op;
    auto cls = trace_gpu_classify_copy(TRACE_GPU_COPY_H2D, TRACE_GPU_MEM_PAGEABLE, TRACE_GPU_MEM_DEVICE);
    trace_copy_rule r = trace_gpu_copy_op(&op, cls, dev_a, host_a, 64, false);
    EXPECT_TRUE(r.sync_before);
    EXPECT_TRUE(r.host_staged_src);
    EXPECT_FALSE(r.host_waits);
}

TEST(CopyOp, D2HToPageableBlocksEvenWhenAsync) {
    trace_op op;
    auto cls = trace_gpu_classify_copy(TRACE_GPU_COPY_D2H, TRACE_GPU_MEM_DEVICE, TRACE_GPU_MEM_PAGEABLE);
    EXPECT_TRUE(trace_gpu_copy_op(&op, cls, host_a, dev_a, 64, true).host_waits);
    cls = trace_gpu_classify_copy(TRACE_GPU_COPY_D2H, TRACE_GPU_MEM_DEVICE, TRACE_GPU_MEM_PINNED);
    EXPECT_FALSE(trace_gpu_copy_op(&op, cls, host_a, dev_a, 64, true).host_waits);
    EXPECT_TRUE(trace_gpu_copy_op(&op, cls, host_a, dev_a, 64, false).host_waits);
}

TEST(CopyOp, HostToHostIsSynchronous) {
    trace_op op;
    auto cls = trace_gpu_classify_copy(TRACE_GPU_COPY_H2H, TRACE_GPU_MEM_PINNED, TRACE_GPU_MEM_PINNED);
    EXPECT_TRUE(trace_gpu_copy_op(&op, cls, host_b, host_a, 64, true).host_waits);
    EXPECT_EQ(op.engine, TRACE_ENGINE_HOST);
}

TEST(CopyOp, ZeroBytesHasNoRanges) {
    trace_op op;
    auto cls = trace_gpu_classify_copy(TRACE_GPU_COPY_D2D, TRACE_GPU_MEM_DEVICE, TRACE_GPU_MEM_DEVICE);
    trace_gpu_copy_op(&op, cls, dev_a, dev_a, 0, true);
    EXPECT_EQ(op.n_ranges, 0u);
}

TEST(MemsetOp, WritesItsTargetAndBlocksOnlyForSyncPinnedHostMemory) {
    trace_op op;
    EXPECT_FALSE(trace_gpu_memset_op(&op, TRACE_GPU_MEM_DEVICE, dev_a, 32, false));
    EXPECT_EQ(op.kind, TRACE_OP_MEMSET);
    EXPECT_EQ(op.engine, TRACE_ENGINE_COMPUTE);
    EXPECT_EQ(op.bytes, 32u);
    ASSERT_EQ(op.n_ranges, 1u);
    EXPECT_EQ(op.ranges[0].addr, (uint64_t)(uintptr_t)dev_a);
    EXPECT_EQ(op.ranges[0].bytes, 32u);
    EXPECT_EQ(op.ranges[0].flags, TRACE_RANGE_WRITE);
    EXPECT_TRUE(trace_gpu_memset_op(&op, TRACE_GPU_MEM_PINNED, host_a, 32, false));
    EXPECT_FALSE(trace_gpu_memset_op(&op, TRACE_GPU_MEM_PINNED, host_a, 32, true));
}

TEST(PeerCopyOp, ReadsOneDevicesMemoryAndWritesTheOthersOnTheLink) {
    trace_op op;
    trace_gpu_peer_copy_op(&op, dev_b, 1, dev_a, 0, 4096);
    EXPECT_EQ(op.kind, TRACE_OP_COPY);
    EXPECT_EQ(op.dir, TRACE_COPY_D2D);
    EXPECT_EQ(op.engine, TRACE_ENGINE_LINK);
    EXPECT_EQ(op.device, 0u);
    EXPECT_EQ(op.dst_device, 1u);
    EXPECT_TRUE(op.device_set);
    EXPECT_EQ(op.bytes, 4096u);
    EXPECT_EQ(op.batch, -1);
    EXPECT_FALSE(op.pinned);
    ASSERT_EQ(op.n_ranges, 2u);
    EXPECT_EQ(op.ranges[0].addr, (uint64_t)(uintptr_t)dev_a);
    EXPECT_EQ(op.ranges[0].flags & TRACE_RANGE_WRITE, 0u);
    EXPECT_EQ(trace_range_device(&op.ranges[0]), 0);
    EXPECT_EQ(op.ranges[1].addr, (uint64_t)(uintptr_t)dev_b);
    EXPECT_EQ(op.ranges[1].bytes, 4096u);
    EXPECT_EQ(op.ranges[1].flags & TRACE_RANGE_WRITE, TRACE_RANGE_WRITE);
    EXPECT_EQ(trace_range_device(&op.ranges[1]), 1);
}

}  // namespace
