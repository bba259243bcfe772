// sim/h200x2_calibration_test.cc: the h200x2 profile reproduces what two H200s linked by
// NVLink did (docs/calibration/h200x2.md, measured with p2p_probe.cu beside it).
//
// The measured figures are read from the raw output in that file, so the page and the test
// cannot disagree. Each scenario replays what p2p_probe.cu did (same sizes, same calls,
// same order, its `spin` kernel written as a one-thread kernel of that duration), timed on
// the host clock as the probe did, and each simulated figure must be within 10% of the
// measured one. The test prints a table of measured vs simulated.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "streamlab_sim.h"

namespace {

std::string ReadPage() {
    const char *dir = std::getenv("TEST_SRCDIR");
    const char *ws = std::getenv("TEST_WORKSPACE");
    std::string path = std::string(dir ? dir : ".") + "/" + (ws ? ws : "streamlab") + "/docs/calibration/h200x2.md";
    std::ifstream in(path);
    EXPECT_TRUE(in.good()) << "cannot read " << path;
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// The raw output line that starts with prefix.
std::string Line(const std::string &page, const char *prefix) {
    size_t at = page.find(std::string("\n") + prefix);
    EXPECT_NE(at, std::string::npos) << "no line \"" << prefix << "\" in h200x2.md";
    if (at == std::string::npos) return "";
    size_t end = page.find('\n', at + 1);
    return page.substr(at + 1, end - at - 1);
}

struct Measured {
    int can01 = -1, can10 = -1;
    double off_01_gbps = 0, off_01_ms = 0, off_10_gbps = 0, off_both_gbps = 0, off_both_ms = 0;
    double on_01_gbps = 0, on_01_ms = 0, on_10_gbps = 0, on_both_gbps = 0, on_both_ms = 0;
    double staged_gbps = 0, staged_ms = 0;
    double k_one = 0, k_both = 0, k_chained = 0;
    double k10 = 0, copy = 0, k10_copy = 0;
    double pipe_serial = 0, pipe_events = 0;
};

Measured Parse() {
    std::string page = ReadPage();
    Measured m;
    EXPECT_EQ(std::sscanf(Line(page, "canAccessPeer").c_str(), "canAccessPeer 0->1 %d 1->0 %d", &m.can01, &m.can10), 2);
    EXPECT_EQ(std::sscanf(Line(page, "peer copy, peer access NOT enabled").c_str(),
                          "peer copy, peer access NOT enabled: 0->1 %lf GB/s (%lf ms), 1->0 %lf GB/s, both at once "
                          "%lf GB/s total (%lf ms)",
                          &m.off_01_gbps, &m.off_01_ms, &m.off_10_gbps, &m.off_both_gbps, &m.off_both_ms),
              5);
    EXPECT_EQ(std::sscanf(Line(page, "peer copy, peer access enabled").c_str(),
                          "peer copy, peer access enabled: 0->1 %lf GB/s (%lf ms), 1->0 %lf GB/s, both at once %lf "
                          "GB/s total (%lf ms)",
                          &m.on_01_gbps, &m.on_01_ms, &m.on_10_gbps, &m.on_both_gbps, &m.on_both_ms),
              5);
    EXPECT_EQ(std::sscanf(Line(page, "staged through host").c_str(), "staged through host, serial: %lf GB/s (%lf ms)",
                          &m.staged_gbps, &m.staged_ms),
              2);
    EXPECT_EQ(std::sscanf(Line(page, "5 ms kernel").c_str(),
                          "5 ms kernel: one GPU %lf ms; both GPUs at once %lf ms; dev1 waits on dev0 event %lf ms",
                          &m.k_one, &m.k_both, &m.k_chained),
              3);
    EXPECT_EQ(std::sscanf(Line(page, "10 ms kernel").c_str(),
                          "10 ms kernel %lf ms, 256 MiB peer copy %lf ms, both on two streams %lf ms", &m.k10, &m.copy,
                          &m.k10_copy),
              3);
    EXPECT_EQ(std::sscanf(Line(page, "two-GPU pipeline").c_str(),
                          "two-GPU pipeline, 24 x (0.1 ms kernel, 4 MiB peer copy, 0.1 ms kernel): serial %lf ms, "
                          "pipelined %lf ms",
                          &m.pipe_serial, &m.pipe_events),
              2);
    return m;
}

// The probe's spin kernel: one thread busy for ns.
void Spin(cudaStream_t s, double ns) {
    sim_kernel_launch l{};
    l.name = "spin";
    l.grid = dim3(1);
    l.block = dim3(1);
    l.cost.fixed_ns = ns;
    ASSERT_EQ(sim_launch_kernel(&l, s), cudaSuccess);
}

double NowMs() { return (double)sim_now_ns() / 1e6; }

struct Row {
    std::string what;
    double measured, simulated;
};

class TwoH200 : public ::testing::Test {
  protected:
    void SetUp() override {
        sim_reset();
        ASSERT_EQ(sim_select_profile("h200x2"), 0) << sim_last_message();
        m_ = Parse();
    }
    void Check(const char *what, double measured, double simulated) {
        rows_.push_back({what, measured, simulated});
        EXPECT_GT(measured, 0) << what;
        EXPECT_NEAR(simulated, measured, 0.10 * measured) << what;
    }
    void TearDown() override {
        std::printf("| what | measured | simulated |\n| --- | --- | --- |\n");
        for (const Row &r : rows_) std::printf("| %s | %.4g | %.4g |\n", r.what.c_str(), r.measured, r.simulated);
    }
    Measured m_;
    std::vector<Row> rows_;
};

TEST_F(TwoH200, EveryFigureOfTheProbeWithinTenPercent) {
    const size_t B = 256ull << 20;
    int n = 0;
    ASSERT_EQ(cudaGetDeviceCount(&n), cudaSuccess);
    ASSERT_EQ(n, 2);
    int a01 = 0, a10 = 0;
    ASSERT_EQ(cudaDeviceCanAccessPeer(&a01, 0, 1), cudaSuccess);
    ASSERT_EQ(cudaDeviceCanAccessPeer(&a10, 1, 0), cudaSuccess);
    EXPECT_EQ(a01, m_.can01);
    EXPECT_EQ(a10, m_.can10);

    void *d0, *d1, *d0b, *d1b, *h;
    cudaStream_t s0, s0b, s1;
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d0, B), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d0b, B), cudaSuccess);
    ASSERT_EQ(cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaStreamCreateWithFlags(&s0b, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d1, B), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d1b, B), cudaSuccess);
    ASSERT_EQ(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaMallocHost(&h, B), cudaSuccess);
    const double gb = B / 1e9;

    auto peer_copies = [&](double *t01, double *t10, double *both) {
        double t = NowMs();
        ASSERT_EQ(cudaMemcpyPeerAsync(d1b, 1, d0, 0, B, s0), cudaSuccess);
        ASSERT_EQ(cudaStreamSynchronize(s0), cudaSuccess);
        *t01 = NowMs() - t;
        t = NowMs();
        ASSERT_EQ(cudaMemcpyPeerAsync(d0b, 0, d1, 1, B, s1), cudaSuccess);
        ASSERT_EQ(cudaStreamSynchronize(s1), cudaSuccess);
        *t10 = NowMs() - t;
        t = NowMs();
        ASSERT_EQ(cudaMemcpyPeerAsync(d1b, 1, d0, 0, B, s0), cudaSuccess);
        ASSERT_EQ(cudaMemcpyPeerAsync(d0b, 0, d1, 1, B, s1), cudaSuccess);
        ASSERT_EQ(cudaStreamSynchronize(s0), cudaSuccess);
        ASSERT_EQ(cudaStreamSynchronize(s1), cudaSuccess);
        *both = NowMs() - t;
    };
    double t01, t10, both;
    peer_copies(&t01, &t10, &both);
    Check("peer copy without peer access, 0->1, GB/s", m_.off_01_gbps, gb / (t01 / 1e3));
    Check("peer copy without peer access, 0->1, ms", m_.off_01_ms, t01);
    Check("peer copy without peer access, 1->0, GB/s", m_.off_10_gbps, gb / (t10 / 1e3));
    Check("without peer access, both at once, GB/s total", m_.off_both_gbps, 2 * gb / (both / 1e3));
    Check("without peer access, both at once, ms", m_.off_both_ms, both);

    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    ASSERT_EQ(cudaDeviceEnablePeerAccess(1, 0), cudaSuccess);
    ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
    ASSERT_EQ(cudaDeviceEnablePeerAccess(0, 0), cudaSuccess);
    peer_copies(&t01, &t10, &both);
    Check("peer copy with peer access, 0->1, GB/s", m_.on_01_gbps, gb / (t01 / 1e3));
    Check("peer copy with peer access, 0->1, ms", m_.on_01_ms, t01);
    Check("peer copy with peer access, 1->0, GB/s", m_.on_10_gbps, gb / (t10 / 1e3));
    Check("with peer access, both at once, GB/s total", m_.on_both_gbps, 2 * gb / (both / 1e3));
    Check("with peer access, both at once, ms", m_.on_both_ms, both);

    {
        double t = NowMs();
        ASSERT_EQ(cudaMemcpyAsync(h, d0, B, cudaMemcpyDeviceToHost, s0), cudaSuccess);
        ASSERT_EQ(cudaStreamSynchronize(s0), cudaSuccess);
        ASSERT_EQ(cudaMemcpyAsync(d1b, h, B, cudaMemcpyHostToDevice, s1), cudaSuccess);
        ASSERT_EQ(cudaStreamSynchronize(s1), cudaSuccess);
        double ms = NowMs() - t;
        Check("staged by hand through pinned memory, GB/s", m_.staged_gbps, gb / (ms / 1e3));
        Check("staged by hand through pinned memory, ms", m_.staged_ms, ms);
    }
    {
        const double ns = 5e6;
        cudaEvent_t ev;
        ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
        ASSERT_EQ(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming), cudaSuccess);
        double t = NowMs();
        Spin(s0, ns);
        ASSERT_EQ(cudaStreamSynchronize(s0), cudaSuccess);
        Check("5 ms kernel, one GPU, ms", m_.k_one, NowMs() - t);
        t = NowMs();
        ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
        Spin(s0, ns);
        ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
        Spin(s1, ns);
        ASSERT_EQ(cudaStreamSynchronize(s0), cudaSuccess);
        ASSERT_EQ(cudaStreamSynchronize(s1), cudaSuccess);
        Check("5 ms kernel on each GPU at once, ms", m_.k_both, NowMs() - t);
        t = NowMs();
        ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
        Spin(s0, ns);
        ASSERT_EQ(cudaEventRecord(ev, s0), cudaSuccess);
        ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
        ASSERT_EQ(cudaStreamWaitEvent(s1, ev, 0), cudaSuccess);
        Spin(s1, ns);
        ASSERT_EQ(cudaStreamSynchronize(s1), cudaSuccess);
        Check("GPU 1's kernel waits for GPU 0's event, ms", m_.k_chained, NowMs() - t);
    }
    {
        const double ns = 10e6;
        ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
        double t = NowMs();
        Spin(s0, ns);
        ASSERT_EQ(cudaStreamSynchronize(s0), cudaSuccess);
        Check("10 ms kernel alone, ms", m_.k10, NowMs() - t);
        t = NowMs();
        ASSERT_EQ(cudaMemcpyPeerAsync(d1b, 1, d0, 0, B, s0b), cudaSuccess);
        ASSERT_EQ(cudaStreamSynchronize(s0b), cudaSuccess);
        Check("256 MiB peer copy alone, ms", m_.copy, NowMs() - t);
        t = NowMs();
        Spin(s0, ns);
        ASSERT_EQ(cudaMemcpyPeerAsync(d1b, 1, d0, 0, B, s0b), cudaSuccess);
        ASSERT_EQ(cudaStreamSynchronize(s0), cudaSuccess);
        ASSERT_EQ(cudaStreamSynchronize(s0b), cudaSuccess);
        Check("10 ms kernel and the peer copy on two streams, ms", m_.k10_copy, NowMs() - t);
    }
    {
        const int N = 24;
        const size_t b = 4ull << 20;
        const double ns = 100000;
        std::vector<cudaEvent_t> done(N);
        ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
        for (auto &e : done) ASSERT_EQ(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), cudaSuccess);
        double t = NowMs();
        for (int i = 0; i < N; i++) {
            ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
            Spin(s0, ns);
            ASSERT_EQ(cudaMemcpyPeerAsync((char *)d1b + i * b, 1, (char *)d0 + i * b, 0, b, s0), cudaSuccess);
            ASSERT_EQ(cudaStreamSynchronize(s0), cudaSuccess);
            ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
            Spin(s1, ns);
            ASSERT_EQ(cudaStreamSynchronize(s1), cudaSuccess);
        }
        double serial = NowMs() - t;
        Check("pipeline, host sync each batch, ms", m_.pipe_serial, serial);
        t = NowMs();
        for (int i = 0; i < N; i++) {
            ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
            Spin(s0, ns);
            ASSERT_EQ(cudaMemcpyPeerAsync((char *)d1b + i * b, 1, (char *)d0 + i * b, 0, b, s0), cudaSuccess);
            ASSERT_EQ(cudaEventRecord(done[i], s0), cudaSuccess);
            ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
            ASSERT_EQ(cudaStreamWaitEvent(s1, done[i], 0), cudaSuccess);
            Spin(s1, ns);
        }
        ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
        ASSERT_EQ(cudaStreamSynchronize(s1), cudaSuccess);
        double piped = NowMs() - t;
        Check("pipeline chained by events, ms", m_.pipe_events, piped);
        Check("pipeline speedup, x", m_.pipe_serial / m_.pipe_events, serial / piped);
    }
}

}  // namespace
