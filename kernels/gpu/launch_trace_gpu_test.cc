// kernels/gpu/launch_trace_gpu_test.cc: on a real GPU, each kernels.h launch is recorded
// for the timeline and the race checker (a KERNEL op on its stream, with its name, grid,
// block and memory ranges, plus a host-lane span) and gets device times from the
// collector. Skips where there is no CUDA device.
#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <cuda_runtime.h>

extern "C" {
#include "kernels/kernels.h"
#include "trace/gpu/collector.h"
#include "trace/record/recorder.h"
}

namespace {

struct Seen {
    std::recursive_mutex mu;  // cleanup calls re-enter the sink while a test holds it
    std::vector<trace_op> ops;
    std::map<uint64_t, trace_op> timed;
};

void on_op(void *ctx, const trace_op *op) {
    auto *s = static_cast<Seen *>(ctx);
    std::lock_guard<std::recursive_mutex> g(s->mu);
    s->ops.push_back(*op);
}
void on_timed(void *ctx, const trace_op *op) {
    auto *s = static_cast<Seen *>(ctx);
    std::lock_guard<std::recursive_mutex> g(s->mu);
    s->timed[op->id] = *op;
}

class LaunchTrace : public ::testing::TestWithParam<trace_gpu_request> {
  protected:
    void SetUp() override {
        int count = 0;
        if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
            (void)cudaGetLastError();
            GTEST_SKIP() << "no CUDA device";
        }
        trace_reset();
        trace_sink sink = {&seen, nullptr, on_op, on_timed, nullptr};
        ASSERT_EQ(trace_add_sink(&sink), 0);
        trace_gpu_mode mode = trace_gpu_begin_mode(GetParam());
        if (mode == TRACE_GPU_OFF) GTEST_SKIP() << trace_gpu_status_message();
        if (GetParam() == TRACE_GPU_WANT_CUPTI && mode != TRACE_GPU_CUPTI)
            GTEST_SKIP() << "CUPTI unavailable here: " << trace_gpu_status_message();
    }
    void TearDown() override {
        trace_gpu_end();
        trace_reset();
    }
    Seen seen;
};

TEST_P(LaunchTrace, EachLaunchIsAKernelOpWithRangesAndDeviceTimes) {
    const size_t n = 100000;
    uint32_t *in = nullptr, *out = nullptr, *marks = nullptr;
    uint64_t *sum = nullptr;
    ASSERT_EQ(cudaMalloc(&in, n * 4), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&out, n * 4), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&marks, 64 * 4), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&sum, 8), cudaSuccess);
    cudaStream_t s;
    ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaMemsetAsync(in, 1, n * 4, s), cudaSuccess);
    ASSERT_EQ(cudaMemsetAsync(sum, 0, 8, s), cudaSuccess);
    const uint64_t before = trace_gpu_now_ns();
    ASSERT_EQ(kernels_process(out, in, n, kernels_process_params{3u, 1u, 100u}, s), cudaSuccess);
    ASSERT_EQ(kernels_spin(marks, 64, 128, 20000, 0, s), cudaSuccess);
    ASSERT_EQ(kernels_checksum(sum, out, n, s), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    const uint64_t after = trace_gpu_now_ns();
    trace_gpu_flush();

    std::lock_guard<std::recursive_mutex> g(seen.mu);
    std::vector<trace_op> kernels;
    int launch_spans = 0;
    for (const trace_op &op : seen.ops) {
        if (op.kind == TRACE_OP_KERNEL) kernels.push_back(op);
        if (op.kind == TRACE_OP_API && std::string(op.name) == "cudaLaunchKernel") ++launch_spans;
    }
    ASSERT_EQ(kernels.size(), 3u);
    EXPECT_EQ(launch_spans, 3);

    EXPECT_STREQ(kernels[0].name, "process");
    EXPECT_EQ(kernels[0].grid[0], (n + 255) / 256);
    EXPECT_EQ(kernels[0].block[0], 256u);
    ASSERT_EQ(kernels[0].n_ranges, 2u);
    EXPECT_EQ(kernels[0].ranges[0].addr, (uint64_t)(uintptr_t)in);
    EXPECT_EQ(kernels[0].ranges[0].flags, TRACE_RANGE_READ);
    EXPECT_EQ(kernels[0].ranges[1].addr, (uint64_t)(uintptr_t)out);
    EXPECT_EQ(kernels[0].ranges[1].flags, TRACE_RANGE_WRITE);

    EXPECT_STREQ(kernels[1].name, "spin");
    EXPECT_EQ(kernels[1].grid[0], 64u);
    EXPECT_EQ(kernels[1].block[0], 128u);
    ASSERT_EQ(kernels[1].n_ranges, 1u);
    EXPECT_EQ(kernels[1].ranges[0].bytes, 64u * 4);

    EXPECT_STREQ(kernels[2].name, "checksum");
    ASSERT_EQ(kernels[2].n_ranges, 2u);
    EXPECT_EQ(kernels[2].ranges[1].addr, (uint64_t)(uintptr_t)sum);

    uint64_t prev_end = 0;
    for (const trace_op &k : kernels) {
        EXPECT_EQ(k.stream, trace_stream_id(s));
        EXPECT_EQ(k.engine, TRACE_ENGINE_COMPUTE);
        auto it = seen.timed.find(k.id);
        ASSERT_NE(it, seen.timed.end()) << k.name << " got no device times";
        const trace_op &t = it->second;
        EXPECT_GE(t.start_ns, before);
        EXPECT_GE(t.start_ns, t.enqueue_ns);
        EXPECT_GE(t.start_ns, prev_end) << k.name << " overlaps the kernel before it on its stream";
        EXPECT_LE(t.end_ns, after);
        prev_end = t.end_ns;
    }
    // The spin kernel lasted at least its 20 us on the device (CUDA events resolve about
    // 0.5 us, cudaEventElapsedTime's documented resolution).
    const trace_op &spin = seen.timed[kernels[1].id];
    EXPECT_GE(spin.end_ns - spin.start_ns + 500u, 20000u);

    cudaStreamDestroy(s);
    cudaFree(in);
    cudaFree(out);
    cudaFree(marks);
    cudaFree(sum);
}

INSTANTIATE_TEST_SUITE_P(Modes, LaunchTrace, ::testing::Values(TRACE_GPU_WANT_CUPTI, TRACE_GPU_WANT_EVENTS),
                         [](const ::testing::TestParamInfo<trace_gpu_request> &info) {
                             return std::string(info.param == TRACE_GPU_WANT_CUPTI ? "Cupti" : "Events");
                         });

}  // namespace
