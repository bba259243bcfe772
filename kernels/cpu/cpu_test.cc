// kernels/cpu/cpu_test.cc: the CPU bodies compute what the device code computes.
//
// process: the closed form (f^iters composed by squaring) equals iterating f naively, the
// way the GPU does, for many random parameters and inputs; huge iteration counts are
// checked against maps whose powers have a known closed form. The block-range bodies
// cover exactly their blocks, so any split of a grid gives the whole launch's result.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

extern "C" {
#include "kernels/cpu/cpu.h"
#include "kernels/math.h"
}

namespace {

// 32-bit random words (std::mt19937 returns uint_fast32_t, wider than uint32_t here).
struct Rng {
    explicit Rng(uint32_t seed) : gen(seed) {}
    uint32_t operator()() { return static_cast<uint32_t>(gen()); }
    std::mt19937 gen;
};

// What the GPU computes for one element: the loop of kernels/gpu/process.cu.
uint32_t iterate(uint32_t x, kernels_process_params p) {
    for (uint32_t k = 0; k < p.iters; ++k) x = kernels_affine_step(x, p.mul, p.add);
    return x;
}

std::vector<uint32_t> random_words(size_t n, uint32_t seed) {
    Rng rng(seed);
    std::vector<uint32_t> v(n);
    for (auto &x : v) x = rng();
    return v;
}

std::vector<uint32_t> interesting_iters() {
    std::vector<uint32_t> it = {0, 1, 2, 3, 5, 7, 16, 250, 500, 1000, 2000, 4095, 4097};
    for (int k = 0; k <= 13; ++k) {
        it.push_back(1u << k);
        it.push_back((1u << k) - 1);
        it.push_back((1u << k) + 1);
    }
    return it;
}

TEST(Affine, ComposeAppliesInnerThenOuter) {
    // Maps that do not commute: the order matters.
    kernels_affine outer = {2u, 3u}, inner = {5u, 7u};
    kernels_affine both = kernels_affine_compose(outer, inner);
    EXPECT_EQ(both.a, 10u);  // 2 * (5x + 7) + 3 = 10x + 17
    EXPECT_EQ(both.c, 17u);
    Rng rng(17);
    for (int trial = 0; trial < 1000; ++trial) {
        kernels_affine f = {rng(), rng()}, g = {rng(), rng()};
        uint32_t x = rng();
        EXPECT_EQ(kernels_affine_apply(kernels_affine_compose(f, g), x),
                  kernels_affine_apply(f, kernels_affine_apply(g, x)));
    }
}

TEST(Affine, PowerZeroIsIdentity) {
    kernels_affine id = kernels_affine_power({0xdeadbeefu, 12345u, 0});
    EXPECT_EQ(id.a, 1u);
    EXPECT_EQ(id.c, 0u);
}

TEST(Affine, ClosedFormEqualsNaiveIterationForRandomParams) {
    Rng rng(20240611);
    const std::vector<uint32_t> iters = interesting_iters();
    const std::vector<uint32_t> xs = random_words(64, 7);
    for (int trial = 0; trial < 200; ++trial) {
        // Mostly odd multipliers (what the labs use), some even ones: the algebra is exact
        // for every multiplier mod 2^32.
        uint32_t mul = rng() | (trial % 8 == 0 ? 0u : 1u);
        uint32_t add = rng();
        for (uint32_t n_iters : iters) {
            kernels_process_params p = {mul, add, n_iters};
            kernels_affine map = kernels_affine_power(p);
            for (uint32_t x : xs)
                ASSERT_EQ(kernels_affine_apply(map, x), iterate(x, p))
                    << "mul " << mul << " add " << add << " iters " << n_iters << " x " << x;
        }
    }
}

TEST(Affine, ClosedFormEqualsNaiveIterationForRandomLargeIters) {
    Rng rng(99);
    for (int trial = 0; trial < 40; ++trial) {
        kernels_process_params p = {rng() | 1u, rng(), 10000u + rng() % 200000u};
        kernels_affine map = kernels_affine_power(p);
        uint32_t x = rng();
        ASSERT_EQ(kernels_affine_apply(map, x), iterate(x, p)) << "iters " << p.iters;
    }
}

TEST(Affine, HugeItersOfTranslationAddIterationsTimesStep) {
    // f(x) = x + add, so f^k(x) = x + k * add (mod 2^32), for any k up to 2^32 - 1.
    Rng rng(5);
    for (uint32_t k : {0xffffffffu, 0x80000000u, 0x7fffffffu, 123456789u}) {
        uint32_t add = rng();
        uint32_t x = rng();
        kernels_affine map = kernels_affine_power({1u, add, k});
        EXPECT_EQ(kernels_affine_apply(map, x), x + k * add) << "iters " << k;
    }
}

TEST(Affine, HugeItersOfNegationAlternate) {
    // f(x) = -x + add is an involution: f^k is the identity for even k and f for odd k.
    uint32_t add = 0x9e3779b9u;
    for (uint32_t k : {0xffffffffu, 0xfffffffeu, 3000000001u, 3000000000u}) {
        kernels_affine map = kernels_affine_power({0xffffffffu, add, k});
        for (uint32_t x : {0u, 1u, 0x12345678u, 0xffffffffu}) {
            uint32_t expect = (k % 2) ? (0u - x) + add : x;
            EXPECT_EQ(kernels_affine_apply(map, x), expect) << "iters " << k;
        }
    }
}

TEST(Affine, PowersAddUnderComposition) {
    // f^(a+b) = f^a ∘ f^b for iteration counts far beyond naive reach.
    Rng rng(31);
    for (int trial = 0; trial < 100; ++trial) {
        uint32_t mul = rng() | 1u, add = rng();
        uint32_t a = rng() >> 1, b = rng() >> 1;
        kernels_affine fa = kernels_affine_power({mul, add, a});
        kernels_affine fb = kernels_affine_power({mul, add, b});
        kernels_affine fab = kernels_affine_power({mul, add, a + b});
        kernels_affine composed = kernels_affine_compose(fa, fb);
        EXPECT_EQ(fab.a, composed.a);
        EXPECT_EQ(fab.c, composed.c);
    }
}

TEST(ProcessBody, WholeGridMatchesNaiveIterationIncludingPartialLastBlock) {
    for (size_t n : {size_t{1}, size_t{255}, size_t{256}, size_t{257}, size_t{1000}, size_t{4096 + 3}}) {
        std::vector<uint32_t> in = random_words(n, (uint32_t)n);
        kernels_process_params p = {0x2545f491u, 0x9e3779b9u, 333};
        std::vector<uint32_t> out(n + 16, 0xa5a5a5a5u);  // guard words past n
        uint32_t blocks = (uint32_t)kernels_process_blocks(n);
        kernels_cpu_process(out.data(), in.data(), n, p, 0, blocks);
        for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], iterate(in[i], p)) << "n " << n << " i " << i;
        for (size_t i = n; i < out.size(); ++i) ASSERT_EQ(out[i], 0xa5a5a5a5u) << "wrote past n at " << i;
    }
}

TEST(ProcessBody, BlockRangesCoverOnlyTheirElementsAndAnySplitGivesTheWhole) {
    const size_t n = 10 * KERNELS_PROCESS_THREADS + 17;
    const uint32_t blocks = (uint32_t)kernels_process_blocks(n);
    ASSERT_EQ(blocks, 11u);
    std::vector<uint32_t> in = random_words(n, 11);
    kernels_process_params p = {0x01000193u, 7u, 97};
    std::vector<uint32_t> whole(n);
    kernels_oracle_process(whole.data(), in.data(), n, p);

    // One block range alone writes exactly blocks [3, 5).
    std::vector<uint32_t> part(n, 0);
    kernels_cpu_process(part.data(), in.data(), n, p, 3, 5);
    for (size_t i = 0; i < n; ++i) {
        bool inside = i >= 3 * KERNELS_PROCESS_THREADS && i < 5 * KERNELS_PROCESS_THREADS;
        ASSERT_EQ(part[i], inside ? whole[i] : 0u) << "i " << i;
    }

    // Blocks run in a shuffled order of uneven ranges, as a simulator's waves would.
    std::vector<uint32_t> cuts = {0, 1, 4, 5, 9, blocks};
    std::vector<size_t> order(cuts.size() - 1);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), std::mt19937(3));
    std::vector<uint32_t> pieces(n, 0);
    for (size_t k : order) kernels_cpu_process(pieces.data(), in.data(), n, p, cuts[k], cuts[k + 1]);
    EXPECT_EQ(pieces, whole);

    // Ranges past the grid touch nothing.
    std::vector<uint32_t> none(n, 0);
    kernels_cpu_process(none.data(), in.data(), n, p, blocks, blocks + 4);
    EXPECT_EQ(none, std::vector<uint32_t>(n, 0));
}

TEST(ProcessBody, InPlaceEqualsOutOfPlace) {
    const size_t n = 3000;
    std::vector<uint32_t> in = random_words(n, 77);
    kernels_process_params p = {0xfffffffbu, 0x1234u, 1000};
    std::vector<uint32_t> out(n);
    kernels_oracle_process(out.data(), in.data(), n, p);
    std::vector<uint32_t> buf = in;
    kernels_oracle_process(buf.data(), buf.data(), n, p);
    EXPECT_EQ(buf, out);
}

TEST(ProcessBody, PrecomposedMapGivesTheSameBits) {
    const size_t n = 700;
    std::vector<uint32_t> in = random_words(n, 8);
    kernels_process_params p = {0x41c64e6du, 12345u, 2000};
    std::vector<uint32_t> a(n), b(n);
    kernels_cpu_process(a.data(), in.data(), n, p, 0, 3);
    kernels_cpu_process_affine(b.data(), in.data(), n, kernels_affine_power(p), 0, 3);
    EXPECT_EQ(a, b);
}

TEST(SpinBody, WritesEachBlocksMarkerInItsRangeOnly) {
    std::vector<uint32_t> marks(12, 0);
    kernels_cpu_spin(marks.data(), 100u, 2, 7);
    for (uint32_t b = 0; b < 12; ++b) EXPECT_EQ(marks[b], (b >= 2 && b < 7) ? 100u + b : 0u) << "block " << b;
}

TEST(SpinBody, MarkerWrapsModulo2To32) {
    std::vector<uint32_t> marks(4, 0);
    kernels_oracle_spin(marks.data(), 4, 0xfffffffeu);
    EXPECT_EQ(marks, (std::vector<uint32_t>{0xfffffffeu, 0xffffffffu, 0u, 1u}));
}

TEST(ChecksumBody, EqualsTheSumAndExceeds32Bits) {
    for (size_t n : {size_t{1}, size_t{2047}, size_t{2048}, size_t{2049}, size_t{100000}}) {
        std::vector<uint32_t> in = random_words(n, (uint32_t)(n * 3));
        uint64_t expect = 0;
        for (uint32_t x : in) expect += x;
        EXPECT_EQ(kernels_oracle_checksum(in.data(), n), expect) << "n " << n;
    }
    std::vector<uint32_t> big(5000, 0xffffffffu);
    EXPECT_EQ(kernels_oracle_checksum(big.data(), big.size()), 5000ull * 0xffffffffull);
}

TEST(ChecksumBody, AccumulatesIntoSumAndSplitsInAnyOrder) {
    const size_t n = 5 * KERNELS_CHECKSUM_BLOCK_ELEMS + 99;
    std::vector<uint32_t> in = random_words(n, 1234);
    const uint64_t whole = kernels_oracle_checksum(in.data(), n);
    uint64_t sum = 1000;  // the body adds to what is there
    kernels_cpu_checksum(&sum, in.data(), n, 4, 6);
    kernels_cpu_checksum(&sum, in.data(), n, 0, 1);
    kernels_cpu_checksum(&sum, in.data(), n, 1, 4);
    EXPECT_EQ(sum, whole + 1000);

    uint64_t only_last = 0;
    kernels_cpu_checksum(&only_last, in.data(), n, 5, 6);
    uint64_t expect_last = 0;
    for (size_t i = 5 * KERNELS_CHECKSUM_BLOCK_ELEMS; i < n; ++i) expect_last += in[i];
    EXPECT_EQ(only_last, expect_last);
}

// widen and narrow (lab 09's stages): each element as the device code computes it, the
// loop really iterated; any split of the grid into block ranges gives the whole launch.
TEST(WideBodies, WidenKeepsTheInputBesideItsResultAndNarrowAddsItBack) {
    Rng rng(909);
    for (size_t n : {size_t{1}, size_t{255}, size_t{257}, size_t{5000}}) {
        for (uint32_t iters : {0u, 1u, 7u, 250u, 2800u}) {
            kernels_process_params p = {rng() | 1u, rng(), iters};
            std::vector<uint32_t> in = random_words(n, (uint32_t)(n + iters));
            std::vector<uint64_t> wide(n);
            std::vector<uint32_t> out(n);
            kernels_oracle_widen(wide.data(), in.data(), n, p);
            kernels_oracle_narrow(out.data(), wide.data(), n, p);
            for (size_t i = 0; i < n; ++i) {
                uint32_t y = iterate(in[i], p);
                ASSERT_EQ(wide[i], ((uint64_t)in[i] << 32) | y) << "n " << n << " iters " << iters << " i " << i;
                ASSERT_EQ(out[i], iterate(y, p) + in[i]) << "n " << n << " iters " << iters << " i " << i;
            }
        }
    }
}

TEST(WideBodies, BlockRangesCoverExactlyTheirElements) {
    const size_t n = 3 * KERNELS_PROCESS_THREADS + 17;
    kernels_process_params p = {2654435761u, 12345u, 99};
    kernels_affine map = kernels_affine_power(p);
    std::vector<uint32_t> in = random_words(n, 77);
    std::vector<uint64_t> whole(n), split(n, 0);
    kernels_oracle_widen(whole.data(), in.data(), n, p);
    kernels_cpu_widen_affine(split.data(), in.data(), n, map, 2, 4);
    for (size_t i = 0; i < 2 * KERNELS_PROCESS_THREADS; ++i) EXPECT_EQ(split[i], 0u) << i;
    kernels_cpu_widen_affine(split.data(), in.data(), n, map, 0, 2);
    EXPECT_EQ(split, whole);
    std::vector<uint32_t> out_whole(n), out_split(n, 0);
    kernels_oracle_narrow(out_whole.data(), whole.data(), n, p);
    kernels_cpu_narrow_affine(out_split.data(), whole.data(), n, map, 1, 9);
    EXPECT_EQ(out_split[0], 0u);
    kernels_cpu_narrow_affine(out_split.data(), whole.data(), n, map, 0, 1);
    EXPECT_EQ(out_split, out_whole);
}

}  // namespace
