// trace/stalls_sim_test.cc: the stall analysis on timelines the simulated runtime
// recorded, end to end through the recorder and the timeline store. Four tasks (H2D,
// kernel, D2H) on four streams with a stream-0 memset between tasks: on blocking streams
// (and the per-thread stream) every memset waits for the task before it and holds back
// the task after it, by exactly the times the simulator scheduled; on non-blocking
// streams nothing stalls; right after enqueueing, every stream still has work.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "streamlab_sim.h"
#include "trace/record/recorder.h"

extern "C" {
#include "trace/view/stalls.h"
}

namespace {

constexpr size_t kBytes = 4 << 20;
constexpr int kTasks = 4;

enum class Streams { kBlocking, kNonBlocking, kPerThreadFirst };

struct Recorded {
    trace_timeline *tl = nullptr;
    uint64_t enqueued_ns = 0; // the host clock once everything was enqueued
    uint64_t done_ns = 0;     // and once the device had finished
    int32_t stream_ids[kTasks] = {};
};

// Runs the pattern on a fresh simulator (h200) with a timeline installed, as run 1.
Recorded RunPattern(Streams kind) {
    Recorded r;
    sim_reset();
    trace_reset();
    EXPECT_EQ(sim_select_profile("h200"), 0) << sim_last_message();
    r.tl = trace_timeline_create();
    EXPECT_EQ(trace_timeline_install(r.tl), 0);
    trace_set_run(1);
    cudaStream_t s[kTasks];
    for (int i = 0; i < kTasks; i++) {
        if (kind == Streams::kPerThreadFirst && i == 0)
            s[i] = cudaStreamPerThread;
        else
            EXPECT_EQ(cudaStreamCreateWithFlags(&s[i], kind == Streams::kNonBlocking ? cudaStreamNonBlocking
                                                                                     : cudaStreamDefault),
                      cudaSuccess);
        if (s[i] != cudaStreamPerThread) trace_stream_set_name(s[i], ("task " + std::to_string(i)).c_str());
    }
    void *host = nullptr, *dev = nullptr, *flag = nullptr;
    EXPECT_EQ(cudaMallocHost(&host, kTasks * kBytes), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&dev, kTasks * kBytes), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&flag, 256), cudaSuccess);
    for (int i = 0; i < kTasks; i++) {
        char *h = static_cast<char *>(host) + i * kBytes, *d = static_cast<char *>(dev) + i * kBytes;
        EXPECT_EQ(cudaMemcpyAsync(d, h, kBytes, cudaMemcpyHostToDevice, s[i]), cudaSuccess);
        sim_kernel_launch k{};
        k.name = "process";
        k.grid = dim3(1);
        k.block = dim3(32);
        k.cost.fixed_ns = 200e3;
        EXPECT_EQ(sim_launch_kernel(&k, s[i]), cudaSuccess);
        EXPECT_EQ(cudaMemcpyAsync(h, d, kBytes, cudaMemcpyDeviceToHost, s[i]), cudaSuccess);
        if (i + 1 < kTasks) {
            EXPECT_EQ(cudaMemsetAsync(flag, 0, 256, 0), cudaSuccess);
        }
        r.stream_ids[i] = trace_stream_id(s[i]);
    }
    r.enqueued_ns = sim_now_ns();
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    r.done_ns = sim_now_ns();
    trace_timeline_uninstall(r.tl);
    return r;
}

// The run's stream work, in host order.
std::vector<trace_op> HostOrder(trace_timeline *tl) {
    std::vector<trace_op> v;
    for (size_t i = 0; i < trace_timeline_count(tl); i++) {
        const trace_op *op = trace_timeline_get(tl, i);
        if (op->run == 1 && trace_op_kind_is_stream_work(op->kind)) v.push_back(*op);
    }
    std::sort(v.begin(), v.end(), [](const trace_op &a, const trace_op &b) { return a.id < b.id; });
    return v;
}

void ExpectSerialised(const Recorded &r) {
    std::vector<trace_op> ops = HostOrder(r.tl);
    std::vector<trace_op> memsets, first_of_task(kTasks), last_of_task(kTasks);
    for (const trace_op &op : ops)
        if (op.stream == TRACE_STREAM_LEGACY) memsets.push_back(op);
    ASSERT_EQ(memsets.size(), static_cast<size_t>(kTasks - 1));
    for (int i = 0; i < kTasks; i++) {
        std::vector<trace_op> mine;
        for (const trace_op &op : ops)
            if (op.stream == r.stream_ids[i]) mine.push_back(op);
        ASSERT_EQ(mine.size(), 3u);
        first_of_task[i] = mine.front();
        last_of_task[i] = mine.back();
    }
    std::vector<trace_stall> stalls(8);
    ASSERT_EQ(trace_stalls_find(r.tl, 1, stalls.data(), stalls.size()), static_cast<size_t>(kTasks - 1));
    for (int i = 0; i + 1 < kTasks; i++) {
        SCOPED_TRACE(i);
        const trace_stall &st = stalls[i];
        const trace_op &m = memsets[i];
        EXPECT_EQ(st.op.id, m.id);
        // The simulator started the memset once the task before it ended (plus a launch
        // latency), and the task after it once the memset ended.
        EXPECT_GE(m.start_ns, last_of_task[i].end_ns);
        EXPECT_LT(m.start_ns, last_of_task[i].end_ns + TRACE_STALL_TOLERANCE_NS);
        EXPECT_GE(first_of_task[i + 1].start_ns, m.end_ns);
        EXPECT_LT(first_of_task[i + 1].start_ns, m.end_ns + TRACE_STALL_TOLERANCE_NS);
        ASSERT_EQ(st.n_waited, 1u);
        EXPECT_EQ(st.waited[0], r.stream_ids[i]);
        uint64_t ready = i == 0 ? m.enqueue_ns : std::max(m.enqueue_ns, memsets[i - 1].end_ns);
        // Until the task before it ended: the launch latency after that is not the wait's.
        EXPECT_EQ(st.waited_ns, last_of_task[i].end_ns - ready);
        ASSERT_EQ(st.n_held, 1u);
        EXPECT_EQ(st.held[0], r.stream_ids[i + 1]);
        uint64_t x_ready = i == 0 ? first_of_task[1].enqueue_ns
                                  : std::max(first_of_task[i + 1].enqueue_ns, memsets[i - 1].end_ns);
        EXPECT_EQ(st.held_ns, m.end_ns - x_ready);
        if (i > 0) {
            EXPECT_GT(st.held_ns, st.waited_ns) << "held back for its wait and its own run";
        }
    }
    // Right after enqueueing, every stream had work still to do; after the final
    // synchronisation none had.
    std::vector<int32_t> busy(8);
    size_t n = trace_streams_busy_at(r.tl, 1, r.enqueued_ns, busy.data(), busy.size());
    busy.resize(n);
    std::vector<int32_t> all = {TRACE_STREAM_LEGACY};
    for (int i = 0; i < kTasks; i++) all.push_back(r.stream_ids[i]);
    std::sort(all.begin(), all.end());
    EXPECT_EQ(busy, all);
    EXPECT_EQ(trace_streams_busy_at(r.tl, 1, r.done_ns, busy.data(), busy.size()), 0u);
}

TEST(StallsOnTheSimulator, EveryMemsetBetweenTasksOnBlockingStreamsStalls) {
    Recorded r = RunPattern(Streams::kBlocking);
    ExpectSerialised(r);
    trace_stall st[4];
    ASSERT_EQ(trace_stalls_find(r.tl, 1, st, 4), 3u);
    char line[256];
    trace_stall_format(&st[1], r.tl, "task", line, sizeof line);
    std::string text = line;
    EXPECT_EQ(text.rfind("stream 0 memset waited ", 0), 0u) << text;
    EXPECT_NE(text.find(" us for \"task 1\", and held back \"task 2\" for "), std::string::npos) << text;
    trace_timeline_destroy(r.tl);
}

TEST(StallsOnTheSimulator, ThePerThreadStreamStallsLikeACreatedOne) {
    Recorded r = RunPattern(Streams::kPerThreadFirst);
    const trace_stream *pt = trace_timeline_stream(r.tl, r.stream_ids[0]);
    ASSERT_NE(pt, nullptr);
    EXPECT_TRUE(pt->per_thread);
    ExpectSerialised(r);
    trace_timeline_destroy(r.tl);
}

TEST(StallsOnTheSimulator, NonBlockingStreamsDoNotStallAndFinishSooner) {
    Recorded blocking = RunPattern(Streams::kBlocking);
    uint64_t serialised = blocking.done_ns;
    trace_timeline_destroy(blocking.tl);
    Recorded r = RunPattern(Streams::kNonBlocking);
    EXPECT_EQ(trace_stalls_find(r.tl, 1, nullptr, 0), 0u);
    EXPECT_LT(r.done_ns, serialised);
    trace_timeline_destroy(r.tl);
}

}  // namespace
