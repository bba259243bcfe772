// trace/interval_map_test.cc: the interval map agrees with a byte-by-byte model under
// random assign/erase/cover sequences, keeps its segments sorted and disjoint, merges
// equal neighbours, and frees what owning values hold.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

extern "C" {
#include "trace/record/interval_map.h"
}

namespace {

constexpr uint64_t kSpace = 256;
constexpr int kEmpty = -1;

std::vector<int> Snapshot(const trace_imap *m) {
    std::vector<int> bytes(kSpace, kEmpty);
    for (size_t i = 0; i < trace_imap_count(m); i++) {
        int v;
        memcpy(&v, trace_imap_val(m, i), sizeof(v));
        for (uint64_t a = trace_imap_lo(m, i); a < trace_imap_hi(m, i) && a < kSpace; a++) bytes[a] = v;
    }
    return bytes;
}

void CheckSortedDisjoint(const trace_imap *m) {
    for (size_t i = 0; i < trace_imap_count(m); i++) {
        ASSERT_LT(trace_imap_lo(m, i), trace_imap_hi(m, i));
        if (i > 0) {
            ASSERT_LE(trace_imap_hi(m, i - 1), trace_imap_lo(m, i));
        }
    }
}

TEST(IntervalMap, AgreesWithByteModelUnderRandomEdits) {
    trace_imap_ops ops = {};
    ops.val_size = sizeof(int);
    trace_imap m;
    trace_imap_init(&m, &ops);
    std::vector<int> model(kSpace, kEmpty);
    std::mt19937 rng(12345);
    for (int step = 0; step < 20000; step++) {
        uint64_t lo = rng() % kSpace, len = 1 + rng() % 40;
        uint64_t hi = std::min<uint64_t>(lo + len, kSpace);
        int action = static_cast<int>(rng() % 4);
        int v = static_cast<int>(rng() % 4);
        if (action <= 1) {
            trace_imap_assign(&m, lo, hi, &v);
            for (uint64_t a = lo; a < hi; a++) model[a] = v;
        } else if (action == 2) {
            trace_imap_erase(&m, lo, hi);
            for (uint64_t a = lo; a < hi; a++) model[a] = kEmpty;
        } else {
            // Cover fills gaps with v and leaves existing values; then each covering
            // segment gets +10 and coalescing must keep the map consistent.
            size_t first, last;
            trace_imap_cover(&m, lo, hi, &v, &first, &last);
            ASSERT_EQ(trace_imap_lo(&m, first), lo);
            ASSERT_EQ(trace_imap_hi(&m, last - 1), hi);
            for (size_t i = first; i < last; i++) {
                int *p = static_cast<int *>(trace_imap_val(&m, i));
                *p = (*p + 10) % 40;
            }
            trace_imap_coalesce(&m, first, last);
            for (uint64_t a = lo; a < hi; a++) model[a] = ((model[a] == kEmpty ? v : model[a]) + 10) % 40;
        }
        CheckSortedDisjoint(&m);
        ASSERT_EQ(Snapshot(&m), model) << "after step " << step;
    }
    trace_imap_clear(&m);
    EXPECT_EQ(trace_imap_count(&m), 0u);
}

TEST(IntervalMap, AssignMergesEqualNeighbours) {
    trace_imap_ops ops = {};
    ops.val_size = sizeof(int);
    trace_imap m;
    trace_imap_init(&m, &ops);
    int a = 1, b = 2;
    trace_imap_assign(&m, 0, 10, &a);
    trace_imap_assign(&m, 20, 30, &a);
    trace_imap_assign(&m, 10, 20, &b);
    EXPECT_EQ(trace_imap_count(&m), 3u);
    trace_imap_assign(&m, 10, 20, &a);
    ASSERT_EQ(trace_imap_count(&m), 1u);
    EXPECT_EQ(trace_imap_lo(&m, 0), 0u);
    EXPECT_EQ(trace_imap_hi(&m, 0), 30u);
    // Lookups: the first segment ending after an address.
    EXPECT_EQ(trace_imap_lower(&m, 29), 0u);
    EXPECT_EQ(trace_imap_lower(&m, 30), 1u);
    trace_imap_clear(&m);
}

TEST(IntervalMap, RangesAtTheTopOfTheAddressSpaceSaturate) {
    EXPECT_EQ(trace_imap_end(UINT64_MAX - 4, 100), UINT64_MAX);
    EXPECT_EQ(trace_imap_end(10, 5), 15u);
    trace_imap_ops ops = {};
    ops.val_size = sizeof(int);
    trace_imap m;
    trace_imap_init(&m, &ops);
    int v = 7;
    trace_imap_assign(&m, UINT64_MAX - 8, trace_imap_end(UINT64_MAX - 8, 1000), &v);
    ASSERT_EQ(trace_imap_count(&m), 1u);
    EXPECT_EQ(trace_imap_hi(&m, 0), UINT64_MAX);
    trace_imap_clear(&m);
}

// Values that own heap memory: every clone is released exactly once (ASan's leak and
// double-free checks see the rest).
struct Owned {
    int *p;
};
int live_values = 0;
void OwnedClone(void *dst, const void *src) {
    auto *d = static_cast<Owned *>(dst);
    d->p = static_cast<int *>(malloc(sizeof(int)));
    *d->p = *static_cast<const Owned *>(src)->p;
    live_values++;
}
void OwnedRelease(void *v) {
    free(static_cast<Owned *>(v)->p);
    live_values--;
}
bool OwnedEqual(const void *a, const void *b) {
    return *static_cast<const Owned *>(a)->p == *static_cast<const Owned *>(b)->p;
}

TEST(IntervalMap, OwningValuesAreClonedOnSplitAndReleasedOnce) {
    trace_imap_ops ops = {sizeof(Owned), OwnedClone, OwnedRelease, OwnedEqual};
    trace_imap m;
    trace_imap_init(&m, &ops);
    int one = 1, two = 2;
    Owned v1 = {&one}, v2 = {&two};
    trace_imap_assign(&m, 0, 100, &v1);
    trace_imap_assign(&m, 40, 60, &v2);  // splits the first into two clones
    EXPECT_EQ(trace_imap_count(&m), 3u);
    EXPECT_EQ(live_values, 3);
    size_t first, last;
    trace_imap_cover(&m, 50, 150, &v2, &first, &last);
    EXPECT_EQ(last - first, 3u);  // [50,60) [60,100) and the gap [100,150)
    EXPECT_EQ(live_values, 5);
    trace_imap_erase(&m, 0, 200);
    EXPECT_EQ(live_values, 0);
    trace_imap_assign(&m, 0, 10, &v1);
    trace_imap_clear(&m);
    EXPECT_EQ(live_values, 0);
}

}  // namespace
