// kernels/model_test.cc: launch shapes, argument checks, cost descriptions and memory
// ranges of the kernels, as both backends' launchers use them.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

extern "C" {
#include "kernels/access.h"
#include "kernels/cost.h"
#include "kernels/params.h"
#include "kernels/validate.h"
}

namespace {

TEST(Params, GridSizesRoundUp) {
    EXPECT_EQ(kernels_process_blocks(0), 0u);
    EXPECT_EQ(kernels_process_blocks(1), 1u);
    EXPECT_EQ(kernels_process_blocks(KERNELS_PROCESS_THREADS), 1u);
    EXPECT_EQ(kernels_process_blocks(KERNELS_PROCESS_THREADS + 1), 2u);
    EXPECT_EQ(kernels_process_blocks(size_t{1} << 20), (size_t{1} << 20) / KERNELS_PROCESS_THREADS);
    EXPECT_EQ(kernels_checksum_blocks(KERNELS_CHECKSUM_BLOCK_ELEMS * 3 - 1), 3u);
    EXPECT_EQ(kernels_checksum_blocks(KERNELS_CHECKSUM_BLOCK_ELEMS * 3 + 1), 4u);
}

TEST(Params, Names) {
    EXPECT_STREQ(kernels_name(KERNELS_PROCESS), "process");
    EXPECT_STREQ(kernels_name(KERNELS_SPIN), "spin");
    EXPECT_STREQ(kernels_name(KERNELS_CHECKSUM), "checksum");
    EXPECT_STREQ(kernels_name(KERNELS_WIDEN), "widen");
    EXPECT_STREQ(kernels_name(KERNELS_NARROW), "narrow");
    EXPECT_STREQ(kernels_name(KERNELS_COUNT), "unknown");
}

uint32_t dev[4];  // stands in for a device buffer: only its address is used
uint64_t dev_sum;

TEST(Validate, AcceptsGoodLaunches) {
    EXPECT_EQ(kernels_check_process(dev, dev, 1 << 20), KERNELS_ARGS_OK);
    EXPECT_EQ(kernels_check_spin(dev, 132, 128), KERNELS_ARGS_OK);
    EXPECT_EQ(kernels_check_spin(dev, 1, KERNELS_SPIN_MAX_THREADS), KERNELS_ARGS_OK);
    EXPECT_EQ(kernels_check_checksum(&dev_sum, dev, 5), KERNELS_ARGS_OK);
}

void expect_refused(kernels_args got, kernels_args want, const char *word) {
    EXPECT_EQ(got, want);
    std::string msg = kernels_last_message();
    EXPECT_NE(msg.find(word), std::string::npos) << "message '" << msg << "' does not mention " << word;
}

TEST(Validate, RefusesNullPointersAndEmptyLaunchesAsInvalidValue) {
    expect_refused(kernels_check_process(dev, nullptr, 10), KERNELS_ARGS_INVALID_VALUE, "in is NULL");
    expect_refused(kernels_check_process(nullptr, dev, 10), KERNELS_ARGS_INVALID_VALUE, "out is NULL");
    expect_refused(kernels_check_process(dev, dev, 0), KERNELS_ARGS_INVALID_VALUE, "n is 0");
    expect_refused(kernels_check_spin(nullptr, 1, 32), KERNELS_ARGS_INVALID_VALUE, "marks is NULL");
    expect_refused(kernels_check_spin(dev, 0, 32), KERNELS_ARGS_INVALID_VALUE, "blocks is 0");
    expect_refused(kernels_check_checksum(nullptr, dev, 10), KERNELS_ARGS_INVALID_VALUE, "sum is NULL");
    expect_refused(kernels_check_checksum(&dev_sum, nullptr, 10), KERNELS_ARGS_INVALID_VALUE, "in is NULL");
    expect_refused(kernels_check_checksum(&dev_sum, dev, 0), KERNELS_ARGS_INVALID_VALUE, "n is 0");
}

TEST(Validate, RefusesShapesTheDeviceCannotLaunchAsInvalidConfiguration) {
    expect_refused(kernels_check_spin(dev, 1, 0), KERNELS_ARGS_INVALID_CONFIGURATION, "threads = 0");
    expect_refused(kernels_check_spin(dev, 1, KERNELS_SPIN_MAX_THREADS + 1), KERNELS_ARGS_INVALID_CONFIGURATION,
                   "threads");
    expect_refused(kernels_check_spin(dev, KERNELS_MAX_GRID_X + 1u, 32), KERNELS_ARGS_INVALID_CONFIGURATION,
                   "grid limit");
    const size_t too_many = (size_t)KERNELS_MAX_GRID_X * KERNELS_PROCESS_THREADS + 1;
    expect_refused(kernels_check_process(dev, dev, too_many), KERNELS_ARGS_INVALID_CONFIGURATION, "grid limit");
    EXPECT_EQ(kernels_check_process(dev, dev, too_many - 1), KERNELS_ARGS_OK);
}

TEST(Cost, ProcessScalesWithIterations) {
    for (uint32_t iters : {0u, 1u, 16u, 250u, 2000u}) {
        kernels_cost c = kernels_process_cost({3u, 1u, iters});
        EXPECT_DOUBLE_EQ(c.int_ops, double(KERNELS_PROCESS_THREADS) * iters);
        EXPECT_DOUBLE_EQ(c.chain_ops, double(iters));
        EXPECT_DOUBLE_EQ(c.dram_bytes, KERNELS_PROCESS_THREADS * 2.0 * sizeof(uint32_t));
        EXPECT_DOUBLE_EQ(c.fp32_ops, 0.0);
        EXPECT_DOUBLE_EQ(c.fixed_ns, 0.0);
        EXPECT_EQ(c.regs_per_thread, KERNELS_PROCESS_REGS_SM90);
    }
}

TEST(Cost, SpinIsItsDurationAnywhere) {
    kernels_cost c = kernels_spin_cost(128, 20000);
    EXPECT_DOUBLE_EQ(c.fixed_ns, 20000.0);
    EXPECT_DOUBLE_EQ(c.int_ops, 0.0);
    EXPECT_DOUBLE_EQ(c.chain_ops, 0.0);
    EXPECT_DOUBLE_EQ(c.dram_bytes, double(sizeof(uint32_t)));
}

TEST(Cost, ChecksumReadsEveryElementOfItsBlockOnce) {
    kernels_cost c = kernels_checksum_cost();
    EXPECT_DOUBLE_EQ(c.dram_bytes, KERNELS_CHECKSUM_BLOCK_ELEMS * double(sizeof(uint32_t)) + sizeof(uint64_t));
    // Each thread does at least one 64-bit add (2 integer ops) per element it reads.
    EXPECT_GE(c.int_ops, 2.0 * KERNELS_CHECKSUM_BLOCK_ELEMS);
    EXPECT_GE(c.chain_ops, 2.0 * KERNELS_CHECKSUM_ITEMS);
    EXPECT_LT(c.chain_ops, c.int_ops);
}

TEST(Cost, DispatchByIdMatchesPerKernelFunctions) {
    kernels_process_params p = {5u, 7u, 123u};
    EXPECT_DOUBLE_EQ(kernels_cost_of(KERNELS_PROCESS, p, 0, 0).int_ops, kernels_process_cost(p).int_ops);
    EXPECT_DOUBLE_EQ(kernels_cost_of(KERNELS_SPIN, p, 64, 999).fixed_ns, 999.0);
    EXPECT_DOUBLE_EQ(kernels_cost_of(KERNELS_CHECKSUM, p, 0, 0).dram_bytes, kernels_checksum_cost().dram_bytes);
    EXPECT_DOUBLE_EQ(kernels_cost_of(KERNELS_COUNT, p, 0, 0).int_ops, 0.0);
}

TEST(Access, ProcessReadsInputAndWritesOutput) {
    trace_range r[TRACE_MAX_RANGES];
    uint32_t in[8] = {}, out[8] = {};
    ASSERT_EQ(kernels_process_access(r, out, in, 8), 2u);
    EXPECT_EQ(r[0].addr, (uint64_t)(uintptr_t)in);
    EXPECT_EQ(r[0].bytes, 32u);
    EXPECT_EQ(r[0].flags, TRACE_RANGE_READ);
    EXPECT_EQ(r[1].addr, (uint64_t)(uintptr_t)out);
    EXPECT_EQ(r[1].bytes, 32u);
    EXPECT_EQ(r[1].flags, TRACE_RANGE_WRITE);
    EXPECT_EQ(kernels_process_access(r, out, in, 0), 0u);
}

TEST(Access, SpinWritesOneMarkerPerBlock) {
    trace_range r[TRACE_MAX_RANGES];
    uint32_t marks[5] = {};
    ASSERT_EQ(kernels_spin_access(r, marks, 5), 1u);
    EXPECT_EQ(r[0].addr, (uint64_t)(uintptr_t)marks);
    EXPECT_EQ(r[0].bytes, 5 * sizeof(uint32_t));
    EXPECT_EQ(r[0].flags, TRACE_RANGE_WRITE);
}

TEST(Access, ChecksumReadsInputAndWritesTheSum) {
    trace_range r[TRACE_MAX_RANGES];
    uint32_t in[3] = {};
    uint64_t sum = 0;
    ASSERT_EQ(kernels_checksum_access(r, &sum, in, 3), 2u);
    EXPECT_EQ(r[0].flags, TRACE_RANGE_READ);
    EXPECT_EQ(r[0].bytes, 12u);
    EXPECT_EQ(r[1].addr, (uint64_t)(uintptr_t)&sum);
    EXPECT_EQ(r[1].bytes, 8u);
    EXPECT_EQ(r[1].flags, TRACE_RANGE_WRITE);
}


// widen and narrow: process's chain and one op more, 4 bytes read and 8 written (widen) or
// the other way round (narrow); the wide side's range is twice the narrow one's.
TEST(Cost, WideKernelsAreProcessAndOneOpWithTwelveBytesAThread) {
    kernels_process_params p = {3, 1, 2800};
    kernels_cost pr = kernels_process_cost(p);
    for (kernels_cost c : {kernels_widen_cost(p), kernels_narrow_cost(p)}) {
        EXPECT_DOUBLE_EQ(c.int_ops, pr.int_ops + KERNELS_PROCESS_THREADS);
        EXPECT_DOUBLE_EQ(c.chain_ops, pr.chain_ops + 1);
        EXPECT_DOUBLE_EQ(c.dram_bytes, KERNELS_PROCESS_THREADS * 12.0);
    }
    EXPECT_DOUBLE_EQ(kernels_cost_of(KERNELS_WIDEN, p, 0, 0).int_ops, kernels_widen_cost(p).int_ops);
    EXPECT_EQ(kernels_cost_of(KERNELS_NARROW, p, 0, 0).regs_per_thread, KERNELS_NARROW_REGS_SM90);
}

TEST(Access, WidenWritesTwiceWhatItReadsAndNarrowTheOtherWay) {
    static uint32_t narrow_buf[8];
    static uint64_t wide_buf[8];
    trace_range r[TRACE_MAX_RANGES];
    ASSERT_EQ(kernels_widen_access(r, wide_buf, narrow_buf, 8), 2u);
    EXPECT_EQ(r[0].addr, (uint64_t)(uintptr_t)narrow_buf);
    EXPECT_EQ(r[0].bytes, 32u);
    EXPECT_EQ(r[0].flags, TRACE_RANGE_READ);
    EXPECT_EQ(r[1].addr, (uint64_t)(uintptr_t)wide_buf);
    EXPECT_EQ(r[1].bytes, 64u);
    EXPECT_EQ(r[1].flags, TRACE_RANGE_WRITE);
    ASSERT_EQ(kernels_narrow_access(r, narrow_buf, wide_buf, 8), 2u);
    EXPECT_EQ(r[0].bytes, 64u);
    EXPECT_EQ(r[0].flags, TRACE_RANGE_READ);
    EXPECT_EQ(r[1].bytes, 32u);
    EXPECT_EQ(r[1].flags, TRACE_RANGE_WRITE);
}

TEST(Validate, WideKernelsRefuseWhatProcessRefuses) {
    static uint32_t a[4];
    static uint64_t b[4];
    EXPECT_EQ(kernels_check_wide("kernels_widen", b, a, 4), KERNELS_ARGS_OK);
    EXPECT_EQ(kernels_check_wide("kernels_widen", b, a, 0), KERNELS_ARGS_INVALID_VALUE);
    EXPECT_STREQ(kernels_last_message(), "kernels_widen: n is 0 (nothing to process)");
    EXPECT_EQ(kernels_check_wide("kernels_narrow", a, nullptr, 4), KERNELS_ARGS_INVALID_VALUE);
    EXPECT_STREQ(kernels_last_message(), "kernels_narrow: in is NULL");
    EXPECT_EQ(kernels_check_wide("kernels_narrow", a, b, (size_t)KERNELS_MAX_GRID_X * KERNELS_PROCESS_THREADS + 1),
              KERNELS_ARGS_INVALID_CONFIGURATION);
}

}  // namespace
