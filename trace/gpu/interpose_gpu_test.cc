// trace/gpu/interpose_gpu_test.cc: on a real GPU, the program's runtime calls reach the
// interposer and are recorded as the recorder contract says (streams, events, copies with
// direction, pinning and ranges, documented host waits, one host-lane span per call), also
// when they were compiled for per-thread default streams (per_thread_calls.c), and the
// collector delivers consistent device times in CUPTI mode and in event mode. The
// device allocations seen answer which buffer an address is in, and a host read of one
// faults there (what the lab harness's crash report relies on).
// Tests that need a device skip themselves where there is none.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <cuda_runtime.h>

extern "C" {
#include "kernels/kernels.h"
#include "trace/gpu/allocations.h"
#include "trace/gpu/collector.h"
#include "trace/gpu/nvtx.h"
#include "trace/gpu/per_thread_calls.h"
#include "trace/record/recorder.h"
}

namespace {

#define CUDA_OK(expr) ASSERT_EQ((expr), cudaSuccess) << #expr

struct Seen {
    std::recursive_mutex mu;  // cleanup calls re-enter the sink while a test holds it
    std::vector<trace_op> ops;
    std::map<uint64_t, trace_op> timed;
    std::vector<trace_stream> streams;
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
void on_stream(void *ctx, const trace_stream *st) {
    auto *s = static_cast<Seen *>(ctx);
    std::lock_guard<std::recursive_mutex> g(s->mu);
    s->streams.push_back(*st);
}

bool have_device() {
    int count = 0;
    bool ok = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
    (void)cudaGetLastError();
    return ok;
}

class Interpose : public ::testing::Test {
  public:
    void *dev(size_t n) {
        void *p = nullptr;
        EXPECT_EQ(cudaMalloc(&p, n), cudaSuccess);
        device_allocs.push_back(p);
        return p;
    }
    void *pinned(size_t n) {
        void *p = nullptr;
        EXPECT_EQ(cudaMallocHost(&p, n), cudaSuccess);
        pinned_allocs.push_back(p);
        return p;
    }

  protected:
    void SetUp() override {
        if (!have_device()) GTEST_SKIP() << "no CUDA device";
        CUDA_OK(cudaDeviceSynchronize());
        trace_reset();
        trace_sink sink = {&seen, on_stream, on_op, on_timed, nullptr};
        ASSERT_EQ(trace_add_sink(&sink), 0);
    }
    void TearDown() override {
        trace_gpu_end();
        trace_gpu_set_autoflush(true);
        trace_reset();
        for (void *p : device_allocs) cudaFree(p);
        for (void *p : pinned_allocs) cudaFreeHost(p);
    }

  public:
    // The ops recorded so far of this kind.
    std::vector<trace_op> of_kind(trace_op_kind kind) {
        std::lock_guard<std::recursive_mutex> g(seen.mu);
        std::vector<trace_op> out;
        for (const auto &op : seen.ops)
            if (op.kind == kind) out.push_back(op);
        return out;
    }
    std::vector<trace_op> since(size_t first) {
        std::lock_guard<std::recursive_mutex> g(seen.mu);
        return std::vector<trace_op>(seen.ops.begin() + first, seen.ops.end());
    }
    // How many ops of this kind have got their times.
    size_t timed_of_kind(trace_op_kind kind) {
        std::lock_guard<std::recursive_mutex> g(seen.mu);
        size_t n = 0;
        for (const auto &kv : seen.timed)
            if (kv.second.kind == kind) ++n;
        return n;
    }
    size_t mark() {
        std::lock_guard<std::recursive_mutex> g(seen.mu);
        return seen.ops.size();
    }
    Seen seen;
    std::vector<void *> device_allocs, pinned_allocs;
};

TEST_F(Interpose, StreamsAreRegisteredWithTheirClampedPriorityAndNamed) {
    int least = 0, greatest = 0;
    CUDA_OK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    cudaStream_t a, b;
    CUDA_OK(cudaStreamCreate(&a));
    CUDA_OK(cudaStreamCreateWithPriority(&b, cudaStreamNonBlocking, greatest - 10));
    EXPECT_EQ(trace_stream_id(a), 1);
    EXPECT_EQ(trace_stream_id(b), 2);
    const trace_stream *sb = trace_stream_get(2);
    ASSERT_NE(sb, nullptr);
    EXPECT_EQ(sb->priority, greatest);  // the runtime clamps out-of-range priorities
    EXPECT_EQ(sb->flags, (unsigned)cudaStreamNonBlocking);
    trace_gpu_name_stream(b, "buf B");
    EXPECT_STREQ(trace_stream_get(2)->name, "buf B");
    CUDA_OK(cudaStreamDestroy(a));
    EXPECT_TRUE(trace_stream_get(1)->destroyed);
    CUDA_OK(cudaStreamDestroy(b));
    // Creation, renaming and destruction each reached the sink.
    EXPECT_GE(seen.streams.size(), 5u);
}

TEST_F(Interpose, CopiesCarryDirectionPinningRangesAndHostWaits) {
    const size_t n = 1 << 16;
    void *d = dev(n), *d2 = dev(n);
    void *h_pin = pinned(n);
    std::vector<char> h_page(n, 1);
    cudaStream_t s;
    CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    size_t m = mark();
    CUDA_OK(cudaMemcpyAsync(d, h_pin, n, cudaMemcpyHostToDevice, s));
    auto ops = since(m);
    ASSERT_EQ(ops.size(), 2u);  // the copy and its API span
    EXPECT_EQ(ops[0].kind, TRACE_OP_COPY);
    EXPECT_EQ(ops[0].dir, TRACE_COPY_H2D);
    EXPECT_EQ(ops[0].engine, TRACE_ENGINE_H2D);
    EXPECT_TRUE(ops[0].pinned);
    EXPECT_EQ(ops[0].stream, trace_stream_id(s));
    EXPECT_EQ(ops[0].bytes, n);
    ASSERT_EQ(ops[0].n_ranges, 2u);
    EXPECT_EQ(ops[0].ranges[0].addr, (uint64_t)(uintptr_t)h_pin);
    EXPECT_EQ(ops[0].ranges[0].flags, TRACE_RANGE_READ);
    EXPECT_EQ(ops[0].ranges[1].addr, (uint64_t)(uintptr_t)d);
    EXPECT_EQ(ops[0].ranges[1].flags, TRACE_RANGE_WRITE);
    EXPECT_EQ(ops[1].kind, TRACE_OP_API);
    EXPECT_STREQ(ops[1].name, "cudaMemcpyAsync");

    m = mark();
    CUDA_OK(cudaMemcpyAsync(d, h_page.data(), n, cudaMemcpyHostToDevice, s));
    ops = since(m);
    ASSERT_GE(ops.size(), 1u);
    EXPECT_FALSE(ops[0].pinned);
    EXPECT_EQ(ops[0].ranges[0].flags, TRACE_RANGE_READ | TRACE_RANGE_HOST_ORDERED);

    m = mark();
    CUDA_OK(cudaMemcpyAsync(h_page.data(), d, n, cudaMemcpyDeviceToHost, s));
    ops = since(m);
    ASSERT_EQ(ops.size(), 2u);  // the copy, then the host's wait for it
    EXPECT_EQ(ops[0].dir, TRACE_COPY_D2H);
    EXPECT_EQ(ops[1].kind, TRACE_OP_SYNC);
    EXPECT_EQ(ops[1].sync, TRACE_SYNC_OP);
    EXPECT_EQ(ops[1].waited_op, ops[0].id);

    m = mark();
    CUDA_OK(cudaMemcpy(d, h_page.data(), n, cudaMemcpyHostToDevice));
    ops = since(m);
    ASSERT_EQ(ops.size(), 2u);  // the stream wait before the copy, then the copy
    EXPECT_EQ(ops[0].kind, TRACE_OP_SYNC);
    EXPECT_EQ(ops[0].sync, TRACE_SYNC_STREAM);
    EXPECT_EQ(ops[0].stream, TRACE_STREAM_LEGACY);
    EXPECT_EQ(ops[1].kind, TRACE_OP_COPY);
    EXPECT_EQ(ops[1].stream, TRACE_STREAM_LEGACY);

    m = mark();
    CUDA_OK(cudaMemcpy(d2, d, n, cudaMemcpyDefault));
    ops = since(m);
    ASSERT_GE(ops.size(), 1u);
    EXPECT_EQ(ops[0].dir, TRACE_COPY_D2D);
    EXPECT_EQ(ops[0].engine, TRACE_ENGINE_COMPUTE);

    m = mark();
    CUDA_OK(cudaMemsetAsync(d, 0, n, s));
    ops = since(m);
    ASSERT_EQ(ops.size(), 2u);
    EXPECT_EQ(ops[0].kind, TRACE_OP_MEMSET);
    EXPECT_EQ(ops[0].engine, TRACE_ENGINE_COMPUTE);
    ASSERT_EQ(ops[0].n_ranges, 1u);
    EXPECT_EQ(ops[0].ranges[0].flags, TRACE_RANGE_WRITE);

    CUDA_OK(cudaStreamSynchronize(s));
    CUDA_OK(cudaStreamDestroy(s));
}

TEST_F(Interpose, EventsWaitsQueriesAndSyncs) {
    cudaStream_t s1, s2;
    CUDA_OK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CUDA_OK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    cudaEvent_t e;
    CUDA_OK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    const uint64_t eid = trace_event_id(e);
    ASSERT_NE(eid, 0u);

    size_t m = mark();
    CUDA_OK(cudaEventRecord(e, s1));
    CUDA_OK(cudaStreamWaitEvent(s2, e, 0));
    CUDA_OK(cudaEventSynchronize(e));
    CUDA_OK(cudaStreamSynchronize(s2));
    CUDA_OK(cudaStreamQuery(s2));
    CUDA_OK(cudaDeviceSynchronize());
    std::vector<trace_op> ops;
    for (const auto &op : since(m))
        if (op.kind != TRACE_OP_API) ops.push_back(op);
    ASSERT_EQ(ops.size(), 6u);
    EXPECT_EQ(ops[0].kind, TRACE_OP_EVENT_RECORD);
    EXPECT_EQ(ops[0].event, eid);
    EXPECT_EQ(ops[0].stream, trace_stream_id(s1));
    EXPECT_EQ(ops[1].kind, TRACE_OP_EVENT_WAIT);
    EXPECT_EQ(ops[1].event, eid);
    EXPECT_EQ(ops[1].stream, trace_stream_id(s2));
    EXPECT_EQ(ops[2].sync, TRACE_SYNC_EVENT);
    EXPECT_EQ(ops[2].event, eid);
    EXPECT_EQ(ops[3].sync, TRACE_SYNC_STREAM);
    EXPECT_EQ(ops[4].sync, TRACE_SYNC_STREAM);  // a successful query orders like a sync
    EXPECT_STREQ(ops[4].name, "cudaStreamQuery");
    EXPECT_EQ(ops[5].sync, TRACE_SYNC_DEVICE);

    CUDA_OK(cudaEventDestroy(e));
    EXPECT_EQ(trace_event_id(e), 0u);
    CUDA_OK(cudaStreamDestroy(s1));
    CUDA_OK(cudaStreamDestroy(s2));
}

// A query that answers not ready is a span that names what it asked about (a loop of them
// is a poll, trace/view/polls.h); the one that answers cudaSuccess is a host wait.
TEST_F(Interpose, AQueryThatAnswersNotReadyNamesItsEventOrStream) {
    cudaStream_t s;
    CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaEvent_t e;
    CUDA_OK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    uint32_t *marks = static_cast<uint32_t *>(dev(256));
    size_t m = mark();
    int event_polls = 0, stream_polls = 0;
    cudaError_t err;
    ASSERT_EQ(kernels_spin(marks, 1, 32, 2000000, 1, s), cudaSuccess);  // 2 ms
    CUDA_OK(cudaEventRecord(e, s));
    while ((err = cudaEventQuery(e)) == cudaErrorNotReady) event_polls++;
    CUDA_OK(err);
    ASSERT_EQ(kernels_spin(marks, 1, 32, 2000000, 2, s), cudaSuccess);
    while ((err = cudaStreamQuery(s)) == cudaErrorNotReady) stream_polls++;
    CUDA_OK(err);
    ASSERT_GT(event_polls, 0);
    ASSERT_GT(stream_polls, 0);
    int event_spans = 0, stream_spans = 0, syncs = 0;
    for (const trace_op &op : since(m)) {
        if (op.kind == TRACE_OP_API && op.sync == TRACE_SYNC_EVENT) {
            EXPECT_STREQ(op.name, "cudaEventQuery");
            EXPECT_EQ(op.event, trace_event_id(e));
            event_spans++;
        } else if (op.kind == TRACE_OP_API && op.sync == TRACE_SYNC_STREAM) {
            EXPECT_STREQ(op.name, "cudaStreamQuery");
            EXPECT_EQ(op.stream, trace_stream_id(s));
            stream_spans++;
        } else if (op.kind == TRACE_OP_SYNC) {
            EXPECT_STREQ(op.name, syncs == 0 ? "cudaEventQuery" : "cudaStreamQuery");
            syncs++;
        }
    }
    EXPECT_EQ(event_spans, event_polls);
    EXPECT_EQ(stream_spans, stream_polls);
    EXPECT_EQ(syncs, 2);
    CUDA_OK(cudaEventDestroy(e));
    CUDA_OK(cudaStreamDestroy(s));
}

// An event named by the program (lab_name_event on a GPU) carries its name on its records
// and waits, as the race reports read it.
TEST_F(Interpose, ANamedEventsRecordsAndWaitsCarryItsName) {
    cudaStream_t s1, s2;
    CUDA_OK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CUDA_OK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    cudaEvent_t e;
    CUDA_OK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    trace_gpu_name_event(e, "computed[1]");
    size_t m = mark();
    CUDA_OK(cudaEventRecord(e, s1));
    CUDA_OK(cudaStreamWaitEvent(s2, e, 0));
    CUDA_OK(cudaDeviceSynchronize());
    int named = 0;
    for (const auto &op : since(m))
        if (op.kind == TRACE_OP_EVENT_RECORD || op.kind == TRACE_OP_EVENT_WAIT) {
            EXPECT_STREQ(op.name, "computed[1]");
            named++;
        }
    EXPECT_EQ(named, 2);
    CUDA_OK(cudaEventDestroy(e));
    CUDA_OK(cudaStreamDestroy(s1));
    CUDA_OK(cudaStreamDestroy(s2));
}

// A graph's launch is one op whose name says how many branches of kernels the graph has:
// two chains captured on two streams forked from one are 2, the same kernels captured on
// one stream 1 (what lab 07's facts read on a GPU, where the nodes are not seen); the
// capture's calls are spans of their own.
TEST_F(Interpose, AGraphLaunchIsNamedWithItsBranches) {
    cudaStream_t a, b;
    CUDA_OK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
    CUDA_OK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
    cudaEvent_t fork, join;
    CUDA_OK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    CUDA_OK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
    uint32_t *marks = static_cast<uint32_t *>(dev(64 * sizeof(uint32_t)));
    auto chain = [&](cudaStream_t s, uint32_t mark) {
        for (int k = 0; k < 3; k++) ASSERT_EQ(kernels_spin(marks, 1, 32, 1000, mark, s), cudaSuccess);
    };
    for (bool forked : {true, false}) {
        cudaGraph_t graph;
        cudaGraphExec_t exec;
        size_t captured = mark();
        CUDA_OK(cudaStreamBeginCapture(a, cudaStreamCaptureModeThreadLocal));
        if (forked) {
            CUDA_OK(cudaEventRecord(fork, a));
            CUDA_OK(cudaStreamWaitEvent(b, fork, 0));
            chain(a, 1);
            chain(b, 2);
            CUDA_OK(cudaEventRecord(join, b));
            CUDA_OK(cudaStreamWaitEvent(a, join, 0));
        } else {
            chain(a, 1);
            chain(a, 2);
        }
        CUDA_OK(cudaStreamEndCapture(a, &graph));
        // The capture's two calls are spans on the host lane, as the simulator records them:
        // how a lab counts the graphs a run captures.
        int begins = 0, ends = 0;
        for (const auto &op : since(captured)) {
            begins += op.kind == TRACE_OP_API && !std::strcmp(op.name, "cudaStreamBeginCapture");
            ends += op.kind == TRACE_OP_API && !std::strcmp(op.name, "cudaStreamEndCapture");
        }
        EXPECT_EQ(begins, 1);
        EXPECT_EQ(ends, 1);
        CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
        size_t m = mark();
        CUDA_OK(cudaGraphLaunch(exec, a));
        CUDA_OK(cudaStreamSynchronize(a));
        std::vector<trace_op> launches;
        for (const auto &op : since(m))
            if (op.kind == TRACE_OP_KERNEL) launches.push_back(op);
        ASSERT_EQ(launches.size(), 1u);
        EXPECT_STREQ(launches[0].name, forked ? "graph (6 nodes, 2 branches)" : "graph (6 nodes, 1 branch)");
        EXPECT_EQ(trace_graph_op_branches(&launches[0]), forked ? 2 : 1);
        EXPECT_EQ(cudaGetLastError(), cudaSuccess);
        CUDA_OK(cudaGraphExecDestroy(exec));
        CUDA_OK(cudaGraphDestroy(graph));
    }
    CUDA_OK(cudaEventDestroy(fork));
    CUDA_OK(cudaEventDestroy(join));
    CUDA_OK(cudaStreamDestroy(a));
    CUDA_OK(cudaStreamDestroy(b));
}

TEST_F(Interpose, FailedCallsRecordNoOpAndKeepTheirError) {
    void *d = dev(64);
    size_t m = mark();
    EXPECT_NE(cudaMemcpyAsync(nullptr, d, 64, cudaMemcpyDeviceToDevice, 0), cudaSuccess);
    auto ops = since(m);
    ASSERT_EQ(ops.size(), 1u);
    EXPECT_EQ(ops[0].kind, TRACE_OP_API);  // the call's span only
    EXPECT_NE(cudaGetLastError(), cudaSuccess);  // the program still sees its error
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

uint64_t host_fn_ran_at;
void CUDART_CB host_fn(void *arg) { *static_cast<uint64_t *>(arg) = trace_gpu_now_ns(); }

// Runs a small two-stream pipeline and checks every device op got consistent times.
// In CUPTI mode, event records and waits may carry their enqueue time, so they are left out
// of the in-order check; in event mode, the host function's times are host clock reads
// while the copies' are event times placed on that clock (to within the base's error), so
// it is left out instead.
void pipeline_and_check_times(Interpose *t, Seen &seen, bool event_mode) {
    const size_t n = 1 << 20;
    void *d1 = t->dev(n), *d2 = t->dev(n);
    void *h1 = t->pinned(n), *h2 = t->pinned(n);
    cudaStream_t s1, s2;
    CUDA_OK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CUDA_OK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    cudaEvent_t e;
    CUDA_OK(cudaEventCreate(&e));
    host_fn_ran_at = 0;
    for (int rep = 0; rep < 3; ++rep) {
        CUDA_OK(cudaMemcpyAsync(d1, h1, n, cudaMemcpyHostToDevice, s1));
        CUDA_OK(cudaMemsetAsync(d2, rep, n, s2));
        CUDA_OK(cudaEventRecord(e, s1));
        CUDA_OK(cudaStreamWaitEvent(s2, e, 0));
        CUDA_OK(cudaMemcpyAsync(d2, d1, n, cudaMemcpyDeviceToDevice, s2));
        CUDA_OK(cudaMemcpyAsync(h2, d2, n, cudaMemcpyDeviceToHost, s2));
    }
    CUDA_OK(cudaLaunchHostFunc(s2, host_fn, &host_fn_ran_at));
    CUDA_OK(cudaDeviceSynchronize());
    const uint64_t after_sync = trace_gpu_now_ns();
    trace_gpu_flush();

    std::lock_guard<std::recursive_mutex> g(seen.mu);
    std::map<int32_t, std::vector<trace_op>> by_stream;
    int device_ops = 0;
    for (const trace_op &op : seen.ops) {
        if (op.stream <= 0) continue;  // host-only records and the legacy stream
        ++device_ops;
        auto it = seen.timed.find(op.id);
        ASSERT_NE(it, seen.timed.end()) << trace_op_kind_name(op.kind) << " op " << op.id << " got no times";
        const trace_op &t = it->second;
        EXPECT_LE(t.enqueue_ns, t.start_ns) << "op " << op.id << " starts before it was enqueued";
        EXPECT_LE(t.start_ns, t.end_ns) << "op " << op.id;
        EXPECT_LE(t.end_ns, after_sync) << "op " << op.id << " ends after the device sync returned";
        if (op.kind == TRACE_OP_HOST_FN) {
            EXPECT_LE(t.start_ns, host_fn_ran_at);
            EXPECT_GE(t.end_ns, host_fn_ran_at);
        }
        bool marker = op.kind == TRACE_OP_EVENT_RECORD || op.kind == TRACE_OP_EVENT_WAIT;
        bool host_clock = op.kind == TRACE_OP_HOST_FN;
        if (event_mode ? !host_clock : !marker) by_stream[op.stream].push_back(t);
    }
    EXPECT_EQ(device_ops, 3 * 6 + 1);
    // A stream runs its ops in order, one at a time.
    for (auto &kv : by_stream) {
        auto &v = kv.second;
        std::sort(v.begin(), v.end(), [](const trace_op &a, const trace_op &b) { return a.id < b.id; });
        for (size_t i = 1; i < v.size(); ++i)
            EXPECT_LE(v[i - 1].end_ns, v[i].start_ns)
                << "stream " << kv.first << ": op " << v[i - 1].id << " overlaps op " << v[i].id;
    }
    cudaEventDestroy(e);
    cudaStreamDestroy(s1);
    cudaStreamDestroy(s2);
}

// Begins CUPTI with one matching strategy; false (the caller skips) where CUPTI cannot
// start here or falls back to another strategy.
bool begin_cupti(trace_gpu_match match, trace_gpu_api_records api, const char *name) {
    trace_gpu_options o = {TRACE_GPU_WANT_CUPTI, match, api, TRACE_GPU_EVENTS_AUTO};
    return trace_gpu_begin_options(&o) == TRACE_GPU_CUPTI && std::string(trace_gpu_strategy()) == name;
}

void expect_cupti_stats_clean() {
    trace_gpu_stats st = trace_gpu_get_stats();
    EXPECT_GT(st.device_records, 0u);
    EXPECT_EQ(st.dropped_records, 0u);
    EXPECT_EQ(st.match_errors, 0u);
}

TEST_F(Interpose, CuptiModeTimesEveryDeviceOp) {
    if (trace_gpu_begin_mode(TRACE_GPU_WANT_CUPTI) != TRACE_GPU_CUPTI)
        GTEST_SKIP() << "CUPTI unavailable here: " << trace_gpu_status_message();
    EXPECT_NE(std::string(trace_gpu_status_message()).find("CUPTI"), std::string::npos);
    pipeline_and_check_times(this, seen, false);
    expect_cupti_stats_clean();
}

TEST_F(Interpose, CuptiCallbackMatchingTimesEveryDeviceOp) {
    if (!begin_cupti(TRACE_GPU_MATCH_CALLBACK, TRACE_GPU_API_AUTO, "cupti-callback"))
        GTEST_SKIP() << "CUPTI callback matching unavailable here: " << trace_gpu_status_message();
    pipeline_and_check_times(this, seen, false);
    expect_cupti_stats_clean();
    EXPECT_EQ(trace_gpu_get_stats().api_records, 0u);  // no API activity records needed
}

TEST_F(Interpose, CuptiStreamOrderMatchingTimesEveryDeviceOp) {
    if (!begin_cupti(TRACE_GPU_MATCH_STREAM_ORDER, TRACE_GPU_API_AUTO, "cupti-stream"))
        GTEST_SKIP() << "CUPTI stream-order matching unavailable here: " << trace_gpu_status_message();
    pipeline_and_check_times(this, seen, false);
    expect_cupti_stats_clean();
    EXPECT_EQ(trace_gpu_get_stats().api_records, 0u);
}

TEST_F(Interpose, EventModeTimesEveryDeviceOp) {
    ASSERT_EQ(trace_gpu_begin_mode(TRACE_GPU_WANT_EVENTS), TRACE_GPU_EVENTS) << trace_gpu_status_message();
    EXPECT_NE(std::string(trace_gpu_status_message()).find("CUDA events"), std::string::npos);
    pipeline_and_check_times(this, seen, true);
}

TEST_F(Interpose, EventPairModeTimesEveryDeviceOp) {
    trace_gpu_options o = {TRACE_GPU_WANT_EVENTS, TRACE_GPU_MATCH_AUTO, TRACE_GPU_API_AUTO, TRACE_GPU_EVENTS_PAIR};
    ASSERT_EQ(trace_gpu_begin_options(&o), TRACE_GPU_EVENTS) << trace_gpu_status_message();
    EXPECT_STREQ(trace_gpu_strategy(), "events-pair");
    pipeline_and_check_times(this, seen, true);
}

TEST_F(Interpose, WithAutoflushOffTimesWaitForAnExplicitFlush) {
    trace_gpu_options o = {TRACE_GPU_WANT_EVENTS, TRACE_GPU_MATCH_AUTO, TRACE_GPU_API_AUTO, TRACE_GPU_EVENTS_SINGLE};
    ASSERT_EQ(trace_gpu_begin_options(&o), TRACE_GPU_EVENTS) << trace_gpu_status_message();
    EXPECT_STREQ(trace_gpu_strategy(), "events-single");
    trace_gpu_set_autoflush(false);
    void *d = dev(1 << 16);
    CUDA_OK(cudaMemsetAsync(d, 1, 1 << 16, 0));
    CUDA_OK(cudaDeviceSynchronize());  // a sync point: no flush while autoflush is off
    EXPECT_EQ(timed_of_kind(TRACE_OP_MEMSET), 0u);
    trace_gpu_flush();
    EXPECT_EQ(timed_of_kind(TRACE_OP_MEMSET), 1u);
    trace_gpu_set_autoflush(true);
    EXPECT_TRUE(trace_gpu_autoflush());
    CUDA_OK(cudaMemsetAsync(d, 2, 1 << 16, 0));
    CUDA_OK(cudaDeviceSynchronize());  // flushes again
    EXPECT_EQ(timed_of_kind(TRACE_OP_MEMSET), 2u);
}

TEST_F(Interpose, TimingNoneRecordsOpsUntimed) {
    trace_gpu_options o = {TRACE_GPU_WANT_NONE, TRACE_GPU_MATCH_AUTO, TRACE_GPU_API_AUTO, TRACE_GPU_EVENTS_AUTO};
    EXPECT_EQ(trace_gpu_begin_options(&o), TRACE_GPU_OFF);
    EXPECT_STREQ(trace_gpu_strategy(), "off");
    EXPECT_NE(std::string(trace_gpu_status_message()).find("no device times"), std::string::npos);
    void *d = dev(4096);
    size_t m = mark();
    CUDA_OK(cudaMemsetAsync(d, 0, 4096, 0));
    CUDA_OK(cudaDeviceSynchronize());
    trace_gpu_flush();
    auto ops = since(m);
    ASSERT_GE(ops.size(), 1u);
    EXPECT_EQ(ops[0].kind, TRACE_OP_MEMSET);
    EXPECT_EQ(timed_of_kind(TRACE_OP_MEMSET), 0u);
}

TEST_F(Interpose, RegisteringAndUnregisteringHostMemoryChangesHowCopiesAreClassified) {
    const size_t n = 1 << 16;
    void *d = dev(n);
    std::vector<char> host(n, 3);
    size_t m = mark();
    CUDA_OK(cudaHostRegister(host.data(), n, cudaHostRegisterDefault));
    CUDA_OK(cudaMemcpy(d, host.data() + 64, 256, cudaMemcpyHostToDevice));  // inside the registered range
    CUDA_OK(cudaHostUnregister(host.data()));
    CUDA_OK(cudaMemcpy(d, host.data() + 64, 256, cudaMemcpyHostToDevice));
    std::vector<trace_op> copies;
    for (const auto &op : since(m))
        if (op.kind == TRACE_OP_COPY) copies.push_back(op);
    ASSERT_EQ(copies.size(), 2u);
    EXPECT_TRUE(copies[0].pinned);
    EXPECT_FALSE(copies[1].pinned);
}

TEST_F(Interpose, DeviceAllocationsAreFoundWithTheirStartAndSize) {
    unsigned char *d = static_cast<unsigned char *>(dev(1000));
    void *p = pinned(4096);
    std::vector<char> host(16);
    const void *base = nullptr;
    size_t bytes = 0;
    ASSERT_TRUE(trace_gpu_device_allocation_of(d + 999, &base, &bytes));
    EXPECT_EQ(base, d);
    EXPECT_EQ(bytes, 1000u);
    EXPECT_FALSE(trace_gpu_device_allocation_of(p, nullptr, nullptr)) << "pinned host memory";
    EXPECT_FALSE(trace_gpu_device_allocation_of(host.data(), nullptr, nullptr));
    void *gone = nullptr;
    CUDA_OK(cudaMalloc(&gone, 64));
    CUDA_OK(cudaFree(gone));
    EXPECT_FALSE(trace_gpu_device_allocation_of(gone, nullptr, nullptr)) << "freed";
}

// cudaFree waits for the device (measured on an H200: sim/conformance/), so the trace gets
// a device sync for it, as on the simulator; freeing NULL gets none.
TEST_F(Interpose, FreeingRecordsADeviceSync) {
    void *d = nullptr;
    CUDA_OK(cudaMalloc(&d, 64));
    size_t before = of_kind(TRACE_OP_SYNC).size();
    CUDA_OK(cudaFree(nullptr));
    EXPECT_EQ(of_kind(TRACE_OP_SYNC).size(), before);
    CUDA_OK(cudaFree(d));
    std::vector<trace_op> syncs = of_kind(TRACE_OP_SYNC);
    ASSERT_EQ(syncs.size(), before + 1);
    EXPECT_EQ(syncs.back().sync, TRACE_SYNC_DEVICE);
    EXPECT_STREQ(syncs.back().name, "cudaFree");
}

volatile uintptr_t g_expected_fault = 0;

void OnSegv(int, siginfo_t *info, void *) {
    _exit(reinterpret_cast<uintptr_t>(info->si_addr) == g_expected_fault ? 42 : 43);
}

// The hardware behaviour the simulator copies: a host read through a device pointer
// faults with SIGSEGV at that address (a system whose CPU may read GPU memory, should there
// be one, is skipped).
TEST_F(Interpose, AHostReadOfDeviceMemoryFaultsAtThatAddress) {
    unsigned char *d = static_cast<unsigned char *>(dev(1 << 20));
    CUDA_OK(cudaMemset(d, 7, 1 << 20));
    CUDA_OK(cudaDeviceSynchronize());
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        g_expected_fault = reinterpret_cast<uintptr_t>(d + 4096);
        struct sigaction sa;
        std::memset(&sa, 0, sizeof(sa));
        sa.sa_sigaction = OnSegv;
        sa.sa_flags = SA_SIGINFO;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGSEGV, &sa, nullptr);
        sigaction(SIGBUS, &sa, nullptr);
        volatile unsigned char v = *reinterpret_cast<volatile unsigned char *>(d + 4096);
        _exit(v == 7 ? 44 : 45);
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status)) << "status " << status;
    if (WEXITSTATUS(status) == 44) GTEST_SKIP() << "this system lets the host read device memory";
    EXPECT_EQ(WEXITSTATUS(status), 42) << "42: SIGSEGV/SIGBUS at the device address; 43: elsewhere";
}

TEST_F(Interpose, EndTurnsTimingOff) {
    trace_gpu_begin();
    trace_gpu_end();
    EXPECT_EQ(trace_gpu_status(), TRACE_GPU_OFF);
    trace_gpu_end();  // twice is harmless
}

// Calls written in a unit built for per-thread default streams reach the _ptds/_ptsz
// wrappers: their stream 0 is recorded as the per-thread stream, with the host waits and
// the spans of the plain calls.
TEST_F(Interpose, PerThreadDefaultStreamCallsAreRecordedOnThePerThreadStream) {
    const size_t n = 1 << 16;
    void *d = dev(n);
    void *h = pinned(n);
    cudaEvent_t e;
    CUDA_OK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    host_fn_ran_at = 0;
    size_t m = mark();
    CUDA_OK(trace_gpu_ptds_memset_async(d, 1, n));
    CUDA_OK(trace_gpu_ptds_memcpy_async(h, d, n, cudaMemcpyDeviceToHost));
    CUDA_OK(trace_gpu_ptds_event_record(e));
    CUDA_OK(trace_gpu_ptds_wait_event(e));
    CUDA_OK(trace_gpu_ptds_host_func(host_fn, &host_fn_ran_at));
    CUDA_OK(trace_gpu_ptds_memset(d, 2, n));
    CUDA_OK(trace_gpu_ptds_memcpy(h, d, n, cudaMemcpyDeviceToHost));
    CUDA_OK(trace_gpu_ptds_synchronize());
    CUDA_OK(trace_gpu_ptds_query());
    EXPECT_EQ(static_cast<unsigned char *>(h)[n - 1], 2);
    EXPECT_NE(host_fn_ran_at, 0u);

    const int32_t pt = trace_stream_id(cudaStreamPerThread);
    ASSERT_GT(pt, TRACE_STREAM_LEGACY);
    std::vector<trace_op> ops;
    std::vector<std::string> spans;
    for (const auto &op : since(m)) {
        if (op.kind == TRACE_OP_API)
            spans.push_back(op.name);
        else
            ops.push_back(op);
    }
    const trace_op_kind want[] = {TRACE_OP_MEMSET,  TRACE_OP_COPY,   TRACE_OP_EVENT_RECORD, TRACE_OP_EVENT_WAIT,
                                  TRACE_OP_HOST_FN, TRACE_OP_MEMSET, TRACE_OP_COPY,         TRACE_OP_SYNC,
                                  TRACE_OP_SYNC,    TRACE_OP_SYNC};
    ASSERT_EQ(ops.size(), sizeof(want) / sizeof(want[0]));
    for (size_t i = 0; i < ops.size(); ++i) {
        EXPECT_EQ(ops[i].kind, want[i]) << "op " << i;
        if (ops[i].kind != TRACE_OP_SYNC || ops[i].sync == TRACE_SYNC_STREAM) {
            EXPECT_EQ(ops[i].stream, pt) << "op " << i << " (" << trace_op_kind_name(ops[i].kind) << ")";
        }
    }
    EXPECT_EQ(ops[7].sync, TRACE_SYNC_OP);  // the blocking copy's host wait
    EXPECT_EQ(ops[7].waited_op, ops[6].id);
    EXPECT_EQ(ops[8].sync, TRACE_SYNC_STREAM);
    EXPECT_STREQ(ops[8].name, "cudaStreamSynchronize");
    EXPECT_EQ(ops[9].sync, TRACE_SYNC_STREAM);
    EXPECT_STREQ(ops[9].name, "cudaStreamQuery");
    // The spans carry the names the program wrote.
    for (const char *api : {"cudaMemsetAsync", "cudaMemcpyAsync", "cudaEventRecord", "cudaStreamWaitEvent",
                            "cudaLaunchHostFunc", "cudaMemset"})
        EXPECT_NE(std::find(spans.begin(), spans.end(), api), spans.end()) << api;
    CUDA_OK(cudaEventDestroy(e));
}

// CUPTI's callback matching hears the _ptds/_ptsz calls too, so their ops get device times.
TEST_F(Interpose, PerThreadDefaultStreamCallsGetDeviceTimesWithCuptiCallbackMatching) {
    if (!begin_cupti(TRACE_GPU_MATCH_CALLBACK, TRACE_GPU_API_AUTO, "cupti-callback"))
        GTEST_SKIP() << "CUPTI callback matching unavailable here: " << trace_gpu_status_message();
    const size_t n = 1 << 20;
    void *d = dev(n);
    void *h = pinned(n);
    cudaEvent_t e;
    CUDA_OK(cudaEventCreate(&e));
    for (int rep = 0; rep < 3; ++rep) {
        CUDA_OK(trace_gpu_ptds_memset_async(d, rep, n));
        CUDA_OK(trace_gpu_ptds_memcpy_async(d, h, n, cudaMemcpyHostToDevice));
        CUDA_OK(trace_gpu_ptds_event_record(e));
        CUDA_OK(trace_gpu_ptds_memset(d, rep, n));
        CUDA_OK(trace_gpu_ptds_memcpy(h, d, n, cudaMemcpyDeviceToHost));
    }
    CUDA_OK(cudaDeviceSynchronize());
    trace_gpu_flush();
    const int32_t pt = trace_stream_id(cudaStreamPerThread);
    std::lock_guard<std::recursive_mutex> g(seen.mu);
    int device_ops = 0;
    for (const trace_op &op : seen.ops) {
        if (op.kind != TRACE_OP_COPY && op.kind != TRACE_OP_MEMSET) continue;
        ++device_ops;
        EXPECT_EQ(op.stream, pt);
        EXPECT_NE(seen.timed.find(op.id), seen.timed.end()) << trace_op_kind_name(op.kind) << " op " << op.id;
    }
    EXPECT_EQ(device_ops, 3 * 4);
    expect_cupti_stats_clean();
    CUDA_OK(cudaEventDestroy(e));
}

int device_count() {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
    (void)cudaGetLastError();
    return count;
}

// Peer copies between two GPUs, asynchronous and synchronous, with peer access as given:
// each is one COPY op on the link lane (D2D, the source read and the destination written,
// as the simulator records it), on its stream, timed by the timing mode begun.
// pull: also a copy from GPU 1 to GPU 0 on GPU 0's stream (CUPTI reports it on a stream
// of GPU 1, which stream-order matching does not know).
void peer_copies_recorded_and_timed(Interpose *t, Seen &seen, bool peer_access, bool pull = true) {
    const size_t n = 4 << 20;
    CUDA_OK(cudaSetDevice(1));
    void *d1 = t->dev(n);
    cudaStream_t s1;  // a stream belongs to the device current when it was made
    CUDA_OK(cudaStreamCreate(&s1));
    const trace_stream *on1 = trace_stream_get(trace_stream_id(s1));
    ASSERT_NE(on1, nullptr);
    EXPECT_EQ(on1->device, 1u);
    CUDA_OK(cudaStreamDestroy(s1));
    if (peer_access) {
        cudaError_t e = cudaDeviceEnablePeerAccess(0, 0);
        if (e == cudaErrorPeerAccessAlreadyEnabled) (void)cudaGetLastError();
        else CUDA_OK(e);
    }
    CUDA_OK(cudaSetDevice(0));
    void *d0 = t->dev(n);
    if (peer_access) {
        cudaError_t e = cudaDeviceEnablePeerAccess(1, 0);
        if (e == cudaErrorPeerAccessAlreadyEnabled) (void)cudaGetLastError();
        else CUDA_OK(e);
    }
    cudaStream_t s;
    CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    size_t first = t->mark();
    CUDA_OK(cudaMemcpyPeerAsync(d1, 1, d0, 0, n, s));
    if (pull) CUDA_OK(cudaMemcpyPeerAsync(d0, 0, d1, 1, n / 2, s));
    else CUDA_OK(cudaMemcpyPeerAsync(d1, 1, d0, 0, n / 2, s));
    CUDA_OK(cudaMemcpyPeer(d1, 1, d0, 0, n / 4));
    EXPECT_NE(cudaMemcpyPeerAsync(d1, 7, d0, 0, n, s), cudaSuccess);  // no device 7: no op
    (void)cudaGetLastError();
    CUDA_OK(cudaDeviceSynchronize());
    trace_gpu_flush();
    std::vector<trace_op> copies;
    for (const trace_op &op : t->since(first))
        if (op.kind == TRACE_OP_COPY) copies.push_back(op);
    ASSERT_EQ(copies.size(), 3u);
    const uint64_t bytes[3] = {n, n / 2, n / 4};
    const void *src[3] = {d0, pull ? d1 : d0, d0}, *dst[3] = {d1, pull ? d0 : d1, d1};
    std::lock_guard<std::recursive_mutex> g(seen.mu);
    for (int i = 0; i < 3; ++i) {
        const trace_op &op = copies[i];
        EXPECT_EQ(op.engine, TRACE_ENGINE_LINK) << "copy " << i;
        EXPECT_EQ(op.dir, TRACE_COPY_D2D) << "copy " << i;
        EXPECT_EQ(op.bytes, bytes[i]) << "copy " << i;
        ASSERT_EQ(op.n_ranges, 2u);
        EXPECT_EQ(op.ranges[0].addr, (uint64_t)(uintptr_t)src[i]);
        EXPECT_EQ(op.ranges[0].flags & TRACE_RANGE_WRITE, 0u);
        EXPECT_EQ(trace_range_device(&op.ranges[0]), src[i] == d0 ? 0 : 1);
        EXPECT_EQ(op.ranges[1].addr, (uint64_t)(uintptr_t)dst[i]);
        EXPECT_EQ(op.ranges[1].flags & TRACE_RANGE_WRITE, TRACE_RANGE_WRITE);
        EXPECT_EQ(op.device, src[i] == d0 ? 0u : 1u) << "copy " << i;
        EXPECT_EQ(op.dst_device, dst[i] == d0 ? 0u : 1u) << "copy " << i;
        auto it = seen.timed.find(op.id);
        ASSERT_NE(it, seen.timed.end()) << "peer copy " << i << " got no device times";
        EXPECT_LT(it->second.start_ns, it->second.end_ns) << "copy " << i;
    }
    EXPECT_EQ(copies[0].stream, copies[1].stream);
    EXPECT_EQ(copies[2].stream, TRACE_STREAM_LEGACY);
    // The synchronous copy: the host waited for it.
    bool waited = false;
    for (const trace_op &op : t->since(first))
        waited |= op.kind == TRACE_OP_SYNC && op.sync == TRACE_SYNC_OP && op.waited_op == copies[2].id;
    EXPECT_TRUE(waited) << "cudaMemcpyPeer recorded no host wait for its copy";
    cudaStreamDestroy(s);
    if (peer_access) {
        cudaDeviceDisablePeerAccess(1);
        CUDA_OK(cudaSetDevice(1));
        cudaDeviceDisablePeerAccess(0);
        CUDA_OK(cudaSetDevice(0));
    }
}

TEST_F(Interpose, PeerCopiesAreRecordedOnTheLinkAndTimedByCupti) {
    if (device_count() < 2) GTEST_SKIP() << "needs two CUDA devices";
    if (trace_gpu_begin_mode(TRACE_GPU_WANT_CUPTI) != TRACE_GPU_CUPTI)
        GTEST_SKIP() << "CUPTI unavailable here: " << trace_gpu_status_message();
    peer_copies_recorded_and_timed(this, seen, true);
    peer_copies_recorded_and_timed(this, seen, false);
    expect_cupti_stats_clean();
}

TEST_F(Interpose, PeerCopiesAreTimedWithCuptiStreamOrderMatching) {
    if (device_count() < 2) GTEST_SKIP() << "needs two CUDA devices";
    if (!begin_cupti(TRACE_GPU_MATCH_STREAM_ORDER, TRACE_GPU_API_AUTO, "cupti-stream"))
        GTEST_SKIP() << "CUPTI stream-order matching unavailable here: " << trace_gpu_status_message();
    peer_copies_recorded_and_timed(this, seen, true, false);
    expect_cupti_stats_clean();
}

TEST_F(Interpose, PeerCopiesAreTimedWithEvents) {
    if (device_count() < 2) GTEST_SKIP() << "needs two CUDA devices";
    ASSERT_EQ(trace_gpu_begin_mode(TRACE_GPU_WANT_EVENTS), TRACE_GPU_EVENTS);
    peer_copies_recorded_and_timed(this, seen, true);
}

TEST_F(Interpose, DefaultStreamWorkOfGpu1IsRecordedOnAStreamOfGpu1) {
    if (device_count() < 2) GTEST_SKIP() << "needs two CUDA devices";
    const size_t n = 1 << 20;
    CUDA_OK(cudaSetDevice(1));
    void *d1 = dev(n);
    size_t first = mark();
    CUDA_OK(cudaMemsetAsync(d1, 1, n, nullptr));
    CUDA_OK(cudaMemsetAsync(d1, 2, n, cudaStreamPerThread));
    CUDA_OK(cudaStreamSynchronize(nullptr));
    CUDA_OK(cudaSetDevice(0));
    void *d0 = dev(n);
    CUDA_OK(cudaMemsetAsync(d0, 3, n, nullptr));
    CUDA_OK(cudaDeviceSynchronize());
    std::vector<trace_op> sets, syncs;
    for (const trace_op &op : since(first)) {
        if (op.kind == TRACE_OP_MEMSET) sets.push_back(op);
        if (op.kind == TRACE_OP_SYNC && op.sync == TRACE_SYNC_STREAM) syncs.push_back(op);
    }
    ASSERT_EQ(sets.size(), 3u);
    const trace_stream *legacy1 = trace_stream_get(sets[0].stream);
    const trace_stream *per_thread1 = trace_stream_get(sets[1].stream);
    ASSERT_NE(legacy1, nullptr);
    ASSERT_NE(per_thread1, nullptr);
    EXPECT_NE(sets[0].stream, TRACE_STREAM_LEGACY);
    EXPECT_EQ(legacy1->device, 1u);
    EXPECT_STREQ(legacy1->name, "GPU 1 stream 0");
    EXPECT_EQ(per_thread1->device, 1u);
    EXPECT_STREQ(per_thread1->name, "GPU 1 per-thread");
    EXPECT_NE(sets[0].stream, sets[1].stream);
    EXPECT_EQ(sets[0].device, 1u);
    EXPECT_EQ(sets[2].stream, TRACE_STREAM_LEGACY);  // GPU 0's default stream as before
    EXPECT_EQ(sets[2].device, 0u);
    ASSERT_EQ(syncs.size(), 1u);
    EXPECT_EQ(syncs[0].stream, sets[0].stream);  // the host waited for GPU 1's stream 0
}

TEST(InterposeNoDevice, BeginWithoutADeviceDoesNotCrashAndSaysWhy) {
    if (have_device()) GTEST_SKIP() << "a CUDA device is present";
    trace_gpu_mode mode = trace_gpu_begin();
    EXPECT_NE(mode, TRACE_GPU_EVENTS);  // events need a device
    EXPECT_GT(std::strlen(trace_gpu_status_message()), 0u);
    std::printf("status without a device: %s\n", trace_gpu_status_message());
    trace_gpu_end();
    EXPECT_EQ(trace_gpu_status(), TRACE_GPU_OFF);
}

}  // namespace
