// trace/view/blame_test.cc: on timelines built by hand, a host wait inside the loop is
// charged the time it held the host and the walk goes on through the work it waited for;
// a stream's wait on an event is charged the time it held its stream, with the record's
// stream; the final wait, after the last work, is listed but never charged; a wait the
// host made before a request arrived is not charged; copies of one device-wide wait count
// once, and so do the waits of one call of the program made of several runtime calls;
// waits are told apart by their line; a poll (cudaEventQuery asked until it succeeds) is a
// host wait from its first query, and a query that found the work done at its first ask is
// no wait. A kernel that started on the SMs another kernel's last blocks freed leads the walk
// through that kernel; work that started late on an idle device leads it to the host; a
// stream's wait recorded without device times (a GPU's) ends when its record's work does; a
// wait that waited for nothing on the device leads the walk on to the host's wait before it.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

extern "C" {
#include "trace/view/blame.h"
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

    void Stream(int32_t id, const char *name) {
        trace_stream s = {};
        s.id = id;
        s.flags = 1;
        snprintf(s.name, sizeof(s.name), "%s", name);
        trace_timeline_add_stream(tl_, &s);
    }
    // Stream work, the next op in host order.
    trace_op Work(trace_op_kind kind, int32_t stream, uint64_t enqueue, uint64_t start, uint64_t end,
                  trace_copy_dir dir = TRACE_COPY_NONE, uint64_t event = 0, uint64_t site = 0) {
        trace_op op = {};
        op.id = next_id_++;
        op.kind = kind;
        op.dir = dir;
        op.engine = kind == TRACE_OP_COPY ? (dir == TRACE_COPY_D2H ? TRACE_ENGINE_D2H : TRACE_ENGINE_H2D)
                    : kind == TRACE_OP_KERNEL ? TRACE_ENGINE_COMPUTE
                                              : TRACE_ENGINE_NONE;
        op.stream = stream;
        op.batch = -1;
        op.run = 1;
        op.enqueue_ns = enqueue;
        op.start_ns = start;
        op.end_ns = end;
        op.event = event;
        op.call_site = site;
        op.timed = true;
        trace_timeline_add_op(tl_, &op);
        return op;
    }
    // A host wait.
    trace_op Sync(trace_sync_target target, int32_t stream, uint64_t start, uint64_t end, uint64_t site,
                  const char *name, uint64_t as_call = 0) {
        trace_op op = {};
        op.as_call = as_call;
        op.id = next_id_++;
        op.kind = TRACE_OP_SYNC;
        op.sync = target;
        op.engine = TRACE_ENGINE_HOST;
        op.stream = target == TRACE_SYNC_STREAM ? stream : TRACE_STREAM_NONE;
        op.batch = -1;
        op.run = 1;
        op.enqueue_ns = op.start_ns = start;
        op.end_ns = end;
        op.call_site = site;
        snprintf(op.name, sizeof(op.name), "%s", name);
        op.timed = true;
        trace_timeline_add_op(tl_, &op);
        return op;
    }
    // A cudaEventQuery of event from site that answered not ready (an API span naming the
    // event), or cudaSuccess (a host wait on the event).
    void Query(bool ready, uint64_t event, uint64_t start, uint64_t end, uint64_t site) {
        trace_op op = {};
        op.id = next_id_++;
        op.kind = ready ? TRACE_OP_SYNC : TRACE_OP_API;
        op.sync = TRACE_SYNC_EVENT;
        op.event = event;
        op.engine = TRACE_ENGINE_HOST;
        op.stream = TRACE_STREAM_NONE;
        op.batch = -1;
        op.run = 1;
        op.enqueue_ns = op.start_ns = start;
        op.end_ns = end;
        op.call_site = site;
        snprintf(op.name, sizeof(op.name), "cudaEventQuery");
        op.timed = true;
        trace_timeline_add_op(tl_, &op);
    }
    void Arrival(uint64_t at) {
        trace_op op = {};
        op.id = next_id_++;
        op.kind = TRACE_OP_HOST_ACCESS;
        op.engine = TRACE_ENGINE_HOST;
        op.stream = TRACE_STREAM_NONE;
        op.run = 1;
        op.enqueue_ns = op.start_ns = op.end_ns = at;
        snprintf(op.name, sizeof(op.name), "request arrives");
        op.timed = true;
        trace_timeline_add_op(tl_, &op);
    }

  private:
    trace_timeline *tl_;
    uint64_t next_id_ = 1;
};

const trace_blame_wait *Find(const trace_blame &b, uint64_t site) {
    for (size_t i = 0; i < b.n; i++)
        if (b.wait[i].call_site == site) return &b.wait[i];
    return nullptr;
}

TEST(Blame, AHostWaitInTheLoopIsChargedWhatItHeldTheHost) {
    Timeline t;
    t.Stream(1, "compute");
    // Two batches: each a kernel, then the host waits for the stream before the next.
    t.Work(TRACE_OP_KERNEL, 1, 0, 1 * kUs, 101 * kUs);
    t.Sync(TRACE_SYNC_STREAM, 1, 2 * kUs, 101 * kUs, 0x52, "cudaStreamSynchronize");
    t.Work(TRACE_OP_KERNEL, 1, 105 * kUs, 105 * kUs, 205 * kUs);
    t.Sync(TRACE_SYNC_STREAM, 1, 106 * kUs, 205 * kUs, 0x52, "cudaStreamSynchronize");
    t.Work(TRACE_OP_KERNEL, 1, 209 * kUs, 209 * kUs, 309 * kUs);
    // The final wait, after the last work.
    t.Sync(TRACE_SYNC_STREAM, 1, 210 * kUs, 309 * kUs, 0x60, "cudaStreamSynchronize");
    trace_blame b;
    ASSERT_EQ(trace_blame_compute(t.tl(), 1, &b), 0);
    const trace_blame_wait *loop = Find(b, 0x52), *last = Find(b, 0x60);
    ASSERT_NE(loop, nullptr);
    ASSERT_NE(last, nullptr);
    EXPECT_TRUE(loop->host);
    EXPECT_EQ(loop->times, 2u);
    EXPECT_EQ(loop->on_path, 2u);
    EXPECT_EQ(loop->cost_ns, 99 * kUs + 99 * kUs);
    EXPECT_TRUE(loop->before_last_work);
    EXPECT_EQ(last->times, 1u);
    EXPECT_EQ(last->on_path, 0u);
    EXPECT_EQ(last->cost_ns, 0u);
    EXPECT_FALSE(last->before_last_work);
    EXPECT_EQ(b.wait[0].call_site, 0x52u);  // the costliest first
    EXPECT_EQ(b.path_ns, 308 * kUs);
    char call[64];
    trace_blame_call(loop, t.tl(), call, sizeof(call));
    EXPECT_STREQ(call, "cudaStreamSynchronize(\"compute\")");
}

// On a GPU the work queued after a host wait may start well after it was queued (the device
// idled, its next work starts late): with nothing running on the device in between, what
// held it was still the host, and the walk goes on through the wait.
TEST(Blame, WorkThatStartsLateOnAnIdleDeviceLeadsToTheHostWaitBeforeIt) {
    Timeline t;
    t.Stream(1, "compute");
    t.Work(TRACE_OP_KERNEL, 1, 0, 1 * kUs, 101 * kUs);
    t.Sync(TRACE_SYNC_DEVICE, TRACE_STREAM_NONE, 2 * kUs, 101 * kUs, 0x80, "cudaDeviceSynchronize");
    // Queued at 104 us, started at 150 us: 46 us later, the device idle all along.
    t.Work(TRACE_OP_KERNEL, 1, 104 * kUs, 150 * kUs, 250 * kUs);
    t.Sync(TRACE_SYNC_DEVICE, TRACE_STREAM_NONE, 105 * kUs, 250 * kUs, 0x81, "cudaDeviceSynchronize");
    trace_blame b;
    ASSERT_EQ(trace_blame_compute(t.tl(), 1, &b), 0);
    const trace_blame_wait *loop = Find(b, 0x80);
    ASSERT_NE(loop, nullptr);
    EXPECT_EQ(loop->on_path, 1u);
    EXPECT_EQ(loop->cost_ns, 99 * kUs);
    EXPECT_EQ(b.path_ns, 249 * kUs);
}

// Work that started late because other work held the device is not the host's: a's second
// kernel, queued at 104 us after the host's wait, started at 150 us when b's kernel (queued
// before the wait, run after a's first) ended; it would have waited for that kernel however
// early it was queued, so the wait is not on the path.
TEST(Blame, WorkHeldBackByOtherWorkIsNotTheHostsWait) {
    Timeline t;
    t.Stream(1, "a");
    t.Stream(2, "b");
    t.Work(TRACE_OP_KERNEL, 1, 0, 1 * kUs, 101 * kUs);
    t.Work(TRACE_OP_KERNEL, 2, 1 * kUs, 102 * kUs, 150 * kUs);
    t.Sync(TRACE_SYNC_STREAM, 1, 2 * kUs, 101 * kUs, 0x90, "cudaStreamSynchronize");
    t.Work(TRACE_OP_KERNEL, 1, 104 * kUs, 150 * kUs, 250 * kUs);
    t.Sync(TRACE_SYNC_DEVICE, TRACE_STREAM_NONE, 105 * kUs, 250 * kUs, 0x91, "cudaDeviceSynchronize");
    trace_blame b;
    ASSERT_EQ(trace_blame_compute(t.tl(), 1, &b), 0);
    const trace_blame_wait *w = Find(b, 0x90);
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(w->on_path, 0u);
    EXPECT_EQ(w->cost_ns, 0u);
}

// Kernels that fill the GPU overlap: the next stream's kernel starts on the SMs the last
// blocks of the kernel before it free, before that kernel ends. The walk goes on through
// the kernel still running, back to the device-wide wait before the round.
TEST(Blame, AKernelStartedUnderAnotherKernelsTailLeadsToTheWaitBeforeIt) {
    Timeline t;
    t.Stream(1, "a");
    t.Stream(2, "b");
    // A first round, then the host waits for the device before the second.
    t.Work(TRACE_OP_KERNEL, 1, 0, 1 * kUs, 101 * kUs);
    t.Sync(TRACE_SYNC_DEVICE, TRACE_STREAM_NONE, 2 * kUs, 101 * kUs, 0x70, "cudaDeviceSynchronize");
    // The second round: a's kernel, and b's, queued at once, starts at 180 us while a's
    // still runs (to 205 us): nothing ended then.
    t.Work(TRACE_OP_KERNEL, 1, 105 * kUs, 105 * kUs, 205 * kUs);
    t.Work(TRACE_OP_KERNEL, 2, 106 * kUs, 180 * kUs, 280 * kUs);
    t.Sync(TRACE_SYNC_DEVICE, TRACE_STREAM_NONE, 107 * kUs, 280 * kUs, 0x71, "cudaDeviceSynchronize");
    trace_blame b;
    ASSERT_EQ(trace_blame_compute(t.tl(), 1, &b), 0);
    const trace_blame_wait *round = Find(b, 0x70);
    ASSERT_NE(round, nullptr);
    EXPECT_EQ(round->on_path, 1u);
    EXPECT_EQ(round->cost_ns, 99 * kUs);
    EXPECT_EQ(b.path_ns, 279 * kUs);
}

TEST(Blame, AStreamsWaitOnAnEventIsChargedWhatItHeldTheStream) {
    Timeline t;
    t.Stream(1, "compute");
    t.Stream(2, "down");
    t.Work(TRACE_OP_KERNEL, 1, 0, 0, 100 * kUs);
    t.Work(TRACE_OP_EVENT_RECORD, 1, 1 * kUs, 100 * kUs, 100 * kUs, TRACE_COPY_NONE, 7, 0x10);
    t.Work(TRACE_OP_EVENT_WAIT, 2, 2 * kUs, 2 * kUs, 100 * kUs, TRACE_COPY_NONE, 7, 0x20);
    t.Work(TRACE_OP_COPY, 2, 3 * kUs, 100 * kUs, 200 * kUs, TRACE_COPY_D2H);
    trace_blame b;
    ASSERT_EQ(trace_blame_compute(t.tl(), 1, &b), 0);
    const trace_blame_wait *w = Find(b, 0x20);
    ASSERT_NE(w, nullptr);
    EXPECT_FALSE(w->host);
    EXPECT_EQ(w->stream, 2);
    EXPECT_EQ(w->record_stream, 1);
    EXPECT_EQ(w->on_path, 1u);
    EXPECT_EQ(w->cost_ns, 98 * kUs);
    EXPECT_EQ(b.path_ns, 200 * kUs);  // back through the record to the kernel
    char call[64];
    trace_blame_call(w, t.tl(), call, sizeof(call));
    EXPECT_STREQ(call, "cudaStreamWaitEvent(\"down\")");
}

// On a GPU a stream's wait on an event has no device time: it is recorded at its call, and
// ends there. It still holds its stream until the work its record marks is done: the kernel
// that started when the upload ended was held by the wait, and the walk goes on through the
// upload to the host's device-wide wait before it (lab 05 with a device wait every batch).
TEST(Blame, AStreamsWaitWithoutDeviceTimesEndsWhenItsRecordsWorkDoes) {
    Timeline t;
    t.Stream(1, "up");
    t.Stream(2, "compute");
    t.Work(TRACE_OP_COPY, 1, 0, 1 * kUs, 80 * kUs, TRACE_COPY_H2D);
    t.Sync(TRACE_SYNC_DEVICE, TRACE_STREAM_NONE, 2 * kUs, 80 * kUs, 0xa0, "cudaDeviceSynchronize");
    t.Work(TRACE_OP_COPY, 1, 85 * kUs, 86 * kUs, 166 * kUs, TRACE_COPY_H2D);
    t.Work(TRACE_OP_EVENT_RECORD, 1, 87 * kUs, 87 * kUs, 87 * kUs, TRACE_COPY_NONE, 9, 0xa1);
    t.Work(TRACE_OP_EVENT_WAIT, 2, 88 * kUs, 88 * kUs, 88 * kUs, TRACE_COPY_NONE, 9, 0xa2);
    t.Work(TRACE_OP_KERNEL, 2, 90 * kUs, 167 * kUs, 260 * kUs);
    t.Sync(TRACE_SYNC_DEVICE, TRACE_STREAM_NONE, 91 * kUs, 260 * kUs, 0xa3, "cudaDeviceSynchronize");
    trace_blame b;
    ASSERT_EQ(trace_blame_compute(t.tl(), 1, &b), 0);
    const trace_blame_wait *stream_wait = Find(b, 0xa2), *host_wait = Find(b, 0xa0);
    ASSERT_NE(stream_wait, nullptr);
    ASSERT_NE(host_wait, nullptr);
    EXPECT_EQ(stream_wait->on_path, 1u);
    EXPECT_EQ(stream_wait->cost_ns, 78 * kUs);  // from its call to the upload's end
    EXPECT_EQ(host_wait->on_path, 1u);
    EXPECT_EQ(host_wait->cost_ns, 78 * kUs);
    EXPECT_EQ(b.path_ns, 259 * kUs);
}

// Two frees in a row, each a device-wide wait: the first waits for the batch's work, the
// second finds the device idle and takes only its own time. Both held the host on the path:
// the walk goes on past the second, whose work was done before it began, to the first.
TEST(Blame, AWaitThatWaitedForNothingOnTheDeviceLeadsToTheWaitBeforeIt) {
    Timeline t;
    t.Stream(1, "s");
    t.Work(TRACE_OP_KERNEL, 1, 0, 1 * kUs, 500 * kUs);
    t.Sync(TRACE_SYNC_DEVICE, TRACE_STREAM_NONE, 2 * kUs, 550 * kUs, 0xb0, "cudaFree");
    t.Sync(TRACE_SYNC_DEVICE, TRACE_STREAM_NONE, 551 * kUs, 600 * kUs, 0xb1, "cudaFree");
    t.Work(TRACE_OP_KERNEL, 1, 602 * kUs, 603 * kUs, 1100 * kUs);
    t.Sync(TRACE_SYNC_DEVICE, TRACE_STREAM_NONE, 603 * kUs, 1100 * kUs, 0xb2, "cudaDeviceSynchronize");
    trace_blame b;
    ASSERT_EQ(trace_blame_compute(t.tl(), 1, &b), 0);
    const trace_blame_wait *first = Find(b, 0xb0), *second = Find(b, 0xb1);
    ASSERT_NE(first, nullptr);
    ASSERT_NE(second, nullptr);
    EXPECT_EQ(second->on_path, 1u);
    EXPECT_EQ(second->cost_ns, 49 * kUs);
    EXPECT_EQ(first->on_path, 1u);
    EXPECT_EQ(first->cost_ns, 548 * kUs);
    EXPECT_EQ(b.wait[0].call_site, 0xb0u);  // the costlier first
}

// On a GPU an upload may queue behind a download of another stream in the copy hardware:
// queued long before, it starts when the download ends. With nothing on its own engine then,
// the walk goes on through the download, back to the host's wait before it.
TEST(Blame, WorkThatStartsWhenAnotherEnginesWorkEndsLeadsThroughIt) {
    Timeline t;
    t.Stream(1, "up");
    t.Stream(2, "down");
    t.Work(TRACE_OP_KERNEL, 2, 0, 1 * kUs, 100 * kUs);
    t.Sync(TRACE_SYNC_STREAM, 2, 2 * kUs, 100 * kUs, 0xc0, "cudaStreamSynchronize");
    t.Work(TRACE_OP_COPY, 2, 101 * kUs, 102 * kUs, 180 * kUs, TRACE_COPY_D2H);
    t.Work(TRACE_OP_COPY, 1, 103 * kUs, 180 * kUs, 260 * kUs, TRACE_COPY_H2D);
    t.Sync(TRACE_SYNC_DEVICE, TRACE_STREAM_NONE, 104 * kUs, 260 * kUs, 0xc1, "cudaDeviceSynchronize");
    trace_blame b;
    ASSERT_EQ(trace_blame_compute(t.tl(), 1, &b), 0);
    const trace_blame_wait *w = Find(b, 0xc0);
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(w->on_path, 1u);
    EXPECT_EQ(w->cost_ns, 98 * kUs);
    EXPECT_EQ(b.path_ns, 259 * kUs);
}

TEST(Blame, AWaitBeforeARequestArrivedIsNotCharged) {
    Timeline t;
    t.Stream(1, "requests");
    t.Work(TRACE_OP_KERNEL, 1, 0, 0, 100 * kUs);
    t.Sync(TRACE_SYNC_DEVICE, TRACE_STREAM_NONE, 1 * kUs, 100 * kUs, 0x30, "cudaDeviceSynchronize");
    t.Arrival(150 * kUs);
    t.Work(TRACE_OP_KERNEL, 1, 151 * kUs, 151 * kUs, 251 * kUs);
    trace_blame b;
    ASSERT_EQ(trace_blame_compute(t.tl(), 1, &b), 0);
    const trace_blame_wait *w = Find(b, 0x30);
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(w->times, 1u);
    EXPECT_EQ(w->held_ns, 99 * kUs);
    EXPECT_EQ(w->cost_ns, 0u);
    char call[64];
    trace_blame_call(w, t.tl(), call, sizeof(call));
    EXPECT_STREQ(call, "cudaDeviceSynchronize()");
}

TEST(Blame, ADeviceWaitRecordedPerStreamCountsOnceAndLinesAreApart) {
    Timeline t;
    t.Stream(1, "a");
    t.Stream(2, "b");
    t.Work(TRACE_OP_KERNEL, 1, 0, 0, 100 * kUs);
    t.Work(TRACE_OP_KERNEL, 2, 0, 0, 80 * kUs);
    // One cudaDeviceSynchronize on two devices: a stream wait for each stream.
    t.Sync(TRACE_SYNC_STREAM, 1, 1 * kUs, 100 * kUs, 0x40, "cudaDeviceSynchronize");
    t.Sync(TRACE_SYNC_STREAM, 2, 1 * kUs, 100 * kUs, 0x40, "cudaDeviceSynchronize");
    t.Work(TRACE_OP_KERNEL, 1, 102 * kUs, 102 * kUs, 202 * kUs);
    // The same call from another line.
    t.Sync(TRACE_SYNC_STREAM, 1, 103 * kUs, 202 * kUs, 0x41, "cudaStreamSynchronize");
    t.Work(TRACE_OP_KERNEL, 2, 204 * kUs, 204 * kUs, 304 * kUs);
    trace_blame b;
    ASSERT_EQ(trace_blame_compute(t.tl(), 1, &b), 0);
    const trace_blame_wait *dev = Find(b, 0x40), *other = Find(b, 0x41);
    ASSERT_NE(dev, nullptr);
    ASSERT_NE(other, nullptr);
    EXPECT_EQ(dev->times, 1u);  // the copy on stream 2 is the same wait
    EXPECT_EQ(dev->cost_ns, 99 * kUs);
    EXPECT_EQ(other->times, 1u);
    EXPECT_EQ(other->cost_ns, 99 * kUs);
    char call[64];
    trace_blame_call(dev, t.tl(), call, sizeof(call));
    EXPECT_STREQ(call, "cudaDeviceSynchronize()");
}

// A cudaFreeHost the referee performs as a device synchronisation and an unregistration
// that waits for the device again: two waits on the timeline, one call of the program
// (trace_op.as_call). Two such calls in a loop are two waits, holding the host for the
// time each call held it; the one that held the path is charged once.
TEST(Blame, TheWaitsOfOneCallOfTheProgramAreOneWait) {
    Timeline t;
    t.Stream(1, "device");
    t.Work(TRACE_OP_KERNEL, 1, 0, 0, 100 * kUs);
    t.Sync(TRACE_SYNC_DEVICE, -1, 1 * kUs, 100 * kUs, 0x60, "cudaFreeHost", 7);
    t.Sync(TRACE_SYNC_DEVICE, -1, 100 * kUs, 101 * kUs, 0x60, "cudaFreeHost", 7);
    t.Work(TRACE_OP_KERNEL, 1, 102 * kUs, 102 * kUs, 202 * kUs);
    t.Sync(TRACE_SYNC_DEVICE, -1, 203 * kUs, 204 * kUs, 0x60, "cudaFreeHost", 8);
    t.Sync(TRACE_SYNC_DEVICE, -1, 204 * kUs, 205 * kUs, 0x60, "cudaFreeHost", 8);
    trace_blame b;
    ASSERT_EQ(trace_blame_compute(t.tl(), 1, &b), 0);
    const trace_blame_wait *w = Find(b, 0x60);
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(w->times, 2u);
    EXPECT_EQ(w->on_path, 1u);
    EXPECT_EQ(w->cost_ns, 99 * kUs);
    EXPECT_EQ(w->held_ns, 100 * kUs + 2 * kUs);
}

TEST(Blame, OneLineThatWaitsForEachStreamOfAPoolIsOneWait) {
    Timeline t;
    t.Stream(1, "pool 0");
    t.Stream(2, "pool 1");
    t.Work(TRACE_OP_KERNEL, 1, 0, 0, 100 * kUs);
    t.Sync(TRACE_SYNC_STREAM, 1, 1 * kUs, 100 * kUs, 0x50, "cudaStreamSynchronize");
    t.Work(TRACE_OP_KERNEL, 2, 101 * kUs, 101 * kUs, 201 * kUs);
    t.Sync(TRACE_SYNC_STREAM, 2, 102 * kUs, 201 * kUs, 0x50, "cudaStreamSynchronize");
    t.Work(TRACE_OP_KERNEL, 1, 202 * kUs, 202 * kUs, 302 * kUs);
    // The final loop over the pool: the second stream is done, its wait returns at once.
    t.Sync(TRACE_SYNC_STREAM, 1, 303 * kUs, 302 * kUs + 1 * kUs, 0x51, "cudaStreamSynchronize");
    t.Sync(TRACE_SYNC_STREAM, 2, 303 * kUs, 302 * kUs + 1 * kUs, 0x51, "cudaStreamSynchronize");
    trace_blame b;
    ASSERT_EQ(trace_blame_compute(t.tl(), 1, &b), 0);
    ASSERT_EQ(b.n, 2u);
    const trace_blame_wait *last = Find(b, 0x51);
    ASSERT_NE(last, nullptr);
    EXPECT_EQ(last->times, 2u);  // not copies of one wait: a wait each stream
    EXPECT_EQ(last->streams, 2u);
    EXPECT_EQ(b.wait[0].times, 2u);
    EXPECT_EQ(b.wait[0].on_path, 2u);
    EXPECT_EQ(b.wait[0].streams, 2u);
    char call[64];
    trace_blame_call(&b.wait[0], t.tl(), call, sizeof(call));
    EXPECT_STREQ(call, "cudaStreamSynchronize(one of 2 streams)");
}

TEST(Blame, APollIsAHostWaitFromItsFirstQuery) {
    Timeline t;
    t.Stream(1, "compute");
    // A kernel, its event, and the host asking about the event every 10 us until it answers
    // cudaSuccess; then the next kernel.
    t.Work(TRACE_OP_KERNEL, 1, 0, 1 * kUs, 101 * kUs);
    t.Work(TRACE_OP_EVENT_RECORD, 1, 1 * kUs, 101 * kUs, 101 * kUs, TRACE_COPY_NONE, 7, 0x70);
    for (uint64_t at = 2 * kUs; at < 100 * kUs; at += 10 * kUs) t.Query(false, 7, at, at + 1 * kUs, 0x71);
    t.Query(true, 7, 102 * kUs, 103 * kUs, 0x71);
    t.Work(TRACE_OP_KERNEL, 1, 104 * kUs, 104 * kUs, 204 * kUs);
    trace_blame b;
    ASSERT_EQ(trace_blame_compute(t.tl(), 1, &b), 0);
    const trace_blame_wait *w = Find(b, 0x71);
    ASSERT_NE(w, nullptr);
    EXPECT_TRUE(w->host);
    EXPECT_EQ(w->times, 1u);
    EXPECT_EQ(w->not_ready, 10u);
    EXPECT_EQ(w->held_ns, 101 * kUs);  // from the first query's start to the success's end
    EXPECT_EQ(w->on_path, 1u);
    EXPECT_EQ(w->cost_ns, 101 * kUs);
    EXPECT_TRUE(w->before_last_work);
    EXPECT_EQ(b.path_ns, 203 * kUs);  // on through the kernel the event marks
    char call[64];
    trace_blame_call(w, t.tl(), call, sizeof(call));
    EXPECT_STREQ(call, "cudaEventQuery()");
}

TEST(Blame, AQueryThatFindsTheWorkDoneIsNoWait) {
    Timeline t;
    t.Stream(1, "compute");
    t.Work(TRACE_OP_KERNEL, 1, 0, 1 * kUs, 101 * kUs);
    t.Work(TRACE_OP_EVENT_RECORD, 1, 1 * kUs, 101 * kUs, 101 * kUs, TRACE_COPY_NONE, 7, 0x70);
    // The host looks once, after the kernel is done, then queues the next.
    t.Query(true, 7, 150 * kUs, 151 * kUs, 0x72);
    t.Work(TRACE_OP_KERNEL, 1, 152 * kUs, 152 * kUs, 252 * kUs);
    trace_blame b;
    ASSERT_EQ(trace_blame_compute(t.tl(), 1, &b), 0);
    EXPECT_EQ(Find(b, 0x72), nullptr);
    EXPECT_EQ(b.n, 0u);
}

}  // namespace
