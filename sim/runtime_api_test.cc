// sim/runtime_api_test.cc: the device-wide calls. One simulated device; its queries;
// cudaDeviceSynchronize waits for every stream; cudaDeviceReset drops every stream, event
// and allocation and clears a sticky error; the last-error calls and error texts behave
// as the runtime's.
#include <gtest/gtest.h>

#include <string>

#include "sim/test_support.h"

namespace {

using simtest::Capture;
using simtest::Profile;
using simtest::Reset;
using simtest::Spin;

TEST(Device, ThereIsOneDeviceNumberZero) {
    Reset();
    int n = 0, dev = -1;
    ASSERT_EQ(cudaGetDeviceCount(&n), cudaSuccess);
    EXPECT_EQ(n, 1);
    ASSERT_EQ(cudaGetDevice(&dev), cudaSuccess);
    EXPECT_EQ(dev, 0);
    EXPECT_EQ(cudaSetDevice(0), cudaSuccess);
    EXPECT_EQ(cudaSetDevice(1), cudaErrorInvalidDevice);
    EXPECT_EQ(cudaSetDevice(-1), cudaErrorInvalidDevice);
    cudaDeviceProp prop;
    EXPECT_EQ(cudaGetDeviceProperties(&prop, 1), cudaErrorInvalidDevice);
    EXPECT_EQ(cudaGetDeviceProperties(nullptr, 0), cudaErrorInvalidValue);
    EXPECT_EQ(cudaGetDeviceCount(nullptr), cudaErrorInvalidValue);
    int v;
    EXPECT_EQ(cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, 1), cudaErrorInvalidDevice);
    EXPECT_EQ(cudaDeviceGetAttribute(&v, (cudaDeviceAttr)100000, 0), cudaErrorInvalidValue);
    EXPECT_EQ(cudaDeviceGetAttribute(nullptr, cudaDevAttrClockRate, 0), cudaErrorInvalidValue);
}

TEST(Device, PriorityRangeAcceptsNullPointers) {
    Reset();
    int least = 99;
    EXPECT_EQ(cudaDeviceGetStreamPriorityRange(&least, nullptr), cudaSuccess);
    EXPECT_EQ(least, (int)Profile().priority_least);
    EXPECT_EQ(cudaDeviceGetStreamPriorityRange(nullptr, nullptr), cudaSuccess);
}

TEST(Device, SynchronizeWaitsForEveryStream) {
    Reset();
    Capture cap;
    cudaStream_t s1, s2;
    ASSERT_EQ(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaStreamCreate(&s2), cudaSuccess);
    ASSERT_EQ(Spin(s1, 4e6, 1, 32, "a"), cudaSuccess);
    ASSERT_EQ(Spin(s2, 2e6, 1, 32, "b"), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    uint64_t last = std::max(cap.Kernel("a").end_ns, cap.Kernel("b").end_ns);
    EXPECT_EQ(sim_now_ns(), last + simtest::Ns(Profile().sync_wake_ns));
    std::vector<trace_op> syncs = cap.Of(TRACE_OP_SYNC);
    ASSERT_EQ(syncs.size(), 1u);
    EXPECT_EQ(syncs[0].sync, TRACE_SYNC_DEVICE);
}

TEST(Device, ResetDropsStreamsEventsAndAllocations) {
    Reset();
    cudaStream_t s;
    cudaEvent_t e;
    void *d;
    ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
    ASSERT_EQ(cudaEventCreate(&e), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d, 64), cudaSuccess);
    ASSERT_EQ(Spin(s, 1e6), cudaSuccess);
    uint64_t before = sim_now_ns();
    ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
    EXPECT_GE(sim_now_ns(), before) << "virtual time keeps running";
    EXPECT_EQ(cudaStreamQuery(s), cudaErrorInvalidResourceHandle);
    EXPECT_EQ(cudaEventQuery(e), cudaErrorInvalidResourceHandle);
    EXPECT_EQ(cudaFree(d), cudaErrorInvalidValue);
    EXPECT_EQ(sim_select_profile("l4"), 0) << "nothing lives on the device any more";
}

TEST(Device, LastErrorIsKeptUntilRead) {
    Reset();
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    EXPECT_EQ(cudaSetDevice(5), cudaErrorInvalidDevice);
    void *d;
    EXPECT_EQ(cudaMalloc(&d, 16), cudaSuccess) << "a success does not clear it";
    EXPECT_EQ(cudaPeekAtLastError(), cudaErrorInvalidDevice);
    EXPECT_EQ(cudaPeekAtLastError(), cudaErrorInvalidDevice);
    EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidDevice);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST(Device, ErrorNamesAndTextsAreTheRuntimes) {
    EXPECT_STREQ(cudaGetErrorName(cudaSuccess), "cudaSuccess");
    EXPECT_STREQ(cudaGetErrorString(cudaSuccess), "no error");
    EXPECT_STREQ(cudaGetErrorName(cudaErrorInvalidValue), "cudaErrorInvalidValue");
    EXPECT_STREQ(cudaGetErrorString(cudaErrorInvalidValue), "invalid argument");
    EXPECT_STREQ(cudaGetErrorString(cudaErrorInvalidResourceHandle), "invalid resource handle");
    EXPECT_STREQ(cudaGetErrorString(cudaErrorNotReady), "device not ready");
    EXPECT_STREQ(cudaGetErrorString(cudaErrorIllegalAddress), "an illegal memory access was encountered");
    EXPECT_STREQ(cudaGetErrorString(cudaErrorNotPermitted), "operation not permitted");
    EXPECT_STREQ(cudaGetErrorName((cudaError_t)12345), "unrecognized error code");
    EXPECT_STREQ(cudaGetErrorString((cudaError_t)12345), "unrecognized error code");
}

}  // namespace
