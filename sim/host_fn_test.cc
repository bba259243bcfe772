// sim/host_fn_test.cc: cudaLaunchHostFunc. The function runs once the work before it in
// its stream has completed, at that point of simulated time (so it sees that work's
// data and not later work's), later work in the stream waits for it, enqueueing it does
// not block the host, and runtime calls made from it fail with cudaErrorNotPermitted.
// Work the function does (sim_host_work) holds its stream, not the program, and functions
// of independent streams take turns on the one host-function thread.
#include <gtest/gtest.h>

#include <vector>

#include "sim/test_support.h"

namespace {

using simtest::Capture;
using simtest::Profile;
using simtest::Reset;
using simtest::Spin;

struct Seen {
    const unsigned char *buf;
    int calls = 0;
    unsigned char value = 0;
    cudaError_t api = cudaSuccess;
};

void Look(void *p) {
    Seen *s = static_cast<Seen *>(p);
    s->calls++;
    s->value = s->buf[0];
}

TEST(HostFunctions, RunAfterTheWorkBeforeThemAndBeforeTheWorkAfter) {
    Reset();
    Capture cap;
    unsigned char *h;
    void *d;
    ASSERT_EQ(cudaMallocHost(&h, 4096), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d, 4096), cudaSuccess);
    h[0] = 1;
    cudaStream_t s;
    ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
    ASSERT_EQ(cudaMemsetAsync(d, 9, 4096, s), cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(h, d, 4096, cudaMemcpyDeviceToHost, s), cudaSuccess);
    Seen seen{h};
    ASSERT_EQ(cudaLaunchHostFunc(s, Look, &seen), cudaSuccess);
    ASSERT_EQ(cudaMemsetAsync(d, 3, 4096, s), cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(h, d, 4096, cudaMemcpyDeviceToHost, s), cudaSuccess);
    EXPECT_EQ(seen.calls, 0) << "not run at enqueue";
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    EXPECT_EQ(seen.calls, 1);
    EXPECT_EQ(seen.value, 9) << "it saw the first download, not the second";
    EXPECT_EQ(h[0], 3);
    std::vector<trace_op> fns = cap.Of(TRACE_OP_HOST_FN);
    ASSERT_EQ(fns.size(), 1u);
    EXPECT_EQ(fns[0].engine, TRACE_ENGINE_HOST);
    EXPECT_NEAR((double)(fns[0].end_ns - fns[0].start_ns), Profile().host_fn_latency_ns, 1.0);
    std::vector<trace_op> sets = cap.Of(TRACE_OP_MEMSET);
    ASSERT_EQ(sets.size(), 2u);
    EXPECT_GE(sets[1].start_ns, fns[0].end_ns) << "later work waited for the function";
}

TEST(HostFunctions, EnqueueingOneDoesNotBlockTheHost) {
    Reset();
    Seen seen{nullptr};
    static unsigned char byte = 5;
    seen.buf = &byte;
    ASSERT_EQ(Spin(0, 1e6), cudaSuccess);
    uint64_t t0 = sim_now_ns();
    ASSERT_EQ(cudaLaunchHostFunc(0, Look, &seen), cudaSuccess);
    EXPECT_EQ(sim_now_ns() - t0, simtest::Ns(Profile().host_func_call_ns));
    EXPECT_EQ(seen.calls, 0);
    sim_host_work(2000000);  // the host does its own work meanwhile
    EXPECT_EQ(seen.calls, 1) << "it ran during the host's work, at its point of simulated time";
}

void CallsTheRuntime(void *p) {
    Seen *s = static_cast<Seen *>(p);
    s->calls++;
    void *d = nullptr;
    s->api = cudaMalloc(&d, 64);
}

TEST(HostFunctions, RuntimeCallsFromAHostFunctionAreNotPermitted) {
    Reset();
    Seen seen{nullptr};
    ASSERT_EQ(cudaLaunchHostFunc(0, CallsTheRuntime, &seen), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(seen.calls, 1);
    EXPECT_EQ(seen.api, cudaErrorNotPermitted);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "the program's own last error is untouched";
}

void Work2ms(void *) { sim_host_work(2000000); }

TEST(HostFunctions, TheirWorkHoldsTheirStreamNotTheProgram) {
    Reset();
    Capture cap;
    cudaStream_t s;
    ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    uint64_t before = sim_now_ns();
    ASSERT_EQ(cudaLaunchHostFunc(s, Work2ms, nullptr), cudaSuccess);
    ASSERT_EQ(cudaMemsetAsync(nullptr, 0, 0, s), cudaSuccess);
    EXPECT_LT(sim_now_ns() - before, 100000u) << "enqueueing did not wait for the 2 ms";
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    std::vector<trace_op> fns = cap.Of(TRACE_OP_HOST_FN);
    ASSERT_EQ(fns.size(), 1u);
    EXPECT_NEAR((double)(fns[0].end_ns - fns[0].start_ns), 2e6 + Profile().host_fn_latency_ns, 1.0);
    EXPECT_GE(sim_now_ns() - before, 2000000u) << "the stream was done only after the work";
}

TEST(HostFunctions, FunctionsOfIndependentStreamsTakeTurns) {
    Reset();
    Capture cap;
    cudaStream_t a, b;
    ASSERT_EQ(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaLaunchHostFunc(a, Work2ms, nullptr), cudaSuccess);
    ASSERT_EQ(cudaLaunchHostFunc(b, Work2ms, nullptr), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<trace_op> fns = cap.Of(TRACE_OP_HOST_FN);
    ASSERT_EQ(fns.size(), 2u);
    uint64_t last = fns[0].end_ns > fns[1].end_ns ? fns[0].end_ns : fns[1].end_ns;
    uint64_t first = fns[0].start_ns < fns[1].start_ns ? fns[0].start_ns : fns[1].start_ns;
    EXPECT_GE(last - first, 4000000u) << "two 2 ms functions on one thread take 4 ms";
}

TEST(HostFunctions, BadArguments) {
    Reset();
    EXPECT_EQ(cudaLaunchHostFunc(0, nullptr, nullptr), cudaErrorInvalidValue);
    cudaStream_t s;
    ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
    ASSERT_EQ(cudaStreamDestroy(s), cudaSuccess);
    Seen seen{nullptr};
    EXPECT_EQ(cudaLaunchHostFunc(s, Look, &seen), cudaErrorInvalidResourceHandle);
}

}  // namespace
