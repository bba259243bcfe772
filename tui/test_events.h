// tui/test_events.h: for the tests, a live event stream written by the real writer
// (trace/stream/events_writer.h) into a temporary file and read back as text, so that what the
// tests feed the timeline is exactly what a lab sends.
#ifndef STREAMLAB_TUI_TEST_EVENTS_H
#define STREAMLAB_TUI_TEST_EVENTS_H

#include <cstdio>
#include <cstring>
#include <string>

#include <unistd.h>

extern "C" {
#include "trace/stream/events_writer.h"
#include "trace/check/race.h"
}

namespace tui_test {

class EventStream {
  public:
    explicit EventStream(const char *nonce = nullptr) {
        file_ = tmpfile();
        trace_events_options o = trace_events_default_options();
        o.nonce = nonce;
        writer_ = trace_events_writer_create(fileno(file_), &o);
    }
    ~EventStream() {
        trace_events_writer_destroy(writer_);
        fclose(file_);
    }
    EventStream(const EventStream &) = delete;
    EventStream &operator=(const EventStream &) = delete;

    void Hello(const char *backend = "sim", const char *profile = "h200",
               const char *device = "NVIDIA H200 (simulated)") {
        trace_events_hello_info h = {"03_double_buffer", backend, profile, device, "yours"};
        trace_events_hello(writer_, &h);
    }
    // Streams and ops written after this belong to device d (0 until called).
    void OnDevice(uint32_t d) { device_ = d; }
    void Stream(int32_t id, const char *name, int32_t priority = 0, unsigned flags = 0) {
        trace_stream s;
        memset(&s, 0, sizeof(s));
        s.device = device_;
        s.id = id;
        s.priority = priority;
        s.flags = flags;
        s.legacy = id == 0;
        snprintf(s.name, sizeof(s.name), "%s", name);
        trace_events_stream(writer_, &s);
    }
    void Progress(const char *text, int64_t done, int64_t total) { trace_events_progress(writer_, text, done, total); }
    void Phase(const char *name, uint64_t start, uint64_t end, int32_t run = -1) {
        trace_events_phase(writer_, name, start, end, run);
    }
    // A copy (dir H2D/D2H), kernel, memset, sync or API op with its times.
    trace_op Op(trace_op_kind kind, trace_copy_dir dir, int32_t stream, int32_t run, int32_t batch, uint64_t start,
                uint64_t end, uint64_t bytes = 0, const char *name = "") {
        trace_op op;
        memset(&op, 0, sizeof(op));
        op.id = ++next_id_;
        op.kind = kind;
        op.dir = dir;
        op.stream = stream;
        op.run = run;
        op.batch = batch;
        op.start_ns = start;
        op.end_ns = end;
        op.bytes = bytes;
        op.pinned = kind == TRACE_OP_COPY;
        op.timed = true;
        op.device = op.dst_device = device_;
        snprintf(op.name, sizeof(op.name), "%s", name);
        switch (kind) {
        case TRACE_OP_COPY:
            op.engine = dir == TRACE_COPY_H2D ? TRACE_ENGINE_H2D : dir == TRACE_COPY_D2H ? TRACE_ENGINE_D2H
                                                                                         : TRACE_ENGINE_COMPUTE;
            break;
        case TRACE_OP_KERNEL:
        case TRACE_OP_MEMSET:
            op.engine = TRACE_ENGINE_COMPUTE;
            if (kind == TRACE_OP_KERNEL) {
                op.grid[0] = 4096;
                op.block[0] = 256;
                op.grid[1] = op.grid[2] = op.block[1] = op.block[2] = 1;
            }
            break;
        case TRACE_OP_EVENT_RECORD:
        case TRACE_OP_EVENT_WAIT: op.engine = TRACE_ENGINE_NONE; break;
        default:
            op.engine = TRACE_ENGINE_HOST;
            op.stream = kind == TRACE_OP_SYNC && stream >= 0 ? stream : TRACE_STREAM_NONE;
            if (kind == TRACE_OP_SYNC) op.sync = stream >= 0 ? TRACE_SYNC_STREAM : TRACE_SYNC_DEVICE;
            break;
        }
        trace_events_op(writer_, &op);
        return op;
    }
    // A peer copy from src's memory to dst's, on the link, issued on stream.
    trace_op PeerCopy(int32_t stream, int32_t run, int32_t batch, uint64_t start, uint64_t end, uint64_t bytes,
                      uint32_t src, uint32_t dst) {
        trace_op op;
        memset(&op, 0, sizeof(op));
        op.id = ++next_id_;
        op.kind = TRACE_OP_COPY;
        op.dir = TRACE_COPY_D2D;
        op.stream = stream;
        op.run = run;
        op.batch = batch;
        op.start_ns = start;
        op.end_ns = end;
        op.bytes = bytes;
        op.timed = true;
        trace_op_set_peer(&op, src, dst);
        trace_events_op(writer_, &op);
        return op;
    }
    void Race(trace_race_kind kind, const trace_op &first, const trace_op &second, uint64_t bytes) {
        trace_race r;
        memset(&r, 0, sizeof(r));
        r.seq = ++races_;
        r.kind = kind;
        Side(first, &r.first);
        Side(second, &r.second);
        r.addr = 0x7f0000000000ull;
        r.bytes = bytes;
        trace_race_make_fix(&r);
        trace_events_race(writer_, &r);
    }
    void Result(const char *json) {
        cJSON *j = cJSON_Parse(json);
        trace_events_result(writer_, j);
        cJSON_Delete(j);
    }
    void Bye(int status, const char *reason) { trace_events_bye(writer_, status, reason); }

    // Everything written so far, and what was written since the last call.
    std::string Text() {
        trace_events_flush(writer_);
        fflush(file_);
        std::string all;
        char buf[65536];
        ssize_t n;
        off_t at = 0;
        while ((n = pread(fileno(file_), buf, sizeof(buf), at)) > 0) {
            all.append(buf, static_cast<size_t>(n));
            at += n;
        }
        return all;
    }
    std::string Take() {
        std::string all = Text();
        std::string fresh = all.substr(taken_);
        taken_ = all.size();
        return fresh;
    }

  private:
    static void Side(const trace_op &op, trace_race_op *s) {
        s->id = op.id;
        s->kind = op.kind;
        s->dir = op.dir;
        s->stream = op.stream;
        s->on_host = op.stream < 0;
        s->batch = op.batch;
        s->run = op.run;
        snprintf(s->name, sizeof(s->name), "%s", op.name);
        snprintf(s->stream_name, sizeof(s->stream_name), "s%d", (int)op.stream);
    }
    FILE *file_;
    trace_events_writer *writer_;
    uint64_t next_id_ = 0;
    uint64_t races_ = 0;
    uint32_t device_ = 0;
    size_t taken_ = 0;
};

}  // namespace tui_test

#endif
