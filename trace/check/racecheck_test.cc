// trace/racecheck_test.cc: the race checker over a corpus of small stream programs.
//
// Each program is written in a tiny language that drives the recorder the way the
// simulated runtime and the GPU interposer do:
//   stream s1 [nonblocking] [prio N]     cudaStreamCreateWithPriority
//   event e1                             cudaEventCreate
//   buffer A 4096                        a buffer (host and device share one address space)
//   s1: h2d A <- hA [pageable] [batch N] cudaMemcpyAsync (pageable: source staged by the host)
//   s1: d2h hA <- A | d2d B <- A         cudaMemcpyAsync
//   s1: kernel NAME reads A writes B     a kernel launch with its declared ranges
//   s1: memset A | s1: hostfn NAME reads A writes B
//   s1: record e1 | s1: wait e1          cudaEventRecord / cudaStreamWaitEvent
//   default: ...                         the legacy default stream (stream 0)
//   host: write hA [batch N] | host: read hA    harness-declared host accesses
//   sync s1 | sync default | sync event e1 | sync device | sync last (the last op recorded)
//   query s1 | query default | query event e1   cudaStreamQuery / cudaEventQuery that returned
//                                        cudaSuccess (the runtime records only those)
// A buffer name may take a byte window: A[512:1024] is 1024 bytes from offset 512.
// Every racy program must report exactly the listed race kinds; every correctly ordered
// one must report none.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

extern "C" {
#include "trace/check/racecheck.h"
#include "trace/record/recorder.h"
}

namespace {

struct Range {
    uint64_t addr;
    uint64_t bytes;
};

class Program {
  public:
    explicit Program(trace_racecheck *rc) : rc_(rc) {}

    void Run(const std::string &text) {
        std::string line;
        std::stringstream all(text);
        while (std::getline(all, line, ';')) {
            std::stringstream ls(line);
            std::string first;
            if (!(ls >> first)) continue;
            Statement(first, ls, line);
        }
    }

    uint64_t AddressOf(const std::string &buffer) { return buffers_.at(buffer).addr; }
    uint64_t EventId(const std::string &event) { return trace_event_id(events_.at(event)); }
    void NameEvent(const std::string &event, const char *name) { trace_event_set_name(events_.at(event), name); }
    uint64_t LastOp() const { return last_op_; }

  private:
    void Statement(const std::string &first, std::stringstream &ls, const std::string &line) {
        if (first == "stream") {
            std::string name, word;
            ls >> name;
            unsigned flags = 0;
            int prio = 0;
            while (ls >> word) {
                if (word == "nonblocking") flags = 1;
                if (word == "prio") ls >> prio;
            }
            void *handle = Handle();
            trace_stream_created(handle, flags, prio);
            trace_stream_set_name(handle, name.c_str());
            streams_[name] = handle;
        } else if (first == "event") {
            std::string name;
            ls >> name;
            void *handle = Handle();
            trace_event_created(handle, 0);
            events_[name] = handle;
        } else if (first == "buffer") {
            std::string name;
            uint64_t bytes;
            ls >> name >> bytes;
            buffers_[name] = Range{next_addr_, bytes};
            next_addr_ += (bytes + 0xFFFFF) & ~0xFFFFFull;
        } else if (first == "sync") {
            std::string what, name;
            ls >> what;
            if (what == "device") {
                trace_record_sync(TRACE_SYNC_DEVICE, nullptr, "cudaDeviceSynchronize", Now(), Now());
            } else if (what == "event") {
                ls >> name;
                trace_record_sync(TRACE_SYNC_EVENT, events_.at(name), "cudaEventSynchronize", Now(), Now());
            } else if (what == "last") {
                trace_record_sync_op(last_op_, "cudaMemcpy", Now(), Now());
            } else {
                trace_record_sync(TRACE_SYNC_STREAM, StreamHandle(what), "cudaStreamSynchronize", Now(), Now());
            }
        } else if (first == "query") {
            std::string what, name;
            ls >> what;
            if (what == "event") {
                ls >> name;
                trace_record_sync(TRACE_SYNC_EVENT, events_.at(name), "cudaEventQuery", Now(), Now());
            } else {
                trace_record_sync(TRACE_SYNC_STREAM, StreamHandle(what), "cudaStreamQuery", Now(), Now());
            }
        } else if (first == "host:") {
            std::string rw, buf, word;
            ls >> rw >> buf;
            int32_t batch = -1;
            while (ls >> word)
                if (word == "batch") ls >> batch;
            Range r = Window(buf);
            last_op_ = trace_record_host_access(reinterpret_cast<void *>(r.addr), r.bytes, rw == "write",
                                                rw == "write" ? "lab_load_batch" : "lab_store_batch", batch, Now());
        } else if (first.back() == ':') {
            StreamOp(StreamHandle(first.substr(0, first.size() - 1)), ls);
        } else {
            ADD_FAILURE() << "bad statement: " << line;
        }
    }

    void StreamOp(const void *stream, std::stringstream &ls) {
        std::string verb;
        ls >> verb;
        trace_op op = {};
        op.batch = -1;
        op.enqueue_ns = Now();
        if (verb == "record" || verb == "wait") {
            std::string ev;
            ls >> ev;
            last_op_ = verb == "record" ? trace_record_event_record(events_.at(ev), stream, Now())
                                        : trace_record_stream_wait(stream, events_.at(ev), Now());
            return;
        }
        if (verb == "h2d" || verb == "d2h" || verb == "d2d") {
            std::string dst, arrow, src, word;
            ls >> dst >> arrow >> src;
            bool pageable = false;
            while (ls >> word) {
                if (word == "pageable") pageable = true;
                if (word == "batch") ls >> op.batch;
            }
            op.kind = TRACE_OP_COPY;
            op.dir = verb == "h2d" ? TRACE_COPY_H2D : verb == "d2h" ? TRACE_COPY_D2H : TRACE_COPY_D2D;
            op.engine = verb == "h2d" ? TRACE_ENGINE_H2D : verb == "d2h" ? TRACE_ENGINE_D2H : TRACE_ENGINE_COMPUTE;
            op.pinned = !pageable;
            Range s = Window(src), d = Window(dst);
            op.bytes = s.bytes;
            trace_op_add_range(&op, reinterpret_cast<void *>(s.addr), s.bytes,
                               TRACE_RANGE_READ | (pageable ? TRACE_RANGE_HOST_ORDERED : 0u));
            trace_op_add_range(&op, reinterpret_cast<void *>(d.addr), d.bytes, TRACE_RANGE_WRITE);
        } else if (verb == "kernel" || verb == "hostfn") {
            std::string name;
            ls >> name;
            op.kind = verb == "kernel" ? TRACE_OP_KERNEL : TRACE_OP_HOST_FN;
            op.engine = verb == "kernel" ? TRACE_ENGINE_COMPUTE : TRACE_ENGINE_HOST;
            snprintf(op.name, sizeof(op.name), "%s", name.c_str());
            std::string word, buf;
            while (ls >> word) {
                if (word == "batch") {
                    ls >> op.batch;
                    continue;
                }
                if (word == "graph") {  // graph N LAUNCH ORIGIN: node of launch N (the simulator's)
                    std::string launch, origin;
                    ls >> op.graph_launch >> launch >> origin;
                    op.graph_stream = trace_stream_id(StreamHandle(launch));
                    op.graph_origin = trace_stream_id(StreamHandle(origin));
                    continue;
                }
                ls >> buf;
                Range r = Window(buf);
                trace_op_add_range(&op, reinterpret_cast<void *>(r.addr), r.bytes,
                                   word == "writes" ? TRACE_RANGE_WRITE : TRACE_RANGE_READ);
            }
        } else if (verb == "memset") {
            std::string buf;
            ls >> buf;
            op.kind = TRACE_OP_MEMSET;
            op.engine = TRACE_ENGINE_COMPUTE;
            Range r = Window(buf);
            op.bytes = r.bytes;
            trace_op_add_range(&op, reinterpret_cast<void *>(r.addr), r.bytes, TRACE_RANGE_WRITE);
        } else {
            ADD_FAILURE() << "bad stream op: " << verb;
            return;
        }
        last_op_ = trace_record(&op, stream);
    }

    const void *StreamHandle(const std::string &name) {
        if (name == "default") return nullptr;
        return streams_.at(name);
    }

    Range Window(const std::string &spec) {
        size_t open = spec.find('[');
        if (open == std::string::npos) return buffers_.at(spec);
        Range whole = buffers_.at(spec.substr(0, open));
        uint64_t off = std::stoull(spec.substr(open + 1));
        uint64_t len = std::stoull(spec.substr(spec.find(':') + 1));
        return Range{whole.addr + off, len};
    }

    void *Handle() {
        handles_.push_back(std::make_unique<int>(0));
        return handles_.back().get();
    }

    uint64_t Now() { return now_ += 1000; }

    trace_racecheck *rc_;
    std::map<std::string, void *> streams_, events_;
    std::map<std::string, Range> buffers_;
    std::vector<std::unique_ptr<int>> handles_;
    uint64_t next_addr_ = 0x10000000;
    uint64_t now_ = 0;
    uint64_t last_op_ = 0;
};

std::vector<trace_race> forwarded;
void CatchRace(void *, const trace_race *race) { forwarded.push_back(*race); }

class RaceCheck : public ::testing::Test {
  protected:
    void SetUp() override {
        trace_reset();
        forwarded.clear();
        rc = trace_racecheck_create(0);
        ASSERT_NE(rc, nullptr);
        ASSERT_EQ(trace_racecheck_install(rc), 0);
        trace_sink catcher = {};
        catcher.ctx = &forwarded;
        catcher.on_race = CatchRace;
        ASSERT_EQ(trace_add_sink(&catcher), 0);
        program = std::make_unique<Program>(rc);
    }
    void TearDown() override {
        trace_racecheck_destroy(rc);
        trace_reset();
    }

    std::vector<std::string> Kinds() {
        std::vector<std::string> kinds;
        for (size_t i = 0; i < trace_racecheck_kept(rc); i++)
            kinds.push_back(trace_race_kind_name(trace_racecheck_report(rc, i)->kind));
        return kinds;
    }
    const trace_race &Only() {
        EXPECT_EQ(trace_racecheck_kept(rc), 1u);
        static trace_race none = {};
        return trace_racecheck_kept(rc) ? *trace_racecheck_report(rc, 0) : none;
    }

    trace_racecheck *rc = nullptr;
    std::unique_ptr<Program> program;
};

const char *kDecls =
    "stream s1; stream s2; stream s3; event e1; event e2;"
    "buffer hA 4096; buffer hB 4096; buffer hC 4096; buffer A 4096; buffer B 4096; buffer C 4096;";

struct Case {
    const char *name;
    const char *program;
    std::vector<std::string> kinds;  // expected reports, in order found
};

// Planted races of every kind, and the ordering edges each one is missing.
const std::vector<Case> kRacy = {
    {"raw_across_streams", "s1: h2d A <- hA; s2: kernel process reads A writes B", {"RAW"}},
    {"war_across_streams", "s1: kernel process reads A writes B; s2: h2d A <- hA", {"WAR"}},
    {"waw_across_streams", "s1: memset A; s2: h2d A <- hA", {"WAW"}},
    {"host_read_before_d2h_completes", "s1: d2h hB <- B; host: read hB", {"host_read"}},
    {"host_overwrites_pinned_source_in_flight", "s1: h2d A <- hA; host: write hA", {"WAR"}},
    {"host_write_races_d2h_write", "s1: d2h hB <- B; host: write hB", {"WAW"}},
    {"sync_on_the_wrong_stream", "s1: d2h hB <- B; sync s2; host: read hB", {"host_read"}},
    {"event_recorded_before_the_write", "s1: record e1; s1: h2d A <- hA; s2: wait e1; s2: kernel k reads A",
     {"RAW"}},
    {"wait_enqueued_before_the_record", "s2: wait e1; s1: h2d A <- hA; s1: record e1; s2: kernel k reads A",
     {"RAW"}},
    {"wait_on_never_recorded_event", "s1: h2d A <- hA; s2: wait e2; s2: kernel k reads A", {"RAW"}},
    {"nonblocking_streams_skip_the_default_barrier",
     "stream n1 nonblocking; stream n2 nonblocking; n1: h2d A <- hA; default: kernel noop; n2: kernel k reads A",
     {"RAW"}},
    {"default_stream_does_not_wait_for_nonblocking",
     "stream n1 nonblocking; n1: h2d A <- hA; default: kernel k reads A", {"RAW"}},
    {"host_function_reads_unordered_d2h", "s1: d2h hB <- B; s2: hostfn consume reads hB", {"RAW"}},
    {"pageable_staging_reads_unfinished_d2h", "s1: d2h hB <- B; s2: h2d A <- hB pageable", {"host_read"}},
    {"sync_on_an_earlier_op_only", "s1: d2h hB <- B; sync last; s1: d2h hC <- C; host: read hC", {"host_read"}},
    {"missing_second_hop", "s1: h2d A <- hA; s1: record e1; s2: wait e1; s2: kernel k reads A writes B;"
                           "s3: kernel j reads B writes C",
     {"RAW"}},
    {"d2d_reads_unordered_kernel_output", "s1: kernel k reads A writes B; s2: d2d C <- B", {"RAW"}},
    {"two_races_in_one_op", "s1: h2d A <- hA; s2: h2d B <- hB; s3: kernel k reads A reads B writes C",
     {"RAW", "RAW"}},
    // The legacy stream's implicit synchronisation covers blocking streams only, and only
    // their work enqueued before the synchronising call.
    {"legacy_sync_does_not_wait_for_nonblocking",
     "stream n1 nonblocking; n1: d2h hB <- B; sync default; host: read hB", {"host_read"}},
    {"legacy_query_does_not_wait_for_nonblocking",
     "stream n1 nonblocking; n1: d2h hB <- B; query default; host: read hB", {"host_read"}},
    {"legacy_sync_before_the_blocking_work", "sync default; s1: d2h hB <- B; host: read hB", {"host_read"}},
    {"query_of_another_stream", "s1: d2h hB <- B; query s2; host: read hB", {"host_read"}},
    {"event_query_of_an_event_recorded_before_the_copy",
     "s1: record e1; s1: d2h hB <- B; query event e1; host: read hB", {"host_read"}},
};

// Correctly ordered programs: each ordering edge the checker must honour.
const std::vector<Case> kOrdered = {
    {"single_stream_pipeline",
     "s1: h2d A <- hA; s1: kernel k reads A writes B; s1: d2h hB <- B; s1: h2d A <- hA; sync s1; host: read hB", {}},
    {"event_orders_streams", "s1: h2d A <- hA; s1: record e1; s2: wait e1; s2: kernel k reads A writes B", {}},
    {"event_orders_war", "s1: kernel k reads A writes B; s1: record e1; s2: wait e1; s2: h2d A <- hA", {}},
    {"stream_sync_before_host_read", "s1: d2h hB <- B; sync s1; host: read hB", {}},
    {"event_sync_before_host_read", "s1: d2h hB <- B; s1: record e1; sync event e1; host: read hB", {}},
    {"device_sync_before_host_read", "s1: d2h hB <- B; s2: d2h hC <- C; sync device; host: read hB; host: read hC",
     {}},
    {"blocking_copy_waits", "s1: d2h hB <- B; sync last; host: read hB", {}},
    {"default_stream_barrier_orders_blocking_streams",
     "s1: h2d A <- hA; default: kernel noop; s2: kernel k reads A writes B", {}},
    {"blocking_streams_wait_for_default_stream", "default: memset A; s1: kernel k reads A writes B", {}},
    {"default_stream_waits_for_blocking_streams", "s1: h2d A <- hA; default: kernel k reads A writes B", {}},
    {"host_writes_before_enqueue", "host: write hA batch 0; s1: h2d A <- hA", {}},
    {"pageable_source_is_staged_before_return", "s1: h2d A <- hA pageable; host: write hA", {}},
    {"host_function_in_stream_order", "s1: d2h hB <- B; s1: hostfn consume reads hB writes hC", {}},
    {"transitive_through_two_events",
     "s1: h2d A <- hA; s1: record e1; s2: wait e1; s2: kernel k reads A writes B; s2: record e2;"
     "s3: wait e2; s3: kernel j reads A reads B writes C",
     {}},
    {"wait_sees_the_latest_record", "s1: record e1; s1: h2d A <- hA; s1: record e1; s2: wait e1; s2: kernel k reads A",
     {}},
    {"reads_never_race_with_reads", "s1: kernel k reads A writes B; s2: kernel j reads A writes C", {}},
    {"disjoint_bytes_do_not_race", "s1: h2d A[0:2048] <- hA[0:2048]; s2: h2d A[2048:2048] <- hB[0:2048]", {}},
    {"host_waits_then_reuses_staging",
     "s1: h2d A <- hA; s1: record e1; sync event e1; host: write hA; s1: h2d A <- hA", {}},
    // A query that returned cudaSuccess is a host synchronisation with what it asked about.
    {"event_query_success_before_host_read", "s1: d2h hB <- B; s1: record e1; query event e1; host: read hB", {}},
    {"event_query_success_before_host_reuse",
     "s1: h2d A <- hA; s1: record e1; query event e1; host: write hA; s1: h2d A <- hA", {}},
    {"stream_query_success_before_host_read", "s1: d2h hB <- B; query s1; host: read hB", {}},
    // cudaStreamSynchronize(0) / cudaStreamQuery(0): the legacy stream waits for every
    // blocking stream's earlier work, so the host that waited for it did too.
    {"legacy_sync_waits_for_blocking_streams",
     "s1: d2h hB <- B; s2: d2h hC <- C; sync default; host: read hB; host: read hC", {}},
    {"legacy_sync_then_blocking_streams_reuse",
     "s1: kernel k reads A writes B; sync default; host: write hA; s2: h2d A <- hA; s3: d2h hB <- B", {}},
    {"legacy_query_success_waits_for_blocking_streams", "s1: d2h hB <- B; query default; host: read hB", {}},
    // A synchronous copy on the legacy stream between blocking streams: it waits for s1's
    // kernel, the host waits for it, and s2's later work waits for it.
    {"legacy_blocking_copy_between_blocking_streams",
     "s1: kernel k reads A writes B; default: d2h hB <- B; sync last; host: read hB; s2: memset B", {}},
};

TEST_F(RaceCheck, EveryPlantedRaceIsReported) {
    for (const Case &c : kRacy) {
        SCOPED_TRACE(c.name);
        trace_racecheck_clear(rc);
        trace_reset();
        ASSERT_EQ(trace_racecheck_install(rc), 0);
        program = std::make_unique<Program>(rc);
        program->Run(kDecls);
        program->Run(c.program);
        EXPECT_EQ(Kinds(), c.kinds);
        EXPECT_EQ(trace_racecheck_count(rc), c.kinds.size());
    }
}

TEST_F(RaceCheck, CorrectlyOrderedProgramsReportNone) {
    for (const Case &c : kOrdered) {
        SCOPED_TRACE(c.name);
        trace_racecheck_clear(rc);
        trace_reset();
        ASSERT_EQ(trace_racecheck_install(rc), 0);
        program = std::make_unique<Program>(rc);
        program->Run(kDecls);
        program->Run(c.program);
        EXPECT_EQ(Kinds(), c.kinds);
        EXPECT_GT(trace_racecheck_ops_seen(rc), 0u);
    }
}

TEST_F(RaceCheck, ReportNamesBothOpsTheirStreamsBatchesAndTheFix) {
    program->Run(kDecls);
    program->Run("host: write hA batch 3; s1: h2d A <- hA; s2: kernel process reads A writes B");
    const trace_race &r = Only();
    EXPECT_EQ(r.kind, TRACE_RACE_RAW);
    EXPECT_EQ(r.first.kind, TRACE_OP_COPY);
    EXPECT_EQ(r.first.dir, TRACE_COPY_H2D);
    EXPECT_STREQ(r.first.stream_name, "s1");
    EXPECT_EQ(r.first.batch, 3);
    EXPECT_EQ(r.second.kind, TRACE_OP_KERNEL);
    EXPECT_STREQ(r.second.name, "process");
    EXPECT_STREQ(r.second.stream_name, "s2");
    EXPECT_EQ(r.second.batch, 3);  // inferred from the bytes it reads
    EXPECT_LT(r.first.id, r.second.id);
    EXPECT_EQ(r.addr, program->AddressOf("A"));
    EXPECT_EQ(r.bytes, 4096u);
    EXPECT_STREQ(r.fix,
                 "record an event on s1 after H2D batch 3 and make s2 wait on it (cudaStreamWaitEvent) "
                 "before kernel process batch 3");
    char text[2048];
    trace_race_format(&r, text, sizeof(text));
    std::string s(text);
    EXPECT_NE(s.find("read-after-write"), std::string::npos) << s;
    EXPECT_NE(s.find("kernel process batch 3"), std::string::npos) << s;
    EXPECT_NE(s.find("on stream s1"), std::string::npos) << s;
    EXPECT_NE(s.find("4096 bytes"), std::string::npos) << s;
}

TEST_F(RaceCheck, HostReadFixNamesTheStreamToSynchronise) {
    program->Run(kDecls);
    program->Run("s1: h2d A <- hA batch 3; s2: kernel k reads A writes B batch 3; s2: d2h hB <- B; host: read hB");
    // The kernel races the H2D; the host read races the D2H.
    ASSERT_EQ(trace_racecheck_kept(rc), 2u);
    const trace_race *r = trace_racecheck_report(rc, 1);
    EXPECT_EQ(r->kind, TRACE_RACE_HOST_READ);
    EXPECT_TRUE(r->second.on_host);
    EXPECT_EQ(r->second.stream, TRACE_STREAM_NONE);
    EXPECT_STREQ(r->fix,
                 "wait for s2 before the host reads it (host access lab_store_batch batch 3): cudaStreamSynchronize "
                 "on that stream, or cudaEventSynchronize on an event recorded after D2H batch 3");
}

TEST_F(RaceCheck, FixNamesNamedStreamsAndTheDefaultStream) {
    program->Run(kDecls);
    program->Run("stream loader; stream n1 nonblocking; loader: h2d A <- hA; n1: kernel k reads A writes B;"
                 "default: kernel z reads B writes C");
    // loader's H2D races n1's kernel; n1's kernel races the default stream's kernel.
    ASSERT_EQ(trace_racecheck_kept(rc), 2u);
    EXPECT_STREQ(trace_racecheck_report(rc, 0)->fix,
                 "record an event on \"loader\" after H2D and make \"n1\" wait on it (cudaStreamWaitEvent) "
                 "before kernel k");
    EXPECT_STREQ(trace_racecheck_report(rc, 1)->fix,
                 "record an event on \"n1\" after kernel k and make stream 0 wait on it "
                 "(cudaStreamWaitEvent) before kernel z");
}

// A graph's node runs on a stream of the graph's own (the simulator's "B (graph)"), which
// the program cannot record on or wait on: a fix orders the node by the graph's launch (an
// event recorded after cudaGraphLaunch on the launch stream marks the end of every
// branch), and a race between two nodes of one launch by the captured streams that made
// them, in the capture.
TEST_F(RaceCheck, AGraphsNodeIsOrderedByTheEndOfItsLaunch) {
    program->Run(kDecls);
    program->Run("stream A; stream B; stream Bg nonblocking;"
                 "Bg: kernel k graph 1 A B reads A writes B; B: d2h hB <- B");
    const trace_race &r = Only();
    EXPECT_EQ(r.kind, TRACE_RACE_RAW);
    EXPECT_STREQ(r.first.stream_name, "Bg") << "the race names where the node ran";
    EXPECT_STREQ(r.fix,
                 "record an event on \"A\" after the graph launch that runs kernel k and make \"B\" wait on it "
                 "(cudaStreamWaitEvent) before D2H")
        << "not \"Bg\", the graph's own stream";
}

TEST_F(RaceCheck, AGraphsNodeAfterOtherWorkIsHeldBeforeItsLaunch) {
    program->Run(kDecls);
    program->Run("stream A; stream B; stream Bg nonblocking;"
                 "B: kernel w reads C writes A; Bg: kernel k graph 4 A B reads A writes B");
    const trace_race &r = Only();
    EXPECT_STREQ(r.fix,
                 "record an event on \"B\" after kernel w and make \"A\" wait on it (cudaStreamWaitEvent) before "
                 "the graph launch that runs kernel k");
}

TEST_F(RaceCheck, ARaceWithinOneLaunchIsFixedInTheCapture) {
    program->Run(kDecls);
    program->Run("stream A; stream B; stream Bg nonblocking;"
                 "A: kernel p graph 2 A A reads C writes A; Bg: kernel q graph 2 A B reads A writes B");
    const trace_race &r = Only();
    EXPECT_STREQ(r.fix,
                 "record an event on \"A\" after kernel p and make \"B\" wait on it (cudaStreamWaitEvent) before "
                 "kernel q, in the capture: the graph keeps the order its capture saw");
}

// Two streams that share one buffer they need not share: the fix that keeps them
// overlapping (a buffer each) comes first, and the event, correct but slower, is named as
// such (lab 03's shared buffers, where the event-ordered version misses the target).
TEST_F(RaceCheck, BufferSharedAcrossStreamsNamesOwnBuffersFirst) {
    program->Run(kDecls);
    program->Run("stream bufA; stream bufB; bufA: kernel k reads A writes B; bufB: h2d A <- hA");
    const trace_race &r = Only();
    EXPECT_EQ(r.kind, TRACE_RACE_WAR);
    EXPECT_FALSE(r.handover);
    std::string fix = r.fix;
    EXPECT_EQ(fix.rfind("give \"bufA\" and \"bufB\" buffers of their own", 0), 0u) << fix;
    EXPECT_NE(fix.find("Correct but slower: record an event on \"bufA\" after kernel k"), std::string::npos) << fix;
    EXPECT_NE(fix.find("take turns"), std::string::npos) << fix;
    char text[2048];
    trace_race_format(&r, text, sizeof(text));
    EXPECT_NE(std::string(text).find("on stream \"bufB\")"), std::string::npos) << text;
    // With the lines of the program's calls known (the lab harness looks them up), each
    // side names its line.
    trace_race lined = r;
    snprintf(lined.first.line, sizeof(lined.first.line), "lab.c:41");
    snprintf(lined.second.line, sizeof(lined.second.line), "lab.c:57");
    trace_race_format(&lined, text, sizeof(text));
    EXPECT_NE(std::string(text).find("on stream \"bufB\", lab.c:57)"), std::string::npos) << text;
    EXPECT_NE(std::string(text).find("on stream \"bufA\", lab.c:41);"), std::string::npos) << text;
}

// A buffer handed over between streams (lab 05's and lab 09's pipelines: "up" writes it,
// "compute" reads it, "up" writes the next batch into it): the two must share it, and the
// fix is the event, with where to record it; no buffer each, and no "slower".
TEST_F(RaceCheck, ABufferHandedOverBetweenStreamsNamesTheEvent) {
    program->Run("stream up; stream compute; event e1; buffer A 4096; buffer hA 4096; buffer B 4096;");
    program->Run("up: h2d A <- hA batch 0; up: record e1; compute: wait e1; compute: kernel k reads A writes B;"
                 "up: h2d A <- hA batch 2");
    const trace_race &r = Only();
    EXPECT_EQ(r.kind, TRACE_RACE_WAR);
    EXPECT_TRUE(r.handover);
    EXPECT_STREQ(r.fix,
                 "record an event on \"compute\" after kernel k batch 0 (cudaEventRecord after the launch) and make "
                 "\"up\" wait on it (cudaStreamWaitEvent) before H2D batch 2, so that \"up\" overwrites the bytes "
                 "only once \"compute\" is done with them");
    EXPECT_EQ(std::string(r.fix).find("slower"), std::string::npos) << r.fix;
    EXPECT_EQ(std::string(r.fix).find("buffers of their own"), std::string::npos) << r.fix;
}

// Lab 02 (events): B waits on an event, but A recorded it before launching the kernel that
// writes X, so the wait orders nothing. The report names the event and its record, and the
// fix says to move the record, not to add an event B already waits on.
TEST_F(RaceCheck, EventRecordedTooEarlyNamesTheEventAndItsRecord) {
    program->Run("stream A; stream B; event e1; event e2; event e3; event e4; event e5; event e6; event E;"
                 "buffer X 4096; buffer Y 4096;");
    const uint64_t site = 0x4000abcd;
    trace_call_site_enter(reinterpret_cast<const void *>(site));
    program->Run("A: record E");
    trace_call_site_exit();
    const uint64_t record_op = program->LastOp();
    program->Run("A: kernel process writes X batch 0; B: wait E; B: kernel consume reads X writes Y");
    const trace_race &r = Only();
    EXPECT_EQ(r.kind, TRACE_RACE_RAW);
    EXPECT_EQ(r.first.kind, TRACE_OP_KERNEL);
    EXPECT_STREQ(r.first.stream_name, "A");
    EXPECT_STREQ(r.second.name, "consume");
    EXPECT_STREQ(r.second.stream_name, "B");
    ASSERT_EQ(program->EventId("E"), 7u);
    EXPECT_EQ(r.early_event, 7u);
    EXPECT_EQ(r.early_record_op, record_op);
    EXPECT_EQ(r.early_record_site, site);
    EXPECT_STREQ(r.fix,
                 "\"B\" waits on event 7, but it was recorded on \"A\" before kernel process batch 0, so it orders "
                 "nothing: record it after kernel process batch 0 (cudaEventRecord after the launch), where the wait "
                 "then orders them");
    char text[2048];
    trace_race_format(&r, text, sizeof(text));
    std::string s(text);
    std::string line = "  event 7 was recorded on \"A\" (op " + std::to_string(record_op) +
                       ") before kernel process batch 0 (op " + std::to_string(r.first.id) + ")\n  fix: ";
    EXPECT_NE(s.find("  nothing orders them.\n" + line), std::string::npos) << s;
    // The harness may fill in the record's line, as it does for both sides.
    trace_race lined = r;
    snprintf(lined.early_record_line, sizeof(lined.early_record_line), "lab.c:33");
    trace_race_format(&lined, text, sizeof(text));
    EXPECT_NE(std::string(text).find("(op " + std::to_string(record_op) + ", lab.c:33) before"), std::string::npos)
        << text;
    // The report reaches the other sinks with the event.
    ASSERT_EQ(forwarded.size(), 1u);
    EXPECT_EQ(forwarded[0].early_event, 7u);
}

TEST_F(RaceCheck, EventRecordedAfterTheKernelOrdersIt) {
    program->Run("stream A; stream B; event E; buffer X 4096; buffer Y 4096;");
    program->Run("A: kernel process writes X batch 0; A: record E; B: wait E; B: kernel consume reads X writes Y");
    EXPECT_EQ(trace_racecheck_count(rc), 0u);
}

TEST_F(RaceCheck, AMissingWaitKeepsTheGenericFix) {
    program->Run("stream A; stream B; event E; buffer X 4096; buffer Y 4096;");
    program->Run("A: kernel process writes X batch 0; B: kernel consume reads X writes Y");
    const trace_race &r = Only();
    EXPECT_EQ(r.early_event, 0u);
    EXPECT_EQ(r.early_record_op, 0u);
    EXPECT_EQ(r.early_record_site, 0u);
    EXPECT_STREQ(r.fix,
                 "record an event on \"A\" after kernel process batch 0 and make \"B\" wait on it "
                 "(cudaStreamWaitEvent) before kernel consume batch 0");
    char text[2048];
    trace_race_format(&r, text, sizeof(text));
    EXPECT_EQ(std::string(text).find("was recorded on"), std::string::npos) << text;
}

// Not an early record: the wait came before the record (so it waited on nothing), or the
// event was recorded on another stream than the writer's (named as such, below).
TEST_F(RaceCheck, OnlyAnEarlyRecordOnTheWritersStreamThatTheReaderWaitedOnIsNamed) {
    program->Run("stream A; stream B; stream C; event E; buffer X 4096; buffer Y 4096; buffer Z 4096;");
    program->Run("B: wait E; A: record E; A: kernel process writes X; B: kernel consume reads X writes Y");
    EXPECT_EQ(Only().early_event, 0u);
    EXPECT_EQ(Only().wrong_event, 0u);
    EXPECT_EQ(std::string(Only().fix).rfind("record an event on \"A\" after kernel process", 0), 0u) << Only().fix;
    trace_racecheck_clear(rc);
    program->Run("C: record E; A: kernel process writes Z; B: wait E; B: kernel consume reads Z writes Y");
    EXPECT_EQ(Only().early_event, 0u);
}

// Lab 05: the kernel's stream waits on an event meant to mark the upload, but the event was
// recorded on another stream (the waiter's own, or a third). The report says which stream
// it was recorded on, with the record's and the wait's ops and call sites, and the fix
// says on which stream, after which op, to record it.
TEST_F(RaceCheck, EventRecordedOnTheWrongStreamNamesTheStreamTheRecordAndTheWait) {
    program->Run("stream up; stream compute; event E; buffer A 4096; buffer hA 4096; buffer B 4096;");
    program->Run("up: h2d A <- hA batch 2");
    const uint64_t record_site = 0x4000a000, wait_site = 0x4000b000;
    trace_call_site_enter(reinterpret_cast<const void *>(record_site));
    program->Run("compute: record E");
    trace_call_site_exit();
    const uint64_t record_op = program->LastOp();
    trace_call_site_enter(reinterpret_cast<const void *>(wait_site));
    program->Run("compute: wait E");
    trace_call_site_exit();
    const uint64_t wait_op = program->LastOp();
    program->Run("compute: kernel process reads A writes B");
    const trace_race &r = Only();
    EXPECT_EQ(r.kind, TRACE_RACE_RAW);
    EXPECT_EQ(r.early_event, 0u);
    EXPECT_EQ(r.wrong_event, program->EventId("E"));
    EXPECT_EQ(r.wrong_record_op, record_op);
    EXPECT_EQ(r.wrong_record_site, record_site);
    EXPECT_EQ(r.wrong_wait_op, wait_op);
    EXPECT_EQ(r.wrong_wait_site, wait_site);
    EXPECT_STREQ(r.wrong_record_stream_name, "compute");
    EXPECT_STREQ(r.fix,
                 "\"compute\" waits on event 1, but it was recorded on \"compute\", not on \"up\" where H2D batch 2 "
                 "runs, so it orders nothing: record it on \"up\" after H2D batch 2 (cudaEventRecord on \"up\" after "
                 "the cudaMemcpyAsync), where the wait then orders them");
    trace_race lined = r;
    snprintf(lined.wrong_record_line, sizeof(lined.wrong_record_line), "lab.c:47");
    snprintf(lined.wrong_wait_line, sizeof(lined.wrong_wait_line), "lab.c:48");
    char text[2048];
    trace_race_format(&lined, text, sizeof(text));
    std::string want = "  \"compute\" waits on event 1 (op " + std::to_string(wait_op) +
                       ", lab.c:48), which was recorded on \"compute\" (op " + std::to_string(record_op) +
                       ", lab.c:47), not on \"up\" where H2D batch 2 (op " + std::to_string(r.first.id) + ") runs\n";
    EXPECT_NE(std::string(text).find("  nothing orders them.\n" + want + "  fix: "), std::string::npos) << text;
}

// Lab 05's reuse wait issued after the kernel it should order: the last wait before that
// kernel is on the upload's event, recorded on another stream than the download the kernel
// races with, but it orders the kernel's own input and does its job. It is not blamed (its
// record is right): the plain fix says what is missing.
TEST_F(RaceCheck, AWaitThatOrdersTheSecondOpsOwnInputIsNotBlamed) {
    program->Run("stream up; stream compute; stream down; event U; event D; buffer hIn 4096; buffer In 4096; "
                 "buffer Out 4096; buffer hOut 4096;");
    program->Run("down: d2h hOut <- Out batch 0; up: h2d In <- hIn batch 2; up: record U; compute: wait U; "
                 "compute: kernel process reads In writes Out; down: record D; compute: wait D");
    const trace_race &r = Only();
    EXPECT_EQ(r.kind, TRACE_RACE_WAR);
    EXPECT_EQ(r.wrong_event, 0u);
    EXPECT_EQ(r.early_event, 0u);
    EXPECT_NE(std::string(r.fix).find("record an event on \"down\" after D2H batch 0"), std::string::npos) << r.fix;
    EXPECT_EQ(std::string(r.fix).find("was recorded on"), std::string::npos) << r.fix;
}

// A download that waits on the other buffer's event: the writer's stream does record an
// event after the kernel the download races with (the right one), so no record is early;
// not "record it after the kernel", which would move a right record, but the event that
// does mark the kernel, which nothing waits on.
TEST_F(RaceCheck, AWaitOnAnotherBuffersEventDoesNotCallItsRecordEarly) {
    program->Run("stream compute; stream down; event C0; event C1; buffer In 4096; buffer Out0 4096; "
                 "buffer Out1 4096; buffer hOut 4096;");
    program->Run("compute: kernel process reads In writes Out0; compute: record C0; "
                 "compute: kernel process reads In writes Out1; compute: record C1; "
                 "down: wait C0; down: d2h hOut <- Out1 batch 1");
    const trace_race &r = Only();
    EXPECT_EQ(r.kind, TRACE_RACE_RAW);
    EXPECT_EQ(r.early_event, 0u);
    EXPECT_EQ(r.wait_fault, TRACE_WAIT_FAULT_MISSING);
    EXPECT_EQ(r.mark_event, program->EventId("C1"));
    std::string want = "event " + std::to_string(program->EventId("C1")) +
                       " is recorded on \"compute\" after kernel process, and nothing has waited on it since";
    EXPECT_EQ(std::string(r.fix).rfind(want, 0), 0u) << r.fix;
}

TEST_F(RaceCheck, EventRecordedOnAThirdStreamIsNamed) {
    program->Run("stream A; stream B; stream C; event E; event F; buffer X 4096; buffer Y 4096;");
    program->Run("A: kernel process writes X; C: record F; C: record E; B: wait E; B: kernel consume reads X writes Y");
    const trace_race &r = Only();
    EXPECT_EQ(r.wrong_event, program->EventId("E"));
    EXPECT_STREQ(r.wrong_record_stream_name, "C");
    std::string want = "\"B\" waits on event " + std::to_string(program->EventId("E")) +
                       ", but it was recorded on \"C\", not on \"A\" where kernel process runs";
    EXPECT_EQ(std::string(r.fix).rfind(want, 0), 0u) << r.fix;
    // A wait on an event recorded before the writer was enqueued is not taken for a
    // misplaced record of it: the generic fix stays.
    trace_racecheck_clear(rc);
    program->Run("C: record F; B: wait F; A: kernel process writes Y; B: kernel consume reads Y writes X");
    EXPECT_EQ(Only().wrong_event, 0u);
    EXPECT_EQ(std::string(Only().fix).rfind("record an event on \"A\" after kernel process", 0), 0u) << Only().fix;
}

// An event the program named (lab_name_event) is named so in the fix and the report, for
// an event recorded too early and for one recorded on the wrong stream; an unnamed one
// keeps its number.
TEST_F(RaceCheck, EventsAreNamedAsTheProgramNamedThem) {
    program->Run("stream A; stream B; stream C; event E; event F; buffer X 4096; buffer Y 4096;");
    program->NameEvent("E", "ready[1]");
    program->Run("A: record E; A: kernel process writes X; B: wait E; B: kernel consume reads X writes Y");
    const trace_race &early = Only();
    EXPECT_EQ(early.early_event, program->EventId("E"));
    EXPECT_STREQ(early.early_event_name, "ready[1]");
    EXPECT_EQ(std::string(early.fix).rfind("\"B\" waits on event \"ready[1]\", but it was recorded on \"A\" before", 0),
              0u)
        << early.fix;
    char text[2048];
    trace_race_format(&early, text, sizeof(text));
    EXPECT_NE(std::string(text).find("  event \"ready[1]\" was recorded on \"A\" (op "), std::string::npos) << text;

    trace_racecheck_clear(rc);
    program->NameEvent("F", "done");
    program->Run("A: kernel process writes Y; C: record F; B: wait F; B: kernel consume reads Y writes X");
    const trace_race &wrong = Only();
    EXPECT_EQ(wrong.wrong_event, program->EventId("F"));
    EXPECT_STREQ(wrong.wrong_event_name, "done");
    EXPECT_EQ(std::string(wrong.fix).rfind("\"B\" waits on event \"done\", but it was recorded on \"C\"", 0), 0u)
        << wrong.fix;
    trace_race_format(&wrong, text, sizeof(text));
    EXPECT_NE(std::string(text).find("  \"B\" waits on event \"done\" (op "), std::string::npos) << text;
}

// Two streams reusing a buffer, with an early record: the record comes first, then the
// faster fix of a buffer each.
TEST_F(RaceCheck, EventRecordedTooEarlyBeforeAReusedBuffer) {
    program->Run("stream A; stream B; event E; buffer X 4096; buffer Y 4096;");
    program->Run("A: record E; A: kernel process reads X writes Y; B: wait E; B: memset X");
    const trace_race &r = Only();
    EXPECT_EQ(r.kind, TRACE_RACE_WAR);
    EXPECT_EQ(r.early_event, program->EventId("E"));
    std::string fix = r.fix;
    EXPECT_EQ(fix.rfind("\"B\" waits on event 1, but it was recorded on \"A\" before kernel process", 0), 0u) << fix;
    EXPECT_NE(fix.find(". Faster: give \"A\" and \"B\" buffers of their own"), std::string::npos) << fix;
}

// The wait a report blames, when the program has the right event and the wrong wait (lab
// 05's pipeline: "up" uploads I, "compute" reads I and writes O, "down" downloads O). The
// race is the missing edge between the two ops; the fix names the wait that should have
// been that edge and what is wrong with it, never a record that is right where it is.
const char *kPipeline =
    "stream up; stream compute; stream down; event U0; event U1; event C0; event C1; event D0; event D1;"
    "buffer I 4096; buffer hI 4096; buffer J 4096; buffer O 4096; buffer hO 4096; buffer P 4096; buffer hP 4096;";
// Batch 0 through the pipeline's last two stages: the kernel writes O, the download reads it
// after computed[0], downloaded[0] recorded after it. O then goes back to "compute": a hand-over.
const char *kBatch0 =
    "compute: kernel process writes O batch 0; compute: record C0; down: wait C0; down: d2h hO <- O batch 0;"
    "down: record D0;";

class WaitBlame : public RaceCheck {
  protected:
    void SetUp() override {
        RaceCheck::SetUp();
        program->Run(kPipeline);
        for (const char *e : {"U0", "U1", "C0", "C1", "D0", "D1"}) {
            names_.push_back(std::string(e[0] == 'U' ? "uploaded[" : e[0] == 'C' ? "computed[" : "downloaded[") +
                             e[1] + "]");
            program->NameEvent(e, names_.back().c_str());
        }
    }
    // Runs one statement at a call site of its own: the site's value, for the report.
    uint64_t At(uint64_t site, const std::string &statement) {
        trace_call_site_enter(reinterpret_cast<const void *>(site));
        program->Run(statement);
        trace_call_site_exit();
        return program->LastOp();
    }
    std::vector<std::string> names_;
};

// The reuse wait issued right after the kernel it should hold back (lab.c:43 the kernel,
// lab.c:44 the wait): the wait is blamed, with both lines, and the fix says to issue it
// before the launch; the download's record, which is right, is not named.
TEST_F(WaitBlame, AWaitIssuedAfterTheOpItShouldOrderIsBlamed) {
    program->Run(kBatch0);
    const uint64_t kernel = At(0x4000a000, "compute: kernel process writes O batch 2");
    // Held until "compute" is given more work: the wait that follows may be the one.
    EXPECT_EQ(trace_racecheck_count(rc), 1u);
    EXPECT_TRUE(forwarded.empty());
    const uint64_t wait = At(0x4000b000, "compute: wait D0");
    program->Run("compute: record C0; compute: kernel process writes O batch 3");
    ASSERT_EQ(forwarded.size(), 1u);
    const trace_race &r = Only();
    EXPECT_EQ(r.kind, TRACE_RACE_WAR);
    EXPECT_EQ(r.second.id, kernel);
    EXPECT_EQ(r.wait_fault, TRACE_WAIT_FAULT_LATE);
    EXPECT_EQ(r.wait_event, program->EventId("D0"));
    EXPECT_STREQ(r.wait_event_name, "downloaded[0]");
    EXPECT_EQ(r.wait_op, wait);
    EXPECT_EQ(r.wait_site, 0x4000b000u);
    EXPECT_STREQ(r.wait_stream_name, "compute");
    EXPECT_EQ(r.early_event, 0u);
    EXPECT_EQ(r.wrong_event, 0u);
    EXPECT_STREQ(trace_race_wait_fault_name(r.wait_fault), "late");
    EXPECT_STREQ(r.fix,
                 "the wait of \"compute\" on event \"downloaded[0]\" comes after kernel process batch 2, which it "
                 "should order: a wait holds back only the work queued on its stream after it, so issue it before "
                 "the launch");
    EXPECT_EQ(forwarded[0].wait_fault, TRACE_WAIT_FAULT_LATE);
    // With the lines the harness looks up, the fix gives them.
    trace_race lined = r;
    snprintf(lined.second.line, sizeof(lined.second.line), "labs/05_cross_stream_races/lab.c:43");
    snprintf(lined.wait_line, sizeof(lined.wait_line), "labs/05_cross_stream_races/lab.c:44");
    trace_race_make_fix(&lined);
    EXPECT_EQ(std::string(lined.fix).rfind("the wait of \"compute\" on event \"downloaded[0]\" (lab.c:44) comes after "
                                           "kernel process batch 2 (lab.c:43), which it should order",
                                           0),
              0u)
        << lined.fix;
    char text[2048];
    trace_race_format(&lined, text, sizeof(text));
    EXPECT_NE(std::string(text).find("  \"compute\" waits on event \"downloaded[0]\" (op " + std::to_string(wait) +
                                     ", labs/05_cross_stream_races/lab.c:44) after kernel process batch 2 (op " +
                                     std::to_string(kernel) + "), not before it\n  fix: "),
              std::string::npos)
        << text;
}

// A buffer set used whole by one stream and then by another, with one event recorded after
// the set's last use (the download): the second stream's wait on it, issued after its upload
// into the set, is blamed as late for the upload's races too. The record marks the download,
// not the first upload or the kernel, but it is on their stream after them, so it orders
// them, and issued before the copy the same wait is the fix.
TEST_F(WaitBlame, AWaitOnAnEventRecordedAfterTheSetsLastUseIsLateForItsEarlierUses) {
    program->Run(
        "up: h2d I <- hI batch 0; up: kernel process reads I writes O batch 0; up: d2h hO <- O batch 0;"
        "up: record D0;");
    const uint64_t upload = At(0x4000d000, "down: h2d I <- hI batch 1");
    const uint64_t wait = At(0x4000e000, "down: wait D0");
    program->Run("down: kernel process reads I writes O batch 1");
    ASSERT_FALSE(forwarded.empty());
    int blamed = 0;
    for (const trace_race &r : forwarded) {
        if (r.second.id != upload) continue;
        EXPECT_EQ(r.wait_fault, TRACE_WAIT_FAULT_LATE) << r.fix;
        EXPECT_EQ(r.wait_op, wait);
        EXPECT_EQ(std::string(r.fix).rfind("the wait of \"down\" on event \"downloaded[0]\" comes after H2D batch 1, "
                                           "which it should order",
                                           0),
                  0u)
            << r.fix;
        blamed++;
    }
    EXPECT_EQ(blamed, 2);  // the upload against the first upload (WAW) and the first kernel (WAR)
}

// A wait issued after other work was enqueued is not taken for a late one (it may be the
// next batch's), nor one that orders nothing of the first op: the report names the record
// no wait took before the kernel, downloaded[0], and the wait it lacks.
TEST_F(WaitBlame, OnlyAWaitRightAfterTheOpThatOrdersTheFirstIsLate) {
    program->Run(std::string(kBatch0) + "compute: kernel process writes O batch 2; up: h2d I <- hI batch 3;"
                                        "compute: wait D0");
    EXPECT_EQ(Only().wait_fault, TRACE_WAIT_FAULT_MISSING);
    EXPECT_STREQ(Only().fix,
                 "event \"downloaded[0]\" is recorded on \"down\" after D2H batch 0, and nothing has waited on it "
                 "since: make \"compute\" wait on it (cudaStreamWaitEvent on \"compute\") before kernel process "
                 "batch 2");
    trace_racecheck_clear(rc);
    program->Run(std::string(kBatch0) + "up: h2d I <- hI batch 2; up: record U0; compute: kernel process writes O "
                                        "batch 2; compute: wait U0");
    EXPECT_EQ(Only().wait_fault, TRACE_WAIT_FAULT_MISSING);
    EXPECT_EQ(Only().wait_event, program->EventId("D0"));
}

// The kernel's wait on uploaded[0] issued before the upload and its record: it took nothing
// (the event had not been recorded), then the previous record (two batches back). The upload's
// record is right; the fix says to issue the wait after it.
TEST_F(WaitBlame, AWaitIssuedBeforeItsRecordIsBlamed) {
    const uint64_t wait = At(0x4000c000, "compute: wait U0");
    program->Run("up: h2d I <- hI batch 0");
    const uint64_t record = At(0x4000d000, "up: record U0");
    program->Run("compute: kernel process reads I writes O batch 0");
    const trace_race &r = Only();
    EXPECT_EQ(r.kind, TRACE_RACE_RAW);
    EXPECT_EQ(r.wait_fault, TRACE_WAIT_FAULT_BEFORE_RECORD);
    EXPECT_EQ(r.wait_op, wait);
    EXPECT_FALSE(r.wait_took_record);
    EXPECT_EQ(r.mark_event, program->EventId("U0"));
    EXPECT_EQ(r.mark_record_op, record);
    EXPECT_EQ(r.mark_record_site, 0x4000d000u);
    EXPECT_STREQ(r.fix,
                 "\"compute\" waits on event \"uploaded[0]\" before it is recorded after H2D batch 0: a wait takes "
                 "the event's last record made before the wait, so this one waits for nothing (the event had not "
                 "been recorded yet). Issue the wait after the cudaEventRecord");
    // Two batches on, the same wait takes the previous record.
    program->Run("compute: wait U0; up: h2d J <- hI batch 2; up: record U0; compute: kernel process reads J batch 2");
    ASSERT_EQ(trace_racecheck_kept(rc), 2u);
    const trace_race *again = trace_racecheck_report(rc, 1);
    EXPECT_EQ(again->wait_fault, TRACE_WAIT_FAULT_BEFORE_RECORD);
    EXPECT_TRUE(again->wait_took_record);
    EXPECT_NE(std::string(again->fix).find("so this one waits for the previous record, which does not order it"),
              std::string::npos)
        << again->fix;
}

// The download waits on computed[1] where computed[0] is the event recorded after the
// kernel: the record is right and the wait names the other index. Told as such, with the
// event to wait on, whether the wrong one had been recorded yet or not; two unnamed events
// recorded at one call site are of one set too.
TEST_F(WaitBlame, AWaitOnAnotherEventOfTheSetIsBlamedNotTheRecord) {
    program->Run("compute: kernel process writes O batch 0");
    const uint64_t record = At(0x4000e000, "compute: record C0");
    const uint64_t wait = At(0x4000f000, "down: wait C1");
    program->Run("down: d2h hO <- O batch 0");
    const trace_race &r = Only();
    EXPECT_EQ(r.kind, TRACE_RACE_RAW);
    EXPECT_EQ(r.wait_fault, TRACE_WAIT_FAULT_OTHER_EVENT);
    EXPECT_EQ(r.wait_event, program->EventId("C1"));
    EXPECT_EQ(r.wait_op, wait);
    EXPECT_FALSE(r.wait_took_record);
    EXPECT_EQ(r.mark_event, program->EventId("C0"));
    EXPECT_STREQ(r.mark_event_name, "computed[0]");
    EXPECT_EQ(r.mark_record_op, record);
    EXPECT_STREQ(r.fix,
                 "\"down\" waits on event \"computed[1]\", which had not been recorded yet, so it orders nothing; it "
                 "is event \"computed[0]\" that was recorded on \"compute\" after kernel process batch 0: wait on "
                 "that one before D2H batch 0. Its record is in the right place: the wait names the wrong event");
    EXPECT_EQ(std::string(r.fix).find("record it after"), std::string::npos) << r.fix;
    // The next batch: computed[0] was recorded after the previous kernel, not this one.
    program->Run("compute: kernel process writes P batch 1");
    At(0x4000e000, "compute: record C1");
    At(0x4000f000, "down: wait C0");
    program->Run("down: d2h hP <- P batch 1");
    ASSERT_EQ(trace_racecheck_kept(rc), 2u);
    const trace_race *next = trace_racecheck_report(rc, 1);
    EXPECT_EQ(next->wait_fault, TRACE_WAIT_FAULT_OTHER_EVENT);
    EXPECT_TRUE(next->wait_took_record);
    EXPECT_EQ(next->early_event, 0u);  // not an event recorded too early: its record is right
    EXPECT_EQ(std::string(next->fix).rfind("\"down\" waits on event \"computed[0]\", last recorded before kernel "
                                           "process batch 1, so it does not order it; it is event \"computed[1]\"",
                                           0),
              0u)
        << next->fix;
    // Unnamed events of one set: their records share a call site.
    trace_racecheck_clear(rc);
    program->Run("stream a; stream b; event X; event Y; buffer Z 4096; buffer hZ 4096;");
    At(0x40010000, "a: kernel k writes Z batch 0; a: record X");
    At(0x40010000, "a: kernel k writes Z batch 1; a: record Y");
    program->Run("b: wait X; b: d2h hZ <- Z batch 1");
    EXPECT_EQ(Only().wait_fault, TRACE_WAIT_FAULT_OTHER_EVENT);
    EXPECT_EQ(Only().mark_event, program->EventId("Y"));
}

// A set of events each recorded before its op (lab 05's TODO 2, for the downloads): the next
// index's record follows the first op, but it was placed before other work, so the wait is
// not blamed: the record is, as an event recorded too early.
TEST_F(WaitBlame, RecordsPlacedBeforeTheirWorkAreRecordedTooEarlyNotWaitedWrong) {
    program->Run("compute: kernel process writes O batch 0; compute: record C0; down: wait C0; down: record D0;"
                 "down: d2h hO <- O batch 0; compute: kernel process writes P batch 1; compute: record C1;"
                 "down: wait C1; down: record D1; down: d2h hP <- P batch 1; compute: wait D0;"
                 "compute: kernel process writes O batch 2");
    const trace_race &r = Only();
    EXPECT_EQ(r.wait_fault, TRACE_WAIT_FAULT_NONE);
    EXPECT_EQ(r.early_event, program->EventId("D0"));
    EXPECT_STREQ(r.fix,
                 "\"compute\" waits on event \"downloaded[0]\", but it was recorded on \"down\" before D2H batch 0, so "
                 "it orders nothing: record it after D2H batch 0 (cudaEventRecord after the cudaMemcpyAsync), where "
                 "the wait then orders them");
}

// The reuse wait issued on "down", where its event is recorded, instead of "compute": the
// wait that exists is named, with the stream that should make it; a stream's wait on its own
// event is said to order nothing. A third stream's wait may be its own, and is not blamed.
TEST_F(WaitBlame, AWaitOnAnotherStreamIsBlamed) {
    program->Run(kBatch0);
    const uint64_t wait = At(0x40011000, "down: wait D0");
    program->Run("compute: kernel process writes O batch 2");
    const trace_race &r = Only();
    EXPECT_EQ(r.wait_fault, TRACE_WAIT_FAULT_OTHER_STREAM);
    EXPECT_EQ(r.wait_op, wait);
    EXPECT_STREQ(r.wait_stream_name, "down");
    EXPECT_EQ(r.wrong_event, 0u);
    EXPECT_STREQ(r.fix,
                 "\"down\" waits on event \"downloaded[0]\", recorded on \"down\" after D2H batch 0, but kernel "
                 "process batch 2 runs on \"compute\", which does not wait on it: make \"compute\" wait on it "
                 "(cudaStreamWaitEvent on \"compute\") before kernel process batch 2 (a stream's wait on an event "
                 "recorded on itself orders nothing)");
    trace_racecheck_clear(rc);
    program->Run(std::string(kBatch0) + "up: wait D0; compute: kernel process writes O batch 2");
    EXPECT_EQ(Only().wait_fault, TRACE_WAIT_FAULT_NONE);
    EXPECT_EQ(std::string(Only().fix).rfind("record an event on \"down\" after D2H batch 0", 0), 0u) << Only().fix;
}

// A correct wait on an event recorded on a third stream after that stream's own work is not
// a record on the wrong stream, though it was recorded after the first op: the kernel's wait
// on the upload's event is right, and the download it does not wait for is the missing edge.
TEST_F(WaitBlame, ARecordAfterItsOwnStreamsWorkIsNotOnTheWrongStream) {
    program->Run(std::string(kBatch0) + "up: h2d I <- hI batch 2; up: record U0; compute: wait U0;"
                                        "compute: kernel process reads I writes O batch 2");
    const trace_race &r = Only();
    EXPECT_EQ(r.wrong_event, 0u);
    EXPECT_EQ(r.wait_fault, TRACE_WAIT_FAULT_MISSING);
    EXPECT_EQ(r.wait_event, program->EventId("D0"));
    EXPECT_EQ(std::string(r.fix).find("uploaded"), std::string::npos) << r.fix;
}

// Lab 08's loader: the host's cudaEventSynchronize on the upload's event issued right after
// the load it should precede is blamed as late; after another host access, it is not (the
// host's generic fix stays).
TEST_F(WaitBlame, TheHostsWaitRightAfterItsAccessIsBlamedAsLate) {
    program->Run("up: h2d I <- hI batch 0; up: record U0");
    const uint64_t load = At(0x40012000, "host: write hI batch 3");
    EXPECT_TRUE(forwarded.empty());
    At(0x40013000, "sync event U0");
    const uint64_t sync = load + 1;  // the next op recorded (Program keeps no id of a sync)
    program->Run("host: read hP");
    ASSERT_EQ(forwarded.size(), 1u);
    const trace_race &r = Only();
    EXPECT_EQ(r.kind, TRACE_RACE_WAR);
    EXPECT_EQ(r.second.id, load);
    EXPECT_EQ(r.wait_fault, TRACE_WAIT_FAULT_LATE);
    EXPECT_TRUE(r.wait_on_host);
    EXPECT_STREQ(r.wait_call, "cudaEventSynchronize");
    EXPECT_EQ(r.wait_op, sync);
    EXPECT_EQ(r.wait_site, 0x40013000u);
    EXPECT_STREQ(r.fix,
                 "the host's cudaEventSynchronize on event \"uploaded[0]\" comes after host access lab_load_batch "
                 "batch 3, which it should order: the host waits only from that call on, so call it before host "
                 "access lab_load_batch batch 3");
    trace_racecheck_clear(rc);
    program->Run("up: h2d I <- hI batch 0; up: record U0; host: write hI batch 3; host: read hP; sync event U0");
    EXPECT_EQ(Only().wait_fault, TRACE_WAIT_FAULT_NONE);
    EXPECT_EQ(std::string(Only().fix).rfind("wait for \"up\" before the host writes it", 0), 0u) << Only().fix;
}

// Lab 08's loader on one stream, each buffer's event recorded before its upload instead of
// after: the host's wait is on an event recorded too early. The next buffer's event, recorded
// after the upload in that stream's order but right after the download (another call), is
// not taken for the one the wait should name.
TEST_F(WaitBlame, OnOneStreamARecordBeforeTheCopyIsRecordedTooEarly) {
    const uint64_t h2d = 0x40014000, d2h = 0x40015000;
    program->Run("buffer hA 4096; buffer hB 4096;");
    for (int i = 0; i < 2; i++) {
        const std::string k = std::to_string(i), staging = i == 0 ? "hA" : "hB";
        program->Run("sync event U" + k + "; host: write " + staging + " batch " + k + "; up: record U" + k);
        At(h2d, "up: h2d I <- " + staging + " batch " + k);
        At(d2h, "up: d2h hO <- I batch " + k);
    }
    program->Run("sync event U0; host: write hA batch 2");
    const trace_race &r = Only();
    EXPECT_EQ(r.wait_fault, TRACE_WAIT_FAULT_NONE);
    EXPECT_EQ(r.early_event, program->EventId("U0"));
    EXPECT_STREQ(r.fix,
                 "the host waits on event \"uploaded[0]\", but it was recorded on \"up\" before H2D batch 0, so it "
                 "orders nothing: record it after H2D batch 0 (cudaEventRecord after the cudaMemcpyAsync), where the "
                 "wait then orders them");
}

// Lab 03's pipeline of three streams and two input buffers, each batch's wait on in_free[k]
// issued on the next stream instead of its own: the stream that waits on its own event is
// named for the race, not the copy's stream's wait on its own record (another batch's,
// misplaced), which is no wait on another event of the set.
TEST_F(WaitBlame, AStreamsWaitOnItsOwnRecordIsNotTakenForAnotherEventsWait) {
    program->Run("stream A; stream B; stream C; event F0; event F1; buffer I1 4096;");
    program->NameEvent("F0", "in_free[0]");
    program->NameEvent("F1", "in_free[1]");
    program->Run("A: h2d I <- hI batch 0; A: kernel process reads I batch 0; A: record F0;"
                 "B: h2d I1 <- hI batch 1; B: kernel process reads I1 batch 1; B: record F1;"
                 "A: wait F0; C: h2d I <- hI batch 2; C: kernel process reads I batch 2; C: record F0;"
                 "B: wait F1; A: h2d I1 <- hI batch 3");
    ASSERT_GE(trace_racecheck_kept(rc), 2u);
    for (size_t i = 0; i < trace_racecheck_kept(rc); i++) {
        const trace_race *r = trace_racecheck_report(rc, i);
        EXPECT_EQ(r->wait_fault, TRACE_WAIT_FAULT_OTHER_STREAM) << r->fix;
        EXPECT_STREQ(r->wait_stream_name, r->first.stream_name) << r->fix;
    }
    const trace_race *last = trace_racecheck_report(rc, trace_racecheck_kept(rc) - 1);
    EXPECT_STREQ(last->second.stream_name, "A");
    EXPECT_EQ(std::string(last->fix).rfind("\"B\" waits on event \"in_free[1]\", recorded on \"B\" after ", 0), 0u)
        << last->fix;
    EXPECT_NE(std::string(last->fix).find("make \"A\" wait on it (cudaStreamWaitEvent on \"A\")"), std::string::npos)
        << last->fix;
}

// Reports are handed out in the order found: one between two streams once the host waits
// for its second op, one with a host access once the host does more, and any when read.
TEST_F(WaitBlame, HeldReportsGoOutInOrderWhenTheHostWaitsOrTheyAreRead) {
    program->Run("down: d2h hO <- O batch 0; compute: kernel process writes O batch 2; up: h2d I <- hI batch 3;"
                 "host: write hI");
    EXPECT_EQ(trace_racecheck_count(rc), 2u);
    EXPECT_TRUE(forwarded.empty());
    program->Run("sync compute");
    ASSERT_EQ(forwarded.size(), 1u);
    EXPECT_EQ(forwarded[0].seq, 1u);
    program->Run("host: read hP");  // the host moved on: its earlier access's waits are over
    ASSERT_EQ(forwarded.size(), 2u);
    EXPECT_EQ(forwarded[1].seq, 2u);
    trace_racecheck_clear(rc);
    forwarded.clear();
    program->Run("down: d2h hO <- O batch 0; compute: kernel process writes O batch 2");
    EXPECT_TRUE(forwarded.empty());
    trace_racecheck_settle(rc);
    EXPECT_EQ(forwarded.size(), 1u);
    EXPECT_EQ(trace_racecheck_kept(rc), 1u);
}

// The legacy stream is its device's: cudaStreamSynchronize(0) with GPU 0 current waits for
// GPU 0's blocking streams, not for those of GPU 1.
TEST_F(RaceCheck, LegacySyncWaitsForTheBlockingStreamsOfItsDeviceOnly) {
    int gpu0 = 0, gpu1 = 0;
    trace_stream_created_on(&gpu0, 0, 0, 0);
    trace_stream_created_on(&gpu1, 0, 0, 1);
    static uint32_t on0[1024], on1[1024], host0[1024], host1[1024];
    for (auto [stream, src, dst] : {std::tuple<const void *, uint32_t *, uint32_t *>{&gpu0, on0, host0},
                                    std::tuple<const void *, uint32_t *, uint32_t *>{&gpu1, on1, host1}}) {
        trace_op op = {};
        op.kind = TRACE_OP_COPY;
        op.dir = TRACE_COPY_D2H;
        op.engine = TRACE_ENGINE_D2H;
        op.batch = -1;
        trace_op_add_range(&op, src, sizeof(on0), TRACE_RANGE_READ);
        trace_op_add_range(&op, dst, sizeof(host0), TRACE_RANGE_WRITE);
        trace_record(&op, stream);
    }
    trace_record_sync(TRACE_SYNC_STREAM, nullptr, "cudaStreamSynchronize", 1, 2);
    trace_record_host_access(host0, sizeof(host0), false, "lab_store_batch", -1, 3);
    EXPECT_EQ(trace_racecheck_count(rc), 0u);
    trace_record_host_access(host1, sizeof(host1), false, "lab_store_batch", -1, 4);
    const trace_race &r = Only();
    EXPECT_EQ(r.kind, TRACE_RACE_HOST_READ);
    EXPECT_EQ(r.first.stream_device, 1u);
}

// A device other than 0 has its own legacy stream (what NULL names while it is current):
// synchronising it waits for that device's blocking streams, not for device 0's, and work
// on it waits for that device's blocking streams.
TEST_F(RaceCheck, EachDevicesLegacyStreamOrdersItsOwnBlockingStreams) {
    int gpu0 = 0, gpu1 = 0, legacy1 = 0;
    trace_stream_created_on(&gpu0, 0, 0, 0);
    trace_stream_created_on(&gpu1, 0, 0, 1);
    trace_stream_created_on(&legacy1, 0, 0, 1);
    trace_stream_set_legacy(&legacy1);
    ASSERT_TRUE(trace_stream_get(trace_stream_id(&legacy1))->legacy);
    static uint32_t on0[1024], on1[1024], host0[1024], host1[1024], dev1[1024];
    auto d2h = [](const void *stream, uint32_t *src, uint32_t *dst) {
        trace_op op = {};
        op.kind = TRACE_OP_COPY;
        op.dir = TRACE_COPY_D2H;
        op.engine = TRACE_ENGINE_D2H;
        op.batch = -1;
        trace_op_add_range(&op, src, sizeof(on0), TRACE_RANGE_READ);
        trace_op_add_range(&op, dst, sizeof(host0), TRACE_RANGE_WRITE);
        trace_record(&op, stream);
    };
    d2h(&gpu0, on0, host0);
    d2h(&gpu1, on1, host1);
    trace_record_sync(TRACE_SYNC_STREAM, &legacy1, "cudaStreamSynchronize", 1, 2);
    trace_record_host_access(host1, sizeof(host1), false, "lab_store_batch", -1, 3);
    EXPECT_EQ(trace_racecheck_count(rc), 0u) << "GPU 1's legacy stream waited for GPU 1's blocking stream";
    trace_record_host_access(host0, sizeof(host0), false, "lab_store_batch", -1, 4);
    EXPECT_EQ(trace_racecheck_count(rc), 1u) << "and not for GPU 0's";
    // Work on GPU 1's legacy stream waits for GPU 1's blocking streams.
    trace_op k = {};
    k.kind = TRACE_OP_KERNEL;
    k.engine = TRACE_ENGINE_COMPUTE;
    k.batch = -1;
    trace_op_add_range(&k, on1, sizeof(on1), TRACE_RANGE_WRITE);
    trace_op_add_range(&k, dev1, sizeof(dev1), TRACE_RANGE_WRITE);
    d2h(&gpu1, dev1, host1);
    trace_record(&k, &legacy1);
    EXPECT_EQ(trace_racecheck_count(rc), 1u);
}

TEST_F(RaceCheck, OverlapIsExactlyTheSharedBytesAndPairsAreReportedOnce) {
    program->Run(kDecls);
    program->Run("s1: h2d A[0:1024] <- hA[0:1024]; s2: kernel k reads A[512:1024] reads A[256:128] writes B");
    const trace_race &r = Only();
    EXPECT_EQ(r.addr, program->AddressOf("A") + 256);
    EXPECT_EQ(r.bytes, 1024u - 256u);
}

TEST_F(RaceCheck, RacesReachOtherSinksAndAreCountedPastTheCap) {
    trace_racecheck_destroy(rc);
    trace_reset();
    rc = trace_racecheck_create(2);
    ASSERT_EQ(trace_racecheck_install(rc), 0);
    trace_sink catcher = {};
    catcher.ctx = &forwarded;
    catcher.on_race = CatchRace;
    ASSERT_EQ(trace_add_sink(&catcher), 0);
    program = std::make_unique<Program>(rc);
    program->Run(kDecls);
    for (int i = 0; i < 5; i++) program->Run("s1: h2d A <- hA; s2: kernel k reads A writes B");
    // Round 1: the kernel reads A before the H2D is known to be done (RAW). Every later
    // round adds two: the H2D overwrites A that the last kernel may still read (WAR), and
    // the new kernel reads it unordered again (RAW).
    EXPECT_EQ(trace_racecheck_count(rc), 1u + 2u * 4u);
    EXPECT_EQ(trace_racecheck_kept(rc), 2u);
    EXPECT_EQ(trace_racecheck_report(rc, 0)->kind, TRACE_RACE_RAW);
    EXPECT_EQ(trace_racecheck_report(rc, 1)->kind, TRACE_RACE_WAR);
    EXPECT_EQ(trace_racecheck_count(rc), forwarded.size());
    for (size_t i = 0; i < forwarded.size(); i++) EXPECT_EQ(forwarded[i].seq, i + 1);
}

TEST_F(RaceCheck, UnknownStreamsAndEventsOrderNothingAndDoNotCrash) {
    program->Run(kDecls);
    int stray = 0;
    trace_op op = {};
    op.kind = TRACE_OP_KERNEL;
    op.batch = -1;
    trace_op_add_range(&op, reinterpret_cast<void *>(program->AddressOf("A")), 64, TRACE_RANGE_WRITE);
    trace_record(&op, &stray);  // an unknown stream handle: the runtime would reject it
    trace_record_sync(TRACE_SYNC_EVENT, &stray, "cudaEventSynchronize", 0, 0);
    trace_record_sync_op(999999, "cudaMemcpy", 0, 0);
    trace_record_stream_wait(nullptr, &stray, 0);
    EXPECT_EQ(trace_racecheck_count(rc), 0u);
}

TEST_F(RaceCheck, ManyStreamsAndBuffersStayConsistent) {
    // 64 streams each write their own slice, then one kernel per stream reads the slice of
    // the next stream without waiting: exactly 64 races; with waits, none.
    program->Run("buffer big 65536; buffer out 65536;");
    std::string decl, racy;
    for (int s = 1; s <= 64; s++) decl += "stream t" + std::to_string(s) + "; event f" + std::to_string(s) + ";";
    program->Run(decl);
    auto slice = [](const char *buf, int i) {
        return std::string(buf) + "[" + std::to_string((i - 1) * 1024) + ":1024]";
    };
    for (int s = 1; s <= 64; s++)
        racy += "t" + std::to_string(s) + ": memset " + slice("big", s) + ";";
    for (int s = 1; s <= 64; s++) {
        int next = s % 64 + 1;
        racy += "t" + std::to_string(s) + ": kernel k reads " + slice("big", next) + " writes " + slice("out", s) + ";";
    }
    program->Run(racy);
    EXPECT_EQ(trace_racecheck_count(rc), 64u);
    for (size_t i = 0; i < trace_racecheck_kept(rc); i++) {
        const trace_race *r = trace_racecheck_report(rc, i);
        EXPECT_EQ(r->kind, TRACE_RACE_RAW);
        EXPECT_EQ(r->bytes, 1024u);
    }
}

TEST_F(RaceCheck, ARecorderResetStartsANewProgramButKeepsTheCount) {
    program->Run(kDecls);
    program->Run("s1: h2d A <- hA; s2: kernel k reads A writes B");
    ASSERT_EQ(trace_racecheck_count(rc), 1u);
    // As after sim_reset: new streams reuse ids 1 and 2 and buffers reuse addresses. The
    // new program orders its ops, and nothing of the old one may race with them.
    trace_reset();
    ASSERT_EQ(trace_racecheck_install(rc), 0);
    program = std::make_unique<Program>(rc);
    program->Run(kDecls);
    program->Run("s2: h2d A <- hA; s2: kernel k reads A writes B; s2: record e1; s1: wait e1; s1: d2h hB <- B");
    EXPECT_EQ(trace_racecheck_count(rc), 1u);
    EXPECT_EQ(trace_racecheck_kept(rc), 1u);
}

// Standalone mode: STREAMLAB_RACECHECK=1 turns the checker on, and the exit status is 66
// when a race was found, 0 otherwise.
void RunStandalone(const char *program_text) {
    setenv("STREAMLAB_RACECHECK", "1", 1);
    trace_reset();
    if (!trace_racecheck_install_from_env()) _exit(3);
    Program p(trace_racecheck_global());
    p.Run(kDecls);
    p.Run(program_text);
    exit(0);
}

TEST(RaceCheckStandalone, ExitStatusIs66WhenARaceWasFound) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(RunStandalone("s1: h2d A <- hA; s2: kernel process reads A writes B"), ::testing::ExitedWithCode(66),
                "read-after-write(.|\n)*1 race in");
}

TEST(RaceCheckStandalone, ExitStatusIsUnchangedWithoutRaces) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(RunStandalone("s1: h2d A <- hA; s1: kernel process reads A writes B"), ::testing::ExitedWithCode(0),
                "no races in");
}

TEST(RaceCheckStandalone, OffUnlessTheEnvironmentAsks) {
    unsetenv("STREAMLAB_RACECHECK");
    EXPECT_FALSE(trace_racecheck_install_from_env());
    setenv("STREAMLAB_RACECHECK", "0", 1);
    EXPECT_FALSE(trace_racecheck_install_from_env());
    unsetenv("STREAMLAB_RACECHECK");
}

// On several devices a report names whose memory the bytes are in and where each op ran;
// the same race of a program on one device reads as before.
TEST(RaceReport, OnSeveralDevicesItNamesTheDevices) {
    trace_race r = {};
    r.seq = 1;
    r.kind = TRACE_RACE_RAW;
    r.addr = 0x1000;
    r.bytes = 64;
    r.first.id = 5;
    r.first.kind = TRACE_OP_COPY;
    r.first.dir = TRACE_COPY_D2D;
    r.first.stream = 3;
    r.first.batch = 2;
    snprintf(r.first.stream_name, sizeof(r.first.stream_name), "s3");
    r.second.id = 9;
    r.second.kind = TRACE_OP_KERNEL;
    r.second.stream = 6;
    r.second.batch = 2;
    snprintf(r.second.name, sizeof(r.second.name), "stage2");
    snprintf(r.second.stream_name, sizeof(r.second.stream_name), "handoff");
    trace_race one = r;
    trace_race_make_fix(&one);
    char text[2048];
    trace_race_format(&one, text, sizeof(text));
    std::string t = text;
    EXPECT_NE(t.find("race 1: read-after-write on 64 bytes at 0x1000\n"), std::string::npos) << t;
    EXPECT_NE(t.find("kernel stage2 batch 2 (op 9, on stream \"handoff\")"), std::string::npos) << t;
    EXPECT_NE(t.find("D2D batch 2 (op 5, on stream s3)"), std::string::npos) << t;
    EXPECT_EQ(t.find("GPU"), std::string::npos) << t;

    r.multi_device = true;
    r.buffer_device = 1;
    r.first.peer = true;
    r.first.device = 0;
    r.first.dst_device = 1;
    r.second.device = r.second.stream_device = 1;
    trace_race_make_fix(&r);
    trace_race_format(&r, text, sizeof(text));
    t = text;
    EXPECT_NE(t.find("race 1: read-after-write on 64 bytes at 0x1000 (GPU 1 memory)\n"), std::string::npos) << t;
    EXPECT_NE(t.find("kernel stage2 batch 2 (op 9, on GPU 1, stream \"handoff\")"), std::string::npos) << t;
    EXPECT_NE(t.find("peer copy GPU 0 -> GPU 1 batch 2 (op 5, on GPU 0, stream s3)"), std::string::npos) << t;
    EXPECT_NE(std::string(r.fix).find("record an event on s3 after peer copy GPU 0 -> GPU 1 batch 2"),
              std::string::npos)
        << r.fix;
    // Host memory (or memory nobody marked with its device): no note; a host access.
    r.buffer_device = -1;
    r.first.on_host = true;
    r.first.stream = TRACE_STREAM_NONE;
    r.first.peer = false;
    r.first.kind = TRACE_OP_HOST_ACCESS;
    trace_race_format(&r, text, sizeof(text));
    t = text;
    EXPECT_NE(t.find("at 0x1000\n"), std::string::npos) << t;
    EXPECT_NE(t.find("(op 5, on the host)"), std::string::npos) << t;
}

}  // namespace
