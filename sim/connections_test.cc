// sim/connections_test.cc: the device's hardware work queues (CUDA_DEVICE_MAX_CONNECTIONS,
// sim/core/connections.h). The classic demonstration (NVIDIA's simpleHyperQ sample): n
// streams, each a chain of two 1 ms one-block kernels (Ka, then Kb, which waits for Ka).
// Issued depth-first (s1: Ka Kb, s2: Ka Kb, ...), a stream that shares a queue with an
// earlier one finds its Ka behind that stream's Kb, which cannot start before its Ka ends:
// a false dependency. Issued breadth-first (all Ka, then all Kb) no Ka waits. Every figure
// here is what an H200 did (docs/calibration/h200_connections.md): 16 streams depth-first
// 3.06 ms with the default 8 queues, breadth-first 2.06 ms; with 1 queue 17.04 ms and
// 2.05 ms; with 16 queues 2.12 ms and 2.07 ms; with 4 queues 5.04 ms and 2.05 ms.
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "sim/core/scheduler.h"
#include "sim/test_support.h"

namespace {

using simtest::Capture;
using simtest::Spin;

const double kMs = 1e6;
// Launching 32 kernels, their device overhead and block turnaround: well under this.
const double kSlackNs = 0.2 * kMs;

// Sets CUDA_DEVICE_MAX_CONNECTIONS (or unsets it, for nullptr) and starts a fresh
// simulator, which reads it; puts the old value back at the end.
class Queues {
  public:
    explicit Queues(const char *value) {
        const char *old = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
        had_ = old != nullptr;
        if (old) old_ = old;
        if (value)
            setenv("CUDA_DEVICE_MAX_CONNECTIONS", value, 1);
        else
            unsetenv("CUDA_DEVICE_MAX_CONNECTIONS");
        simtest::Reset();
        // The device is set up at the first call.
        int n = 0;
        EXPECT_EQ(cudaGetDeviceCount(&n), cudaSuccess);
    }
    ~Queues() {
        if (had_)
            setenv("CUDA_DEVICE_MAX_CONNECTIONS", old_.c_str(), 1);
        else
            unsetenv("CUDA_DEVICE_MAX_CONNECTIONS");
        sim_reset();
    }

  private:
    bool had_ = false;
    std::string old_;
};

struct ChainRun {
    double span_ns;                // first kernel start to last kernel end
    std::vector<trace_op> ka, kb;  // per stream
};

// n streams, each Ka then Kb (ms each, one block), depth-first or breadth-first.
ChainRun Chains(int n, bool depth_first, double ms = 1.0) {
    Capture cap;
    std::vector<cudaStream_t> s(n);
    for (auto &x : s) EXPECT_EQ(cudaStreamCreate(&x), cudaSuccess);
    if (depth_first) {
        for (int i = 0; i < n; i++) {
            EXPECT_EQ(Spin(s[i], ms * kMs, 1, 32, "Ka"), cudaSuccess);
            EXPECT_EQ(Spin(s[i], ms * kMs, 1, 32, "Kb"), cudaSuccess);
        }
    } else {
        for (int i = 0; i < n; i++) EXPECT_EQ(Spin(s[i], ms * kMs, 1, 32, "Ka"), cudaSuccess);
        for (int i = 0; i < n; i++) EXPECT_EQ(Spin(s[i], ms * kMs, 1, 32, "Kb"), cudaSuccess);
    }
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    for (auto &x : s) EXPECT_EQ(cudaStreamDestroy(x), cudaSuccess);
    ChainRun r{};
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int i = 0; i < n; i++) {
        r.ka.push_back(cap.Kernel("Ka", i));
        r.kb.push_back(cap.Kernel("Kb", i));
    }
    for (const auto *v : {&r.ka, &r.kb})
        for (const trace_op &op : *v) {
            lo = std::min(lo, op.start_ns);
            hi = std::max(hi, op.end_ns);
        }
    r.span_ns = (double)(hi - lo);
    return r;
}

void ExpectSpan(const ChainRun &r, double ms, const char *what) {
    EXPECT_GE(r.span_ns, ms * kMs) << what;
    EXPECT_LE(r.span_ns, ms * kMs + kSlackNs) << what;
}

TEST(Connections, DefaultIsTheProfilesEight) {
    Queues c(nullptr);
    EXPECT_EQ(simtest::Profile().max_connections, 8);
    EXPECT_EQ(sim_sched_connections(), 8u);
}

TEST(Connections, SixteenStreamsDepthFirstShareEightQueues) {
    Queues c(nullptr);
    ChainRun depth = Chains(16, true);
    // s9..s16 each share a queue with one of s1..s8: their Ka starts when that stream's Kb
    // starts, 1 ms in; their Kb 1 ms later: 3 ms in all.
    ExpectSpan(depth, 3.0, "16 streams depth-first, 8 queues");
    for (int i = 8; i < 16; i++) EXPECT_GE(depth.ka[i].start_ns, depth.ka[0].end_ns) << "s" << i + 1 << " waited";
    for (int i = 0; i < 8; i++) EXPECT_LT(depth.ka[i].start_ns, depth.ka[0].end_ns) << "s" << i + 1 << " did not";
    ChainRun breadth = Chains(16, false);
    ExpectSpan(breadth, 2.0, "16 streams breadth-first, 8 queues");
}

TEST(Connections, EightStreamsDepthFirstDoNotWait) {
    Queues c(nullptr);
    ExpectSpan(Chains(8, true), 2.0, "8 streams depth-first, 8 queues");
}

TEST(Connections, ThirtyTwoStreamsDepthFirstQueueFourDeep) {
    Queues c(nullptr);
    ExpectSpan(Chains(32, true), 5.0, "32 streams depth-first, 8 queues");
    ExpectSpan(Chains(32, false), 2.0, "32 streams breadth-first, 8 queues");
}

TEST(Connections, SixteenQueuesRemoveTheFalseDependency) {
    Queues c("16");
    EXPECT_EQ(sim_sched_connections(), 16u);
    ExpectSpan(Chains(16, true), 2.0, "16 streams depth-first, 16 queues");
    ExpectSpan(Chains(16, false), 2.0, "16 streams breadth-first, 16 queues");
}

TEST(Connections, FourQueues) {
    Queues c("4");
    ExpectSpan(Chains(16, true), 5.0, "16 streams depth-first, 4 queues");
    ExpectSpan(Chains(16, false), 2.0, "16 streams breadth-first, 4 queues");
}

// One queue: depth-first, each Ka waits for the Kb before it to start (which waits for its
// own Ka), so a stream's Kb runs beside the next stream's Ka: 17 ms for 16 streams, not
// 32. Breadth-first, the 16 Ka are neighbours with no dependency between them and all
// start at once; so do the Kb: 2 ms.
TEST(Connections, OneQueue) {
    Queues c("1");
    ChainRun depth = Chains(16, true);
    ExpectSpan(depth, 17.0, "16 streams depth-first, 1 queue");
    for (int i = 1; i < 16; i++) {
        EXPECT_GE(depth.ka[i].start_ns, depth.kb[i - 1].start_ns) << "s" << i + 1;
        EXPECT_LT(depth.ka[i].start_ns, depth.kb[i - 1].end_ns) << "s" << i + 1 << " runs beside the Kb before it";
    }
    ExpectSpan(Chains(16, false), 2.0, "16 streams breadth-first, 1 queue");
}

TEST(Connections, EnvironmentValuesOutsideTheRange) {
    {
        Queues c("64");
        EXPECT_EQ(sim_sched_connections(), 32u);
    }
    {
        Queues c("0");
        EXPECT_EQ(sim_sched_connections(), 1u);
    }
    {
        Queues c("many");
        EXPECT_EQ(sim_sched_connections(), 8u) << "not a number: the profile's";
    }
}

// sim_reset reads the variable again.
TEST(Connections, ResetReadsTheVariableAgain) {
    Queues c("2");
    EXPECT_EQ(sim_sched_connections(), 2u);
    setenv("CUDA_DEVICE_MAX_CONNECTIONS", "5", 1);
    simtest::Reset();
    int n = 0;
    EXPECT_EQ(cudaGetDeviceCount(&n), cudaSuccess);
    EXPECT_EQ(sim_sched_connections(), 5u);
}

// Blocks queue q's streams: each stream in `streams` runs a kernel of ms[i] then a
// dependent tiny one, so its queue is held until the long one ends. Then `probe` runs a
// tiny kernel; returns when it started, from the first long kernel's start.
double ProbeStart(const std::vector<cudaStream_t> &streams, const std::vector<double> &ms, cudaStream_t probe) {
    Capture cap;
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    for (size_t i = 0; i < streams.size(); i++) {
        EXPECT_EQ(Spin(streams[i], ms[i] * kMs, 1, 32, "long"), cudaSuccess);
        EXPECT_EQ(Spin(streams[i], 1000, 1, 32, "tail"), cudaSuccess);
    }
    EXPECT_EQ(Spin(probe, 1000, 1, 32, "probe"), cudaSuccess);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    return (double)(cap.Kernel("probe").start_ns - cap.Kernel("long").start_ns) / kMs;
}

// A stream is bound to a queue when work reaches it while it has none outstanding: to a
// free queue if there is one, else to the one with the least outstanding work (the
// lowest-numbered on a tie). So an idle stream does not wait while a queue is free, as on
// the H200, where a static round robin by creation order would have made s9 wait for s1.
TEST(Connections, AnIdleStreamTakesAFreeQueue) {
    Queues c(nullptr);
    std::vector<cudaStream_t> s(20);
    for (auto &x : s) EXPECT_EQ(cudaStreamCreate(&x), cudaSuccess);
    std::vector<cudaStream_t> seven(s.begin(), s.begin() + 7), eight(s.begin(), s.begin() + 8);
    EXPECT_LT(ProbeStart(seven, std::vector<double>(7, 20.0), s[8]), 0.1) << "7 queues held: s9 takes the 8th";
    EXPECT_GE(ProbeStart(eight, std::vector<double>(8, 20.0), s[8]), 20.0) << "8 queues held: s9 waits";
    // Held for 11..18 ms: the probe joins the queue that s1 holds (11 ms), every time.
    std::vector<double> stair = {11, 12, 13, 14, 15, 16, 17, 18};
    for (int r = 0; r < 2; r++) {
        double t = ProbeStart(eight, stair, s[8 + r]);
        EXPECT_GE(t, 11.0);
        EXPECT_LT(t, 11.1);
    }
    for (auto &x : s) EXPECT_EQ(cudaStreamDestroy(x), cudaSuccess);
}

// Copies, memsets and event waits go through the same queues: with one queue, a copy on
// another stream waits behind a kernel whose stream dependency is not met (as on the H200:
// a 4 KiB upload on s2 behind s1's 20 ms kernel and its dependent tail took 20.01 ms), and
// so does a kernel behind a stream wait (or the kernel after it) on an event not yet
// recorded.
TEST(Connections, CopiesAndWaitsShareTheQueues) {
    for (const char *value : {"1", (const char *)nullptr}) {
        Queues c(value);
        bool one = value != nullptr;
        cudaStream_t a, b, third;
        EXPECT_EQ(cudaStreamCreate(&a), cudaSuccess);
        EXPECT_EQ(cudaStreamCreate(&b), cudaSuccess);
        EXPECT_EQ(cudaStreamCreate(&third), cudaSuccess);
        void *h = nullptr, *d = nullptr;
        EXPECT_EQ(cudaMallocHost(&h, 4096), cudaSuccess);
        EXPECT_EQ(cudaMalloc(&d, 4096), cudaSuccess);
        {
            Capture cap;
            EXPECT_EQ(Spin(a, 20 * kMs, 1, 32, "long"), cudaSuccess);
            EXPECT_EQ(Spin(a, 1000, 1, 32, "tail"), cudaSuccess);
            EXPECT_EQ(cudaMemcpyAsync(d, h, 4096, cudaMemcpyHostToDevice, b), cudaSuccess);
            EXPECT_EQ(cudaMemsetAsync(d, 0, 4096, b), cudaSuccess);
            EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
            trace_op copy = cap.Of(TRACE_OP_COPY).at(0), memset = cap.Of(TRACE_OP_MEMSET).at(0);
            uint64_t t0 = cap.Kernel("long").start_ns;
            EXPECT_EQ(copy.start_ns >= t0 + simtest::Ns(20 * kMs), one) << (one ? "1 queue" : "8 queues");
            EXPECT_EQ(memset.start_ns >= t0 + simtest::Ns(20 * kMs), one);
        }
        {
            // An event wait at the head of a queue holds it too.
            Capture cap;
            cudaEvent_t e;
            EXPECT_EQ(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), cudaSuccess);
            EXPECT_EQ(Spin(third, 20 * kMs, 1, 32, "long"), cudaSuccess);
            EXPECT_EQ(cudaEventRecord(e, third), cudaSuccess);
            EXPECT_EQ(cudaStreamWaitEvent(a, e, 0), cudaSuccess);
            EXPECT_EQ(Spin(a, 1000, 1, 32, "after_wait"), cudaSuccess);
            EXPECT_EQ(Spin(b, 1000, 1, 32, "behind"), cudaSuccess);
            EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
            uint64_t t0 = cap.Kernel("long").start_ns;
            EXPECT_EQ(cap.Kernel("behind").start_ns >= t0 + simtest::Ns(20 * kMs), one);
            EXPECT_EQ(cudaEventDestroy(e), cudaSuccess);
        }
        EXPECT_EQ(cudaFreeHost(h), cudaSuccess);
        EXPECT_EQ(cudaFree(d), cudaSuccess);
        for (cudaStream_t x : {a, b, third}) EXPECT_EQ(cudaStreamDestroy(x), cudaSuccess);
    }
}

// Which ops hold their queue while they wait for the op before them in their stream: with
// one queue, s1 runs a 20 ms kernel and then the op; s2 then runs a tiny kernel. On the
// H200, s2 waited 20 ms behind a kernel, a timing event's record, a memset, a
// device-to-device copy and a host function, and not behind an upload, a download or a
// record of an event created with cudaEventDisableTiming.
TEST(Connections, WhichOpsHoldTheQueue) {
    Queues c("1");
    cudaStream_t s1, s2;
    EXPECT_EQ(cudaStreamCreate(&s1), cudaSuccess);
    EXPECT_EQ(cudaStreamCreate(&s2), cudaSuccess);
    cudaEvent_t timed, untimed;
    EXPECT_EQ(cudaEventCreate(&timed), cudaSuccess);
    EXPECT_EQ(cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming), cudaSuccess);
    const size_t kBytes = 1 << 20;
    void *h = nullptr, *d = nullptr, *d2 = nullptr;
    EXPECT_EQ(cudaMallocHost(&h, kBytes), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&d, kBytes), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&d2, kBytes), cudaSuccess);
    struct Case {
        const char *what;
        bool holds;
        std::function<cudaError_t()> op;
    };
    std::vector<Case> cases = {
        {"kernel", true, [&] { return Spin(s1, 1000, 1, 32, "x"); }},
        {"timing event record", true, [&] { return cudaEventRecord(timed, s1); }},
        {"memset", true, [&] { return cudaMemsetAsync(d, 0, kBytes, s1); }},
        {"device-to-device copy", true, [&] { return cudaMemcpyAsync(d2, d, kBytes, cudaMemcpyDeviceToDevice, s1); }},
        {"host function", true, [&] { return cudaLaunchHostFunc(s1, [](void *) {}, nullptr); }},
        {"upload", false, [&] { return cudaMemcpyAsync(d, h, kBytes, cudaMemcpyHostToDevice, s1); }},
        {"download", false, [&] { return cudaMemcpyAsync(h, d, kBytes, cudaMemcpyDeviceToHost, s1); }},
        {"record without timing", false, [&] { return cudaEventRecord(untimed, s1); }},
    };
    for (const Case &k : cases) {
        Capture cap;
        EXPECT_EQ(Spin(s1, 20 * kMs, 1, 32, "long"), cudaSuccess);
        EXPECT_EQ(k.op(), cudaSuccess) << k.what;
        EXPECT_EQ(Spin(s2, 1000, 1, 32, "probe"), cudaSuccess);
        EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        bool waited = cap.Kernel("probe").start_ns >= cap.Kernel("long").end_ns;
        EXPECT_EQ(waited, k.holds) << k.what;
    }
    EXPECT_EQ(cudaFreeHost(h), cudaSuccess);
    EXPECT_EQ(cudaFree(d), cudaSuccess);
    EXPECT_EQ(cudaFree(d2), cudaSuccess);
    EXPECT_EQ(cudaEventDestroy(timed), cudaSuccess);
    EXPECT_EQ(cudaEventDestroy(untimed), cudaSuccess);
    EXPECT_EQ(cudaStreamDestroy(s1), cudaSuccess);
    EXPECT_EQ(cudaStreamDestroy(s2), cudaSuccess);
}

TEST(Connections, Deterministic) {
    Queues c(nullptr);
    ChainRun first = Chains(24, true);
    Queues again(nullptr);
    ChainRun second = Chains(24, true);
    ASSERT_EQ(first.ka.size(), second.ka.size());
    for (size_t i = 0; i < first.ka.size(); i++) {
        EXPECT_EQ(first.ka[i].start_ns, second.ka[i].start_ns);
        EXPECT_EQ(first.kb[i].end_ns, second.kb[i].end_ns);
    }
}

}  // namespace
