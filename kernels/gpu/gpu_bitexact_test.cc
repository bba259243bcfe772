// kernels/gpu/gpu_bitexact_test.cc: on a real GPU, every kernel's output equals its CPU
// body's bit for bit, over many inputs, parameters and shapes; the launchers refuse bad
// arguments as documented; spin lasts at least its duration; the compiled kernels use the
// registers their cost descriptions say (sm_90). Skips where there is no CUDA device.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include <cuda_runtime.h>

extern "C" {
#include "kernels/cost.h"
#include "kernels/cpu/cpu.h"
#include "kernels/gpu/device.h"
#include "kernels/kernels.h"
}

namespace {

#define CUDA_OK(expr) ASSERT_EQ((expr), cudaSuccess) << #expr << ": " << cudaGetErrorString(cudaGetLastError())

struct Rng {
    explicit Rng(uint32_t seed) : gen(seed) {}
    uint32_t operator()() { return static_cast<uint32_t>(gen()); }
    std::mt19937 gen;
};

std::vector<uint32_t> random_words(size_t n, uint32_t seed) {
    Rng rng(seed);
    std::vector<uint32_t> v(n);
    for (auto &x : v) x = rng();
    return v;
}

class Gpu : public ::testing::Test {
  protected:
    void SetUp() override {
        int count = 0;
        if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
            (void)cudaGetLastError();
            GTEST_SKIP() << "no CUDA device";
        }
        CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    }
    void TearDown() override {
        if (stream) cudaStreamDestroy(stream);
        for (void *p : allocations) cudaFree(p);
    }
    template <typename T>
    T *device(size_t n) {
        void *p = nullptr;
        EXPECT_EQ(cudaMalloc(&p, n * sizeof(T) + 1), cudaSuccess);
        allocations.push_back(p);
        return static_cast<T *>(p);
    }
    // Runs process on the GPU and returns its output.
    std::vector<uint32_t> gpu_process(const std::vector<uint32_t> &in, kernels_process_params p) {
        const size_t n = in.size();
        uint32_t *d_in = device<uint32_t>(n), *d_out = device<uint32_t>(n);
        std::vector<uint32_t> out(n);
        EXPECT_EQ(cudaMemcpyAsync(d_in, in.data(), n * 4, cudaMemcpyHostToDevice, stream), cudaSuccess);
        EXPECT_EQ(kernels_process(d_out, d_in, n, p, stream), cudaSuccess);
        EXPECT_EQ(cudaMemcpyAsync(out.data(), d_out, n * 4, cudaMemcpyDeviceToHost, stream), cudaSuccess);
        EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
        return out;
    }
    cudaStream_t stream = nullptr;
    std::vector<void *> allocations;
};

void expect_same(const std::vector<uint32_t> &gpu, const std::vector<uint32_t> &cpu, const char *what) {
    ASSERT_EQ(gpu.size(), cpu.size());
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < gpu.size(); ++i)
        if (gpu[i] != cpu[i] && bad++ == 0) first = i;
    EXPECT_EQ(bad, 0u) << what << ": " << bad << " elements differ, first at " << first << " (gpu "
                       << gpu[first] << ", cpu " << cpu[first] << ")";
}

TEST_F(Gpu, ProcessMatchesCpuForManyParamsAndSizes) {
    Rng rng(4242);
    const uint32_t iters_list[] = {0, 1, 2, 3, 7, 16, 250, 1000, 4096};
    const size_t sizes[] = {1, 255, 256, 257, 100003, size_t{1} << 20};
    int trial = 0;
    for (size_t n : sizes) {
        for (uint32_t iters : iters_list) {
            kernels_process_params p = {rng() | 1u, rng(), iters};
            std::vector<uint32_t> in = random_words(n, 1000 + trial++);
            std::vector<uint32_t> want(n);
            kernels_oracle_process(want.data(), in.data(), n, p);
            expect_same(gpu_process(in, p), want, "process");
        }
    }
}

// Lab 09's stages: widen's 8-byte values and narrow's results, each from the GPU, equal the
// CPU bodies'.
TEST_F(Gpu, WidenAndNarrowMatchCpu) {
    Rng rng(909);
    for (size_t n : {size_t{1}, size_t{257}, size_t{1} << 20}) {
        for (uint32_t iters : {0u, 7u, 2800u}) {
            kernels_process_params p = {rng() | 1u, rng(), iters};
            std::vector<uint32_t> in = random_words(n, (uint32_t)(n + iters));
            uint32_t *d_in = device<uint32_t>(n), *d_out = device<uint32_t>(n);
            uint64_t *d_wide = device<uint64_t>(n);
            std::vector<uint64_t> wide(n), want_wide(n);
            std::vector<uint32_t> out(n), want(n);
            CUDA_OK(cudaMemcpyAsync(d_in, in.data(), n * 4, cudaMemcpyHostToDevice, stream));
            CUDA_OK(kernels_widen(d_wide, d_in, n, p, stream));
            CUDA_OK(kernels_narrow(d_out, d_wide, n, p, stream));
            CUDA_OK(cudaMemcpyAsync(wide.data(), d_wide, n * 8, cudaMemcpyDeviceToHost, stream));
            CUDA_OK(cudaMemcpyAsync(out.data(), d_out, n * 4, cudaMemcpyDeviceToHost, stream));
            CUDA_OK(cudaStreamSynchronize(stream));
            kernels_oracle_widen(want_wide.data(), in.data(), n, p);
            kernels_oracle_narrow(want.data(), want_wide.data(), n, p);
            EXPECT_TRUE(wide == want_wide) << "widen, n " << n << " iters " << iters;
            expect_same(out, want, "narrow");
        }
    }
}

TEST_F(Gpu, ProcessMatchesCpuForLargeIterationCountsAndEvenMultipliers) {
    Rng rng(7);
    for (uint32_t iters : {65535u, 100000u}) {
        for (uint32_t mul : {rng() | 1u, rng() & ~1u}) {
            kernels_process_params p = {mul, rng(), iters};
            std::vector<uint32_t> in = random_words(65536, iters ^ mul);
            std::vector<uint32_t> want(in.size());
            kernels_oracle_process(want.data(), in.data(), in.size(), p);
            expect_same(gpu_process(in, p), want, "process, large iters");
        }
    }
}

TEST_F(Gpu, ProcessInPlace) {
    const size_t n = 300000;
    std::vector<uint32_t> in = random_words(n, 99);
    kernels_process_params p = {0x2545f491u, 0x9e3779b9u, 500};
    uint32_t *d = device<uint32_t>(n);
    CUDA_OK(cudaMemcpyAsync(d, in.data(), n * 4, cudaMemcpyHostToDevice, stream));
    CUDA_OK(kernels_process(d, d, n, p, stream));
    std::vector<uint32_t> out(n), want(n);
    CUDA_OK(cudaMemcpyAsync(out.data(), d, n * 4, cudaMemcpyDeviceToHost, stream));
    CUDA_OK(cudaStreamSynchronize(stream));
    kernels_oracle_process(want.data(), in.data(), n, p);
    expect_same(out, want, "process in place");
}

TEST_F(Gpu, SpinWritesTheCpuMarkersForEveryShape) {
    int sms = 0;
    CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    for (uint32_t blocks : {1u, 7u, (uint32_t)sms * 2u}) {
        for (uint32_t threads : {1u, 32u, 128u, 1024u}) {
            uint32_t mark = blocks * 1000u + threads;
            uint32_t *d = device<uint32_t>(blocks);
            CUDA_OK(cudaMemsetAsync(d, 0, blocks * 4, stream));
            CUDA_OK(kernels_spin(d, blocks, threads, 2000, mark, stream));
            std::vector<uint32_t> got(blocks), want(blocks);
            CUDA_OK(cudaMemcpyAsync(got.data(), d, blocks * 4, cudaMemcpyDeviceToHost, stream));
            CUDA_OK(cudaStreamSynchronize(stream));
            kernels_oracle_spin(want.data(), blocks, mark);
            expect_same(got, want, "spin markers");
        }
    }
}

TEST_F(Gpu, SpinLastsAtLeastItsDuration) {
    int sms = 0;
    CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    uint32_t *d = device<uint32_t>(sms);
    cudaEvent_t a, b;
    CUDA_OK(cudaEventCreate(&a));
    CUDA_OK(cudaEventCreate(&b));
    // CUDA events resolve about 0.5 us (cudaEventElapsedTime's documented resolution).
    const double event_resolution_ns = 500.0;
    for (uint64_t duration : {50000ull, 500000ull, 2000000ull}) {
        CUDA_OK(cudaEventRecord(a, stream));
        CUDA_OK(kernels_spin(d, sms, 128, duration, 1, stream));
        CUDA_OK(cudaEventRecord(b, stream));
        CUDA_OK(cudaEventSynchronize(b));
        float ms = 0;
        CUDA_OK(cudaEventElapsedTime(&ms, a, b));
        EXPECT_GE(ms * 1e6 + event_resolution_ns, (double)duration) << "spin of " << duration << " ns";
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
}

TEST_F(Gpu, ChecksumMatchesCpu) {
    const size_t sizes[] = {1, 2047, 2048, 2049, size_t{1} << 20, (size_t{4} << 20) + 5};
    int trial = 0;
    for (size_t n : sizes) {
        std::vector<uint32_t> in = random_words(n, 500 + trial++);
        uint32_t *d_in = device<uint32_t>(n);
        uint64_t *d_sum = device<uint64_t>(1);
        CUDA_OK(cudaMemcpyAsync(d_in, in.data(), n * 4, cudaMemcpyHostToDevice, stream));
        CUDA_OK(cudaMemsetAsync(d_sum, 0, sizeof(uint64_t), stream));
        CUDA_OK(kernels_checksum(d_sum, d_in, n, stream));
        uint64_t got = 0;
        CUDA_OK(cudaMemcpyAsync(&got, d_sum, sizeof(got), cudaMemcpyDeviceToHost, stream));
        CUDA_OK(cudaStreamSynchronize(stream));
        EXPECT_EQ(got, kernels_oracle_checksum(in.data(), n)) << "n " << n;
    }
}

TEST_F(Gpu, ChecksumIsExactPast32BitsAndAccumulates) {
    const size_t n = size_t{4} << 20;
    std::vector<uint32_t> in(n, 0xffffffffu);
    uint32_t *d_in = device<uint32_t>(n);
    uint64_t *d_sum = device<uint64_t>(1);
    CUDA_OK(cudaMemcpyAsync(d_in, in.data(), n * 4, cudaMemcpyHostToDevice, stream));
    CUDA_OK(cudaMemsetAsync(d_sum, 0, sizeof(uint64_t), stream));
    CUDA_OK(kernels_checksum(d_sum, d_in, n, stream));
    CUDA_OK(kernels_checksum(d_sum, d_in, n, stream));
    uint64_t got = 0;
    CUDA_OK(cudaMemcpyAsync(&got, d_sum, sizeof(got), cudaMemcpyDeviceToHost, stream));
    CUDA_OK(cudaStreamSynchronize(stream));
    EXPECT_EQ(got, 2 * kernels_oracle_checksum(in.data(), n));
}

TEST_F(Gpu, LaunchersRefuseBadArguments) {
    uint32_t *d = device<uint32_t>(16);
    uint64_t *s = device<uint64_t>(1);
    kernels_process_params p = {3, 1, 1};
    EXPECT_EQ(kernels_process(d, nullptr, 16, p, stream), cudaErrorInvalidValue);
    EXPECT_EQ(kernels_process(nullptr, d, 16, p, stream), cudaErrorInvalidValue);
    EXPECT_EQ(kernels_process(d, d, 0, p, stream), cudaErrorInvalidValue);
    EXPECT_EQ(kernels_spin(d, 0, 32, 0, 0, stream), cudaErrorInvalidValue);
    EXPECT_EQ(kernels_spin(d, 1, 1025, 0, 0, stream), cudaErrorInvalidConfiguration);
    EXPECT_EQ(kernels_checksum(nullptr, d, 16, stream), cudaErrorInvalidValue);
    EXPECT_EQ(kernels_checksum(s, d, 0, stream), cudaErrorInvalidValue);
    CUDA_OK(cudaStreamSynchronize(stream));  // nothing was enqueued, nothing broke
}

TEST_F(Gpu, CompiledRegistersMatchTheCostDescriptionOnSm90) {
    cudaDeviceProp prop;
    CUDA_OK(cudaGetDeviceProperties(&prop, 0));
    if (prop.major != 9 || prop.minor != 0)
        GTEST_SKIP() << "register counts are described for sm_90; this is sm_" << prop.major << prop.minor;
    struct {
        kernels_id id;
        uint32_t regs;
    } expect[] = {{KERNELS_PROCESS, KERNELS_PROCESS_REGS_SM90},
                  {KERNELS_SPIN, KERNELS_SPIN_REGS_SM90},
                  {KERNELS_CHECKSUM, KERNELS_CHECKSUM_REGS_SM90},
                  {KERNELS_WIDEN, KERNELS_WIDEN_REGS_SM90},
                  {KERNELS_NARROW, KERNELS_NARROW_REGS_SM90}};
    for (const auto &e : expect) {
        cudaFuncAttributes attr;
        CUDA_OK(kernels_device_attributes(e.id, &attr));
        EXPECT_EQ((uint32_t)attr.numRegs, e.regs) << kernels_name(e.id);
    }
}

}  // namespace
