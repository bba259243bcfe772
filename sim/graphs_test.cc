// sim/graphs_test.cc: CUDA graphs made by stream capture. Captured work does not run and
// is not recorded until the graph is launched; a launch runs the whole graph in its
// stream's order (after what precedes it, before what follows), its branches
// concurrently on internal streams that the trace names "graph branch N", and the trace
// sees every node and the events between branches; the costs (2000 tiny kernels as direct
// launches and as one graph, a graph's work reaching the device its own submit latency
// after the launch) follow the profile; cudaGraphGetNodes counts the nodes; runs
// are deterministic; a kernel node launched after its memory was freed faults.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "sim/test_support.h"

namespace {

using simtest::Capture;
using simtest::Profile;
using simtest::Reset;
using simtest::Spin;

const double kUs = 1e3;
const double kMs = 1e6;

#define CK(x) ASSERT_EQ((x), cudaSuccess) << #x

// probe2's `tiny`: x[threadIdx.x] += 1.0f, one block of 32 threads.
cudaError_t Tiny(float *x, cudaStream_t s) {
    sim_kernel_launch l{};
    l.name = "tiny";
    l.grid = dim3(1);
    l.block = dim3(32);
    l.cost.fp32_ops = 32;
    l.cost.chain_ops = 1;
    l.cost.dram_bytes = 32 * 8;
    l.n_ranges = 1;
    l.ranges[0] = {(uint64_t)(uintptr_t)x, 32 * 4, TRACE_RANGE_READ | TRACE_RANGE_WRITE};
    return sim_launch_kernel(&l, s);
}

// What probe2.cu did: 2000 tiny kernels launched directly, then captured as one graph and
// launched (after a warm-up launch), each timed from the first call to the end of the
// stream synchronisation. In ms of virtual time.
struct TinyTimes {
    double direct, graph;
};

TinyTimes TinyKernels(const char *profile) {
    Reset(profile);
    TinyTimes r{0, 0};
    float *x = nullptr;
    EXPECT_EQ(cudaMalloc((void **)&x, 4096), cudaSuccess);
    cudaStream_t s;
    EXPECT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    for (int i = 0; i < 2000; ++i) EXPECT_EQ(Tiny(x, s), cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    uint64_t t0 = sim_now_ns();
    for (int i = 0; i < 2000; ++i) EXPECT_EQ(Tiny(x, s), cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    r.direct = (double)(sim_now_ns() - t0) / kMs;
    cudaGraph_t g;
    cudaGraphExec_t ge;
    EXPECT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    for (int i = 0; i < 2000; ++i) EXPECT_EQ(Tiny(x, s), cudaSuccess);
    EXPECT_EQ(cudaStreamEndCapture(s, &g), cudaSuccess);
    EXPECT_EQ(cudaGraphInstantiate(&ge, g, 0), cudaSuccess);
    EXPECT_EQ(cudaGraphLaunch(ge, s), cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    t0 = sim_now_ns();
    EXPECT_EQ(cudaGraphLaunch(ge, s), cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    r.graph = (double)(sim_now_ns() - t0) / kMs;
    EXPECT_EQ(cudaGraphExecDestroy(ge), cudaSuccess);
    EXPECT_EQ(cudaGraphDestroy(g), cudaSuccess);
    std::printf("%s: 2000 tiny kernels: direct %.3f ms, graph %.3f ms (%.2fx)\n", profile, r.direct, r.graph,
                r.direct / r.graph);
    return r;
}

TEST(Graphs, TinyKernelsAsAGraphMatchTheH200) {
    // ../shared/calibration/h200.md, "Launches and graphs": 5.33 ms vs 2.03 ms.
    TinyTimes t = TinyKernels("h200");
    EXPECT_NEAR(t.direct, 5.33, 0.533);
    EXPECT_NEAR(t.graph, 2.03, 0.203);
}

TEST(Graphs, TinyKernelsAsAGraphOnTheH100Profile) {
    // The same probe on a lent H100 (docs/calibration/graph_probe.cu, docs/calibration.md
    // "Graphs"): direct 7.21 and 6.30 ms in two runs, one graph 2.21 ms in both.
    TinyTimes t = TinyKernels("h100");
    EXPECT_GE(t.direct, 6.30 * 0.9);
    EXPECT_LE(t.direct, 7.21 * 1.1);
    EXPECT_NEAR(t.graph, 2.21, 0.221);
}

TEST(Graphs, CapturedWorkDoesNotRunAndIsNotRecordedUntilLaunched) {
    Reset();
    Capture cap;
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    float *d, *h;
    CK(cudaMalloc((void **)&d, 4096));
    CK(cudaMallocHost((void **)&h, 4096));
    h[0] = 7;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    uint64_t t0 = sim_now_ns();
    CK(cudaMemsetAsync(d, 0, 4096, s));
    CK(cudaMemcpyAsync(d, h, 4096, cudaMemcpyHostToDevice, s));
    CK(Spin(s, 1 * kMs, 1, 32, "k"));
    CK(cudaMemcpyAsync(h + 1, d, 4, cudaMemcpyDeviceToHost, s));
    uint64_t captured_ns = sim_now_ns() - t0;
    EXPECT_DOUBLE_EQ((double)captured_ns, 4 * Profile().capture_call_ns) << "capture charges capture_call_ns a call";
    enum cudaStreamCaptureStatus st;
    CK(cudaStreamIsCapturing(s, &st));
    EXPECT_EQ(st, cudaStreamCaptureStatusActive);
    cudaGraph_t g;
    CK(cudaStreamEndCapture(s, &g));
    CK(cudaStreamIsCapturing(s, &st));
    EXPECT_EQ(st, cudaStreamCaptureStatusNone);
    EXPECT_TRUE(cap.Of(TRACE_OP_KERNEL).empty());
    EXPECT_TRUE(cap.Of(TRACE_OP_COPY).empty());
    EXPECT_TRUE(cap.Of(TRACE_OP_MEMSET).empty());
    CK(cudaStreamSynchronize(s));
    EXPECT_EQ(h[1], 0.0f) << "nothing ran";
    size_t n = 0;
    CK(cudaGraphGetNodes(g, nullptr, &n));
    EXPECT_EQ(n, 4u);
    cudaGraphNode_t nodes[6];
    n = 6;
    CK(cudaGraphGetNodes(g, nodes, &n));
    EXPECT_EQ(n, 4u);
    EXPECT_EQ(nodes[5], nullptr);
    cudaGraphExec_t ge;
    CK(cudaGraphInstantiate(&ge, g, 0));
    CK(cudaGraphDestroy(g));  // the executable graph keeps its own copy
    CK(cudaGraphLaunch(ge, s));
    CK(cudaStreamSynchronize(s));
    EXPECT_EQ(h[1], 7.0f) << "the graph moved the data";
    ASSERT_EQ(cap.Of(TRACE_OP_KERNEL).size(), 1u);
    ASSERT_EQ(cap.Of(TRACE_OP_COPY).size(), 2u);
    ASSERT_EQ(cap.Of(TRACE_OP_MEMSET).size(), 1u);
    trace_op k = cap.Kernel("k");
    EXPECT_TRUE(k.timed);
    EXPECT_EQ(k.stream, trace_stream_id(s)) << "the origin stream's nodes run on the launch stream";
    CK(cudaGraphExecDestroy(ge));
    CK(cudaFree(d));
    CK(cudaFreeHost(h));
}

// A kernel that writes 1 to x[0] and counts its runs.
int g_pokes = 0;
void PokeBody(const void *args, uint32_t, uint32_t) {
    int *x;
    memcpy(&x, args, sizeof(x));
    *x = 1;
    g_pokes++;
}

cudaError_t Poke(int *x, cudaStream_t s) {
    sim_kernel_launch l{};
    l.name = "poke";
    l.grid = dim3(1);
    l.block = dim3(1);
    l.body = PokeBody;
    l.args = &x;
    l.args_size = sizeof(x);
    l.n_ranges = 1;
    l.ranges[0] = {(uint64_t)(uintptr_t)x, sizeof(int), TRACE_RANGE_WRITE};
    return sim_launch_kernel(&l, s);
}

// A graph keeps the addresses it was captured with. Launched after the memory its kernel
// was captured on was freed, the kernel faults as one launched on freed memory does: the
// launch returns, the fault is sticky (cudaErrorIllegalAddress), and its body never runs
// on the freed memory (which the process no longer has: running it would crash).
TEST(Graphs, AKernelNodeOnMemoryFreedSinceCaptureFaults) {
    Reset();
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    int *x;
    CK(cudaMalloc((void **)&x, 1 << 20));
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CK(Poke(x, s));
    cudaGraph_t g;
    CK(cudaStreamEndCapture(s, &g));
    cudaGraphExec_t ge;
    CK(cudaGraphInstantiate(&ge, g, 0));
    g_pokes = 0;
    CK(cudaGraphLaunch(ge, s));
    CK(cudaStreamSynchronize(s));
    EXPECT_EQ(g_pokes, 1) << "on live memory the node runs";
    CK(cudaFree(x));
    EXPECT_EQ(cudaGraphLaunch(ge, s), cudaSuccess) << "the launch itself succeeds, as on a GPU";
    EXPECT_EQ(cudaStreamSynchronize(s), cudaErrorIllegalAddress);
    EXPECT_EQ(g_pokes, 1) << "the body did not run on freed memory";
    EXPECT_EQ(cudaGetLastError(), cudaErrorIllegalAddress);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorIllegalAddress) << "sticky";
    Reset();
}

TEST(Graphs, ALaunchRunsInItsStreamsOrder) {
    Reset();
    Capture cap;
    cudaStream_t s, other;
    CK(cudaStreamCreate(&s));
    CK(cudaStreamCreate(&other));
    CK(cudaStreamBeginCapture(other, cudaStreamCaptureModeGlobal));
    CK(Spin(other, 1 * kMs, 1, 32, "g1"));
    CK(Spin(other, 1 * kMs, 1, 32, "g2"));
    cudaGraph_t g;
    CK(cudaStreamEndCapture(other, &g));
    cudaGraphExec_t ge;
    CK(cudaGraphInstantiate(&ge, g, 0));
    CK(Spin(s, 2 * kMs, 1, 32, "before"));
    CK(cudaGraphLaunch(ge, s));
    CK(Spin(s, 1 * kMs, 1, 32, "after"));
    CK(cudaStreamSynchronize(s));
    trace_op before = cap.Kernel("before"), g1 = cap.Kernel("g1"), g2 = cap.Kernel("g2"), after = cap.Kernel("after");
    EXPECT_GE(g1.start_ns, before.end_ns);
    EXPECT_GE(g2.start_ns, g1.end_ns);
    EXPECT_GE(after.start_ns, g2.end_ns);
    // A graph kernel's device overhead is graph_kernel_overhead_ns.
    EXPECT_GE(g2.start_ns - g1.end_ns, simtest::Ns(Profile().graph_kernel_overhead_ns));
    EXPECT_LT(g2.start_ns - g1.end_ns, simtest::Ns(Profile().kernel_overhead_ns));
}

// Fork and join: s forks to s2 through an event, both run a kernel, s2 joins back.
void ForkJoinCapture(cudaStream_t s, cudaStream_t s2, cudaEvent_t fork, cudaEvent_t join, bool rejoin) {
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CK(Spin(s, 0.1 * kMs, 1, 32, "first"));
    CK(cudaEventRecord(fork, s));
    CK(cudaStreamWaitEvent(s2, fork, 0));
    enum cudaStreamCaptureStatus st;
    CK(cudaStreamIsCapturing(s2, &st));
    EXPECT_EQ(st, cudaStreamCaptureStatusActive) << "s2 joined the capture";
    CK(Spin(s, 2 * kMs, 1, 32, "main"));
    CK(Spin(s2, 2 * kMs, 1, 32, "side"));
    if (rejoin) {
        CK(cudaEventRecord(join, s2));
        CK(cudaStreamWaitEvent(s, join, 0));
        CK(Spin(s, 0.1 * kMs, 1, 32, "last"));
    }
}

TEST(Graphs, BranchesOfAMultiStreamCaptureRunConcurrently) {
    Reset();
    Capture cap;
    cudaStream_t s, s2;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    cudaEvent_t fork, join;
    CK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    CK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
    ForkJoinCapture(s, s2, fork, join, true);
    cudaGraph_t g;
    CK(cudaStreamEndCapture(s, &g));
    enum cudaStreamCaptureStatus st;
    CK(cudaStreamIsCapturing(s2, &st));
    EXPECT_EQ(st, cudaStreamCaptureStatusNone) << "the capture ended for every stream in it";
    size_t n = 0;
    CK(cudaGraphGetNodes(g, nullptr, &n));
    EXPECT_EQ(n, 4u) << "event records and waits make no nodes";
    cudaGraphExec_t ge;
    CK(cudaGraphInstantiate(&ge, g, 0));
    cudaStream_t ls;
    CK(cudaStreamCreateWithFlags(&ls, cudaStreamNonBlocking));
    CK(cudaGraphLaunch(ge, ls));
    CK(Spin(ls, 0.1 * kMs, 1, 32, "after"));
    CK(cudaStreamSynchronize(ls));
    trace_op first = cap.Kernel("first"), main_k = cap.Kernel("main"), side = cap.Kernel("side"),
             last = cap.Kernel("last"), after = cap.Kernel("after");
    EXPECT_EQ(main_k.stream, trace_stream_id(ls));
    EXPECT_NE(side.stream, trace_stream_id(ls));
    const trace_stream *branch = trace_stream_get(side.stream);
    ASSERT_NE(branch, nullptr);
    // Named after the program's stream whose captured calls made the branch (s2, the
    // second stream the test made), which a report can name; its own stream is the graph's.
    char want[32];
    snprintf(want, sizeof(want), "s%d (graph)", trace_stream_id(s2));
    EXPECT_STREQ(branch->name, want);
    EXPECT_EQ(branch->graph_branch, 1u) << "the recorder knows the stream as the graph's branch 1";
    EXPECT_EQ(side.graph_launch, main_k.graph_launch) << "both nodes came from one launch";
    EXPECT_NE(side.graph_launch, 0u);
    EXPECT_EQ(side.graph_stream, trace_stream_id(ls)) << "the stream the graph was launched into";
    EXPECT_EQ(side.graph_origin, trace_stream_id(s2)) << "the captured stream that made the node";
    EXPECT_EQ(main_k.graph_origin, trace_stream_id(s)) << "the capture's origin stream";
    EXPECT_EQ(after.graph_launch, 0u) << "work launched directly is no graph's node";
    const trace_stream *launch = trace_stream_get(main_k.stream);
    ASSERT_NE(launch, nullptr);
    EXPECT_EQ(launch->graph_branch, 0u) << "the launch stream is the program's";
    EXPECT_GE(side.start_ns, first.end_ns);
    EXPECT_LT(side.start_ns, main_k.end_ns) << "the branches overlap";
    EXPECT_LT(main_k.start_ns, side.end_ns);
    EXPECT_GE(last.start_ns, side.end_ns);
    EXPECT_GE(last.start_ns, main_k.end_ns);
    EXPECT_GE(after.start_ns, last.end_ns);
    EXPECT_LT((double)(last.end_ns - first.start_ns), 3 * kMs);
    // The race checker's view: the events between the branches are in the trace.
    EXPECT_GE(cap.Of(TRACE_OP_EVENT_RECORD).size(), 3u);  // fork, first's record, side's join
    EXPECT_GE(cap.Of(TRACE_OP_EVENT_WAIT).size(), 3u);
    for (const trace_op &op : cap.Of(TRACE_OP_EVENT_WAIT)) EXPECT_TRUE(op.timed);
    CK(cudaGraphExecDestroy(ge));
    CK(cudaGraphDestroy(g));
}

TEST(Graphs, EndCaptureFailsWhenAJoinedStreamWasNotJoinedBack) {
    Reset();
    cudaStream_t s, s2;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    cudaEvent_t fork, join;
    CK(cudaEventCreate(&fork));
    CK(cudaEventCreate(&join));
    ForkJoinCapture(s, s2, fork, join, false);
    cudaGraph_t g = (cudaGraph_t)0x1;
    EXPECT_EQ(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureUnjoined);
    EXPECT_EQ(g, nullptr);
    enum cudaStreamCaptureStatus st;
    CK(cudaStreamIsCapturing(s2, &st));
    EXPECT_EQ(st, cudaStreamCaptureStatusNone);
    CK(cudaStreamSynchronize(s2));
}

TEST(Graphs, EndCaptureOnAJoinedStreamIsUnmatched) {
    Reset();
    cudaStream_t s, s2;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    cudaEvent_t fork, join;
    CK(cudaEventCreate(&fork));
    CK(cudaEventCreate(&join));
    ForkJoinCapture(s, s2, fork, join, true);
    cudaGraph_t g;
    EXPECT_EQ(cudaStreamEndCapture(s2, &g), cudaErrorStreamCaptureUnmatched);
    EXPECT_EQ(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated);
}

TEST(Graphs, LaunchesOfOneGraphAreOrdered) {
    Reset();
    Capture cap;
    cudaStream_t a, b;
    CK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
    CK(cudaStreamBeginCapture(a, cudaStreamCaptureModeGlobal));
    CK(Spin(a, 1 * kMs, 1, 32, "g"));
    cudaGraph_t g;
    CK(cudaStreamEndCapture(a, &g));
    cudaGraphExec_t ge;
    CK(cudaGraphInstantiate(&ge, g, 0));
    CK(cudaGraphLaunch(ge, a));
    CK(cudaGraphLaunch(ge, b));
    CK(cudaDeviceSynchronize());
    trace_op g0 = cap.Kernel("g", 0), g1 = cap.Kernel("g", 1);
    EXPECT_EQ(g1.stream, trace_stream_id(b));
    EXPECT_GE(g1.start_ns, g0.end_ns);
}

// A graph launch hands the device its work graph_submit_latency_ns after the call returns
// (about 0.9 us sooner than a kernel launch's submit_latency_ns on lent H200s: the
// graph_sync_loop figure of //sim:calibrate), and its kernel node then pays
// graph_kernel_overhead_ns where a kernel launched alone pays kernel_overhead_ns.
TEST(Graphs, AGraphsWorkReachesTheDeviceAfterItsOwnSubmitLatency) {
    Reset("h200");
    const sim_profile &p = simtest::Profile();
    ASSERT_LT(p.graph_submit_latency_ns, p.submit_latency_ns - 500);
    Capture cap;
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CK(Spin(s, 20 * kUs, 1, 32, "node"));
    cudaGraph_t g;
    CK(cudaStreamEndCapture(s, &g));
    cudaGraphExec_t ge;
    CK(cudaGraphInstantiate(&ge, g, 0));
    CK(cudaGraphLaunch(ge, s)); /* the first launch, untimed */
    CK(cudaStreamSynchronize(s));
    CK(Spin(s, 20 * kUs, 1, 32, "direct"));
    const uint64_t direct_back = sim_now_ns();
    CK(cudaStreamSynchronize(s));
    CK(cudaGraphLaunch(ge, s));
    const uint64_t graph_back = sim_now_ns();
    CK(cudaStreamSynchronize(s));
    const trace_op direct = cap.Kernel("direct"), node = cap.Kernel("node", 1);
    ASSERT_TRUE(direct.timed && node.timed);
    // Each after an idle of under 10 us, whose wake-up is under 75 ns (wake_curve).
    EXPECT_NEAR(static_cast<double>(direct.start_ns - direct_back), p.submit_latency_ns + p.kernel_overhead_ns, 75);
    EXPECT_NEAR(static_cast<double>(node.start_ns - graph_back), p.graph_submit_latency_ns + p.graph_kernel_overhead_ns,
                75);
}

TEST(Graphs, InvalidHandlesAndArguments) {
    Reset();
    cudaGraphExec_t ge;
    EXPECT_EQ(cudaGraphInstantiate(&ge, (cudaGraph_t)0x1234, 0), cudaErrorInvalidValue);
    EXPECT_EQ(cudaGraphLaunch((cudaGraphExec_t)0x1234, 0), cudaErrorInvalidValue);
    EXPECT_EQ(cudaGraphDestroy((cudaGraph_t)0x1234), cudaErrorInvalidValue);
    EXPECT_EQ(cudaGraphExecDestroy((cudaGraphExec_t)0x1234), cudaErrorInvalidValue);
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    cudaGraph_t g;
    CK(cudaStreamEndCapture(s, &g));
    EXPECT_EQ(cudaGraphInstantiate(nullptr, g, 0), cudaErrorInvalidValue);
    EXPECT_EQ(cudaGraphInstantiate(&ge, g, 1ull << 40), cudaErrorInvalidValue);
    CK(cudaGraphInstantiate(&ge, g, 0));
    CK(cudaGraphLaunch(ge, s));  // an empty graph
    CK(cudaStreamSynchronize(s));
    CK(cudaGraphDestroy(g));
    EXPECT_EQ(cudaGraphDestroy(g), cudaErrorInvalidValue) << "twice";
    CK(cudaGraphExecDestroy(ge));
    EXPECT_EQ(cudaGraphLaunch(ge, s), cudaErrorInvalidValue) << "destroyed";
}

std::vector<std::string> GraphTimeline() {
    Reset();
    Capture cap;
    cudaStream_t s, s2;
    EXPECT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    EXPECT_EQ(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), cudaSuccess);
    cudaEvent_t fork, join;
    EXPECT_EQ(cudaEventCreate(&fork), cudaSuccess);
    EXPECT_EQ(cudaEventCreate(&join), cudaSuccess);
    ForkJoinCapture(s, s2, fork, join, true);
    cudaGraph_t g;
    cudaGraphExec_t ge;
    EXPECT_EQ(cudaStreamEndCapture(s, &g), cudaSuccess);
    EXPECT_EQ(cudaGraphInstantiate(&ge, g, 0), cudaSuccess);
    for (int i = 0; i < 3; ++i) EXPECT_EQ(cudaGraphLaunch(ge, s), cudaSuccess);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<std::string> out;
    for (const auto &kv : cap.ops())
        out.push_back(std::to_string(kv.second.kind) + ":" + kv.second.name + ":" + std::to_string(kv.second.stream) +
                      ":" + std::to_string(kv.second.start_ns) + "-" + std::to_string(kv.second.end_ns));
    return out;
}

TEST(Graphs, LaunchesAreDeterministic) {
    std::vector<std::string> a = GraphTimeline(), b = GraphTimeline();
    EXPECT_EQ(a, b);
    EXPECT_GT(a.size(), 12u);
}

// A graph replays raw pointers. A kernel node whose buffer was freed after the capture
// faults the device at launch, as a direct launch on freed memory does (an illegal address,
// sticky), and its body does not run on what is now the host's memory; a buffer allocated
// again at the same place is device memory again, and the replay runs.
int g_tiny_bodies = 0;
void CountBody(const void *args, uint32_t block_begin, uint32_t block_end) {
    (void)args;
    g_tiny_bodies += (int)(block_end - block_begin);
}

cudaError_t CountedTiny(float *x, cudaStream_t s) {
    sim_kernel_launch l{};
    l.name = "tiny";
    l.grid = dim3(1);
    l.block = dim3(32);
    l.cost.fp32_ops = 32;
    l.body = CountBody;
    l.n_ranges = 1;
    l.ranges[0] = {(uint64_t)(uintptr_t)x, 32 * 4, TRACE_RANGE_READ | TRACE_RANGE_WRITE};
    return sim_launch_kernel(&l, s);
}

// A graph of one counted kernel on a fresh 4 KiB buffer *x, made on a new stream *s.
cudaGraphExec_t CountedGraph(float **x, cudaStream_t *s) {
    cudaGraph_t g;
    cudaGraphExec_t ge = nullptr;
    EXPECT_EQ(cudaMalloc((void **)x, 4096), cudaSuccess);
    EXPECT_EQ(cudaStreamCreateWithFlags(s, cudaStreamNonBlocking), cudaSuccess);
    EXPECT_EQ(cudaStreamBeginCapture(*s, cudaStreamCaptureModeGlobal), cudaSuccess);
    EXPECT_EQ(CountedTiny(*x, *s), cudaSuccess);
    EXPECT_EQ(cudaStreamEndCapture(*s, &g), cudaSuccess);
    EXPECT_EQ(cudaGraphInstantiate(&ge, g, 0), cudaSuccess);
    return ge;
}

TEST(Graphs, AKernelNodeOnFreedMemoryFaultsAtLaunch) {
    Reset();
    float *x = nullptr;
    cudaStream_t s;
    cudaGraphExec_t ge = CountedGraph(&x, &s);
    g_tiny_bodies = 0;
    CK(cudaGraphLaunch(ge, s));
    CK(cudaStreamSynchronize(s));
    EXPECT_EQ(g_tiny_bodies, 1) << "the replay on live memory runs";
    CK(cudaFree(x));
    EXPECT_EQ(cudaGraphLaunch(ge, s), cudaSuccess) << "the launch itself succeeds, as on hardware";
    EXPECT_EQ(cudaStreamSynchronize(s), cudaErrorIllegalAddress);
    EXPECT_EQ(g_tiny_bodies, 1) << "the faulting node's body is not run";
    EXPECT_EQ(cudaDeviceReset(), cudaSuccess);
}

TEST(Graphs, AKernelNodeOnMemoryAllocatedAgainAtTheSamePlaceRuns) {
    Reset();
    float *x = nullptr, *again = nullptr;
    cudaStream_t s;
    cudaGraphExec_t ge = CountedGraph(&x, &s);
    CK(cudaFree(x));
    CK(cudaMalloc((void **)&again, 4096));
    g_tiny_bodies = 0;
    CK(cudaGraphLaunch(ge, s));
    if (again == x) {
        CK(cudaStreamSynchronize(s));
        EXPECT_EQ(g_tiny_bodies, 1);
    } else {
        EXPECT_EQ(cudaStreamSynchronize(s), cudaErrorIllegalAddress) << "another address: the old one is not device memory";
    }
    EXPECT_EQ(cudaDeviceReset(), cudaSuccess);
}

// A copy node whose device side was freed, or whose pinned host side was, is refused with
// the launch: nothing is queued, and no byte moves to or from where the memory used to be.
TEST(Graphs, ACopyNodeOnFreedMemoryIsRefusedAtLaunch) {
    for (int freed_host = 0; freed_host < 2; freed_host++) {
        Reset();
        void *d = nullptr, *h = nullptr;
        CK(cudaMalloc(&d, 4096));
        CK(cudaMallocHost(&h, 4096));
        cudaStream_t s;
        CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        cudaGraph_t g;
        cudaGraphExec_t ge;
        CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
        CK(cudaMemcpyAsync(d, h, 4096, cudaMemcpyHostToDevice, s));
        CK(cudaStreamEndCapture(s, &g));
        CK(cudaGraphInstantiate(&ge, g, 0));
        CK(cudaGraphLaunch(ge, s));
        CK(cudaStreamSynchronize(s));
        if (freed_host)
            CK(cudaFreeHost(h));
        else
            CK(cudaFree(d));
        EXPECT_EQ(cudaGraphLaunch(ge, s), cudaErrorInvalidValue) << (freed_host ? "pinned host side" : "device side");
        EXPECT_EQ(cudaStreamSynchronize(s), cudaSuccess) << "nothing was queued";
    }
}

}  // namespace
