// cuda_calls/calls_check_test.cc: the entry points calls_check.cc took, as the linker bound
// them, in a plain unit and in a per-thread one: every call of the list exists in the
// runtime, and a call the list gives a per-thread entry point reaches a function of its own
// there, while the others reach the same function in both.
#include <gtest/gtest.h>

#include "cuda_calls/calls_check.h"
#include "cuda_calls/cuda_calls.h"

namespace {

struct expected_call {
    const char *name;
    bool per_thread;
};

#define CUDA_CALLS_ENTRY(name, ret, kind, sync, per_thread, gpu, params)                                 \
    {#name, false CUDA_CALLS_IF_PER_THREAD(per_thread, || true)},
const expected_call kList[] = {
#include "cuda_calls/cuda_calls.inc"
};
#undef CUDA_CALLS_ENTRY

TEST(CudaCalls, EveryCallOfTheListIsAnEntryPointOfTheRuntime) {
    const size_t n = sizeof(kList) / sizeof(kList[0]);
    ASSERT_EQ(cuda_calls_plain_count, n);
    ASSERT_EQ(cuda_calls_per_thread_count, n);
    for (size_t i = 0; i < n; i++) {
        SCOPED_TRACE(kList[i].name);
        EXPECT_STREQ(cuda_calls_plain[i].name, kList[i].name);
        EXPECT_STREQ(cuda_calls_plain[i].spelled, kList[i].name);
        EXPECT_NE(cuda_calls_plain[i].address, nullptr);
        EXPECT_NE(cuda_calls_per_thread[i].address, nullptr);
    }
}

TEST(CudaCalls, PerThreadEntryPointsAreFunctionsOfTheirOwn) {
    const size_t n = sizeof(kList) / sizeof(kList[0]);
    ASSERT_EQ(cuda_calls_per_thread_count, n);
    size_t renamed = 0;
    for (size_t i = 0; i < n; i++) {
        SCOPED_TRACE(kList[i].name);
        if (kList[i].per_thread) {
            renamed++;
            EXPECT_STRNE(cuda_calls_per_thread[i].spelled, kList[i].name);
            EXPECT_NE(cuda_calls_per_thread[i].address, cuda_calls_plain[i].address);
        } else {
            EXPECT_STREQ(cuda_calls_per_thread[i].spelled, kList[i].name);
            EXPECT_EQ(cuda_calls_per_thread[i].address, cuda_calls_plain[i].address);
        }
    }
    EXPECT_GT(renamed, 0u);
}

}  // namespace
