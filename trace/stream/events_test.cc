// trace/events_test.cc: the live event stream. What the writer writes, the reader reads
// back, whatever the chunking; the nonce keeps forged lines out; every malformed line is
// reported with its number and the rest of the stream is still read; and a reader that
// goes away or stops reading never kills or hangs the writer.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <random>
#include <string>
#include <thread>
#include <vector>

extern "C" {
#include <cjson/cJSON.h>

#include "trace/stream/events_reader.h"
#include "trace/stream/events_writer.h"
}

namespace {

// Everything a writer wrote into a pipe, read back after the writer is done.
class Pipe {
  public:
    Pipe() {
        int fds[2];
        EXPECT_EQ(pipe(fds), 0);
        rd = fds[0];
        wr = fds[1];
        fcntl(rd, F_SETFL, O_NONBLOCK);
    }
    ~Pipe() {
        if (rd >= 0) close(rd);
        if (wr >= 0) close(wr);
    }
    // Reads what is there now.
    std::string Drain() {
        std::string out;
        char buf[65536];
        ssize_t n;
        while ((n = read(rd, buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
        return out;
    }
    int rd = -1, wr = -1;
};

struct Read {
    std::vector<trace_event> records;
    std::vector<std::string> errors;
    std::vector<std::string> results;  // RESULT objects, printed
};

// Feeds text in chunks of 1..max_chunk bytes (random, seeded) and collects everything.
Read ReadAll(const std::string &text, const char *nonce = nullptr, size_t max_chunk = 0, unsigned seed = 1) {
    Read out;
    trace_events_reader *r = trace_events_reader_create(nonce);
    std::mt19937 rng(seed);
    size_t off = 0;
    auto drain = [&]() {
        trace_event ev;
        char err[256];
        int rc;
        while ((rc = trace_events_reader_next(r, &ev, err, sizeof(err))) != 0) {
            if (rc < 0) {
                out.errors.push_back(err);
                continue;
            }
            if (ev.type == TRACE_EVENT_RESULT) {
                char *s = cJSON_PrintUnformatted(ev.result);
                out.results.push_back(s);
                free(s);
                ev.result = nullptr;
            }
            out.records.push_back(ev);
        }
    };
    while (off < text.size()) {
        size_t n = max_chunk ? 1 + rng() % max_chunk : text.size();
        n = std::min(n, text.size() - off);
        trace_events_reader_feed(r, text.data() + off, n);
        off += n;
        drain();
    }
    trace_events_reader_end(r);
    drain();
    EXPECT_EQ(trace_events_reader_errors(r), out.errors.size());
    trace_events_reader_destroy(r);
    return out;
}

trace_op KernelOp(uint64_t id, uint64_t start, uint64_t end) {
    trace_op op = {};
    op.id = id;
    op.kind = TRACE_OP_KERNEL;
    op.engine = TRACE_ENGINE_COMPUTE;
    op.stream = 2;
    op.priority = -5;
    op.batch = 3;
    op.run = 1;
    snprintf(op.name, sizeof(op.name), "process");
    op.start_ns = start;
    op.end_ns = end;
    op.grid[0] = 132;
    op.grid[1] = op.grid[2] = 1;
    op.block[0] = 256;
    op.block[1] = op.block[2] = 1;
    op.timed = true;
    return op;
}

std::string WriteSession(const char *nonce) {
    Pipe p;
    trace_events_options o = trace_events_default_options();
    o.nonce = nonce;
    trace_events_writer *w = trace_events_writer_create(p.wr, &o);
    trace_events_hello_info hello = {"03_double_buffer", "sim", "h200", "NVIDIA H200 (simulated)", "yours"};
    EXPECT_EQ(trace_events_hello(w, &hello), 0);
    trace_stream s = {};
    s.id = 2;
    s.priority = -5;
    s.flags = 1;
    snprintf(s.name, sizeof(s.name), "buf \"B\"");
    EXPECT_EQ(trace_events_stream(w, &s), 0);
    trace_op copy = {};
    copy.id = 7;
    copy.kind = TRACE_OP_COPY;
    copy.dir = TRACE_COPY_H2D;
    copy.engine = TRACE_ENGINE_H2D;
    copy.stream = 1;
    copy.batch = 3;
    copy.run = 1;
    copy.bytes = 4u << 20;
    copy.pinned = true;
    copy.start_ns = 1000;
    copy.end_ns = 76000;
    copy.timed = true;
    EXPECT_EQ(trace_events_op(w, &copy), 0);
    trace_op k = KernelOp(8, 76000, 90000);
    EXPECT_EQ(trace_events_op(w, &k), 0);
    trace_race race = {};
    race.seq = 1;
    race.kind = TRACE_RACE_WAR;
    race.addr = 0x7f0012340000ull;
    race.bytes = 4096;
    race.first = {8, TRACE_OP_KERNEL, TRACE_COPY_NONE, 2, false, 3, 1, "process", "buf B", 0, "", 0, 0, 0, false, 0, 0, 0, "", ""};
    race.second = {9, TRACE_OP_COPY, TRACE_COPY_H2D, 1, false, 4, 1, "", "s1", 0, "", 0, 0, 0, false, 0, 0, 0, "", ""};
    trace_race_make_fix(&race);
    EXPECT_EQ(trace_events_race(w, &race), 0);
    EXPECT_EQ(trace_events_phase(w, "run 1", 0, 100000, 1), 0);
    EXPECT_EQ(trace_events_progress(w, "run 1/5", 1, 5), 0);
    cJSON *result = cJSON_Parse("{\"correct\":true,\"speedup\":1.74,\"races\":0}");
    EXPECT_EQ(trace_events_result(w, result), 0);
    cJSON_Delete(result);
    EXPECT_EQ(trace_events_bye(w, 0, nullptr), 0);
    EXPECT_EQ(trace_events_writer_lines(w), 9u);
    trace_events_writer_destroy(w);
    return p.Drain();
}

TEST(EventStream, WhatTheWriterWritesTheReaderReadsInAnyChunking) {
    std::string text = WriteSession(nullptr);
    // Every line is one JSON object with "v":1 and "t".
    size_t lines = 0;
    for (size_t pos = 0; (pos = text.find('\n', pos)) != std::string::npos; pos++) lines++;
    EXPECT_EQ(lines, 9u);
    for (size_t chunk : {0, 1, 2, 3, 7, 64, 4096}) {
        SCOPED_TRACE(chunk);
        Read r = ReadAll(text, nullptr, chunk, static_cast<unsigned>(chunk));
        ASSERT_TRUE(r.errors.empty()) << r.errors[0];
        ASSERT_EQ(r.records.size(), 9u);
        const trace_event *e = r.records.data();
        EXPECT_EQ(e[0].type, TRACE_EVENT_HELLO);
        EXPECT_STREQ(e[0].u.hello.lab, "03_double_buffer");
        EXPECT_STREQ(e[0].u.hello.device, "NVIDIA H200 (simulated)");
        EXPECT_EQ(e[0].line, 1u);
        EXPECT_EQ(e[1].type, TRACE_EVENT_STREAM);
        EXPECT_EQ(e[1].u.stream.id, 2);
        EXPECT_EQ(e[1].u.stream.priority, -5);
        EXPECT_EQ(e[1].u.stream.flags, 1u);
        EXPECT_STREQ(e[1].u.stream.name, "buf \"B\"");
        const trace_op &c = e[2].u.op;
        EXPECT_EQ(e[2].type, TRACE_EVENT_OP);
        EXPECT_EQ(c.kind, TRACE_OP_COPY);
        EXPECT_EQ(c.dir, TRACE_COPY_H2D);
        EXPECT_EQ(c.engine, TRACE_ENGINE_H2D);
        EXPECT_EQ(c.bytes, 4u << 20);
        EXPECT_TRUE(c.pinned);
        EXPECT_EQ(c.start_ns, 1000u);
        EXPECT_EQ(c.end_ns, 76000u);
        EXPECT_EQ(c.batch, 3);
        EXPECT_TRUE(c.timed);
        const trace_op &k = e[3].u.op;
        EXPECT_STREQ(k.name, "process");
        EXPECT_EQ(k.grid[0], 132u);
        EXPECT_EQ(k.block[0], 256u);
        EXPECT_EQ(k.priority, -5);
        EXPECT_EQ(e[4].type, TRACE_EVENT_RACE);
        EXPECT_EQ(e[4].u.race.kind, TRACE_RACE_WAR);
        EXPECT_EQ(e[4].u.race.addr, 0x7f0012340000ull);
        EXPECT_EQ(e[4].u.race.first.id, 8u);
        EXPECT_STREQ(e[4].u.race.first.stream_name, "buf B");
        EXPECT_EQ(e[4].u.race.second.batch, 4);
        EXPECT_NE(std::string(e[4].u.race.fix).find("cudaStreamWaitEvent"), std::string::npos);
        EXPECT_EQ(e[5].type, TRACE_EVENT_PHASE);
        EXPECT_STREQ(e[5].u.phase.name, "run 1");
        EXPECT_EQ(e[5].u.phase.end_ns, 100000u);
        EXPECT_EQ(e[6].type, TRACE_EVENT_PROGRESS);
        EXPECT_EQ(e[6].u.progress.done, 1);
        EXPECT_EQ(e[6].u.progress.total, 5);
        EXPECT_EQ(e[7].type, TRACE_EVENT_RESULT);
        ASSERT_EQ(r.results.size(), 1u);
        EXPECT_EQ(r.results[0], "{\"correct\":true,\"speedup\":1.74,\"races\":0}");
        EXPECT_EQ(e[8].type, TRACE_EVENT_BYE);
        EXPECT_EQ(e[8].line, 9u);
    }
}

// A run on two devices: streams and ops carry their device, a peer copy its direction on
// the link, a race the devices of its bytes and sides. A run on one device writes none of it.
TEST(EventStream, DevicesGoThroughAndLinesWithoutThemAreDeviceZero) {
    Pipe p;
    trace_events_writer *w = trace_events_writer_create(p.wr, nullptr);
    trace_stream s0 = {}, s1 = {};
    s0.id = 1;
    s1.id = 2;
    s1.device = 1;
    EXPECT_EQ(trace_events_stream(w, &s0), 0);
    EXPECT_EQ(trace_events_stream(w, &s1), 0);
    trace_op k = KernelOp(1, 0, 100);  // on device 0
    EXPECT_EQ(trace_events_op(w, &k), 0);
    trace_op k1 = KernelOp(2, 100, 200);
    k1.device = k1.dst_device = 1;
    EXPECT_EQ(trace_events_op(w, &k1), 0);
    trace_op peer = {};
    peer.id = 3;
    peer.kind = TRACE_OP_COPY;
    peer.dir = TRACE_COPY_D2D;
    peer.stream = 1;
    peer.bytes = 4096;
    peer.start_ns = 200;
    peer.end_ns = 300;
    peer.timed = true;
    trace_op_set_peer(&peer, 0, 1);
    EXPECT_EQ(trace_events_op(w, &peer), 0);
    trace_race race = {};
    race.seq = 1;
    race.kind = TRACE_RACE_RAW;
    race.bytes = 4096;
    race.multi_device = true;
    race.buffer_device = 1;
    race.first = {3, TRACE_OP_COPY, TRACE_COPY_D2D, 1, false, 0, 1, "", "s1", 0, "", 0, 1, 0, true, 0, 0, 0, "", ""};
    race.second = {2, TRACE_OP_KERNEL, TRACE_COPY_NONE, 2, false, 0, 1, "process", "s2", 0, "", 1, 1, 1, false, 0, 0, 0, "", ""};
    trace_race_make_fix(&race);
    EXPECT_EQ(trace_events_race(w, &race), 0);
    trace_race one = race;  // a race of a run on one device
    one.multi_device = false;
    one.first.peer = false;
    EXPECT_EQ(trace_events_race(w, &one), 0);
    trace_events_writer_destroy(w);
    std::string text = p.Drain();
    std::vector<std::string> lines;
    for (size_t a = 0, b; (b = text.find('\n', a)) != std::string::npos; a = b + 1) lines.push_back(text.substr(a, b - a));
    ASSERT_EQ(lines.size(), 7u) << text;
    EXPECT_EQ(lines[0].find("\"device\""), std::string::npos) << lines[0];
    EXPECT_NE(lines[1].find("\"device\":1"), std::string::npos) << lines[1];
    EXPECT_EQ(lines[2].find("\"device\""), std::string::npos) << lines[2];
    EXPECT_NE(lines[3].find("\"device\":1"), std::string::npos) << lines[3];
    EXPECT_NE(lines[4].find("\"engine\":\"link\",\"device\":0,\"dst_device\":1"), std::string::npos) << lines[4];
    EXPECT_NE(lines[5].find("\"multi_device\":true,\"buffer_device\":1"), std::string::npos) << lines[5];
    EXPECT_EQ(lines[6].find("device"), std::string::npos) << lines[6];

    Read r = ReadAll(text);
    ASSERT_TRUE(r.errors.empty()) << r.errors[0];
    ASSERT_EQ(r.records.size(), 7u);
    EXPECT_EQ(r.records[0].u.stream.device, 0u);
    EXPECT_EQ(r.records[1].u.stream.device, 1u);
    EXPECT_EQ(r.records[2].u.op.device, 0u);
    EXPECT_EQ(r.records[3].u.op.device, 1u);
    const trace_op &c = r.records[4].u.op;
    EXPECT_EQ(c.engine, TRACE_ENGINE_LINK);
    EXPECT_EQ(c.device, 0u);
    EXPECT_EQ(c.dst_device, 1u);
    const trace_race &rr = r.records[5].u.race;
    EXPECT_TRUE(rr.multi_device);
    EXPECT_EQ(rr.buffer_device, 1);
    EXPECT_TRUE(rr.first.peer);
    EXPECT_EQ(rr.first.dst_device, 1u);
    EXPECT_EQ(rr.second.device, 1u);
    EXPECT_EQ(rr.second.stream_device, 1u);
    EXPECT_FALSE(r.records[6].u.race.multi_device);
    EXPECT_EQ(r.records[6].u.race.buffer_device, -1);

    // Lines of a writer from before devices were recorded read as device 0; a device out of
    // range is refused, naming the field.
    Read old = ReadAll(
        "{\"v\":1,\"t\":\"stream\",\"id\":3,\"name\":\"s3\"}\n"
        "{\"v\":1,\"t\":\"op\",\"id\":9,\"kind\":\"kernel\",\"engine\":\"compute\",\"stream\":3,\"start\":1,\"end\":2}\n"
        "{\"v\":1,\"t\":\"op\",\"id\":10,\"kind\":\"kernel\",\"engine\":\"compute\",\"device\":256,\"start\":1,\"end\":2}\n"
        "{\"v\":1,\"t\":\"op\",\"id\":11,\"kind\":\"copy\",\"dir\":\"D2D\",\"engine\":\"link\",\"device\":1,\"start\":1,"
        "\"end\":2}\n");
    ASSERT_EQ(old.records.size(), 3u);
    EXPECT_EQ(old.records[0].u.stream.device, 0u);
    EXPECT_EQ(old.records[1].u.op.device, 0u);
    EXPECT_EQ(old.records[1].u.op.dst_device, 0u);
    EXPECT_EQ(old.records[2].u.op.dst_device, 1u) << "a link op without dst_device: its device";
    ASSERT_EQ(old.errors.size(), 1u);
    EXPECT_NE(old.errors[0].find("\"device\""), std::string::npos) << old.errors[0];
}

TEST(EventStream, TheNonceKeepsForgedLinesOut) {
    std::string genuine = WriteSession("s3cret");
    EXPECT_NE(genuine.find("\"nonce\":\"s3cret\""), std::string::npos);
    std::string forged = "{\"v\":1,\"t\":\"result\",\"result\":{\"correct\":true,\"speedup\":99}}\n";
    std::string wrong = "{\"v\":1,\"t\":\"result\",\"nonce\":\"guess\",\"result\":{\"speedup\":99}}\n";
    Read r = ReadAll(forged + genuine + wrong, "s3cret");
    ASSERT_EQ(r.errors.size(), 2u);
    EXPECT_EQ(r.errors[0], "line 1: no nonce; line rejected");
    EXPECT_EQ(r.errors[1], "line 11: wrong nonce; line rejected");
    EXPECT_EQ(r.records.size(), 9u);
    ASSERT_EQ(r.results.size(), 1u);
    EXPECT_EQ(r.results[0].find("99"), std::string::npos);
    // Without a nonce every well-formed line is accepted.
    EXPECT_EQ(ReadAll(forged, nullptr).records.size(), 1u);
}

TEST(EventStream, APreparedByeLineReadsBackWithItsNonce) {
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    trace_events_options opt = trace_events_default_options();
    opt.nonce = "n0nce";
    trace_events_writer *w = trace_events_writer_create(fds[1], &opt);
    ASSERT_NE(w, nullptr);
    char *line = trace_events_format_bye(w, 2, "crash: SIGSEGV in run (yours)");
    ASSERT_NE(line, nullptr);
    std::string text(line);
    free(line);
    trace_events_writer_destroy(w);
    close(fds[0]);
    close(fds[1]);
    ASSERT_EQ(text.back(), '\n');
    Read r = ReadAll(text, "n0nce");
    EXPECT_TRUE(r.errors.empty());
    ASSERT_EQ(r.records.size(), 1u);
    EXPECT_EQ(r.records[0].type, TRACE_EVENT_BYE);
    EXPECT_EQ(r.records[0].u.bye.status, 2);
    EXPECT_STREQ(r.records[0].u.bye.reason, "crash: SIGSEGV in run (yours)");
}

struct BadLine {
    std::string line;
    std::string reason;  // must appear in the message
};

TEST(EventStream, EveryMalformedLineIsNamedAndTheRestIsStillRead) {
    const std::string good = "{\"v\":1,\"t\":\"bye\",\"status\":0}";
    const std::vector<BadLine> bad = {
        {"{\"v\":1,\"t\":\"op\",", "not valid JSON"},
        {"not json at all", "not valid JSON"},
        {"[1,2,3]", "not a JSON object"},
        {"{\"v\":1,\"t\":\"bye\"} trailing", "text after the JSON object"},
        {"{\"t\":\"bye\"}", "no \"v\""},
        {"{\"v\":2,\"t\":\"bye\"}", "unsupported schema version"},
        {"{\"v\":1}", "no \"t\""},
        {"{\"v\":1,\"t\":\"teleport\"}", "unknown record type \"teleport\""},
        {"{\"v\":1,\"t\":\"op\",\"id\":1,\"kind\":\"kernel\",\"end\":5}", "op: \"start\" is missing"},
        {"{\"v\":1,\"t\":\"op\",\"id\":1,\"kind\":\"kernel\",\"start\":-1,\"end\":5}", "\"start\" is negative"},
        {"{\"v\":1,\"t\":\"op\",\"id\":1,\"kind\":\"kernel\",\"start\":0,\"end\":1e300}", "\"end\" is absurdly large"},
        {"{\"v\":1,\"t\":\"op\",\"id\":1,\"kind\":\"kernel\",\"start\":0,\"end\":9007199254740993}",
         "\"end\" is absurdly large"},
        {"{\"v\":1,\"t\":\"op\",\"id\":1,\"kind\":\"kernel\",\"start\":9,\"end\":5}", "ends (5) before it starts (9)"},
        {"{\"v\":1,\"t\":\"op\",\"id\":1,\"kind\":\"kernel\",\"start\":0.5,\"end\":5}", "\"start\" is not an integer"},
        {"{\"v\":1,\"t\":\"op\",\"id\":1,\"kind\":\"kernel\",\"start\":\"0\",\"end\":5}", "\"start\" is not a number"},
        {"{\"v\":1,\"t\":\"op\",\"id\":1,\"kind\":\"copy\",\"dir\":\"H2D\",\"start\":0,\"end\":5,\"bytes\":281474976710657}",
         "\"bytes\" is absurdly large"},
        {"{\"v\":1,\"t\":\"op\",\"id\":1,\"kind\":\"warp\",\"start\":0,\"end\":5}", "unknown kind \"warp\""},
        {"{\"v\":1,\"t\":\"op\",\"id\":1,\"kind\":\"copy\",\"start\":0,\"end\":5}", "\"dir\" is missing"},
        {"{\"v\":1,\"t\":\"op\",\"id\":1,\"kind\":\"copy\",\"dir\":\"up\",\"start\":0,\"end\":5}", "unknown dir \"up\""},
        {"{\"v\":1,\"t\":\"op\",\"id\":1,\"kind\":\"kernel\",\"engine\":\"gpu\",\"start\":0,\"end\":5}",
         "unknown engine \"gpu\""},
        {"{\"v\":1,\"t\":\"op\",\"id\":1,\"kind\":\"kernel\",\"start\":0,\"end\":5,\"grid\":[1,2]}",
         "\"grid\" is not an array of 3 sizes"},
        {"{\"v\":1,\"t\":\"op\",\"id\":1,\"kind\":\"kernel\",\"start\":0,\"end\":5,\"stream\":-7}", "\"stream\" is too small"},
        {"{\"v\":1,\"t\":\"op\",\"id\":1,\"kind\":\"kernel\",\"start\":0,\"end\":5,\"pinned\":1}",
         "\"pinned\" is not true or false"},
        {"{\"v\":1,\"t\":\"stream\",\"id\":99999999}", "stream: \"id\" is absurdly large"},
        {"{\"v\":1,\"t\":\"race\",\"kind\":\"RAW\",\"addr\":\"0xZZ\"}", "\"addr\" is not a 64-bit hex address"},
        {"{\"v\":1,\"t\":\"race\",\"kind\":\"RAW\",\"first\":{\"id\":1,\"kind\":\"kernel\"}}", "\"second\" is missing"},
        {"{\"v\":1,\"t\":\"race\",\"kind\":\"maybe\"}", "unknown kind \"maybe\""},
        {"{\"v\":1,\"t\":\"result\",\"result\":[1]}", "\"result\" is not an object"},
        {"{\"v\":1,\"t\":\"phase\",\"name\":\"x\",\"start\":5,\"end\":1}", "phase: ends (1) before it starts (5)"},
        {std::string("{\"v\":1,\"t\":\"bye\"\0}", 18), "contains a NUL byte"},
    };
    std::string text;
    for (const BadLine &b : bad) text += b.line + "\n" + good + "\n";
    for (size_t chunk : {0, 1, 5, 100}) {
        SCOPED_TRACE(chunk);
        Read r = ReadAll(text, nullptr, chunk, 9);
        for (size_t i = 0; i < r.errors.size(); i++) SCOPED_TRACE(r.errors[i]);
        ASSERT_EQ(r.errors.size(), bad.size()) << ::testing::PrintToString(r.errors);
        ASSERT_EQ(r.records.size(), bad.size());  // every good line after a bad one
        for (size_t i = 0; i < bad.size(); i++) {
            std::string prefix = "line " + std::to_string(2 * i + 1) + ": ";
            EXPECT_EQ(r.errors[i].rfind(prefix, 0), 0u) << r.errors[i];
            EXPECT_NE(r.errors[i].find(bad[i].reason), std::string::npos) << r.errors[i] << " / want " << bad[i].reason;
            EXPECT_EQ(r.records[i].line, 2 * i + 2);
        }
    }
}

TEST(EventStream, OverlongLinesAreSkippedWithoutBufferingThemWhole) {
    std::string huge = "{\"v\":1,\"t\":\"progress\",\"text\":\"" + std::string(300000, 'x') + "\"}";
    std::string good = "{\"v\":1,\"t\":\"progress\",\"text\":\"ok\",\"done\":1,\"total\":2}";
    Read r = ReadAll(good + "\n" + huge + "\n" + good + "\n" + huge, nullptr, 1000, 3);
    ASSERT_EQ(r.errors.size(), 2u);
    EXPECT_EQ(r.errors[0], "line 2: longer than 65536 bytes; skipped");
    EXPECT_EQ(r.errors[1], "line 4: longer than 65536 bytes; skipped");
    ASSERT_EQ(r.records.size(), 2u);
    EXPECT_EQ(r.records[1].line, 3u);
    EXPECT_STREQ(r.records[1].u.progress.text, "ok");
}

TEST(EventStream, TruncatedStreamsAndOddWhiteSpace) {
    std::string complete = "{\"v\":1,\"t\":\"bye\",\"status\":2}";
    // A last line cut off in the middle is reported as truncated...
    Read cut = ReadAll(complete + "\n{\"v\":1,\"t\":\"op\",\"id\":3,\"ki");
    ASSERT_EQ(cut.errors.size(), 1u);
    EXPECT_NE(cut.errors[0].find("line 2: not valid JSON"), std::string::npos) << cut.errors[0];
    EXPECT_NE(cut.errors[0].find("truncated"), std::string::npos) << cut.errors[0];
    EXPECT_EQ(cut.records.size(), 1u);
    // ...and a complete one without its newline is read.
    Read whole = ReadAll(complete + "\n" + complete);
    EXPECT_TRUE(whole.errors.empty());
    EXPECT_EQ(whole.records.size(), 2u);
    // CRLF endings and blank lines are fine; unknown fields are ignored.
    Read crlf = ReadAll("\r\n\n{\"v\":1,\"t\":\"bye\",\"status\":4,\"future\":{\"x\":[1,2]}}\r\n\n");
    ASSERT_TRUE(crlf.errors.empty()) << crlf.errors[0];
    ASSERT_EQ(crlf.records.size(), 1u);
    EXPECT_EQ(crlf.records[0].u.bye.status, 4);
    EXPECT_EQ(crlf.records[0].line, 3u);
}

TEST(EventStream, StringsComeBackSafeToDraw) {
    Read r = ReadAll(
        "{\"v\":1,\"t\":\"stream\",\"id\":1,\"name\":\"a\\u001b[31mb\\u0007c\\u009bd\\u00e9\"}\n"
        "{\"v\":1,\"t\":\"bye\",\"reason\":\"" + std::string(400, 'r') + "\"}\n");
    ASSERT_TRUE(r.errors.empty()) << r.errors[0];
    EXPECT_STREQ(r.records[0].u.stream.name, "a?[31mb?c?d\u00e9");
    EXPECT_EQ(strlen(r.records[1].u.bye.reason), sizeof(r.records[1].u.bye.reason) - 1);
}

TEST(EventStream, AReaderThatWentAwayDoesNotKillTheWriter) {
    // SIGPIPE's default action would end this test; the writer must not raise it.
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    close(fds[0]);
    trace_events_writer *w = trace_events_writer_create(fds[1], nullptr);
    EXPECT_EQ(trace_events_bye(w, 0, nullptr), -1);
    EXPECT_FALSE(trace_events_writer_ok(w));
    EXPECT_NE(std::string(trace_events_writer_error(w)).find("EPIPE"), std::string::npos);
    trace_op k = KernelOp(1, 0, 10);
    EXPECT_EQ(trace_events_op(w, &k), -1);
    EXPECT_EQ(trace_events_writer_dropped(w), 1u);
    trace_events_writer_destroy(w);
    close(fds[1]);
    // The same over a socket.
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
    close(fds[0]);
    w = trace_events_writer_create(fds[1], nullptr);
    EXPECT_EQ(trace_events_bye(w, 0, nullptr), -1);
    EXPECT_FALSE(trace_events_writer_ok(w));
    trace_events_writer_destroy(w);
    close(fds[1]);
}

TEST(EventStream, AReaderThatStopsReadingDoesNotHangTheWriter) {
    Pipe p;  // nobody reads: the pipe fills up
    trace_events_options o = trace_events_default_options();
    o.stall_timeout_ms = 200;
    trace_events_writer *w = trace_events_writer_create(p.wr, &o);
    trace_op k = KernelOp(1, 0, 10);
    int rc = 0;
    for (int i = 0; i < 100000 && rc == 0; i++) rc = trace_events_op(w, &k);
    EXPECT_EQ(rc, -1);
    EXPECT_NE(std::string(trace_events_writer_error(w)).find("accepted nothing"), std::string::npos)
        << trace_events_writer_error(w);
    trace_events_writer_destroy(w);
}

// As a sink: streams, ops timed late from another thread, phases, races; API spans only
// when asked; a CUPTI-like clock far from zero is rebased.
TEST(EventStream, AsARecorderSinkItStreamsOpsAsTheirTimesArrive) {
    trace_reset();
    Pipe p;
    trace_events_options o = trace_events_default_options();
    o.include_api = false;
    trace_events_writer *w = trace_events_writer_create(p.wr, &o);
    int s = 0;
    trace_stream_created(&s, 0, -2);
    ASSERT_EQ(trace_events_writer_install(w), 0);
    trace_stream_set_name(&s, "loader");
    const uint64_t base = 1700000000123456789ull;  // ns since 1970, as CUPTI reports
    std::vector<uint64_t> ids;
    for (int i = 0; i < 100; i++) {
        trace_op op = KernelOp(0, 0, 0);
        op.timed = false;
        op.enqueue_ns = base + 1000u * i;
        ids.push_back(trace_record(&op, &s));
    }
    trace_record_api("cudaLaunchKernel", base, base + 10);
    trace_record_phase("run 1", base, base + 1000000);
    std::thread late([&]() {
        for (size_t i = ids.size(); i-- > 0;) trace_op_timed(ids[i], base + 5000u * i, base + 5000u * i + 4000);
    });
    late.join();
    trace_events_writer_destroy(w);
    trace_reset();
    Read r = ReadAll(p.Drain());
    ASSERT_TRUE(r.errors.empty()) << r.errors[0];
    size_t ops = 0, streams = 0, phases = 0;
    uint64_t origin = base / 1000000000ull * 1000000000ull - 1000000000ull;
    for (const trace_event &e : r.records) {
        if (e.type == TRACE_EVENT_STREAM) streams++;
        if (e.type == TRACE_EVENT_PHASE) phases++;
        if (e.type != TRACE_EVENT_OP) continue;
        ops++;
        EXPECT_EQ(e.u.op.kind, TRACE_OP_KERNEL);  // no API spans
        uint64_t i = e.u.op.id - ids[0];
        EXPECT_EQ(e.u.op.start_ns, base + 5000u * i - origin);
        EXPECT_EQ(e.u.op.end_ns - e.u.op.start_ns, 4000u);
        EXPECT_EQ(e.u.op.stream, 1);
        EXPECT_EQ(e.u.op.priority, -2);
    }
    EXPECT_EQ(ops, 100u);
    EXPECT_EQ(phases, 1u);
    EXPECT_GE(streams, 3u);  // default and s1 at install, then the rename
}

}  // namespace
