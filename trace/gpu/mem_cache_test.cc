// trace/gpu/mem_cache_test.cc: the interposer's allocation cache answers for pointers into
// known allocations, with where each starts and how big it is (what a crash report says of
// a faulting address), forgets freed ones (and only them), and knows nothing else.
#include <gtest/gtest.h>

#include <cstdint>

extern "C" {
#include "trace/gpu/mem_cache.h"
}

namespace {

const void *at(uintptr_t a) { return reinterpret_cast<const void *>(a); }

class MemCache : public ::testing::Test {
  protected:
    void SetUp() override {
        c = trace_gpu_mem_cache_create();
        ASSERT_NE(c, nullptr);
    }
    void TearDown() override { trace_gpu_mem_cache_destroy(c); }
    bool kind_of(uintptr_t a, trace_gpu_mem *k) { return trace_gpu_mem_cache_lookup(c, at(a), k); }
    trace_gpu_mem_cache *c = nullptr;
};

TEST_F(MemCache, PointersInsideAllocationsAreKnown) {
    trace_gpu_mem_cache_add(c, at(0x1000), 0x100, TRACE_GPU_MEM_PINNED);
    trace_gpu_mem_cache_add(c, at(0x7000), 0x1000, TRACE_GPU_MEM_DEVICE);
    trace_gpu_mem k;
    ASSERT_TRUE(kind_of(0x1000, &k));
    EXPECT_EQ(k, TRACE_GPU_MEM_PINNED);
    ASSERT_TRUE(kind_of(0x10ff, &k));
    EXPECT_EQ(k, TRACE_GPU_MEM_PINNED);
    EXPECT_FALSE(kind_of(0x1100, &k));  // one past the end
    EXPECT_FALSE(kind_of(0xfff, &k));
    ASSERT_TRUE(kind_of(0x7800, &k));
    EXPECT_EQ(k, TRACE_GPU_MEM_DEVICE);
    EXPECT_FALSE(kind_of(0x5000, &k));  // pageable, or unknown: the caller asks the runtime
}

TEST_F(MemCache, FreeingOneOfTwoAdjacentAllocationsKeepsTheOther) {
    trace_gpu_mem_cache_add(c, at(0x1000), 0x100, TRACE_GPU_MEM_PINNED);
    trace_gpu_mem_cache_add(c, at(0x1100), 0x100, TRACE_GPU_MEM_PINNED);
    EXPECT_EQ(trace_gpu_mem_cache_count(c), 2u);
    trace_gpu_mem_cache_remove(c, at(0x1000));
    trace_gpu_mem k;
    EXPECT_FALSE(kind_of(0x1080, &k));
    ASSERT_TRUE(kind_of(0x1180, &k));
    EXPECT_EQ(k, TRACE_GPU_MEM_PINNED);
}

TEST_F(MemCache, AFreeOfAPointerIntoAnAllocationFreesNothing) {
    trace_gpu_mem_cache_add(c, at(0x2000), 0x100, TRACE_GPU_MEM_DEVICE);
    trace_gpu_mem_cache_remove(c, at(0x2010));
    trace_gpu_mem_cache_remove(c, at(0x9000));
    trace_gpu_mem k;
    EXPECT_TRUE(kind_of(0x2010, &k));
}

TEST_F(MemCache, AnAllocationIsFoundWithItsStartAndSize) {
    trace_gpu_mem_cache_add(c, at(0x7000), 0x1000, TRACE_GPU_MEM_DEVICE);
    trace_gpu_mem_cache_add(c, at(0x8000), 0x40, TRACE_GPU_MEM_DEVICE);  // adjacent, never merged
    trace_gpu_mem k = TRACE_GPU_MEM_PAGEABLE;
    const void *base = nullptr;
    uint64_t bytes = 0;
    ASSERT_TRUE(trace_gpu_mem_cache_find(c, at(0x7abc), &k, &base, &bytes));
    EXPECT_EQ(k, TRACE_GPU_MEM_DEVICE);
    EXPECT_EQ(base, at(0x7000));
    EXPECT_EQ(bytes, 0x1000u);
    ASSERT_TRUE(trace_gpu_mem_cache_find(c, at(0x8000), nullptr, &base, &bytes));
    EXPECT_EQ(base, at(0x8000));
    EXPECT_EQ(bytes, 0x40u);
    EXPECT_FALSE(trace_gpu_mem_cache_find(c, at(0x8040), nullptr, nullptr, nullptr));
}

TEST_F(MemCache, ANewAllocationReplacesWhatItOverlaps) {
    trace_gpu_mem_cache_add(c, at(0x3000), 0x1000, TRACE_GPU_MEM_DEVICE);
    trace_gpu_mem_cache_remove(c, at(0x3000));
    trace_gpu_mem_cache_add(c, at(0x3000), 0x800, TRACE_GPU_MEM_PINNED);  // the range came back as host memory
    trace_gpu_mem k;
    ASSERT_TRUE(kind_of(0x3400, &k));
    EXPECT_EQ(k, TRACE_GPU_MEM_PINNED);
    EXPECT_FALSE(kind_of(0x3900, &k));
}

TEST_F(MemCache, ClearForgetsEverythingAndEmptyAllocationsAreIgnored) {
    trace_gpu_mem_cache_add(c, at(0x1000), 0, TRACE_GPU_MEM_PINNED);
    trace_gpu_mem_cache_add(c, nullptr, 64, TRACE_GPU_MEM_PINNED);
    EXPECT_EQ(trace_gpu_mem_cache_count(c), 0u);
    trace_gpu_mem_cache_add(c, at(0x1000), 0x10, TRACE_GPU_MEM_PINNED);
    trace_gpu_mem_cache_clear(c);
    trace_gpu_mem k;
    EXPECT_FALSE(kind_of(0x1000, &k));
    trace_gpu_mem_cache_add(c, at(0x1000), 0x10, TRACE_GPU_MEM_DEVICE);  // usable again
    EXPECT_TRUE(kind_of(0x1000, &k));
}

TEST_F(MemCache, AnAllocationAtTheTopOfTheAddressSpaceDoesNotWrap) {
    trace_gpu_mem_cache_add(c, at(UINTPTR_MAX - 0xf), 0x100, TRACE_GPU_MEM_PINNED);
    trace_gpu_mem k;
    EXPECT_TRUE(kind_of(UINTPTR_MAX - 1, &k));  // the end saturates at the top
    EXPECT_FALSE(kind_of(0x10, &k));
}

}  // namespace
