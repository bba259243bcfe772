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
// the plain fix, not "record it after the kernel", which would move a right record.
TEST_F(RaceCheck, AWaitOnAnotherBuffersEventDoesNotCallItsRecordEarly) {
    program->Run("stream compute; stream down; event C0; event C1; buffer In 4096; buffer Out0 4096; "
                 "buffer Out1 4096; buffer hOut 4096;");
    program->Run("compute: kernel process reads In writes Out0; compute: record C0; "
                 "compute: kernel process reads In writes Out1; compute: record C1; "
                 "down: wait C0; down: d2h hOut <- Out1 batch 1");
    const trace_race &r = Only();
    EXPECT_EQ(r.kind, TRACE_RACE_RAW);
    EXPECT_EQ(r.early_event, 0u);
    EXPECT_EQ(std::string(r.fix).rfind("record an event on \"compute\" after kernel process", 0), 0u) << r.fix;
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
