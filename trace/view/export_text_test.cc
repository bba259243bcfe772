// trace/export_text_test.cc: the text timeline has one row per lane (engines, then
// streams), fits the width, puts batch numbers inside bars in time order, scales the
// axis with units, and is pure ASCII when asked.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

extern "C" {
#include "trace/view/export_text.h"
}

#include "trace/view/two_devices_test.h"

namespace {

trace_op Op(uint64_t id, trace_op_kind kind, trace_copy_dir dir, trace_engine engine, int32_t stream, uint64_t start,
            uint64_t end, int32_t batch) {
    trace_op op = {};
    op.id = id;
    op.kind = kind;
    op.dir = dir;
    op.engine = engine;
    op.stream = stream;
    op.start_ns = start;
    op.end_ns = end;
    op.batch = batch;
    op.run = 0;
    op.timed = true;
    return op;
}

// A double-buffered pipeline of 6 batches, 10 us per phase, on two streams.
trace_timeline *Pipeline() {
    trace_timeline *tl = trace_timeline_create();
    uint64_t id = 0;
    for (int b = 1; b <= 6; b++) {
        uint64_t t = static_cast<uint64_t>(b - 1) * 10000;
        int32_t s = 1 + (b - 1) % 2;
        trace_op ops[] = {
            Op(++id, TRACE_OP_COPY, TRACE_COPY_H2D, TRACE_ENGINE_H2D, s, t, t + 10000, b),
            Op(++id, TRACE_OP_KERNEL, TRACE_COPY_NONE, TRACE_ENGINE_COMPUTE, s, t + 10000, t + 20000, b),
            Op(++id, TRACE_OP_COPY, TRACE_COPY_D2H, TRACE_ENGINE_D2H, s, t + 20000, t + 30000, b),
        };
        for (const trace_op &op : ops) trace_timeline_add_op(tl, &op);
    }
    return tl;
}

std::vector<std::string> Lines(const char *text) {
    std::vector<std::string> lines;
    std::stringstream ss(text);
    std::string line;
    while (std::getline(ss, line)) lines.push_back(line);
    return lines;
}

TEST(TextTimeline, OneRowPerLaneWithBatchesInOrderAndBusyPercent) {
    trace_timeline *tl = Pipeline();
    trace_text_options o = {};
    o.width = 100;
    o.run = TRACE_RUN_ANY;
    char *text = trace_export_text(tl, &o);
    ASSERT_NE(text, nullptr);
    std::vector<std::string> lines = Lines(text);
    ASSERT_EQ(lines.size(), 6u) << text;  // 3 engines, 2 streams, the axis
    EXPECT_EQ(lines[0].rfind("H2D engine", 0), 0u);
    EXPECT_EQ(lines[1].rfind("compute", 0), 0u);
    EXPECT_EQ(lines[2].rfind("D2H engine", 0), 0u);
    EXPECT_EQ(lines[3].rfind("s1", 0), 0u);
    EXPECT_EQ(lines[4].rfind("s2", 0), 0u);
    EXPECT_EQ(lines[5].rfind("time (us)", 0), 0u);
    for (const std::string &line : lines) {
        EXPECT_LE(line.size(), 100u) << line;
        for (unsigned char c : line) EXPECT_LT(c, 0x80) << line;  // ASCII unless asked
    }
    // Batches 1..6 appear left to right in each engine row; the span is 80 us, H2D busy
    // 60 of them.
    for (int row = 0; row < 3; row++) {
        std::string digits;
        for (char c : lines[row].substr(TRACE_TEXT_LABEL_WIDTH))
            if (c >= '1' && c <= '6') digits += c;
        EXPECT_EQ(digits.substr(0, 6), "123456") << lines[row];
    }
    EXPECT_NE(lines[0].find(" 75%"), std::string::npos) << lines[0];
    // Stream s1 carries the odd batches only.
    std::string s1 = lines[3].substr(TRACE_TEXT_LABEL_WIDTH);
    EXPECT_EQ(s1.find('2'), std::string::npos);
    EXPECT_NE(s1.find('5'), std::string::npos);
    // The axis starts at 0 and ends at the span, 80 us, on the right edge.
    EXPECT_NE(lines[5].find(" 0 "), std::string::npos) << lines[5];
    EXPECT_EQ(lines[5].substr(lines[5].size() - 2), "80") << lines[5];
    free(text);
    trace_timeline_destroy(tl);
}

TEST(TextTimeline, Utf8BlocksFitTheWidthInColumns) {
    trace_timeline *tl = Pipeline();
    for (int width : {40, 61, 80, 132, 200}) {
        trace_text_options o = {};
        o.width = width;
        o.utf8 = true;
        o.legend = true;
        o.run = TRACE_RUN_ANY;
        char *text = trace_export_text(tl, &o);
        ASSERT_NE(text, nullptr);
        std::vector<std::string> lines = Lines(text);
        for (const std::string &line : lines) EXPECT_LE(trace_text_columns(line.c_str()), static_cast<size_t>(width)) << line;
        EXPECT_NE(lines[0].find("\u2588"), std::string::npos);  // H2D blocks
        EXPECT_NE(lines[1].find("\u2593"), std::string::npos);  // kernel blocks
        free(text);
    }
    trace_timeline_destroy(tl);
}

TEST(TextTimeline, NarrowBarsDropTheirDigitsAndTinyOpsStillShow) {
    trace_timeline *tl = trace_timeline_create();
    trace_op long_op = Op(1, TRACE_OP_KERNEL, TRACE_COPY_NONE, TRACE_ENGINE_COMPUTE, 1, 0, 10000000, 42);
    trace_op tiny = Op(2, TRACE_OP_COPY, TRACE_COPY_H2D, TRACE_ENGINE_H2D, 1, 5000000, 5000001, 7);
    trace_timeline_add_op(tl, &long_op);
    trace_timeline_add_op(tl, &tiny);
    trace_text_options o = {};
    o.width = 60;
    o.run = TRACE_RUN_ANY;
    char *text = trace_export_text(tl, &o);
    std::vector<std::string> lines = Lines(text);
    ASSERT_GE(lines.size(), 3u);
    std::string h2d = lines[0].substr(TRACE_TEXT_LABEL_WIDTH);
    // One column, no room for "7", and busy a sliver of it: the light glyph.
    EXPECT_EQ(std::count(h2d.begin(), h2d.end(), ')'), 1) << h2d;
    EXPECT_EQ(std::count(h2d.begin(), h2d.end(), '>'), 0) << h2d;
    EXPECT_EQ(h2d.find('7'), std::string::npos);
    EXPECT_NE(lines[1].find("42"), std::string::npos) << lines[1];
    EXPECT_EQ(lines.back().rfind("time (ms)", 0), 0u) << lines.back();
    free(text);
    trace_timeline_destroy(tl);
}

// Short operations with gaps between them never draw as a solid bar: a column the lane's work
// keeps busy less than half its time has the kind's light glyph (lab 07's skeleton: a stream
// 22% busy drew nearly solid).
TEST(TextTimeline, CellsShowHowMuchOfTheirTimeWasBusy) {
    trace_timeline *tl = trace_timeline_create();
    uint64_t id = 0;
    // s1: 200 kernels of 200 ns, one every 5 us (4% busy), and an H2D copy of 1 us every
    // 20 us (5%); s2: a kernel busy all of [0, 1 ms). 50 columns of 20 us.
    for (int i = 0; i < 200; i++) {
        trace_op k = Op(++id, TRACE_OP_KERNEL, TRACE_COPY_NONE, TRACE_ENGINE_COMPUTE, 1, 5000ull * i,
                        5000ull * i + 200, -1);
        trace_timeline_add_op(tl, &k);
        if (i % 4 == 2) {
            trace_op c = Op(++id, TRACE_OP_COPY, TRACE_COPY_H2D, TRACE_ENGINE_H2D, 1, 5000ull * i + 1000,
                            5000ull * i + 2000, -1);
            trace_timeline_add_op(tl, &c);
        }
    }
    trace_op busy = Op(++id, TRACE_OP_KERNEL, TRACE_COPY_NONE, TRACE_ENGINE_COMPUTE, 2, 0, 1000000, -1);
    trace_timeline_add_op(tl, &busy);
    trace_text_options o = {};
    o.width = TRACE_TEXT_LABEL_WIDTH + 50 + 5;
    o.run = TRACE_RUN_ANY;
    o.legend = true;
    char *text = trace_export_text(tl, &o);
    ASSERT_NE(text, nullptr);
    std::vector<std::string> lines = Lines(text);
    auto row = [&](const char *label) {
        for (const std::string &l : lines)
            if (l.rfind(label, 0) == 0) return l.substr(TRACE_TEXT_LABEL_WIDTH, 50);
        return std::string();
    };
    std::string s1 = row("s1"), s2 = row("s2");
    EXPECT_EQ(s1.find('#'), std::string::npos) << s1;  // never solid
    EXPECT_EQ(s1.find('>'), std::string::npos) << s1;
    EXPECT_GE(std::count(s1.begin(), s1.end(), ':') + std::count(s1.begin(), s1.end(), ')'), 45) << s1;
    EXPECT_GE(std::count(s2.begin(), s2.end(), '#'), 48) << s2;
    EXPECT_NE(std::string(text).find("):(- <50% busy"), std::string::npos) << text;
    free(text);
    o.utf8 = true;
    text = trace_export_text(tl, &o);
    EXPECT_NE(std::string(text).find("\u2022\u2022\u2022"), std::string::npos) << text;  // •••
    EXPECT_NE(std::string(text).find("\u203a\u2022\u2039\u25e6 <50% busy"), std::string::npos) << text;
    free(text);
    trace_timeline_destroy(tl);
}

TEST(TextTimeline, ASyncShowsAsAWaitNotAsTheApiSpanRecordedWithIt) {
    trace_timeline *tl = trace_timeline_create();
    // The host enqueues for 10 us, then waits 90 us in cudaStreamSynchronize; the runtime
    // also records that call's API span, over the same 90 us, after the sync record.
    trace_op enqueue = Op(1, TRACE_OP_API, TRACE_COPY_NONE, TRACE_ENGINE_HOST, TRACE_STREAM_NONE, 0, 10000, -1);
    trace_op sync = Op(2, TRACE_OP_SYNC, TRACE_COPY_NONE, TRACE_ENGINE_HOST, TRACE_STREAM_NONE, 10000, 100000, -1);
    trace_op span = Op(3, TRACE_OP_API, TRACE_COPY_NONE, TRACE_ENGINE_HOST, TRACE_STREAM_NONE, 10000, 100000, -1);
    trace_timeline_add_op(tl, &enqueue);
    trace_timeline_add_op(tl, &sync);
    trace_timeline_add_op(tl, &span);
    trace_text_options o = {60, false, TRACE_RUN_ANY, false, 0};
    char *text = trace_export_text(tl, &o);
    ASSERT_NE(text, nullptr);
    std::vector<std::string> lines = Lines(text);
    ASSERT_GE(lines.size(), 1u);
    std::string bars = lines[0].substr(TRACE_TEXT_LABEL_WIDTH);
    size_t dots = std::count(bars.begin(), bars.end(), '.');
    size_t waits = std::count(bars.begin(), bars.end(), '~');
    EXPECT_GT(waits, 5 * dots) << lines[0];
    std::free(text);
    trace_timeline_destroy(tl);
}

// Two timelines drawn one above the other share a scale: a pipeline of 80 us on an axis of
// 160 us fills the first half of its row and the axis reads past 100.
TEST(TextTimeline, AGivenSpanPutsTimelinesOnOneScale) {
    trace_timeline *tl = Pipeline();
    trace_text_options o = {};
    o.width = 18 + 60 + 6;
    o.run = TRACE_RUN_ANY;
    char *own = trace_export_text(tl, &o);
    o.span_ns = 160000;
    char *wide = trace_export_text(tl, &o);
    std::vector<std::string> a = Lines(own), b = Lines(wide);
    ASSERT_FALSE(a.empty());
    ASSERT_EQ(a.size(), b.size());
    std::string own_d2h = a[2].substr(TRACE_TEXT_LABEL_WIDTH, 60), wide_d2h = b[2].substr(TRACE_TEXT_LABEL_WIDTH, 60);
    EXPECT_NE(own_d2h.find_last_not_of(' '), std::string::npos);
    EXPECT_GE(own_d2h.find_last_not_of(' '), 55u) << own_d2h;   // the last D2H copy ends the row
    EXPECT_LE(wide_d2h.find_last_not_of(' '), 31u) << wide_d2h; // and ends half-way on 160 us
    EXPECT_NE(b.back().find("150"), std::string::npos) << b.back();
    EXPECT_EQ(a.back().find("100"), std::string::npos) << a.back();
    free(own);
    free(wide);
    trace_timeline_destroy(tl);
}

TEST(TextTimeline, EmptyTimelineSaysSo) {
    trace_timeline *tl = trace_timeline_create();
    trace_text_options o = {};
    o.run = TRACE_RUN_ANY;
    char *text = trace_export_text(tl, &o);
    EXPECT_STREQ(text, "(no timed operations)\n");
    free(text);
    trace_timeline_destroy(tl);
}

TEST(TextTimeline, TwoDevicesHaveAHeadingEachAndTheLinkLast) {
    trace_timeline *tl = two_devices::Timeline();
    trace_text_options o = {};
    o.width = 63;  // 40 columns of bars: 1125 ns a column
    o.run = TRACE_RUN_ANY;
    o.legend = true;
    char *text = trace_export_text(tl, &o);
    ASSERT_NE(text, nullptr);
    std::vector<std::string> lines = Lines(text);
    const char *starts[] = {"host", "GPU 0", "H2D engine", "compute", "s1 \"a\"", "GPU 1", "compute", "D2H engine",
                            "s2 \"b\"", "link", "GPU 0 -> GPU 1", "time (us)"};
    ASSERT_GE(lines.size(), 12u) << text;
    for (size_t i = 0; i < 12; i++) EXPECT_EQ(lines[i].rfind(starts[i], 0), 0u) << i << ": " << text;
    // Headings are the name alone.
    EXPECT_EQ(lines[1], "GPU 0");
    EXPECT_EQ(lines[5], "GPU 1");
    EXPECT_EQ(lines[9], "link");
    // Each device's compute lane has its own stage at its own time and its own busy share.
    std::string c0 = lines[3].substr(TRACE_TEXT_LABEL_WIDTH, 40), c1 = lines[6].substr(TRACE_TEXT_LABEL_WIDTH, 40);
    EXPECT_EQ(c0.find('#'), 9u) << c0;   // 10 us
    EXPECT_EQ(c1.find('#'), 22u) << c1;  // 25 us
    EXPECT_EQ(c0.find('#', 20), std::string::npos) << c0;
    EXPECT_NE(lines[3].find(" 22%"), std::string::npos) << lines[3];
    EXPECT_NE(lines[6].find(" 22%"), std::string::npos) << lines[6];
    // The link lane: the peer copy from 20 to 25 us, 11% of the run.
    std::string link = lines[10].substr(TRACE_TEXT_LABEL_WIDTH, 40);
    EXPECT_EQ(link.find('='), 18u) << link;
    EXPECT_NE(lines[10].find(" 11%"), std::string::npos) << lines[10];
    EXPECT_NE(text, std::string());
    EXPECT_NE(std::string(text).find("= memset/D2D/peer"), std::string::npos) << text;
    free(text);
    trace_timeline_destroy(tl);
}

TEST(TextTimeline, OneDeviceHasNoHeadingsAndTheLegendAsBefore) {
    trace_timeline *tl = Pipeline();
    trace_text_options o = {};
    o.width = 100;
    o.run = TRACE_RUN_ANY;
    o.legend = true;
    char *text = trace_export_text(tl, &o);
    ASSERT_NE(text, nullptr);
    std::string t = text;
    EXPECT_EQ(t.find("GPU"), std::string::npos) << t;
    EXPECT_EQ(t.find("link"), std::string::npos) << t;
    EXPECT_NE(t.find("= memset/D2D  ~ sync"), std::string::npos) << t;
    free(text);
    trace_timeline_destroy(tl);
}

// Streams named as the simulator names a graph's branches, and one name too long for any
// label column: the column widens for "s13 \"graph branch 1\"" instead of cutting it, and
// the name that cannot fit is shortened in the middle and given in full under the legend.
trace_timeline *NamedBranches(const char *long_name) {
    trace_timeline *tl = trace_timeline_create();
    const char *names[] = {"graph branch 1", "graph branch 2", long_name};
    for (int i = 0; i < 3; i++) {
        trace_stream st = {};
        st.id = 13 + i;
        snprintf(st.name, sizeof(st.name), "%s", names[i]);
        trace_timeline_add_stream(tl, &st);
        trace_op op = Op(static_cast<uint64_t>(i + 1), TRACE_OP_KERNEL, TRACE_COPY_NONE, TRACE_ENGINE_COMPUTE, 13 + i,
                         0, static_cast<uint64_t>(i) * 1000 + 5000, -1);
        trace_timeline_add_op(tl, &op);
    }
    return tl;
}

TEST(TextTimeline, LaneLabelsGetTheRoomTheyNeedOrAMiddleEllipsisAndTheFullName) {
    const char *long_name = "upload stream of the batch 12";  // 29 characters
    for (bool utf8 : {false, true}) {
        trace_timeline *tl = NamedBranches(long_name);
        trace_text_options o = {};
        o.width = 100;
        o.run = TRACE_RUN_ANY;
        o.utf8 = utf8;
        o.legend = true;
        char *text = trace_export_text(tl, &o);
        ASSERT_NE(text, nullptr);
        std::vector<std::string> lines = Lines(text);
        std::string s13, s14, s15, names;
        for (const std::string &l : lines) {
            if (l.rfind("s13 ", 0) == 0) s13 = l;
            if (l.rfind("s14 ", 0) == 0) s14 = l;
            if (l.rfind("s15 ", 0) == 0) s15 = l;
            if (l.rfind("streams: ", 0) == 0) names = l;
            EXPECT_LE(trace_text_columns(l.c_str()), 100u) << l;
        }
        // Whole, with both quotes; every lane's bars (each starts at 0) in the same column.
        EXPECT_EQ(s13.rfind("s13 \"graph branch 1\" ", 0), 0u) << text;
        EXPECT_EQ(s14.rfind("s14 \"graph branch 2\" ", 0), 0u) << text;
        // A third of 100 columns: 33; the long name's label is shortened in the middle,
        // both of its ends kept, and the column is the same for every lane.
        const std::string dots = utf8 ? "\u2026" : "~";
        EXPECT_EQ(s15.rfind("s15 \"upload str", 0), 0u) << text;
        size_t q = s15.find('"', 5);
        ASSERT_NE(q, std::string::npos) << s15;
        std::string shown = s15.substr(5, q - 5);
        EXPECT_NE(shown.find(dots), std::string::npos) << shown;
        EXPECT_EQ(shown.substr(shown.size() - 3), " 12") << shown;
        EXPECT_LT(trace_text_columns(s15.substr(0, q + 1).c_str()), 33u) << s15;
        size_t bars13 = s13.find_first_not_of(' ', std::string("s13 \"graph branch 1\"").size());
        size_t bars15 = trace_text_columns(s15.substr(0, s15.find_first_not_of(' ', q + 1)).c_str());
        EXPECT_EQ(bars13, bars15) << text;
        // The full name, once, after the legend.
        EXPECT_EQ(names, std::string("streams: s15 \"") + long_name + "\"") << text;
        EXPECT_EQ(std::string(text).find("graph branch 1\", "), std::string::npos) << "only shortened names: " << text;
        free(text);
        trace_timeline_destroy(tl);
    }
}

// Short labels keep the column they always had.
TEST(TextTimeline, ShortLabelsKeepTheNarrowColumn) {
    trace_timeline *tl = Pipeline();
    trace_text_options o = {};
    o.width = 80;
    o.run = TRACE_RUN_ANY;
    char *text = trace_export_text(tl, &o);
    ASSERT_NE(text, nullptr);
    std::vector<std::string> lines = Lines(text);
    ASSERT_GE(lines.size(), 4u);
    EXPECT_EQ(lines[3].substr(0, TRACE_TEXT_LABEL_WIDTH), "s1" + std::string(TRACE_TEXT_LABEL_WIDTH - 2, ' '));
    EXPECT_EQ(std::string(text).find("streams: "), std::string::npos);
    free(text);
    trace_timeline_destroy(tl);
}

}  // namespace
