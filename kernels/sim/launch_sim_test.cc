// kernels/sim/launch_sim_test.cc: kernels.h on the simulated GPU gives the CPU oracle's
// results, takes simulated time that grows with the work described by cost.c, records
// each launch with its memory ranges, reads stream 0 as the default stream of the file that
// writes the launch (legacy, or per-thread), refuses bad arguments as the GPU build does, and
// faults as a GPU does when given pageable host memory (page-locked memory it may use).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include <streamlab_sim.h>

extern "C" {
#include "kernels/cpu/cpu.h"
#include "kernels/kernels.h"
#include "kernels/sim/per_thread_caller.h"
#include "trace/record/recorder.h"
}

namespace {

class KernelsSim : public ::testing::Test {
  protected:
    void SetUp() override {
        sim_reset();
        ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
    }
    void TearDown() override {
        trace_reset();
        sim_reset();
    }
    // Runs process over n values and returns the output and the kernel's simulated time.
    std::vector<uint32_t> process(const std::vector<uint32_t> &in, kernels_process_params p, double *ms) {
        size_t n = in.size();
        uint32_t *d_in = nullptr, *d_out = nullptr;
        EXPECT_EQ(cudaMalloc(reinterpret_cast<void **>(&d_in), n * 4), cudaSuccess);
        EXPECT_EQ(cudaMalloc(reinterpret_cast<void **>(&d_out), n * 4), cudaSuccess);
        EXPECT_EQ(cudaMemcpyAsync(d_in, in.data(), n * 4, cudaMemcpyHostToDevice, stream), cudaSuccess);
        cudaEvent_t a, b;
        EXPECT_EQ(cudaEventCreate(&a), cudaSuccess);
        EXPECT_EQ(cudaEventCreate(&b), cudaSuccess);
        EXPECT_EQ(cudaEventRecord(a, stream), cudaSuccess);
        EXPECT_EQ(kernels_process(d_out, d_in, n, p, stream), cudaSuccess);
        EXPECT_EQ(cudaEventRecord(b, stream), cudaSuccess);
        std::vector<uint32_t> out(n);
        EXPECT_EQ(cudaMemcpyAsync(out.data(), d_out, n * 4, cudaMemcpyDeviceToHost, stream), cudaSuccess);
        EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
        float f = 0;
        EXPECT_EQ(cudaEventElapsedTime(&f, a, b), cudaSuccess);
        *ms = f;
        cudaFree(d_in);
        cudaFree(d_out);
        return out;
    }
    cudaStream_t stream = nullptr;
};

TEST_F(KernelsSim, ProcessGivesTheOraclesBits) {
    const size_t n = 100003;  // not a multiple of the block size
    std::vector<uint32_t> in(n);
    for (size_t i = 0; i < n; i++) in[i] = static_cast<uint32_t>(i * 2654435761u);
    kernels_process_params p = {0x9E3779B1u, 12345u, 777u};
    std::vector<uint32_t> want(n);
    kernels_oracle_process(want.data(), in.data(), n, p);
    double ms = 0;
    EXPECT_EQ(process(in, p, &ms), want);
}

TEST_F(KernelsSim, ProcessTimeGrowsWithIterations) {
    std::vector<uint32_t> in(1u << 20, 7u);
    double t1 = 0, t2 = 0;
    process(in, kernels_process_params{3u, 1u, 1000u}, &t1);
    process(in, kernels_process_params{3u, 1u, 2000u}, &t2);
    EXPECT_GT(t1, 0.0);
    // Twice the iterations: nearly twice the time (a fixed launch cost makes it a bit less).
    EXPECT_GT(t2, 1.7 * t1);
    EXPECT_LT(t2, 2.05 * t1);
}

TEST_F(KernelsSim, SpinWritesMarksAndLastsItsDuration) {
    uint32_t *marks = nullptr;
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void **>(&marks), 64 * 4), cudaSuccess);
    cudaEvent_t a, b;
    ASSERT_EQ(cudaEventCreate(&a), cudaSuccess);
    ASSERT_EQ(cudaEventCreate(&b), cudaSuccess);
    ASSERT_EQ(cudaEventRecord(a, stream), cudaSuccess);
    ASSERT_EQ(kernels_spin(marks, 64, 128, 2000000, 100u, stream), cudaSuccess);
    ASSERT_EQ(cudaEventRecord(b, stream), cudaSuccess);
    std::vector<uint32_t> got(64);
    ASSERT_EQ(cudaMemcpyAsync(got.data(), marks, 64 * 4, cudaMemcpyDeviceToHost, stream), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    std::vector<uint32_t> want(64);
    kernels_oracle_spin(want.data(), 64, 100u);
    EXPECT_EQ(got, want);
    float ms = 0;
    ASSERT_EQ(cudaEventElapsedTime(&ms, a, b), cudaSuccess);
    EXPECT_GE(ms, 2.0f);
    EXPECT_LT(ms, 2.1f);
}

TEST_F(KernelsSim, ChecksumAddsEveryValue) {
    const size_t n = 300000;
    std::vector<uint32_t> in(n);
    for (size_t i = 0; i < n; i++) in[i] = 0xFFFFFFF0u - static_cast<uint32_t>(i);
    uint32_t *d_in = nullptr;
    uint64_t *d_sum = nullptr;
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void **>(&d_in), n * 4), cudaSuccess);
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void **>(&d_sum), 8), cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(d_in, in.data(), n * 4, cudaMemcpyHostToDevice, stream), cudaSuccess);
    ASSERT_EQ(cudaMemsetAsync(d_sum, 0, 8, stream), cudaSuccess);
    ASSERT_EQ(kernels_checksum(d_sum, d_in, n, stream), cudaSuccess);
    uint64_t got = 0;
    ASSERT_EQ(cudaMemcpyAsync(&got, d_sum, 8, cudaMemcpyDeviceToHost, stream), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    EXPECT_EQ(got, kernels_oracle_checksum(in.data(), n));
}

void on_op(void *ctx, const trace_op *op) {
    if (op->kind == TRACE_OP_KERNEL) static_cast<std::vector<trace_op> *>(ctx)->push_back(*op);
}

TEST_F(KernelsSim, LaunchesAreRecordedWithTheirRanges) {
    std::vector<trace_op> kernels;
    trace_sink sink = {&kernels, nullptr, on_op, nullptr, nullptr};
    ASSERT_EQ(trace_add_sink(&sink), 0);
    uint32_t *in = nullptr, *out = nullptr;
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void **>(&in), 1000 * 4), cudaSuccess);
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void **>(&out), 1000 * 4), cudaSuccess);
    ASSERT_EQ(kernels_process(out, in, 1000, kernels_process_params{3u, 1u, 5u}, stream), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    ASSERT_EQ(kernels.size(), 1u);
    EXPECT_STREQ(kernels[0].name, "process");
    EXPECT_EQ(kernels[0].grid[0], 4u);
    EXPECT_EQ(kernels[0].block[0], 256u);
    EXPECT_EQ(kernels[0].stream, trace_stream_id(stream));
    ASSERT_EQ(kernels[0].n_ranges, 2u);
    EXPECT_EQ(kernels[0].ranges[0].addr, reinterpret_cast<uint64_t>(in));
    EXPECT_EQ(kernels[0].ranges[0].flags & TRACE_RANGE_WRITE, 0u);
    EXPECT_EQ(kernels[0].ranges[1].addr, reinterpret_cast<uint64_t>(out));
    EXPECT_NE(kernels[0].ranges[1].flags & TRACE_RANGE_WRITE, 0u);
}

void on_stream_work(void *ctx, const trace_op *op) {
    if (trace_op_kind_is_stream_work(op->kind)) static_cast<std::vector<trace_op> *>(ctx)->push_back(*op);
}

// A launch's stream 0 is the default stream of the file that writes the launch, as for a
// <<<...>>> launch: kernels.h renames its launches to kernels_*_ptsz in a file compiled with
// CUDA_API_PER_THREAD_DEFAULT_STREAM (per_thread_caller.c), where 0 is the per-thread
// stream, as for that file's runtime calls; this file's stream 0 stays the legacy stream.
TEST_F(KernelsSim, StreamZeroIsTheDefaultStreamOfTheFileThatWritesTheLaunch) {
    std::vector<trace_op> ops;
    trace_sink sink = {&ops, nullptr, on_stream_work, nullptr, nullptr};
    ASSERT_EQ(trace_add_sink(&sink), 0);
    uint32_t *marks = nullptr;
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void **>(&marks), 64), cudaSuccess);
    ASSERT_EQ(kernels_ptds_memset(marks, 64), cudaSuccess);
    ASSERT_EQ(kernels_ptds_spin(marks, 1000, 7), cudaSuccess);
    ASSERT_EQ(kernels_spin(marks + 1, 1, 32, 1000, 9, 0), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    ASSERT_EQ(ops.size(), 3u);
    EXPECT_EQ(ops[0].kind, TRACE_OP_MEMSET);
    EXPECT_EQ(ops[0].stream, trace_stream_id(cudaStreamPerThread));
    EXPECT_NE(ops[0].stream, TRACE_STREAM_LEGACY);
    EXPECT_EQ(ops[1].kind, TRACE_OP_KERNEL);
    EXPECT_EQ(ops[1].stream, trace_stream_id(cudaStreamPerThread));
    EXPECT_EQ(ops[2].kind, TRACE_OP_KERNEL);
    EXPECT_EQ(ops[2].stream, TRACE_STREAM_LEGACY);
    uint32_t mark[2] = {0, 0};
    ASSERT_EQ(cudaMemcpy(mark, marks, sizeof(mark), cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(mark[0], 7u) << "the per-thread kernel ran after the per-thread memset (one stream)";
    EXPECT_EQ(mark[1], 9u);
}

TEST_F(KernelsSim, BadArgumentsAreRefusedBeforeAnythingIsEnqueued) {
    uint32_t *buf = nullptr;
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void **>(&buf), 64), cudaSuccess);
    EXPECT_EQ(kernels_process(nullptr, buf, 16, kernels_process_params{3u, 1u, 1u}, stream), cudaErrorInvalidValue);
    EXPECT_EQ(kernels_process(buf, buf, 0, kernels_process_params{3u, 1u, 1u}, stream), cudaErrorInvalidValue);
    EXPECT_EQ(kernels_spin(buf, 1, 2048, 1000, 0, stream), cudaErrorInvalidConfiguration);
    EXPECT_EQ(cudaStreamQuery(stream), cudaSuccess);
}

// A kernel given malloc'd host memory: the launch succeeds, the kernel faults, and the
// next synchronising call reports cudaErrorIllegalAddress; nothing is written.
TEST_F(KernelsSim, PageableHostMemoryGivenToAKernelFaultsAtTheNextSynchronisation) {
    const size_t n = 4096;
    std::vector<uint32_t> in(n, 5), out(n, 9);
    EXPECT_EQ(kernels_process(out.data(), in.data(), n, kernels_process_params{3u, 1u, 1u}, stream), cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(stream), cudaErrorIllegalAddress);
    for (uint32_t v : out) ASSERT_EQ(v, 9u);
}

// Registered (page-locked, mapped) host memory is the device's to use.
TEST_F(KernelsSim, RegisteredHostMemoryGivenToAKernelIsUsed) {
    const size_t n = 4096;
    std::vector<uint32_t> in(n), out(n, 9), expect(n);
    for (size_t i = 0; i < n; i++) in[i] = static_cast<uint32_t>(i * 40503u);
    kernels_process_params p{3u, 1u, 1u};
    kernels_oracle_process(expect.data(), in.data(), n, p);
    ASSERT_EQ(cudaHostRegister(in.data(), n * 4, cudaHostRegisterDefault), cudaSuccess);
    ASSERT_EQ(cudaHostRegister(out.data(), n * 4, cudaHostRegisterDefault), cudaSuccess);
    EXPECT_EQ(kernels_process(out.data(), in.data(), n, p, stream), cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    EXPECT_EQ(out, expect);
}

}  // namespace
