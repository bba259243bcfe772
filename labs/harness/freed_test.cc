// labs/harness/freed_test.cc: the buffers the student's program freed (freed.h): an
// address anywhere in a freed buffer finds it, with the call and line that freed it; the
// latest free of an address is the one found; only the latest LAB_FREED_KEPT are kept.
#include "labs/harness/freed.h"

#include <gtest/gtest.h>

namespace {

TEST(Freed, AnAddressInAFreedBufferFindsTheFreeThatFreedIt) {
    lab_freed_clear();
    lab_freed f;
    EXPECT_FALSE(lab_freed_find(0x1000, &f));
    lab_freed_note(0x1000, 4096, 0x4242, "cudaFree");
    lab_freed_note(0x8000, 256, 0x4343, "cudaFreeHost");
    ASSERT_TRUE(lab_freed_find(0x1000 + 4095, &f));
    EXPECT_EQ(f.start, 0x1000u);
    EXPECT_EQ(f.bytes, 4096u);
    EXPECT_EQ(f.site, 0x4242u);
    EXPECT_STREQ(f.call, "cudaFree");
    EXPECT_FALSE(lab_freed_find(0x1000 + 4096, &f)) << "past its end";
    ASSERT_TRUE(lab_freed_find(0x8000, &f));
    EXPECT_STREQ(f.call, "cudaFreeHost");
    // The same address allocated and freed again: the latest free is the one said.
    lab_freed_note(0x1000, 64, 0x4444, "cudaFree");
    ASSERT_TRUE(lab_freed_find(0x1010, &f));
    EXPECT_EQ(f.site, 0x4444u);
    lab_freed_clear();
    EXPECT_FALSE(lab_freed_find(0x1010, &f));
}

TEST(Freed, OnlyTheLatestFreesAreKept) {
    lab_freed_clear();
    for (uint64_t i = 0; i < LAB_FREED_KEPT + 10; i++) lab_freed_note(0x100000 + 0x1000 * i, 0x1000, i + 1, "cudaFree");
    lab_freed f;
    EXPECT_FALSE(lab_freed_find(0x100000, &f)) << "the first free is too far back";
    ASSERT_TRUE(lab_freed_find(0x100000 + 0x1000 * (LAB_FREED_KEPT + 9), &f));
    EXPECT_EQ(f.site, LAB_FREED_KEPT + 10);
    ASSERT_TRUE(lab_freed_find(0x100000 + 0x1000 * 10, &f));
    EXPECT_EQ(f.site, 11u);
}

}  // namespace
