// labs/referee/arena_test.cc: the shared data memory's allocator: allocations are aligned,
// zeroed, apart and reused, and it knows how far it has touched its memory; a pointer that starts no allocation, or another owner's, is
// refused; lookups find only ranges that lie wholly inside one allocation.
#include "labs/referee/arena.h"

#include <gtest/gtest.h>
#include <stdint.h>
#include <string.h>

#include <vector>

namespace {

TEST(Arena, AllocationsAreAlignedZeroedApartAndReused) {
    std::vector<unsigned char> mem(1 << 20, 0xab);
    lab_arena *a = lab_arena_new(mem.data() + 3, mem.size() - 3);
    ASSERT_NE(a, nullptr);
    void *p = lab_arena_alloc(a, 1000, LAB_ARENA_STUDENT);
    void *q = lab_arena_alloc(a, 5000, LAB_ARENA_INPUT);
    ASSERT_NE(p, nullptr);
    ASSERT_NE(q, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % LAB_ARENA_ALIGN, 0u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(q) % LAB_ARENA_ALIGN, 0u);
    EXPECT_GE(reinterpret_cast<uintptr_t>(q), reinterpret_cast<uintptr_t>(p) + 1000);
    for (int i = 0; i < 1000; i++) ASSERT_EQ(static_cast<unsigned char *>(p)[i], 0);
    ASSERT_TRUE(lab_arena_release(a, p, LAB_ARENA_STUDENT));
    void *r = lab_arena_alloc(a, 900, LAB_ARENA_STUDENT);
    EXPECT_EQ(r, p) << "the first gap that fits is reused";
    EXPECT_EQ(lab_arena_alloc(a, 2u << 20, LAB_ARENA_STUDENT), nullptr) << "larger than the memory";
    lab_arena_free_all(a);
}

// The arena knows how far it has zeroed memory: an allocation past that point touches its
// pages for the first time (what the referee charges as such on the simulator); one in a
// gap an earlier allocation left does not move it.
TEST(Arena, ItKnowsHowFarItHasTouchedItsMemory) {
    std::vector<unsigned char> mem(1 << 20);
    lab_arena *a = lab_arena_new(mem.data(), mem.size());
    const uintptr_t base = lab_arena_touched_end(a);
    EXPECT_GE(base, reinterpret_cast<uintptr_t>(mem.data()));
    void *p = lab_arena_alloc(a, 4096, LAB_ARENA_STUDENT);
    EXPECT_EQ(lab_arena_touched_end(a), reinterpret_cast<uintptr_t>(p) + 4096);
    void *q = lab_arena_alloc(a, 1000, LAB_ARENA_STUDENT);
    EXPECT_EQ(lab_arena_touched_end(a), reinterpret_cast<uintptr_t>(q) + 1000);
    const uintptr_t touched = lab_arena_touched_end(a);
    ASSERT_TRUE(lab_arena_release(a, p, LAB_ARENA_STUDENT));
    EXPECT_EQ(lab_arena_touched_end(a), touched) << "freed memory stays touched";
    EXPECT_EQ(lab_arena_alloc(a, 2048, LAB_ARENA_STUDENT), p);
    EXPECT_EQ(lab_arena_touched_end(a), touched) << "reused memory is not touched for the first time";
    lab_arena_free_all(a);
}

TEST(Arena, APointerThatStartsNoAllocationOrIsAnothersIsRefused) {
    std::vector<unsigned char> mem(1 << 16);
    lab_arena *a = lab_arena_new(mem.data(), mem.size());
    unsigned char *in = static_cast<unsigned char *>(lab_arena_alloc(a, 4096, LAB_ARENA_INPUT));
    unsigned char *mine = static_cast<unsigned char *>(lab_arena_alloc(a, 4096, LAB_ARENA_STUDENT));
    EXPECT_FALSE(lab_arena_release(a, in, LAB_ARENA_STUDENT)) << "the lab's input is not the student's to free";
    EXPECT_FALSE(lab_arena_release(a, mine + 16, LAB_ARENA_STUDENT)) << "inside, not the start";
    EXPECT_FALSE(lab_arena_release(a, mem.data() + mem.size() - 8, LAB_ARENA_STUDENT)) << "no allocation there";
    EXPECT_TRUE(lab_arena_release(a, mine, LAB_ARENA_STUDENT));
    EXPECT_FALSE(lab_arena_release(a, mine, LAB_ARENA_STUDENT)) << "freed twice";
    lab_arena_free_all(a);
}

TEST(Arena, ARangeIsFoundOnlyWhollyInsideOneAllocation) {
    std::vector<unsigned char> mem(1 << 16);
    lab_arena *a = lab_arena_new(mem.data(), mem.size());
    unsigned char *p = static_cast<unsigned char *>(lab_arena_alloc(a, 1000, LAB_ARENA_OUTPUT));
    unsigned char *q = static_cast<unsigned char *>(lab_arena_alloc(a, 1000, LAB_ARENA_STUDENT));
    void *start = nullptr;
    size_t bytes = 0;
    lab_arena_owner owner = LAB_ARENA_STUDENT;
    ASSERT_TRUE(lab_arena_find(a, p + 10, 990, &start, &bytes, &owner));
    EXPECT_EQ(start, p);
    EXPECT_EQ(bytes, 1000u);
    EXPECT_EQ(owner, LAB_ARENA_OUTPUT);
    EXPECT_FALSE(lab_arena_find(a, p + 10, 991, nullptr, nullptr, nullptr)) << "past its end";
    EXPECT_FALSE(lab_arena_find(a, p + 1000, 1, nullptr, nullptr, nullptr)) << "the padding after it";
    EXPECT_FALSE(lab_arena_find(a, p, SIZE_MAX, nullptr, nullptr, nullptr)) << "a size that wraps";
    EXPECT_TRUE(lab_arena_find(a, q, 1000, nullptr, nullptr, &owner));
    EXPECT_EQ(owner, LAB_ARENA_STUDENT);
    EXPECT_FALSE(lab_arena_find(a, mem.data() + mem.size() - 1, 1, nullptr, nullptr, nullptr));
    lab_arena_free_all(a);
}

}  // namespace
