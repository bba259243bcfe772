// trace/stalls_test.cc: on timelines built by hand, stream-0 ops between the tasks of
// blocking streams wait for the stream before and hold back the stream after them, with
// the exact times; non-blocking streams and idle moments give no stalls; per-thread
// streams block; GPU jitter within the tolerance is absorbed and waits or holds shorter
// than it are not reported; the one-line text is exact; busy streams at a moment are
// those with work enqueued and not finished.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

extern "C" {
#include "trace/view/stalls.h"
}

namespace {

constexpr uint64_t kUs = 1000;
constexpr uint64_t kMs = 1000 * kUs;

// A timeline built op by op, ids in host order.
class Timeline {
  public:
    Timeline() : tl_(trace_timeline_create()) {}
    ~Timeline() { trace_timeline_destroy(tl_); }
    Timeline(const Timeline &) = delete;
    Timeline &operator=(const Timeline &) = delete;

    trace_timeline *tl() { return tl_; }

    void Stream(int32_t id, const char *name = nullptr, unsigned flags = 0, bool per_thread = false) {
        trace_stream s = {};
        s.id = id;
        s.flags = flags;
        s.legacy = id == TRACE_STREAM_LEGACY;
        s.per_thread = per_thread;
        if (name)
            snprintf(s.name, sizeof(s.name), "%s", name);
        else
            snprintf(s.name, sizeof(s.name), "s%d", static_cast<int>(id));
        trace_timeline_add_stream(tl_, &s);
    }

    // The next op in host order.
    trace_op Op(trace_op_kind kind, int32_t stream, uint64_t enqueue, uint64_t start, uint64_t end,
                int32_t batch = -1, int32_t run = 1, trace_copy_dir dir = TRACE_COPY_NONE) {
        trace_op op = {};
        op.id = next_id_++;
        op.kind = kind;
        op.dir = dir;
        op.engine = kind == TRACE_OP_COPY ? (dir == TRACE_COPY_D2H ? TRACE_ENGINE_D2H : TRACE_ENGINE_H2D)
                                          : TRACE_ENGINE_COMPUTE;
        op.stream = stream;
        op.batch = batch;
        op.run = run;
        op.enqueue_ns = enqueue;
        op.start_ns = start;
        op.end_ns = end;
        op.timed = true;
        trace_timeline_add_op(tl_, &op);
        return op;
    }
    trace_op Memset(int32_t stream, uint64_t enqueue, uint64_t start, uint64_t end, int32_t run = 1) {
        return Op(TRACE_OP_MEMSET, stream, enqueue, start, end, -1, run);
    }
    trace_op Kernel(int32_t stream, uint64_t enqueue, uint64_t start, uint64_t end, int32_t batch = -1) {
        return Op(TRACE_OP_KERNEL, stream, enqueue, start, end, batch);
    }

    std::vector<trace_stall> Stalls(int32_t run = 1) {
        size_t n = trace_stalls_find(tl_, run, nullptr, 0);
        std::vector<trace_stall> v(n);
        EXPECT_EQ(trace_stalls_find(tl_, run, v.data(), v.size()), n);
        return v;
    }

    std::string Format(const trace_stall &s, const char *item) {
        char buf[512];
        int n = trace_stall_format(&s, tl_, item, buf, sizeof buf);
        EXPECT_EQ(n, static_cast<int>(std::string(buf).size()));
        return buf;
    }

    std::vector<int32_t> BusyAt(uint64_t t, int32_t run = 1) {
        size_t n = trace_streams_busy_at(tl_, run, t, nullptr, 0);
        std::vector<int32_t> v(n);
        EXPECT_EQ(trace_streams_busy_at(tl_, run, t, v.data(), v.size()), n);
        return v;
    }

  private:
    trace_timeline *tl_;
    uint64_t next_id_ = 1;
};

std::vector<int32_t> Waited(const trace_stall &s) {
    return std::vector<int32_t>(s.waited, s.waited + std::min<uint32_t>(s.n_waited, TRACE_STALL_MAX_STREAMS));
}
std::vector<int32_t> Held(const trace_stall &s) {
    return std::vector<int32_t>(s.held, s.held + std::min<uint32_t>(s.n_held, TRACE_STALL_MAX_STREAMS));
}

// One task: H2D (1 ms), kernel (0.6 ms), D2H (0.4 ms) on a stream, each op enqueued 1 us
// after the last and starting at `start` one after another. Returns when it ends.
uint64_t Task(Timeline &t, int32_t stream, int32_t batch, uint64_t *host, uint64_t start) {
    const uint64_t phase[3] = {1 * kMs, 600 * kUs, 400 * kUs};
    const trace_op_kind kind[3] = {TRACE_OP_COPY, TRACE_OP_KERNEL, TRACE_OP_COPY};
    const trace_copy_dir dir[3] = {TRACE_COPY_H2D, TRACE_COPY_NONE, TRACE_COPY_D2H};
    for (int p = 0; p < 3; p++) {
        uint64_t s = std::max(start, *host);
        t.Op(kind[p], stream, *host, s, s + phase[p], batch, 1, dir[p]);
        *host += kUs;
        start = s + phase[p];
    }
    return start;
}

// The serialised pattern: task i on stream i + 1, a 0.1 ms stream-0 memset between
// tasks, everything enqueued at once (1 us apart) and run as the legacy stream orders it:
// each memset after the task before it, each task after the memset before it.
struct Serialised {
    uint64_t memset_enqueue[3], memset_start[3], memset_end[3], task_enqueue[4];
};
Serialised BuildSerialised(Timeline &t) {
    Serialised s = {};
    uint64_t host = 0, device = 0;
    for (int32_t i = 0; i < 4; i++) {
        s.task_enqueue[i] = host;
        device = Task(t, i + 1, i, &host, device);
        if (i == 3) break;
        s.memset_enqueue[i] = host;
        s.memset_start[i] = device;
        s.memset_end[i] = device + 100 * kUs;
        t.Memset(TRACE_STREAM_LEGACY, host, device, device + 100 * kUs);
        host += kUs;
        device += 100 * kUs;
    }
    return s;
}

TEST(Stalls, EveryMemsetBetweenTasksOnBlockingStreamsWaitedAndHeldBack) {
    Timeline t;
    for (int32_t i = 1; i <= 4; i++) t.Stream(i, ("task " + std::to_string(i - 1)).c_str());
    Serialised s = BuildSerialised(t);
    std::vector<trace_stall> stalls = t.Stalls();
    ASSERT_EQ(stalls.size(), 3u);
    for (int32_t i = 0; i < 3; i++) {
        SCOPED_TRACE(i);
        const trace_stall &st = stalls[i];
        EXPECT_EQ(st.op.kind, TRACE_OP_MEMSET);
        EXPECT_EQ(st.op.start_ns, s.memset_start[i]);
        EXPECT_EQ(st.after_batch, i);
        EXPECT_EQ(Waited(st), std::vector<int32_t>{i + 1}) << "the stream of the task before it";
        EXPECT_EQ(Held(st), std::vector<int32_t>{i + 2}) << "the stream of the task after it";
        // Ready when enqueued (the first) or when the memset before it ended.
        uint64_t ready = i == 0 ? s.memset_enqueue[0] : s.memset_end[i - 1];
        EXPECT_EQ(st.waited_ns, s.memset_start[i] - ready);
        // The next task was enqueued long before, and could have started when the memset
        // before this one ended.
        uint64_t x_ready = i == 0 ? s.task_enqueue[1] : s.memset_end[i - 1];
        EXPECT_EQ(st.held_ns, s.memset_end[i] - x_ready);
    }
    // Past the first, each memset waits for exactly one task (2 ms) and holds the next
    // task back for that task plus itself.
    EXPECT_EQ(stalls[1].waited_ns, 2 * kMs);
    EXPECT_EQ(stalls[1].held_ns, 2 * kMs + 100 * kUs);
    EXPECT_EQ(stalls[0].waited_ns, 2 * kMs - 3 * kUs);
}

TEST(Stalls, NonBlockingStreamsAreNeverStalled) {
    // The flags decide: the same (serialised) times with non-blocking streams give none.
    Timeline serial;
    for (int32_t i = 1; i <= 4; i++) serial.Stream(i, nullptr, 0x1);
    BuildSerialised(serial);
    EXPECT_TRUE(serial.Stalls().empty());

    // And as non-blocking streams actually run: tasks overlap, memsets run at once.
    Timeline t;
    uint64_t host = 0;
    for (int32_t i = 1; i <= 4; i++) t.Stream(i, nullptr, 0x1);
    for (int32_t i = 0; i < 4; i++) {
        Task(t, i + 1, i, &host, host);
        if (i < 3) t.Memset(TRACE_STREAM_LEGACY, host, host, host + 100 * kUs);
        host += kUs;
    }
    EXPECT_TRUE(t.Stalls().empty());
}

TEST(Stalls, AStream0OpWithNothingElseRunningIsNoStall) {
    Timeline t;
    t.Stream(1);
    uint64_t host = 0;
    uint64_t end = Task(t, 1, 0, &host, 0);
    // The host synchronised, then set a buffer on stream 0, synchronised again, and went on.
    t.Memset(TRACE_STREAM_LEGACY, end + 10 * kUs, end + 15 * kUs, end + 115 * kUs);
    host = end + 200 * kUs;
    Task(t, 1, 1, &host, host);
    // Nothing at all on the other streams.
    t.Memset(TRACE_STREAM_LEGACY, 10 * kMs, 10 * kMs + 5 * kUs, 11 * kMs);
    EXPECT_TRUE(t.Stalls().empty());
}

TEST(Stalls, ThePerThreadStreamIsBlockingAndOnlyBlockingStreamsCount) {
    Timeline t;
    t.Stream(1, "per-thread", 0, true);
    t.Stream(2, "copies", 0x1);
    // Both streams busy until 2 ms; the memset enqueued at 10 us waits for the
    // per-thread stream only, and holds back the per-thread stream's next op only.
    t.Kernel(1, 0, 0, 2 * kMs, 0);
    t.Kernel(2, 1 * kUs, 1 * kUs, 3 * kMs, 1);
    t.Memset(TRACE_STREAM_LEGACY, 10 * kUs, 2 * kMs, 2 * kMs + 500 * kUs);
    t.Kernel(1, 20 * kUs, 2 * kMs + 500 * kUs, 3 * kMs, 2);
    t.Kernel(2, 30 * kUs, 3 * kMs, 4 * kMs, 3);
    std::vector<trace_stall> stalls = t.Stalls();
    ASSERT_EQ(stalls.size(), 1u);
    EXPECT_EQ(Waited(stalls[0]), std::vector<int32_t>{1});
    EXPECT_EQ(stalls[0].waited_ns, 2 * kMs - 10 * kUs);
    EXPECT_EQ(Held(stalls[0]), std::vector<int32_t>{1});
    EXPECT_EQ(stalls[0].held_ns, 2 * kMs + 500 * kUs - 2 * kMs) << "ready when its kernel before ended";
    EXPECT_EQ(stalls[0].after_batch, 1);
    EXPECT_EQ(t.Format(stalls[0], "task"),
              "stream 0 memset after task 1 waited 2.0 ms for \"per-thread\", and held back \"per-thread\" "
              "for 500 us");
}

TEST(Stalls, GpuJitterWithinTheToleranceIsAbsorbed) {
    Timeline t;
    t.Stream(1);
    t.Stream(2);
    t.Stream(3);
    // CUPTI's times against the host clock: the memset appears to start 5 us before s1's
    // kernel ended, and s2's kernel 8 us before the memset ended. Both still count.
    t.Kernel(1, 0, 3 * kUs, 1 * kMs, 0);
    t.Memset(TRACE_STREAM_LEGACY, 10 * kUs, 1 * kMs - 5 * kUs, 1 * kMs + 200 * kUs);
    t.Kernel(2, 15 * kUs, 1 * kMs + 192 * kUs, 2 * kMs, 1);
    // s3's kernel started 30 us before the memset ended: it did not wait for it.
    t.Kernel(3, 16 * kUs, 1 * kMs + 170 * kUs, 2 * kMs, 2);
    std::vector<trace_stall> stalls = t.Stalls();
    ASSERT_EQ(stalls.size(), 1u);
    EXPECT_EQ(Waited(stalls[0]), std::vector<int32_t>{1});
    EXPECT_EQ(stalls[0].waited_ns, 1 * kMs - 5 * kUs - 10 * kUs);
    EXPECT_EQ(Held(stalls[0]), std::vector<int32_t>{2});
    EXPECT_EQ(stalls[0].held_ns, 1 * kMs + 192 * kUs - 15 * kUs) << "until it started, a little before the end";

    // A stream-0 op that started 30 us before the other stream's op ended did not wait
    // for it; one that waited 15 us, or held an op back 15 us, is launch latency.
    Timeline u;
    u.Stream(1);
    u.Stream(2);
    u.Kernel(1, 0, 0, 1 * kMs, 0);
    u.Memset(TRACE_STREAM_LEGACY, 10 * kUs, 1 * kMs - 30 * kUs, 1 * kMs + 100 * kUs);
    u.Kernel(2, 2 * kMs, 2 * kMs + 5 * kUs, 3 * kMs, 1);
    u.Kernel(1, 3 * kMs, 3 * kMs + 5 * kUs, 4 * kMs, 2);
    u.Memset(TRACE_STREAM_LEGACY, 4 * kMs - 15 * kUs, 4 * kMs, 4 * kMs + 100 * kUs);
    u.Kernel(2, 4 * kMs + 85 * kUs, 4 * kMs + 104 * kUs, 5 * kMs, 3);
    EXPECT_TRUE(u.Stalls().empty());
}

TEST(Stalls, AnOpEnqueuedAfterTheStream0OpEndedWasNotHeldBack) {
    Timeline t;
    for (int32_t i = 1; i <= 4; i++) t.Stream(i);
    t.Kernel(1, 0, 0, 2 * kMs, 0);
    t.Memset(TRACE_STREAM_LEGACY, 1 * kUs, 2 * kMs, 2 * kMs + 100 * kUs);
    // The host synchronised on s1 (returning at 2 ms) and went on enqueueing. On s4 50 us
    // before the memset ended: held back 50 us.
    t.Kernel(4, 2 * kMs + 50 * kUs, 2 * kMs + 101 * kUs, 3 * kMs, 3);
    // On s3 10 us before it ended: within the tolerance, not reported.
    t.Kernel(3, 2 * kMs + 90 * kUs, 2 * kMs + 100 * kUs, 3 * kMs, 2);
    // On s2 after it had ended: not held back.
    t.Kernel(2, 2 * kMs + 150 * kUs, 2 * kMs + 155 * kUs, 3 * kMs, 1);
    std::vector<trace_stall> stalls = t.Stalls();
    ASSERT_EQ(stalls.size(), 1u);
    EXPECT_EQ(Waited(stalls[0]), std::vector<int32_t>{1});
    EXPECT_EQ(Held(stalls[0]), std::vector<int32_t>{4});
    EXPECT_EQ(stalls[0].held_ns, 50 * kUs);

    // An op enqueued long before the memset ended, but behind earlier work of its own
    // stream, was held back only from when its stream was done with that work.
    Timeline u;
    u.Stream(2);
    u.Kernel(2, 0, 0, 5 * kMs, 0);  // s2 busy until 5 ms; the memset waits for it
    u.Memset(TRACE_STREAM_LEGACY, 1 * kUs, 5 * kMs, 5 * kMs + 100 * kUs);
    u.Kernel(2, 3 * kUs, 5 * kMs + 100 * kUs, 6 * kMs, 1);
    std::vector<trace_stall> v = u.Stalls();
    ASSERT_EQ(v.size(), 1u);
    EXPECT_EQ(Waited(v[0]), std::vector<int32_t>{2});
    EXPECT_EQ(v[0].waited_ns, 5 * kMs - 1 * kUs);
    EXPECT_EQ(Held(v[0]), std::vector<int32_t>{2});
    EXPECT_EQ(v[0].held_ns, 100 * kUs) << "not 5.1 ms: its first kernel kept it until 5 ms";
}

TEST(Stalls, EachOpIsHeldBackByTheLastStream0OpBeforeItOnly) {
    Timeline t;
    t.Stream(1);
    t.Stream(2);
    t.Kernel(1, 0, 0, 2 * kMs, 0);
    t.Memset(TRACE_STREAM_LEGACY, 1 * kUs, 2 * kMs, 2 * kMs + 100 * kUs);
    t.Memset(TRACE_STREAM_LEGACY, 2 * kUs, 2 * kMs + 100 * kUs, 2 * kMs + 300 * kUs);
    t.Kernel(2, 3 * kUs, 2 * kMs + 300 * kUs, 3 * kMs, 1);
    std::vector<trace_stall> stalls = t.Stalls();
    ASSERT_EQ(stalls.size(), 2u);
    // The first waited for s1 and held back nothing directly: s2's kernel came after the
    // second memset, which it waited for.
    EXPECT_EQ(Waited(stalls[0]), std::vector<int32_t>{1});
    EXPECT_EQ(stalls[0].n_held, 0u);
    // The second waited for nothing but its own stream, and held s2 back from the end of
    // the first memset (before that, the first held everything) to its own end.
    EXPECT_EQ(stalls[1].n_waited, 0u);
    EXPECT_EQ(stalls[1].waited_ns, 0u);
    EXPECT_EQ(Held(stalls[1]), std::vector<int32_t>{2});
    EXPECT_EQ(stalls[1].held_ns, 200 * kUs);
    // Of the two, one held a stream back, whether or not the caller keeps them.
    size_t held = 9;
    EXPECT_EQ(trace_stalls_find_held(t.tl(), 1, nullptr, 0, &held), 2u);
    EXPECT_EQ(held, 1u);
}

TEST(Stalls, OnlyTheChosenRunAndStreamWorkCount) {
    Timeline t;
    t.Stream(1);
    t.Stream(2);
    // Run 2: a stall.
    t.Op(TRACE_OP_KERNEL, 1, 0, 0, 2 * kMs, 0, 2);
    t.Op(TRACE_OP_MEMSET, 0, 1 * kUs, 2 * kMs, 3 * kMs, -1, 2);
    t.Op(TRACE_OP_KERNEL, 2, 2 * kUs, 3 * kMs, 4 * kMs, 1, 2);
    // Run 1: a host access and an API span are not stream work; the memset is alone.
    t.Op(TRACE_OP_API, 1, 10 * kMs, 10 * kMs, 12 * kMs);
    t.Op(TRACE_OP_HOST_ACCESS, 2, 10 * kMs, 10 * kMs, 12 * kMs);
    t.Memset(0, 10 * kMs + 1 * kUs, 11 * kMs, 11 * kMs + 100 * kUs, 1);
    EXPECT_TRUE(t.Stalls(1).empty());
    EXPECT_EQ(t.Stalls(2).size(), 1u);
    EXPECT_EQ(t.Stalls(TRACE_RUN_ANY).size(), 1u);
    EXPECT_EQ(t.Stalls(3).size(), 0u);
    // max bounds what is written, not what is counted.
    trace_stall one[1];
    EXPECT_EQ(trace_stalls_find(t.tl(), 2, one, 0), 1u);
}

TEST(Stalls, EveryStreamIsCountedAndTheFirstSixteenListed) {
    Timeline t;
    const int32_t kStreams = TRACE_STALL_MAX_STREAMS + 2;
    for (int32_t i = 1; i <= kStreams; i++) t.Kernel(i, kUs * i, kUs * i, 1 * kMs + kUs * i, i);
    t.Memset(0, 100 * kUs, 1 * kMs + kUs * kStreams, 2 * kMs);
    std::vector<trace_stall> stalls = t.Stalls();
    ASSERT_EQ(stalls.size(), 1u);
    EXPECT_EQ(stalls[0].n_waited, static_cast<uint32_t>(kStreams)) << "streams it has no record of block";
    for (int32_t i = 0; i < TRACE_STALL_MAX_STREAMS; i++) EXPECT_EQ(stalls[0].waited[i], i + 1);
    EXPECT_EQ(stalls[0].waited_ns, 1 * kMs + kUs * kStreams - 100 * kUs);
    std::string line = t.Format(stalls[0], nullptr);
    EXPECT_EQ(line.rfind("stream 0 memset after batch 18 waited 918 us for s1, s2, s3, ", 0), 0u) << line;
    EXPECT_NE(line.find(", s15, s16 and 2 other streams"), std::string::npos) << line;
}

TEST(StallFormat, TwoStreamsExactly) {
    Timeline t;
    t.Stream(1, "task 0");
    t.Stream(2, "task 1");
    t.Kernel(1, 0, 0, 2 * kMs, 0);
    t.Memset(TRACE_STREAM_LEGACY, 1 * kUs, 2 * kMs, 2 * kMs + 100 * kUs);
    t.Kernel(2, 2 * kUs, 2 * kMs + 100 * kUs, 3 * kMs, 1);
    std::vector<trace_stall> stalls = t.Stalls();
    ASSERT_EQ(stalls.size(), 1u);
    EXPECT_EQ(t.Format(stalls[0], "task"),
              "stream 0 memset after task 0 waited 2.0 ms for \"task 0\", and held back \"task 1\" for 2.1 ms");
    EXPECT_EQ(t.Format(stalls[0], nullptr),
              "stream 0 memset after batch 0 waited 2.0 ms for \"task 0\", and held back \"task 1\" for 2.1 ms");

    // Unnamed streams, a named kernel, several streams, only a hold, no batch before it.
    trace_stall s = {};
    s.op.kind = TRACE_OP_KERNEL;
    snprintf(s.op.name, sizeof s.op.name, "reset");
    s.after_batch = -1;
    s.n_held = 3;
    s.held[0] = 2;
    s.held[1] = 3;
    s.held[2] = 4;
    s.held_ns = 450 * kUs;
    EXPECT_EQ(t.Format(s, "task"), "stream 0 kernel reset held back \"task 1\", s3 and s4 for 450 us");
    s.op.kind = TRACE_OP_COPY;
    s.op.dir = TRACE_COPY_H2D;
    s.op.name[0] = '\0';
    s.n_held = 0;
    s.n_waited = 1;
    s.waited[0] = 1;
    s.waited_ns = 12345678;
    EXPECT_EQ(t.Format(s, "task"), "stream 0 H2D waited 12.3 ms for \"task 0\"");
    // Without a timeline streams are plain ids.
    char buf[128];
    trace_stall_format(&s, nullptr, "task", buf, sizeof buf);
    EXPECT_STREQ(buf, "stream 0 H2D waited 12.3 ms for s1");
    // Cut to the buffer, like snprintf, and the full length returned.
    std::string full = t.Format(stalls[0], "task");
    char small[20];
    EXPECT_EQ(trace_stall_format(&stalls[0], t.tl(), "task", small, sizeof small), static_cast<int>(full.size()));
    EXPECT_EQ(std::string(small), full.substr(0, sizeof small - 1));
    EXPECT_EQ(trace_stall_format(&stalls[0], t.tl(), "task", nullptr, 0), static_cast<int>(full.size()));
}

TEST(BusyAt, StreamsWithWorkEnqueuedAndNotFinished) {
    Timeline t;
    t.Stream(1);
    t.Stream(2);
    t.Kernel(1, 0, 1 * kMs, 3 * kMs, 0);                 // waits until 1 ms to start
    t.Kernel(2, 500 * kUs, 500 * kUs, 1500 * kUs, 1);    // runs 0.5 .. 1.5 ms
    t.Memset(0, 2500 * kUs, 3 * kMs, 3200 * kUs);        // enqueued 2.5 ms, runs 3 .. 3.2 ms
    t.Op(TRACE_OP_KERNEL, 2, 0, 0, 9 * kMs, 0, 2);        // another run's
    t.Op(TRACE_OP_API, 2, 0, 0, 9 * kMs);                 // not stream work
    EXPECT_EQ(t.BusyAt(0), std::vector<int32_t>{}) << "nothing enqueued before 0";
    EXPECT_EQ(t.BusyAt(200 * kUs), std::vector<int32_t>{1}) << "enqueued, not started: still to do";
    EXPECT_EQ(t.BusyAt(1 * kMs), (std::vector<int32_t>{1, 2}));
    EXPECT_EQ(t.BusyAt(1500 * kUs), std::vector<int32_t>{1}) << "s2 ended at that moment";
    EXPECT_EQ(t.BusyAt(2600 * kUs), (std::vector<int32_t>{0, 1}));
    EXPECT_EQ(t.BusyAt(3100 * kUs), std::vector<int32_t>{0});
    EXPECT_EQ(t.BusyAt(4 * kMs), std::vector<int32_t>{});
    EXPECT_EQ(t.BusyAt(4 * kMs, 2), std::vector<int32_t>{2});
    EXPECT_EQ(t.BusyAt(4 * kMs, TRACE_RUN_ANY), std::vector<int32_t>{2});
    int32_t first = -1;
    EXPECT_EQ(trace_streams_busy_at(t.tl(), 1, 1 * kMs, &first, 1), 2u);
    EXPECT_EQ(first, 1);
}

}  // namespace
