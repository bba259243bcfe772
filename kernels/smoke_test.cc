// kernels/smoke_test.cc: the nvcc-built smoke kernel links into a C++ test and, where a
// CUDA device exists, produces the right values. Skips (passes) on machines with none.
#include <gtest/gtest.h>

#include <vector>

#include <cuda_runtime.h>

#include "kernels/smoke.h"

TEST(SmokeKernel, FillsOnTheDevice) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) GTEST_SKIP() << "no CUDA device";
    std::vector<float> out(4096, -1.0f);
    ASSERT_EQ(kernels_smoke_run(out.data(), (int)out.size(), 2.0f), cudaSuccess);
    for (size_t i = 0; i < out.size(); i++) ASSERT_EQ(out[i], (float)i * 2.0f) << "at " << i;
}
