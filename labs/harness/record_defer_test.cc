// labs/harness/record_defer_test.cc: recording deferred (trace_defer, recorder.h) gives every
// sink a lab's run installs exactly what recording at once gives it. One program of ops
// (copies, kernels, memsets, host functions, event records and waits, host waits of every
// kind, host accesses, API spans, phases) on blocking, non-blocking, legacy, per-thread and
// second-device streams, with races, is played twice: once recorded at once, once with each
// run deferred and handed over when it ends, while the program creates, names and destroys
// streams and events, gets device times and moves call sites inside the runs. The ids the
// recorder returns, every callback a sink gets (in order, with every field), the race
// checker's reports, the timeline's ops, the work each run did and the event stream's bytes
// must be the same.
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "labs/harness/work.h"
#include "trace/check/race.h"
#include "trace/check/racecheck.h"
#include "trace/record/recorder.h"
#include "trace/stream/events_writer.h"
#include "trace/view/timeline.h"

namespace {

std::string Describe(const trace_op *op) {
    char buf[1024];
    int n = std::snprintf(
        buf, sizeof(buf),
        "op %" PRIu64 " kind %d dir %d engine %d sync %d stream %d prio %d batch %d run %d name '%s' enq %" PRIu64
        " start %" PRIu64 " end %" PRIu64 " bytes %" PRIu64 " pinned %d timed %d grid %u,%u,%u block %u,%u,%u event %" PRIu64
        " waited %" PRIu64 " corr %u site %" PRIx64 " device %u/%u/%d ranges",
        op->id, op->kind, op->dir, op->engine, op->sync, op->stream, op->priority, op->batch, op->run, op->name,
        op->enqueue_ns, op->start_ns, op->end_ns, op->bytes, op->pinned, op->timed, op->grid[0], op->grid[1],
        op->grid[2], op->block[0], op->block[1], op->block[2], op->event, op->waited_op, op->correlation,
        op->call_site, op->device, op->dst_device, op->device_set);
    std::string s(buf, n > 0 ? (size_t)n : 0);
    for (uint32_t i = 0; i < op->n_ranges && i < TRACE_MAX_RANGES; i++) {
        std::snprintf(buf, sizeof(buf), " %" PRIx64 "+%" PRIu64 "/%x", op->ranges[i].addr, op->ranges[i].bytes,
                      op->ranges[i].flags);
        s += buf;
    }
    return s;
}

std::string Describe(const trace_stream *st) {
    char buf[256];
    std::snprintf(buf, sizeof(buf), "stream %d prio %d flags %u legacy %d per_thread %d destroyed %d name '%s' device %u",
                  st->id, st->priority, st->flags, st->legacy, st->per_thread, st->destroyed, st->name, st->device);
    return buf;
}

std::string Describe(const trace_race *race) {
    char buf[4096];
    trace_race_format(race, buf, sizeof(buf));
    char head[128];
    std::snprintf(head, sizeof(head), "race %" PRIu64 " kind %d ops %" PRIu64 "/%" PRIu64 ": ", race->seq,
                  race->kind, race->first.id, race->second.id);
    return head + std::string(buf);
}

// A sink that writes down every callback it gets.
struct Log {
    std::vector<std::string> lines;
};

void OnStream(void *ctx, const trace_stream *st) { static_cast<Log *>(ctx)->lines.push_back("S " + Describe(st)); }
void OnOp(void *ctx, const trace_op *op) { static_cast<Log *>(ctx)->lines.push_back("O " + Describe(op)); }
void OnTimed(void *ctx, const trace_op *op) { static_cast<Log *>(ctx)->lines.push_back("T " + Describe(op)); }
void OnRace(void *ctx, const trace_race *race) { static_cast<Log *>(ctx)->lines.push_back("R " + Describe(race)); }

// What every sink ended with.
struct Seen {
    std::vector<uint64_t> ids;  // what the recorder returned, in order
    std::vector<std::string> callbacks;
    std::vector<std::string> races;
    uint64_t race_count = 0;
    std::vector<std::string> timeline;
    std::vector<std::string> work;
    std::string events;
};

// Stand-ins for the runtime's handles and the program's memory: only their addresses count.
char streams[8], events[8];
const void *const kPerThread = reinterpret_cast<const void *>(0x2);
constexpr uint64_t kBuf = 1 << 16;
uint64_t Host(int i) { return 0x7000000000ull + (uint64_t)i * 4 * kBuf; }
uint64_t Dev(int i) { return 0x9000000000ull + (uint64_t)i * 4 * kBuf; }

uint64_t Mix(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

trace_op Op(trace_op_kind kind) {
    trace_op op;
    std::memset(&op, 0, sizeof(op));
    op.kind = kind;
    op.batch = -1;
    return op;
}

// The program: `runs` runs of `per_run` calls each, from `seed`; with `deferred`, each run
// is recorded deferred. The harness's own records (fresh inputs, results read, phases) sit
// between runs, recorded at once.
Seen Play(uint64_t seed, int runs, int per_run, bool deferred) {
    trace_reset();
    Log log;
    trace_sink log_sink = {&log, OnStream, OnOp, OnTimed, OnRace};
    trace_racecheck *rc = trace_racecheck_create(0);
    trace_timeline *tl = trace_timeline_create();
    lab_work *work = lab_work_create();
    FILE *events_file = std::tmpfile();
    trace_events_writer *ew = events_file ? trace_events_writer_create(fileno(events_file), nullptr) : nullptr;
    EXPECT_NE(ew, nullptr);
    EXPECT_EQ(trace_add_sink(&log_sink), 0);
    EXPECT_EQ(trace_racecheck_install(rc), 0);
    EXPECT_EQ(trace_timeline_install(tl), 0);
    EXPECT_EQ(lab_work_install(work), 0);
    if (ew) {
        EXPECT_EQ(trace_events_writer_install(ew), 0);
    }

    Seen seen;
    trace_stream_created(&streams[0], 0, 0);       // blocking
    trace_stream_created(&streams[1], 1, 0);       // non-blocking
    trace_stream_created(&streams[2], 1, -1);      // non-blocking, high priority
    trace_stream_created_on(&streams[3], 1, 0, 1); // on the second device
    for (int e = 0; e < 4; e++) trace_event_created(&events[e], 0);
    trace_event_set_name(&events[1], "ready");
    bool live[8] = {true, true, true, true, false, false, false, false};
    bool event_live[8] = {true, true, true, true, false, false, false, false};
    uint64_t state = seed;
    auto pick = [&](uint64_t n) { return Mix(&state) % n; };
    auto stream = [&]() -> const void * {
        uint64_t k = pick(8);
        if (k == 6) return nullptr;  // the legacy default stream
        if (k == 7) return kPerThread;
        return live[k] ? &streams[k] : &streams[0];
    };
    auto event = [&]() -> const void * {
        uint64_t k = pick(8);
        return event_live[k] ? &events[k] : &events[0];
    };
    auto id = [&](uint64_t v) {
        seen.ids.push_back(v);
        return v;
    };
    std::vector<uint64_t> recent;
    for (int32_t run = 1; run <= runs; run++) {
        for (int b = 0; b < 4; b++) {
            id(trace_record_host_access(reinterpret_cast<void *>(Host(b)), kBuf, true, "input", b, 10));
            id(trace_record_host_access(reinterpret_cast<void *>(Host(b + 4)), kBuf, true, "poison", -1, 10));
        }
        trace_set_run(run);
        if (deferred) trace_defer(true);
        for (int c = 0; c < per_run; c++) {
            uint64_t t = (uint64_t)run * 1000000 + (uint64_t)c * 100;
            int a = (int)pick(8), b = (int)pick(8);
            uint64_t off = pick(4) * (kBuf / 4), len = kBuf - off;
            bool site = pick(3) == 0;
            if (site) trace_call_site_enter(reinterpret_cast<void *>(0x400000 + pick(64) * 16));
            trace_op op = Op(TRACE_OP_COPY);
            uint64_t action = pick(24);
            switch (action) {
            case 0:
            case 1:
            case 2: {  // H2D, pinned or pageable (its source staged at the call)
                bool pinned = pick(2);
                op.dir = TRACE_COPY_H2D;
                op.engine = TRACE_ENGINE_H2D;
                op.bytes = len;
                op.pinned = pinned;
                trace_op_add_range(&op, reinterpret_cast<void *>(Host(a) + off), len,
                                   TRACE_RANGE_READ | (pinned ? 0 : TRACE_RANGE_HOST_ORDERED));
                trace_op_add_range(&op, reinterpret_cast<void *>(Dev(b) + off), len, TRACE_RANGE_WRITE);
                op.enqueue_ns = t;
                recent.push_back(id(trace_record(&op, stream())));
                break;
            }
            case 3:
            case 4: {  // D2H into a lab output
                op.dir = TRACE_COPY_D2H;
                op.engine = TRACE_ENGINE_D2H;
                op.bytes = len;
                op.pinned = true;
                trace_op_add_range(&op, reinterpret_cast<void *>(Dev(a) + off), len, TRACE_RANGE_READ);
                trace_op_add_range(&op, reinterpret_cast<void *>(Host(4 + b % 4) + off), len, TRACE_RANGE_WRITE);
                op.enqueue_ns = t;
                recent.push_back(id(trace_record(&op, stream())));
                break;
            }
            case 5: {  // D2D
                op.dir = TRACE_COPY_D2D;
                op.engine = TRACE_ENGINE_COMPUTE;
                op.bytes = len;
                trace_op_add_range(&op, reinterpret_cast<void *>(Dev(a)), len, TRACE_RANGE_READ);
                trace_op_add_range(&op, reinterpret_cast<void *>(Dev(b) + off), len, TRACE_RANGE_WRITE);
                op.enqueue_ns = t;
                recent.push_back(id(trace_record(&op, stream())));
                break;
            }
            case 6:
            case 7:
            case 8: {  // kernels: process, checksum, spin
                op = Op(TRACE_OP_KERNEL);
                op.engine = TRACE_ENGINE_COMPUTE;
                const char *names[] = {"process", "checksum", "spin"};
                std::strcpy(op.name, names[action - 6]);
                op.grid[0] = 64;
                op.block[0] = 256;
                trace_op_add_range(&op, reinterpret_cast<void *>(Dev(a) + off), len, TRACE_RANGE_READ);
                trace_op_add_range(&op, reinterpret_cast<void *>(Dev(b)), len, TRACE_RANGE_WRITE);
                op.enqueue_ns = t;
                recent.push_back(id(trace_record(&op, stream())));
                break;
            }
            case 9: {  // memset
                op = Op(TRACE_OP_MEMSET);
                op.engine = TRACE_ENGINE_COMPUTE;
                op.bytes = len;
                trace_op_add_range(&op, reinterpret_cast<void *>(Dev(a) + off), len, TRACE_RANGE_WRITE);
                op.enqueue_ns = t;
                recent.push_back(id(trace_record(&op, stream())));
                break;
            }
            case 10: {  // a host function reading a host buffer
                op = Op(TRACE_OP_HOST_FN);
                op.engine = TRACE_ENGINE_HOST;
                std::strcpy(op.name, "host function");
                trace_op_add_range(&op, reinterpret_cast<void *>(Host(a)), kBuf, TRACE_RANGE_READ);
                op.enqueue_ns = t;
                recent.push_back(id(trace_record(&op, stream())));
                break;
            }
            case 11:
            case 12:
                id(trace_record_event_record(event(), stream(), t));
                break;
            case 13:
            case 14:
                id(trace_record_stream_wait(stream(), event(), t));
                break;
            case 15: {  // host waits: a stream, an event, the device, one op
                uint64_t k = pick(4);
                if (k == 0) id(trace_record_sync(TRACE_SYNC_STREAM, stream(), "cudaStreamSynchronize", t, t + 5));
                if (k == 1) id(trace_record_sync(TRACE_SYNC_EVENT, event(), "cudaEventSynchronize", t, t + 5));
                if (k == 2) id(trace_record_sync(TRACE_SYNC_DEVICE, nullptr, "cudaDeviceSynchronize", t, t + 5));
                if (k == 3 && !recent.empty())
                    id(trace_record_sync_op(recent[pick(recent.size())], "cudaMemcpy", t, t + 5));
                break;
            }
            case 16:
                id(trace_record_host_access(reinterpret_cast<void *>(Host(a) + off), len, pick(2), "request arrives",
                                            pick(3) ? (int32_t)pick(8) : -1, t));
                break;
            case 17:
                id(trace_record_api("cudaMemcpyAsync, a name longer than an op's name may be", t, t + 2));
                break;
            case 18:  // a device time arrives in the run (a host function's, say)
                if (!recent.empty()) {
                    uint64_t which = recent[pick(recent.size())];
                    trace_op_timed(which, t - 50, t - 10);
                }
                break;
            case 19: {  // a stream made, named or destroyed in the run
                int k = 4 + (int)pick(2);
                if (!live[k]) {
                    trace_stream_created(&streams[k], (unsigned)pick(2), 0);
                    live[k] = true;
                } else if (pick(2)) {
                    trace_stream_set_name(&streams[k], pick(2) ? "pool" : "another stream named at length");
                } else {
                    trace_stream_destroyed(&streams[k]);
                    live[k] = false;
                }
                break;
            }
            case 20: {  // an event made, named or destroyed in the run
                int k = 4 + (int)pick(3);
                if (!event_live[k]) {
                    trace_event_created(&events[k], 0);
                    event_live[k] = true;
                } else if (pick(2)) {
                    trace_event_set_name(&events[k], "done");
                } else {
                    trace_event_destroyed(&events[k]);
                    event_live[k] = false;
                }
                break;
            }
            case 21:  // what the interposer asks of the recorder in a call
                EXPECT_GE(trace_stream_id(stream()), 0);
                break;
            default:
                id(trace_record_api("cudaLaunchKernel", t, t + 1));
                break;
            }
            if (site) trace_call_site_exit();
        }
        if (deferred) trace_defer(false);
        for (int b = 4; b < 8; b++) {
            id(trace_record_host_access(reinterpret_cast<void *>(Host(b)), kBuf, false, "harness reads result", b - 4,
                                        (uint64_t)run * 1000000 + 999999));
            lab_work_results_read(work, run, reinterpret_cast<void *>(Host(b)), kBuf);
        }
        trace_set_run(-1);
        for (size_t i = 0; i < recent.size(); i += 3) trace_op_timed(recent[i], recent[i] * 7, recent[i] * 7 + 3);
        id(trace_record_phase("run", (uint64_t)run * 1000000, (uint64_t)run * 1000000 + 999999));
    }
    EXPECT_FALSE(trace_deferring());

    seen.callbacks = log.lines;
    seen.race_count = trace_racecheck_count(rc);
    for (size_t i = 0; i < trace_racecheck_kept(rc); i++) seen.races.push_back(Describe(trace_racecheck_report(rc, i)));
    for (size_t i = 0; i < trace_timeline_count(tl); i++) seen.timeline.push_back(Describe(trace_timeline_get(tl, i)));
    for (int32_t run = 1; run <= runs; run++) {
        lab_work_tally t = lab_work_of_run(work, run);
        std::string s = "run " + std::to_string(run);
        for (int k = 0; k < LAB_WORK_KINDS; k++) s += " " + std::to_string(t.amount[k]);
        s += " opaque " + std::to_string(t.opaque) + " lost " + std::to_string(t.lost);
        seen.work.push_back(s);
    }
    trace_reset();
    if (ew) {
        trace_events_writer_destroy(ew);  // flushes
        std::rewind(events_file);
        char chunk[4096];
        size_t n;
        while ((n = std::fread(chunk, 1, sizeof(chunk), events_file)) > 0) seen.events.append(chunk, n);
    }
    if (events_file) std::fclose(events_file);
    trace_racecheck_destroy(rc);
    trace_timeline_destroy(tl);
    lab_work_destroy(work);
    return seen;
}

void ExpectSame(const Seen &eager, const Seen &deferred) {
    EXPECT_EQ(eager.ids, deferred.ids);
    ASSERT_EQ(eager.callbacks.size(), deferred.callbacks.size());
    for (size_t i = 0; i < eager.callbacks.size(); i++)
        ASSERT_EQ(eager.callbacks[i], deferred.callbacks[i]) << "callback " << i;
    EXPECT_EQ(eager.race_count, deferred.race_count);
    EXPECT_EQ(eager.races, deferred.races);
    EXPECT_EQ(eager.timeline, deferred.timeline);
    EXPECT_EQ(eager.work, deferred.work);
    EXPECT_EQ(eager.events, deferred.events);
}

TEST(RecordDeferred, EverySinkSeesWhatRecordingAtOnceGivesIt) {
    for (uint64_t seed = 1; seed <= 6; seed++) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        Seen eager = Play(seed, 12, 150, false);
        Seen deferred = Play(seed, 12, 150, true);
        // The program is one with something to check: races, work, device times.
        EXPECT_GT(eager.race_count, 0u);
        EXPECT_GT(eager.timeline.size(), 100u);
        EXPECT_NE(eager.events.find("\"race\""), std::string::npos);
        ExpectSame(eager, deferred);
    }
}

// A run longer than the recorder keeps (16,384 ops) is handed over in parts, and still seen
// as recorded at once.
TEST(RecordDeferred, ARunLongerThanTheBufferIsHandedOverInParts) {
    Seen eager = Play(99, 1, 45000, false);
    Seen deferred = Play(99, 1, 45000, true);
    EXPECT_GT(eager.ids.size(), 2u * 16384u);
    ExpectSame(eager, deferred);
}

// While deferred, an op is numbered and stamped with its run and call site at once; the rest
// of it (its stream, its batch) comes when it is handed over.
TEST(RecordDeferred, OpsAreNumberedAtOnceAndSeenWhenHandedOver) {
    trace_reset();
    Log log;
    trace_sink sink = {&log, OnStream, OnOp, OnTimed, OnRace};
    ASSERT_EQ(trace_add_sink(&sink), 0);
    trace_stream_created(&streams[0], 0, 0);
    size_t before = log.lines.size();
    trace_set_run(3);
    trace_defer(true);
    EXPECT_TRUE(trace_deferring());
    trace_call_site_enter(reinterpret_cast<void *>(0x401000));
    trace_op op = Op(TRACE_OP_KERNEL);
    uint64_t a = trace_record(&op, &streams[0]);
    trace_call_site_exit();
    EXPECT_EQ(op.id, a);
    EXPECT_EQ(op.run, 3);
    EXPECT_EQ(op.call_site, 0x401000u);
    uint64_t b = trace_record_api("cudaLaunchKernel", 1, 2);
    EXPECT_EQ(b, a + 1);
    EXPECT_EQ(log.lines.size(), before) << "nothing reaches a sink while deferred";
    trace_set_run(-1);
    trace_defer(false);
    ASSERT_EQ(log.lines.size(), before + 3);  // the kernel, then the span's op and its times
    EXPECT_NE(log.lines[before].find("stream 1 "), std::string::npos) << log.lines[before];
    EXPECT_NE(log.lines[before].find("run 3 "), std::string::npos) << log.lines[before];
    EXPECT_NE(log.lines[before].find("site 401000 "), std::string::npos) << log.lines[before];
    // With no sink installed nothing is kept, as nothing is seen.
    trace_remove_sink(&log);
    trace_defer(true);
    (void)trace_record_api("cudaLaunchKernel", 3, 4);
    ASSERT_EQ(trace_add_sink(&sink), 0);
    trace_defer(false);
    EXPECT_EQ(log.lines.size(), before + 3);
    trace_reset();
    EXPECT_FALSE(trace_deferring());
}

}  // namespace
