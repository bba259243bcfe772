// trace/view/polls_test.cc: on timelines built by hand, a loop of queries about one event
// or stream that ends in cudaSuccess is a poll, from its first query; a query that finds
// the work done at its first ask is none, nor is a loop over several events that takes the
// first one found done; a loop that goes round several until one is done is a poll of that
// one; another call, or a query from another line, ends a loop; time between the queries of
// a loop (a sleep) is the poll's.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

extern "C" {
#include "trace/view/polls.h"
}

namespace {

constexpr uint64_t kUs = 1000;

class Timeline {
  public:
    Timeline() : tl_(trace_timeline_create()) {}
    ~Timeline() { trace_timeline_destroy(tl_); }
    Timeline(const Timeline &) = delete;
    Timeline &operator=(const Timeline &) = delete;
    trace_timeline *tl() { return tl_; }

    // A query about an event (stream < 0) or a stream, from site, at [start, end]: an API
    // span naming what it asked when it answered not ready, a host wait when cudaSuccess
    // (with the simulator's plain span after it when sim_span).
    uint64_t Query(bool ready, uint64_t event, int32_t stream, uint64_t site, uint64_t start, uint64_t end,
                   bool sim_span = false) {
        trace_op op = Host(ready ? TRACE_OP_SYNC : TRACE_OP_API, event ? "cudaEventQuery" : "cudaStreamQuery", site,
                           start, end);
        op.sync = event ? TRACE_SYNC_EVENT : TRACE_SYNC_STREAM;
        op.event = event;
        op.stream = event ? TRACE_STREAM_NONE : stream;
        trace_timeline_add_op(tl_, &op);
        if (ready && sim_span) {
            trace_op span = Host(TRACE_OP_API, op.name, site, start, end);
            trace_timeline_add_op(tl_, &span);
        }
        return op.id;
    }
    // Another call of the program (a launch's span, say).
    void Call(const char *name, uint64_t site, uint64_t at) {
        trace_op op = Host(TRACE_OP_API, name, site, at, at + 1 * kUs);
        trace_timeline_add_op(tl_, &op);
    }

  private:
    trace_op Host(trace_op_kind kind, const char *name, uint64_t site, uint64_t start, uint64_t end) {
        trace_op op = {};
        op.id = next_id_++;
        op.kind = kind;
        op.engine = TRACE_ENGINE_HOST;
        op.stream = TRACE_STREAM_NONE;
        op.batch = -1;
        op.run = 1;
        op.enqueue_ns = op.start_ns = start;
        op.end_ns = end;
        op.call_site = site;
        op.timed = true;
        snprintf(op.name, sizeof(op.name), "%s", name);
        return op;
    }
    trace_timeline *tl_;
    uint64_t next_id_ = 1;
};

std::vector<trace_poll> Polls(Timeline &t) {
    trace_poll *p = nullptr;
    long n = trace_polls_find(t.tl(), 1, &p);
    EXPECT_GE(n, 0);
    std::vector<trace_poll> v(p, p + (n > 0 ? n : 0));
    free(p);
    return v;
}

TEST(Polls, ALoopOnOneEventUntilItSucceedsIsOnePollFromItsFirstQuery) {
    Timeline t;
    for (int i = 0; i < 5; i++) t.Query(false, 7, -1, 0x10, (10 + i) * kUs, (10 + i) * kUs + 200);
    uint64_t done = t.Query(true, 7, -1, 0x10, 15 * kUs, 15 * kUs + 200, true);
    std::vector<trace_poll> p = Polls(t);
    ASSERT_EQ(p.size(), 1u);
    EXPECT_EQ(p[0].sync_id, done);
    EXPECT_EQ(p[0].start_ns, 10 * kUs);
    EXPECT_EQ(p[0].not_ready, 5u);
    const trace_poll *of = trace_poll_of(p.data(), p.size(), done);
    ASSERT_NE(of, nullptr);
    EXPECT_EQ(of->start_ns, 10 * kUs);
    EXPECT_EQ(trace_poll_of(p.data(), p.size(), done + 1), nullptr);
}

TEST(Polls, AQueryThatFindsTheWorkDoneAtItsFirstAskIsNoPoll) {
    Timeline t;
    t.Call("cudaEventRecord", 0x20, 1 * kUs);
    t.Query(true, 7, -1, 0x10, 5 * kUs, 5 * kUs + 200, true);
    t.Call("cudaMemcpyAsync", 0x21, 6 * kUs);
    t.Query(true, 7, -1, 0x10, 9 * kUs, 9 * kUs + 200, true);
    EXPECT_TRUE(Polls(t).empty());
    Timeline u;
    u.Query(true, 7, -1, 0x10, 5 * kUs, 5 * kUs + 200);
    trace_poll *none = nullptr;
    EXPECT_EQ(trace_polls_find(u.tl(), 1, &none), 0);
    EXPECT_EQ(none, nullptr);
}

TEST(Polls, PickingAFreeSlotIsNoPollButGoingRoundUntilOneIsFreeIs) {
    Timeline t;
    // Slots 1 and 2 busy, slot 3 free at its first ask: a pick, no wait.
    t.Query(false, 1, -1, 0x30, 1 * kUs, 1 * kUs + 200);
    t.Query(false, 2, -1, 0x30, 2 * kUs, 2 * kUs + 200);
    t.Query(true, 3, -1, 0x30, 3 * kUs, 3 * kUs + 200, true);
    EXPECT_TRUE(Polls(t).empty());
    // Then, after a launch, every slot busy: round and round until slot 2 is done.
    t.Call("kernels_process", 0x31, 4 * kUs);
    uint64_t at = 10 * kUs;
    for (int round = 0; round < 3; round++)
        for (uint64_t e = 1; e <= 3; e++, at += kUs) t.Query(false, e, -1, 0x30, at, at + 200);
    t.Query(false, 1, -1, 0x30, at, at + 200);
    uint64_t done = t.Query(true, 2, -1, 0x30, at + kUs, at + kUs + 200, true);
    std::vector<trace_poll> p = Polls(t);
    ASSERT_EQ(p.size(), 1u);
    EXPECT_EQ(p[0].sync_id, done);
    EXPECT_EQ(p[0].start_ns, 11 * kUs);  // slot 2's first ask in the loop
    EXPECT_EQ(p[0].not_ready, 3u);
}

TEST(Polls, AStreamsPollInARoundOverAPoolStartsAtItsOwnFirstAskAfterAnotherIsDone) {
    Timeline t;
    // Polling streams 1 and 2 in turn until both are idle: 1 is done first, then 2.
    t.Query(false, 0, 1, 0x40, 1 * kUs, 1 * kUs + 200);
    t.Query(false, 0, 2, 0x40, 2 * kUs, 2 * kUs + 200);
    uint64_t one = t.Query(true, 0, 1, 0x40, 3 * kUs, 3 * kUs + 200, true);
    t.Query(false, 0, 2, 0x40, 4 * kUs, 4 * kUs + 200);
    t.Query(true, 0, 1, 0x40, 5 * kUs, 5 * kUs + 200, true);  // already done: no poll
    uint64_t two = t.Query(true, 0, 2, 0x40, 6 * kUs, 6 * kUs + 200, true);
    std::vector<trace_poll> p = Polls(t);
    ASSERT_EQ(p.size(), 2u);
    EXPECT_EQ(p[0].sync_id, one);
    EXPECT_EQ(p[0].start_ns, 1 * kUs);
    EXPECT_EQ(p[0].not_ready, 1u);
    EXPECT_EQ(p[1].sync_id, two);
    EXPECT_EQ(p[1].start_ns, 2 * kUs);
    EXPECT_EQ(p[1].not_ready, 2u);
}

TEST(Polls, AnotherCallOrAnotherLineEndsTheLoop) {
    Timeline t;
    t.Query(false, 7, -1, 0x50, 1 * kUs, 1 * kUs + 200);
    t.Call("kernels_process", 0x51, 2 * kUs);  // the host did something else
    t.Query(false, 7, -1, 0x50, 3 * kUs, 3 * kUs + 200);
    t.Query(false, 7, -1, 0x52, 4 * kUs, 4 * kUs + 200);  // the same event, asked from another line
    t.Query(false, 7, -1, 0x50, 5 * kUs, 5 * kUs + 200);
    uint64_t done = t.Query(true, 7, -1, 0x50, 6 * kUs, 6 * kUs + 200);
    std::vector<trace_poll> p = Polls(t);
    ASSERT_EQ(p.size(), 1u);
    EXPECT_EQ(p[0].sync_id, done);
    EXPECT_EQ(p[0].start_ns, 5 * kUs);
    EXPECT_EQ(p[0].not_ready, 1u);
}

TEST(Polls, TimeBetweenTheQueriesOfALoopIsThePolls) {
    Timeline t;
    // A sleep of 50 us between queries: nothing recorded between them.
    t.Query(false, 0, 3, 0x60, 100 * kUs, 100 * kUs + 500);
    t.Query(false, 0, 3, 0x60, 150 * kUs, 150 * kUs + 500);
    uint64_t done = t.Query(true, 0, 3, 0x60, 200 * kUs, 200 * kUs + 500);
    std::vector<trace_poll> p = Polls(t);
    ASSERT_EQ(p.size(), 1u);
    EXPECT_EQ(p[0].sync_id, done);
    EXPECT_EQ(p[0].start_ns, 100 * kUs);
    EXPECT_EQ(p[0].not_ready, 2u);
}

}  // namespace
