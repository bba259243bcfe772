// trace/gpu/time_check_test.cc: the benchmark's count of impossible device times.
#include <gtest/gtest.h>

#include <vector>

extern "C" {
#include "trace/gpu/time_check.h"
}

namespace {

trace_gpu_time_errors check(const std::vector<trace_gpu_timed_op> &ops) {
    trace_gpu_time_errors e = {0, 0, 0, 0};
    EXPECT_EQ(trace_gpu_check_times(ops.data(), ops.size(), &e), 0);
    return e;
}

TEST(TimeCheck, ConsistentTimesHaveNoErrors) {
    // Two streams overlapping each other, each in order; given out of id order.
    auto e = check({{3, 1, 20, 300, 400}, {1, 1, 0, 100, 200}, {2, 2, 10, 150, 250}, {4, 2, 30, 250, 260}});
    EXPECT_EQ(e.checked, 4u);
    EXPECT_EQ(e.before_enqueue, 0u);
    EXPECT_EQ(e.overlap, 0u);
    EXPECT_EQ(e.out_of_order, 0u);
}

TEST(TimeCheck, EachKindOfErrorIsCounted) {
    auto e = check({
        {1, 1, 0, 100, 200},
        {2, 1, 10, 150, 300},  // starts before op 1 ended: overlap
        {3, 1, 20, 120, 130},  // starts before op 2 started: out of order
        {4, 2, 500, 400, 600}, // starts before its enqueue
    });
    EXPECT_EQ(e.checked, 4u);
    EXPECT_EQ(e.overlap, 1u);
    EXPECT_EQ(e.out_of_order, 1u);
    EXPECT_EQ(e.before_enqueue, 1u);
}

TEST(TimeCheck, CountsAddUpAndNothingIsFine) {
    trace_gpu_time_errors e = {0, 0, 0, 0};
    EXPECT_EQ(trace_gpu_check_times(nullptr, 0, &e), 0);
    trace_gpu_timed_op one = {1, 0, 50, 40, 60};
    EXPECT_EQ(trace_gpu_check_times(&one, 1, &e), 0);
    EXPECT_EQ(trace_gpu_check_times(&one, 1, &e), 0);
    EXPECT_EQ(e.checked, 2u);
    EXPECT_EQ(e.before_enqueue, 2u);
}

}  // namespace
