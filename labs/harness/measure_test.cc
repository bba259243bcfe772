// labs/harness/measure_test.cc: a reported stage time against the device's (measure.h).
// Events on a kernel's stream span its set-up too, so a right time may exceed the kernels'
// device time by the stage's slack; it may not fall short by more than the events'
// resolution: a pair that reads less spans something else (recorded on another stream),
// however near it lands.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "labs/harness/measure.h"

namespace {

constexpr int kKernels = 32;
constexpr double kKernelUs = 22.4; // lab 02's combine kernel on an H200
constexpr int32_t kRun = 3;

bool IsCombine(const trace_op *op, const lab_workload *) {
    return op->kind == TRACE_OP_KERNEL && std::strcmp(op->name, "combine") == 0;
}

const lab_stage kStage = {"combine", "combine kernels", IsCombine, 0.10, 12};

class Measurement : public ::testing::Test {
  protected:
    void SetUp() override {
        tl_ = trace_timeline_create();
        uint64_t t = 1000;
        uint64_t id = 1;
        for (int i = 0; i < kKernels; i++) {
            trace_op k{};
            k.id = id++;
            k.kind = TRACE_OP_KERNEL;
            k.run = kRun;
            std::strcpy(k.name, "combine");
            k.timed = true;
            k.start_ns = t;
            k.end_ns = t + (uint64_t)(kKernelUs * 1000);
            trace_timeline_add_op(tl_, &k);
            trace_op read{};
            read.id = id++;
            read.kind = TRACE_OP_API;
            read.run = kRun;
            std::strcpy(read.name, "cudaEventElapsedTime");
            read.timed = true;
            read.start_ns = read.end_ns = k.end_ns + 5000;
            trace_timeline_add_op(tl_, &read);
            t = k.end_ns + 30000;
        }
        spec_.stages = &kStage;
        spec_.n_stages = 1;
    }
    void TearDown() override { trace_timeline_destroy(tl_); }

    // Checks a reported time of device + off_us_per_kernel for every kernel.
    lab_stage_check Check(double off_us_per_kernel) {
        lab_reported reported[LAB_MAX_STAGES] = {};
        reported[0].set = true;
        reported[0].run = kRun;
        reported[0].ms = kKernels * (kKernelUs + off_us_per_kernel) / 1e3;
        lab_measurement m;
        lab_workload w{};
        lab_measurement_check(&m, &spec_, &w, reported, tl_, kRun);
        EXPECT_EQ(m.stage[0].ops, kKernels);
        EXPECT_NEAR(m.stage[0].device_ms, kKernels * kKernelUs / 1e3, 1e-9);
        return m.stage[0];
    }

    trace_timeline *tl_ = nullptr;
    lab_spec spec_{};
};

TEST_F(Measurement, EventsThatSpanEachKernelAndItsSetUpAreRight) {
    EXPECT_TRUE(Check(0).ok);
    EXPECT_TRUE(Check(10).ok) << "10 us of set-up a kernel, within the 12 us slack and 10%";
    EXPECT_TRUE(Check(-0.3).ok) << "the events' resolution below";
}

TEST_F(Measurement, MoreThanTheSlackAboveIsWrong) {
    lab_stage_check c = Check(20);
    EXPECT_FALSE(c.ok);
    EXPECT_NE(std::string(c.why).find("allowed:"), std::string::npos) << c.why;
}

TEST_F(Measurement, EventsThatReadLessThanTheKernelsRanSpanSomethingElse) {
    // On an H200, lab 02's events recorded on stream B read 0.29-0.36 ms of 0.72 ms of
    // combine kernels: within the slack above, but below what the kernels ran.
    for (double off : {-12.0, -9.0, -4.0}) {
        lab_stage_check c = Check(off);
        EXPECT_FALSE(c.ok) << off << " us a kernel";
        EXPECT_NE(std::string(c.why).find("do not span them"), std::string::npos) << c.why;
    }
}

}  // namespace
