// tui/draw_test.cc: the timeline drawn into a virtual screen, checked cell by cell: lanes
// and their labels, bars at the columns their times scale to, zoom and pan, the axis and
// its units, binning of many ops, race marks, colours and their fallback glyphs, compare
// mode's shared time scale, small and large terminals, clicks, details and the header.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tui/test_events.h"

extern "C" {
#include "tui/draw.h"
#include "tui/layout.h"
#include "tui/model.h"
#include "tui/screen.h"
#include "tui/session.h"
}

namespace {

using tui_test::EventStream;

class DrawTest : public ::testing::Test {
  protected:
    tui_session *yours = tui_session_create("03_double_buffer", TUI_YOURS);
    tui_session *ref = tui_session_create("03_double_buffer", TUI_REFERENCE);
    tui_model m;
    tui_screen *scr = tui_screen_create(80, 24);
    tui_layout L;
    bool have_layout = false;

    void SetUp() override {
        tui_model_init(&m, nullptr, nullptr);
        tui_model_open_lab(&m, -1, yours, ref);
        snprintf(m.lab_id, sizeof(m.lab_id), "03_double_buffer");
        m.color = false;
        tui_session_started(yours, nullptr, 0);
    }
    void TearDown() override {
        if (have_layout) tui_layout_free(&L);
        tui_screen_destroy(scr);
        tui_session_destroy(yours);
        tui_session_destroy(ref);
    }
    static void Feed(tui_session *s, EventStream &ev) {
        std::string t = ev.Take();
        tui_session_feed(s, t.data(), t.size(), 0);
    }
    void Render(int cols = 80, int rows = 24) {
        if (have_layout) tui_layout_free(&L);
        tui_screen_resize(scr, cols, rows);
        tui_layout_compute(&L, &m, cols, rows);
        have_layout = true;
        tui_draw(scr, &m, &L);
    }
    std::string Row(int y) {
        std::vector<char> buf(static_cast<size_t>(scr->cols) * 4 + 1);
        tui_screen_row_text(scr, y, buf.data(), buf.size());
        return buf.data();
    }
    int RowOf(const char *needle) { return tui_screen_find_row(scr, needle, 0); }
    // The row of the lane labelled so (from the first pane row `from`), or -1.
    int Lane(const char *label, int from = 2) {
        for (int y = from; y < scr->rows; y++) {
            std::string r = Row(y);
            size_t at = r.find(label);
            if (at != std::string::npos && tui_utf8_columns(r.substr(0, at).c_str()) == 1) return y;
        }
        return -1;
    }
    uint32_t At(int x, int y) { return tui_screen_cell(scr, x, y)->ch; }
    // Bar columns [first, last] on row y holding glyph g, or {-1, -1}.
    std::pair<int, int> Span(int y, uint32_t g) {
        int first = -1, last = -1;
        for (int x = L.bar_x; x < L.bar_x + L.bar_w; x++)
            if (At(x, y) == g) {
                if (first < 0) first = x;
                last = x;
            }
        return {first, last};
    }
    int Col(double t) { return L.bar_x + static_cast<int>(std::lround(tui_layout_column_of(&L, t))); }
    std::string Dump() {
        char *d = tui_screen_dump(scr);
        std::string s = d;
        free(d);
        return s;
    }
};

// One run of a three-stage pipeline on one stream: H2D [0, 10 us), kernel [10, 20),
// D2H [20, 30), with the host waiting throughout. Times start at an offset, as they do in
// a real stream, and the drawing counts from the run's first op.
void Pipeline(EventStream &ev, int32_t run = 4, const char *label = "run 1/2 (yours)", uint64_t base = 5000000) {
    ev.Hello();
    ev.Stream(1, "buf A");
    ev.Progress(label, run - 1, 8);
    ev.Op(TRACE_OP_COPY, TRACE_COPY_H2D, 1, run, 7, base + 0, base + 10000, 4u << 20);
    ev.Op(TRACE_OP_KERNEL, TRACE_COPY_NONE, 1, run, 7, base + 10000, base + 20000, 0, "process");
    ev.Op(TRACE_OP_COPY, TRACE_COPY_D2H, 1, run, 7, base + 20000, base + 30000, 4u << 20);
    ev.Op(TRACE_OP_SYNC, TRACE_COPY_NONE, -1, run, -1, base + 100, base + 30000, 0, "cudaStreamSynchronize");
}

const uint32_t FULL = 0x2588, DARK = 0x2593, LIGHT = 0x2591, MEDIUM = 0x2592, LINE = 0x2500;
// The light glyphs of cells busy less than half their time: H2D, kernel, D2H, memset.
const uint32_t SPARSE_H2D = 0x203A, SPARSE_KERNEL = 0x2022, SPARSE_D2H = 0x2039, SPARSE_MEMSET = 0x25E6;

TEST_F(DrawTest, LanesHeaderLegendAndKeysFitIn80x24) {
    EventStream ev;
    Pipeline(ev);
    Feed(yours, ev);
    Render(80, 24);
    int h2d = Lane("H2D engine"), comp = Lane("compute"), d2h = Lane("D2H engine"), host = Lane("host"),
        s1 = RowOf("s1 \"buf A\" p0");
    ASSERT_GE(h2d, 0) << Dump();
    EXPECT_LT(h2d, comp);
    EXPECT_LT(comp, d2h);
    EXPECT_LT(d2h, host);
    EXPECT_LT(host, s1);
    EXPECT_NE(Row(0).find("03_double_buffer"), std::string::npos);
    EXPECT_NE(Row(0).find("simulated h200"), std::string::npos);
    EXPECT_NE(Row(0).find("run 1/2 (yours)"), std::string::npos);  // the run follows progress
    EXPECT_NE(Row(0).find("? help"), std::string::npos);
    std::string legend = Row(L.legend_row);
    for (const char *k : {"H2D", "kernel", "D2H", "memset", "wait/sync"}) EXPECT_NE(legend.find(k), std::string::npos) << k;
    std::string keys = Row(L.footer_row);
    for (const char *k : {"r rerun", "s mine/ref", "c compare", "? help", "q quit"})
        EXPECT_NE(keys.find(k), std::string::npos) << k << " in " << keys;
    EXPECT_NE(Row(L.axis_row).find("time (us)"), std::string::npos);
    // Every engine is busy a third of the run, the stream and the host all of it.
    EXPECT_NE(Row(h2d).find(" 33%"), std::string::npos) << Row(h2d);
    EXPECT_NE(Row(s1).find("100%"), std::string::npos) << Row(s1);
}

TEST_F(DrawTest, BarsSitAtTheColumnsTheirTimesScaleTo) {
    EventStream ev;
    Pipeline(ev);
    Feed(yours, ev);
    Render(80, 24);
    EXPECT_DOUBLE_EQ(L.w0, 0);
    EXPECT_DOUBLE_EQ(L.w1, 30000);
    int h2d = Lane("H2D engine"), comp = Lane("compute"), d2h = Lane("D2H engine");
    // A bar of four columns or more leaves its last one blank; the batch number sits inside.
    auto span = Span(h2d, FULL);
    EXPECT_EQ(span.first, Col(0));
    EXPECT_EQ(span.second, Col(10000) - 2);
    EXPECT_EQ(Span(comp, DARK).first, Col(10000));
    EXPECT_EQ(Span(comp, DARK).second, Col(20000) - 2);
    EXPECT_EQ(Span(d2h, LIGHT).first, Col(20000));
    EXPECT_EQ(Span(d2h, LIGHT).second, Col(30000) - 2);
    int mid = (Col(0) + Col(10000) - 1) / 2;
    EXPECT_TRUE(At(mid, h2d) == '7' || At(mid - 1, h2d) == '7' || At(mid + 1, h2d) == '7') << Row(h2d);
    int host = Lane("host");
    EXPECT_EQ(At(Col(15000), host), LINE);  // the host waits
}

TEST_F(DrawTest, ZoomNarrowsTheWindowAndWidensBars) {
    EventStream ev;
    Pipeline(ev);
    Feed(yours, ev);
    Render();
    int comp = Lane("compute");
    auto before = Span(comp, DARK);
    tui_model_zoom(&m, 0.5, 15000);  // around the kernel's middle
    Render();
    EXPECT_DOUBLE_EQ(L.w0, 7500);
    EXPECT_DOUBLE_EQ(L.w1, 22500);
    EXPECT_FALSE(m.follow);
    auto after = Span(comp, DARK);
    int w_before = before.second - before.first + 2, w_after = after.second - after.first + 2;
    EXPECT_NEAR(w_after, 2 * w_before, 1);
    EXPECT_EQ(after.first, Col(10000));
    // + zooms around the middle too; - twice gets back to all of it, and follows again.
    tui_model_key(&m, '+');
    Render();
    EXPECT_DOUBLE_EQ(L.w1 - L.w0, 7500);
    tui_model_key(&m, '-');
    tui_model_key(&m, '-');
    tui_model_key(&m, '-');
    Render();
    EXPECT_TRUE(m.follow);
    EXPECT_DOUBLE_EQ(L.w1, 30000);
}

TEST_F(DrawTest, PanStopsAtTheEndsAndFitShowsEverything) {
    EventStream ev;
    Pipeline(ev);
    Feed(yours, ev);
    tui_model_zoom(&m, 0.25, 0);
    tui_model_key(&m, TUI_KEY_END);
    Render();
    EXPECT_DOUBLE_EQ(L.w1, 30000);
    EXPECT_DOUBLE_EQ(L.w0, 30000 - 7500);
    tui_model_key(&m, TUI_KEY_RIGHT);
    Render();
    EXPECT_DOUBLE_EQ(L.w1, 30000);
    tui_model_key(&m, TUI_KEY_LEFT);
    Render();
    EXPECT_DOUBLE_EQ(L.w0, 30000 - 7500 - 7500 / 8.0);
    tui_model_key(&m, TUI_KEY_HOME);
    Render();
    EXPECT_DOUBLE_EQ(L.w0, 0);
    int d2h = Lane("D2H engine");
    EXPECT_EQ(Span(d2h, LIGHT).first, -1);  // off screen
    tui_model_key(&m, 'f');
    Render();
    EXPECT_TRUE(m.follow);
    EXPECT_DOUBLE_EQ(L.w1 - L.w0, 30000);
    EXPECT_NE(Span(d2h, LIGHT).first, -1);
}

TEST_F(DrawTest, TheAxisLabelsTimesInTheirUnitAtTheirColumns) {
    EventStream ev;
    Pipeline(ev);
    Feed(yours, ev);
    Render(100, 30);
    std::string axis = Row(L.axis_row);
    EXPECT_EQ(axis.find("time (us)"), 1u);
    // "10" (us) starts at the column of 10 us.
    int at = L.bar_x + static_cast<int>(std::floor(tui_layout_column_of(&L, 10000) + 1e-6));
    EXPECT_EQ(At(at, L.axis_row), '1');
    EXPECT_EQ(At(at + 1, L.axis_row), '0');
    EXPECT_EQ(At(L.bar_x, L.axis_row), '0');
    // Zoomed into 1.5 us, the unit becomes ns.
    tui_model_zoom(&m, 0.05, 15000);
    Render(100, 30);
    EXPECT_NE(Row(L.axis_row).find("time (ns)"), std::string::npos) << Row(L.axis_row);
}

TEST_F(DrawTest, ManyOpsAreBinnedToTheKindThatCoversMostOfAColumn) {
    EventStream ev;
    ev.Progress("run 1/1 (yours)", 0, 1);
    // 40,000 periods of 100 ns on the compute engine: a kernel for 70 ns, then a memset for
    // 30 ns. Then 40,000 periods where the memset takes 80 ns.
    const int n = 40000;
    for (int i = 0; i < n; i++) {
        uint64_t t = 100ull * i;
        ev.Op(TRACE_OP_KERNEL, TRACE_COPY_NONE, 1, 1, -1, t, t + 70);
        ev.Op(TRACE_OP_MEMSET, TRACE_COPY_NONE, 1, 1, -1, t + 70, t + 100);
    }
    for (int i = n; i < 2 * n; i++) {
        uint64_t t = 100ull * i;
        ev.Op(TRACE_OP_KERNEL, TRACE_COPY_NONE, 1, 1, -1, t, t + 20);
        ev.Op(TRACE_OP_MEMSET, TRACE_COPY_NONE, 1, 1, -1, t + 20, t + 100);
    }
    Feed(yours, ev);
    Render(80, 24);
    int comp = Lane("compute");
    ASSERT_GE(comp, 0);
    int half = Col(100.0 * n);
    for (int x = L.bar_x; x < L.bar_x + L.bar_w; x++) {
        if (x == half || x == half - 1) continue;  // the column where the mix changes
        EXPECT_EQ(At(x, comp), x < half ? DARK : MEDIUM) << "column " << x << ": " << Row(comp);
    }
    EXPECT_NE(Row(comp).find("100%"), std::string::npos);
}

TEST_F(DrawTest, RacyBarsAreMarked) {
    EventStream ev;
    ev.Progress("run 1/1 (yours)", 0, 1);
    trace_op a = ev.Op(TRACE_OP_COPY, TRACE_COPY_H2D, 1, 1, 0, 0, 10000, 4096);
    trace_op b = ev.Op(TRACE_OP_KERNEL, TRACE_COPY_NONE, 2, 1, 0, 5000, 15000, 0, "process");
    ev.Op(TRACE_OP_KERNEL, TRACE_COPY_NONE, 2, 1, 1, 20000, 30000, 0, "process");
    ev.Race(TRACE_RACE_RAW, a, b, 4096);
    Feed(yours, ev);
    Render();
    int h2d = Lane("H2D engine"), comp = Lane("compute"), s2 = RowOf("s2 p0");
    EXPECT_EQ(At(Col(0), h2d), '!');
    EXPECT_EQ(At(Col(5000), comp), '!');
    EXPECT_EQ(At(Col(5000), s2), '!');
    EXPECT_NE(At(Col(20000), comp), '!');  // the third op is not part of it
    EXPECT_EQ(tui_screen_cell(scr, Col(0) + 2, h2d)->color, TUI_COLOR_RACE);
    EXPECT_NE(Row(1).find("races 1"), std::string::npos) << Row(1);
}

TEST_F(DrawTest, ColoursOrGlyphsTellTheKindsApart) {
    EventStream ev;
    Pipeline(ev);
    Feed(yours, ev);
    int comp, x;
    m.color = true;
    Render();
    comp = Lane("compute");
    x = Col(10000);
    // With colours too, each kind has the text timeline's glyph (a student who cannot tell
    // the colours apart still can), and the legend shows the same glyphs.
    EXPECT_EQ(At(x, comp), DARK);
    EXPECT_EQ(tui_screen_cell(scr, x, comp)->color, TUI_COLOR_KERNEL);
    EXPECT_EQ(At(Col(0), Lane("H2D engine")), FULL);
    EXPECT_EQ(tui_screen_cell(scr, Col(0), Lane("H2D engine"))->color, TUI_COLOR_H2D);
    EXPECT_EQ(At(Col(20000), Lane("D2H engine")), LIGHT);
    std::string legend = Row(L.legend_row);
    for (const char *item : {"\u2588 H2D", "\u2593 kernel", "\u2591 D2H", "\u2592 memset", "\u2500 wait/sync"})
        EXPECT_NE(legend.find(item), std::string::npos) << item << " in " << legend;
    m.color = false;  // no colours: the same glyphs
    Render();
    EXPECT_EQ(At(x, comp), DARK);
    EXPECT_EQ(At(Col(20000), Lane("D2H engine")), LIGHT);
    m.utf8 = false;  // not even UTF-8: ASCII
    Render();
    EXPECT_EQ(At(x, comp), '#');
    EXPECT_EQ(At(Col(0), Lane("H2D engine")), '>');
    EXPECT_EQ(At(Col(20000), Lane("D2H engine")), '<');
    EXPECT_EQ(At(Col(15000), Lane("host")), '~');
    for (int y = 0; y < scr->rows; y++)
        for (int xx = 0; xx < scr->cols; xx++) EXPECT_LT(At(xx, y), 0x80u) << "row " << y << ": " << Row(y);
}

// Short operations with gaps between them never draw as a solid bar: a cell busy less than
// half its time has its kind's light glyph, a busy one the full glyph; the legend says so.
TEST_F(DrawTest, CellsShowHowMuchOfTheirTimeWasBusy) {
    EventStream ev;
    ev.Progress("run 1/1 (yours)", 0, 1);
    // Stream 1: 100 kernels of 200 ns, one every 12 us (under 2% busy); each column of the
    // 80x24 screen (55 bar columns over 1.2 ms) holds about two of them.
    for (int i = 0; i < 100; i++) {
        uint64_t t = 12000ull * i;
        ev.Op(TRACE_OP_KERNEL, TRACE_COPY_NONE, 1, 1, -1, t, t + 200, 0, "spin");
    }
    // Stream 2: one copy busy all of [600 us, 1.2 ms).
    ev.Op(TRACE_OP_COPY, TRACE_COPY_H2D, 2, 1, -1, 600000, 1200000, 4u << 20);
    Feed(yours, ev);
    Render(80, 24);
    int s1 = RowOf("s1 p0"), s2 = RowOf("s2 p0");
    ASSERT_GE(s1, 0) << Dump();
    int sparse = 0;
    for (int x = L.bar_x; x < L.bar_x + L.bar_w; x++) {
        EXPECT_NE(At(x, s1), DARK) << "column " << x << ": a 2% busy cell drawn solid: " << Row(s1);
        sparse += At(x, s1) == SPARSE_KERNEL;
    }
    EXPECT_GT(sparse, L.bar_w * 3 / 4) << Row(s1);
    EXPECT_EQ(At(Col(900000), s2), FULL) << Row(s2);  // busy throughout: solid
    std::string legend = Row(L.legend_row);
    EXPECT_NE(legend.find("\u203a\u2022\u2039\u25e6 <50% busy"), std::string::npos) << legend;

    // Binned (more bars than columns): 40,000 kernels of 10 ns every 100 ns are 10% busy.
    EventStream many;
    many.Progress("run 1/1 (yours)", 0, 1);
    for (int i = 0; i < 40000; i++) {
        uint64_t t = 100ull * i;
        many.Op(TRACE_OP_KERNEL, TRACE_COPY_NONE, 3, 1, -1, t, t + 10);
    }
    tui_session_reset(yours);
    tui_session_started(yours, nullptr, 0);
    Feed(yours, many);
    tui_model_fit(&m);
    Render(80, 24);
    int comp = Lane("compute");
    ASSERT_GE(comp, 0) << Dump();
    for (int x = L.bar_x + 1; x < L.bar_x + L.bar_w - 1; x++)
        EXPECT_EQ(At(x, comp), SPARSE_KERNEL) << "column " << x << ": " << Row(comp);
    EXPECT_NE(Row(comp).find("10%"), std::string::npos) << Row(comp);

    // ASCII: the light glyphs are ) : ( -.
    m.utf8 = false;
    Render(80, 24);
    EXPECT_EQ(At(L.bar_x + L.bar_w / 2, comp), ':') << Row(comp);
    EXPECT_NE(Row(L.legend_row).find("):(- <50% busy"), std::string::npos) << Row(L.legend_row);
}

TEST_F(DrawTest, CompareDrawsBothRunsOnOneTimeScale) {
    EventStream mine, theirs;
    Pipeline(mine, 4, "run 1/2 (yours)", 1000000);
    Feed(yours, mine);
    // The reference's run takes 15 us, and starts at another time.
    tui_session_started(ref, nullptr, 0);
    theirs.Stream(1, "buf A");
    theirs.Stream(2, "buf B");
    theirs.Progress("run 1/2 (yours)", 3, 8);
    theirs.Op(TRACE_OP_COPY, TRACE_COPY_H2D, 1, 4, 0, 9000000, 9005000, 4096);
    theirs.Op(TRACE_OP_KERNEL, TRACE_COPY_NONE, 2, 4, 0, 9005000, 9010000, 0, "process");
    theirs.Op(TRACE_OP_COPY, TRACE_COPY_D2H, 2, 4, 0, 9010000, 9015000, 4096);
    Feed(ref, theirs);
    EXPECT_EQ(tui_model_key(&m, 'c'), TUI_REQUEST_NONE);  // both have run: nothing to start
    Render(100, 30);
    ASSERT_EQ(L.n_panes, 2);
    EXPECT_DOUBLE_EQ(L.w1, 30000);  // the longer run fits
    int top = RowOf("yours " "\xc2\xb7" " run 1/2 (yours)"), bottom = RowOf("reference " "\xc2\xb7" " run 1/2 (reference)");
    ASSERT_GE(top, 0) << Dump();
    ASSERT_GT(bottom, top) << Dump();
    int comp_yours = Lane("compute", top), comp_ref = Lane("compute", bottom);
    // 10 us into each run is one column on both.
    EXPECT_EQ(Span(comp_yours, DARK).first, Col(10000));
    EXPECT_EQ(Span(comp_ref, DARK).first, Col(5000));
    EXPECT_LT(Span(comp_ref, DARK).second, Col(10000));
    EXPECT_NE(Row(1).find("yours"), std::string::npos);
    EXPECT_NE(Row(1).find("reference"), std::string::npos);
}

TEST_F(DrawTest, ATerminalTooSmallAsksForRoom) {
    EventStream ev;
    Pipeline(ev);
    Feed(yours, ev);
    Render(50, 12);
    EXPECT_TRUE(L.too_small);
    EXPECT_GE(RowOf("This terminal is 50x12;"), 0) << Dump();
    EXPECT_GE(RowOf("needs 60x16"), 0);
    EXPECT_GE(RowOf("Please make the window larger."), 0);
    Render(60, 16);  // the smallest that works
    EXPECT_FALSE(L.too_small);
    EXPECT_GE(Lane("D2H engine"), 0) << Dump();
}

TEST_F(DrawTest, ALargeTerminalScalesEverything) {
    EventStream ev;
    Pipeline(ev);
    Feed(yours, ev);
    Render(80, 24);
    int small_w = L.bar_w;
    Render(240, 70);
    EXPECT_GT(L.label_w, 19);
    EXPECT_EQ(L.bar_w, 240 - 5 - L.bar_x);
    EXPECT_GT(L.bar_w, 2 * small_w);
    EXPECT_EQ(L.status_row, 69);
    int comp = Lane("compute");
    EXPECT_EQ(Span(comp, DARK).first, Col(10000));
    EXPECT_EQ(Span(comp, DARK).second, Col(20000) - 2);
}

TEST_F(DrawTest, ManyStreamsScrollWithTheLaneCursor) {
    EventStream ev;
    ev.Progress("run 1/1 (yours)", 0, 1);
    for (int s = 1; s <= 30; s++) ev.Op(TRACE_OP_KERNEL, TRACE_COPY_NONE, s, 1, s, 100u * s, 100u * s + 50, 0, "k");
    Feed(yours, ev);
    Render(80, 24);
    ASSERT_EQ(L.n_panes, 1);
    EXPECT_EQ(L.panes[0].n_lanes, 31u);  // compute and 30 streams
    EXPECT_LT(L.panes[0].n_shown, L.panes[0].n_lanes);
    char shown[64];
    snprintf(shown, sizeof(shown), "lanes 1-%zu of 31", L.panes[0].n_shown);
    EXPECT_NE(Row(L.panes[0].title_row).find(shown), std::string::npos) << Row(L.panes[0].title_row);
    for (int i = 0; i < 31; i++) tui_model_key(&m, TUI_KEY_DOWN);
    Render(80, 24);
    EXPECT_GE(RowOf("s30 p0"), 0) << Dump();
    EXPECT_EQ(RowOf("s1 p0"), -1);
}

TEST_F(DrawTest, TabSelectsBarsAndEnterShowsTheirDetails) {
    EventStream ev;
    Pipeline(ev);
    trace_op racer = ev.Op(TRACE_OP_KERNEL, TRACE_COPY_NONE, 2, 4, 8, 5005000, 5015000, 0, "process");
    Feed(yours, ev);
    trace_op h2d;
    memset(&h2d, 0, sizeof(h2d));
    // The race between the H2D copy (op 1) and the kernel on s2.
    EventStream ev2;
    // A race of an earlier run first: the checker numbers races across the whole program, the
    // report (and the details) within the run, from 1.
    trace_op first = ev2.Op(TRACE_OP_COPY, TRACE_COPY_H2D, 1, 4, 7, 5000000, 5010000, 4u << 20);  // op 1
    trace_op early_a = ev2.Op(TRACE_OP_COPY, TRACE_COPY_H2D, 1, 3, 7, 4000000, 4010000, 4u << 20);
    trace_op early_b = ev2.Op(TRACE_OP_KERNEL, TRACE_COPY_NONE, 2, 3, 8, 4005000, 4015000, 0, "process");
    ev2.Race(TRACE_RACE_RAW, early_a, early_b, 4u << 20);
    ev2.Race(TRACE_RACE_RAW, first, racer, 4u << 20);
    // The lab's result names the lines of the races its report shows.
    ev2.Result(R"({"status":"racy","races":1,"race_reports":[{"kind":"RAW","first":"H2D batch 7",
        "first_stream":"s1","first_line":"labs/03_double_buffer/lab.c:41","second":"kernel process batch 8",
        "second_stream":"s2","second_line":"labs/03_double_buffer/lab.c:57","bytes":4194304,"fix":"..."}]})");
    std::string races = ev2.Text();
    std::string only_race = races.substr(races.find("{\"v\":1,\"t\":\"race\""));
    tui_session_feed(yours, only_race.data(), only_race.size(), 0);
    ASSERT_EQ(yours->n_races, 2u);
    EXPECT_EQ(yours->races[1].seq, 2u);
    Render(100, 30);
    tui_model_key(&m, TUI_KEY_TAB);  // the cursor is on the H2D engine: its first bar
    ASSERT_TRUE(m.sel.on);
    EXPECT_EQ(m.sel.start_ns, 5000000u);
    tui_model_key(&m, TUI_KEY_ENTER);
    EXPECT_EQ(m.overlay, TUI_OVERLAY_DETAILS);
    Render(100, 30);
    std::string all = Dump();
    EXPECT_NE(all.find("H2D copy"), std::string::npos) << all;
    EXPECT_NE(all.find("batch 7"), std::string::npos);
    EXPECT_NE(all.find("s1 \"buf A\""), std::string::npos);
    EXPECT_NE(all.find("4.00 MiB (4194304)"), std::string::npos);
    char rate[32];
    snprintf(rate, sizeof(rate), "%.2f GB/s", (4u << 20) / 10000.0);  // bytes per ns
    EXPECT_NE(all.find(rate), std::string::npos) << rate;
    EXPECT_NE(all.find("0 ns to 10.000 us (from the run's first op)"), std::string::npos) << all;
    EXPECT_NE(all.find("race 1   RAW (read-after-write) with kernel process batch 8"), std::string::npos) << all;
    EXPECT_EQ(all.find("race 2"), std::string::npos) << all;
    EXPECT_NE(all.find("source   labs/03_double_buffer/lab.c:41"), std::string::npos) << all;
    EXPECT_NE(all.find("(labs/03_double_buffer/lab.c:57)"), std::string::npos) << all;
    EXPECT_NE(all.find("fix:"), std::string::npos);
    tui_model_key(&m, TUI_KEY_ESC);
    EXPECT_EQ(m.overlay, TUI_OVERLAY_NONE);
    tui_model_key(&m, TUI_KEY_TAB);  // the next bar on the lane: none, stays
    EXPECT_EQ(m.sel.start_ns, 5000000u);
    tui_model_key(&m, TUI_KEY_DOWN);
    tui_model_key(&m, TUI_KEY_TAB);  // compute: the first kernel
    EXPECT_EQ(m.sel.start_ns, 5005000u);
    tui_model_key(&m, TUI_KEY_TAB);
    EXPECT_EQ(m.sel.start_ns, 5010000u);
    tui_model_key(&m, TUI_KEY_BACKTAB);
    EXPECT_EQ(m.sel.start_ns, 5005000u);
}

TEST_F(DrawTest, AClickOpensTheBarUnderThePointer) {
    EventStream ev;
    Pipeline(ev);
    Feed(yours, ev);
    Render(100, 30);
    int comp = Lane("compute");
    EXPECT_TRUE(tui_layout_click(&L, &m, Col(15000), comp));
    EXPECT_EQ(m.overlay, TUI_OVERLAY_DETAILS);
    EXPECT_EQ(m.sel.start_ns, 5010000u);
    EXPECT_EQ(m.lane_cursor, L.panes[0].cursor_base + 1);
    Render(100, 30);
    EXPECT_GE(RowOf("kernel process"), 0) << Dump();
    EXPECT_GE(RowOf("grid 4096x1x1"), 0);
    // The wheel zooms around the pointer.
    m.overlay = TUI_OVERLAY_NONE;
    tui_layout_wheel(&L, &m, Col(15000), comp, true);
    EXPECT_NEAR((m.w0 + m.w1) / 2, 15000, 30000.0 / L.bar_w);
    EXPECT_NEAR(m.w1 - m.w0, 15000, 1e-6);
}

// A lab graded on another rate than the speedup (lab 01: bandwidth) is shown in its unit.
TEST_F(DrawTest, TheHeaderShowsTheLabsOwnMetric) {
    EventStream ev;
    ev.Hello();
    ev.Result(R"({"status":"below_target","speedup":11.58,"target":15.9,"races":0,)"
              R"("metric":{"name":"bandwidth","unit":"GB/s","value":50.1,"target":64.0}})");
    ev.Bye(1, "below_target");
    Feed(yours, ev);
    tui_session_exited(yours, 1 << 8);
    Render(100, 30);
    EXPECT_NE(Row(1).find("bandwidth 50.1 GB/s (target 64.0 GB/s) BELOW TARGET"), std::string::npos) << Row(1);
    EXPECT_EQ(Row(1).find("11.58x"), std::string::npos) << Row(1);
}

TEST_F(DrawTest, TheHeaderShowsALatencyLabsP99) {
    EventStream ev;
    ev.Hello();
    ev.Result(R"({"status":"pass","speedup":58.2,"target":11.9,"races":0,)"
              R"("metric":{"name":"latency","unit":"ms","value":0.059,"target":0.228}})");
    ev.Bye(0, "pass");
    Feed(yours, ev);
    tui_session_exited(yours, 0);
    Render(100, 30);
    EXPECT_NE(Row(1).find("latency p99 0.059 ms (target p99 0.228 ms) PASS"), std::string::npos) << Row(1);
}

TEST_F(DrawTest, TheHeaderShowsTheLiveSpeedupThenTheVerdict) {
    EventStream ev;
    ev.Hello();
    ev.Progress("run 1/1 (baseline)", 0, 2);
    ev.Op(TRACE_OP_KERNEL, TRACE_COPY_NONE, 1, 1, 0, 0, 60000);
    ev.Phase("run 1/1 (baseline)", 0, 60000);
    ev.Progress("run 1/1 (yours)", 1, 2);
    ev.Op(TRACE_OP_KERNEL, TRACE_COPY_NONE, 2, 2, 0, 60000, 90000);
    ev.Phase("run 1/1 (yours)", 60000, 90000);
    Feed(yours, ev);
    Render(100, 30);
    EXPECT_NE(Row(1).find("speedup ~2.00x so far"), std::string::npos) << Row(1);
    EXPECT_NE(Row(1).find("makespan 30 us"), std::string::npos) << Row(1);
    ev.Result(R"({"status":"pass","speedup":2.5,"target":1.69,"races":0})");
    ev.Bye(0, "pass");
    Feed(yours, ev);
    tui_session_exited(yours, 0);
    Render(100, 30);
    EXPECT_NE(Row(1).find("speedup 2.50x (target 1.69x) PASS"), std::string::npos) << Row(1);
    EXPECT_EQ(tui_screen_cell(scr, (int)tui_utf8_columns(Row(1).substr(0, Row(1).find("PASS")).c_str()), 1)->color,
              TUI_COLOR_PASS);
    EXPECT_NE(Row(L.status_row).find("finished: PASS"), std::string::npos);
    // b: the baseline run.
    tui_model_key(&m, 'b');
    Render(100, 30);
    EXPECT_NE(Row(L.panes[0].title_row).find("run 1/1 (baseline)"), std::string::npos);
    EXPECT_NE(Row(1).find("makespan 60 us"), std::string::npos) << Row(1);
}

TEST_F(DrawTest, TheStatusLineSaysWhatWentWrongAndKeepsTheTimeline) {
    EventStream ev;
    Pipeline(ev);
    ev.Bye(2, "crash: SIGSEGV in run (yours)");
    std::string t = ev.Take() + "garbage that is not JSON\n";
    tui_session_feed(yours, t.data(), t.size(), 0);
    tui_session_exited(yours, 2 << 8);
    Render(120, 30);
    std::string status = Row(L.status_row);
    EXPECT_NE(status.find("lab crashed: SIGSEGV in run() of your lab"), std::string::npos) << status;
    EXPECT_NE(status.find("1 bad line on the event stream (first: line"), std::string::npos) << status;
    EXPECT_GE(Lane("H2D engine"), 0);  // what was drawn stays
}

TEST_F(DrawTest, AQuietLabIsReportedAsMaybeStuck) {
    EventStream ev;
    Pipeline(ev);
    Feed(yours, ev);
    m.now_ms = TUI_QUIET_WARN_MS + 2000;
    Render();
    EXPECT_NE(Row(L.status_row).find("no events from the lab for 12 s"), std::string::npos) << Row(L.status_row);
}

TEST_F(DrawTest, KeysAskForRunsOfWhatHasNotRun) {
    EXPECT_EQ(tui_model_key(&m, 's'), TUI_REQUEST_RUN);
    EXPECT_EQ(m.run_mask, 1u << TUI_REFERENCE);
    EXPECT_EQ(m.front, TUI_REFERENCE);
    EXPECT_EQ(tui_model_key(&m, 'r'), TUI_REQUEST_RUN);
    EXPECT_EQ(m.run_mask, 1u << TUI_REFERENCE);
    EXPECT_EQ(tui_model_key(&m, 'c'), TUI_REQUEST_RUN);  // the reference is still idle
    EXPECT_EQ(m.run_mask, 1u << TUI_REFERENCE);
    EXPECT_TRUE(m.compare);
    EXPECT_EQ(tui_model_key(&m, 'r'), TUI_REQUEST_RUN);
    EXPECT_EQ(m.run_mask, (1u << TUI_YOURS) | (1u << TUI_REFERENCE));
    EXPECT_EQ(tui_model_key(&m, 't'), TUI_REQUEST_EXPORT);
    EXPECT_EQ(tui_model_key(&m, '?'), TUI_REQUEST_NONE);
    EXPECT_EQ(m.overlay, TUI_OVERLAY_HELP);
    Render();
    EXPECT_GE(RowOf("streamlab keys"), 0);
    EXPECT_EQ(tui_model_key(&m, 'q'), TUI_REQUEST_QUIT);
}

TEST_F(DrawTest, ThePickerListsLabsWithTheirLastResult) {
    tui_catalog cat;
    char err[256];
    ASSERT_EQ(tui_catalog_parse(R"({"labs":[{"id":"03_double_buffer","number":3,"title":"Double buffering",
        "lab":"//labs:03_double_buffer","reference":"//solutions:03_double_buffer"},
        {"id":"04_priorities","number":4,"title":"Priorities","lab":"//labs:04_priorities",
        "reference":"//solutions:04_priorities"}]})",
                                &cat, err, sizeof(err)),
              0)
        << err;
    tui_history h;
    tui_history_open(&h, "", nullptr, 0);
    tui_last_result r = {"pass", 2.57, 1.69, 1000};
    ASSERT_EQ(tui_history_put(&h, "03_double_buffer", "yours", &r, err, sizeof(err)), 0);
    tui_model pm;
    tui_model_init(&pm, &cat, &h);
    pm.color = false;
    pm.wall_now = 1000 + 7200;
    tui_layout pl;
    tui_screen_resize(scr, 100, 24);
    tui_layout_compute(&pl, &pm, 100, 24);
    tui_draw(scr, &pm, &pl);
    int r3 = RowOf("03  Double buffering"), r4 = RowOf("04  Priorities");
    ASSERT_GE(r3, 0) << Dump();
    EXPECT_EQ(r4, r3 + 1);
    EXPECT_NE(Row(r3).find("last: PASS 2.57x"), std::string::npos) << Row(r3);
    EXPECT_NE(Row(r3).find("2 h ago"), std::string::npos) << Row(r3);
    EXPECT_NE(Row(r4).find("not run yet"), std::string::npos);
    EXPECT_EQ(At(0, r3), 0x25B6u);  // the cursor
    EXPECT_EQ(tui_model_key(&pm, TUI_KEY_DOWN), TUI_REQUEST_NONE);
    EXPECT_EQ(tui_model_key(&pm, TUI_KEY_ENTER), TUI_REQUEST_OPEN);
    EXPECT_EQ(pm.picker_cursor, 1);
    tui_layout_free(&pl);
    tui_history_close(&h);
    tui_catalog_free(&cat);
}

// Two devices: device 0 uploads and runs stage 1 on s1 and copies the result over the link
// to device 1, which runs stage 2 on s2 and downloads it. Times in us from 5 ms.
void TwoDevices(EventStream &ev, int32_t run = 4) {
    const uint64_t b = 5000000, us = 1000;
    ev.Hello("sim", "h200x2");
    ev.Stream(1, "a");
    ev.OnDevice(1);
    ev.Stream(2, "b");
    ev.Progress("run 1/2 (yours)", run - 1, 8);
    ev.OnDevice(0);
    ev.Op(TRACE_OP_COPY, TRACE_COPY_H2D, 1, run, 0, b, b + 10 * us, 4u << 20);
    ev.Op(TRACE_OP_KERNEL, TRACE_COPY_NONE, 1, run, 0, b + 10 * us, b + 20 * us, 0, "stage1");
    ev.PeerCopy(1, run, 0, b + 20 * us, b + 25 * us, 4u << 20, 0, 1);
    ev.OnDevice(1);
    ev.Op(TRACE_OP_KERNEL, TRACE_COPY_NONE, 2, run, 0, b + 25 * us, b + 35 * us, 0, "stage2");
    ev.Op(TRACE_OP_COPY, TRACE_COPY_D2H, 2, run, 0, b + 35 * us, b + 45 * us, 4u << 20);
    ev.OnDevice(0);
    ev.Op(TRACE_OP_SYNC, TRACE_COPY_NONE, -1, run, -1, b, b + 45 * us, 0, "cudaDeviceSynchronize");
}

TEST_F(DrawTest, TwoDevicesGroupTheirLanesUnderAHeadingEachAndTheLinkLast) {
    EventStream ev;
    TwoDevices(ev);
    Feed(yours, ev);
    Render(120, 30);
    int host = Lane("host"), gpu0 = Lane("GPU 0"), h2d = Lane("H2D engine"), comp0 = Lane("compute"),
        s1 = Lane("s1 \"a\" p0"), gpu1 = Lane("GPU 1"), s2 = Lane("s2 \"b\" p0"), link = Lane("link"),
        dir = Lane("GPU 0 -> GPU 1");
    ASSERT_GE(gpu0, 0) << Dump();
    ASSERT_GE(gpu1, 0) << Dump();
    int comp1 = Lane("compute", gpu1), d2h = Lane("D2H engine");
    // The host, then GPU 0's engines and stream, GPU 1's, and the link.
    EXPECT_LT(host, gpu0);
    EXPECT_EQ(h2d, gpu0 + 1);
    EXPECT_EQ(comp0, h2d + 1);
    EXPECT_EQ(s1, comp0 + 1);
    EXPECT_EQ(gpu1, s1 + 1);
    EXPECT_EQ(comp1, gpu1 + 1);
    EXPECT_EQ(d2h, comp1 + 1);
    EXPECT_EQ(s2, d2h + 1);
    EXPECT_EQ(link, s2 + 1);
    EXPECT_EQ(dir, link + 1) << Dump();
    // Each engine's busy share is its own device's: 10 of 45 us; the link 5 of 45.
    EXPECT_NE(Row(comp0).find(" 22%"), std::string::npos) << Row(comp0);
    EXPECT_NE(Row(comp1).find(" 22%"), std::string::npos) << Row(comp1);
    EXPECT_NE(Row(dir).find(" 11%"), std::string::npos) << Row(dir);
    // The peer copy is on the link lane, where its time puts it, and on s1.
    auto span = Span(dir, MEDIUM);
    EXPECT_EQ(span.first, Col(20000)) << Row(dir);
    EXPECT_GE(Span(s1, MEDIUM).first, 0) << Row(s1);
    EXPECT_LT(Span(comp0, DARK).second, Col(20000) + 1);  // stage 2 is not on GPU 0's SMs
    EXPECT_GE(Span(comp1, DARK).first, Col(25000) - 1);
    // Headings hold no bars and no busy figure.
    EXPECT_EQ(Row(gpu1).find('%'), std::string::npos) << Row(gpu1);
    // The header gives each device's overlap and engines, as many as fit.
    EXPECT_NE(Row(1).find("overlap GPU 0 0% GPU 1 0%"), std::string::npos) << Row(1);
    EXPECT_NE(Row(1).find("GPU 0 busy H2D 22% compute 22% D2H 0%"), std::string::npos) << Row(1);
    Render(200, 30);
    EXPECT_NE(Row(1).find("GPU 1 busy H2D 0% compute 22% D2H 22%"), std::string::npos) << Row(1);
}

TEST_F(DrawTest, TheDetailsOfABarOnTwoDevicesNameItsGpuOrTheLink) {
    EventStream ev;
    TwoDevices(ev);
    Feed(yours, ev);
    Render(120, 30);
    // From the host lane past GPU 0, its H2D, compute and s1, and GPU 1, to GPU 1's compute.
    for (int i = 0; i < 6; i++) tui_model_key(&m, TUI_KEY_DOWN);
    tui_model_key(&m, TUI_KEY_TAB);
    ASSERT_TRUE(m.sel.on);
    EXPECT_EQ(m.sel.device, 1u);
    EXPECT_EQ(m.sel.start_ns, 5025000u);
    tui_model_key(&m, TUI_KEY_ENTER);
    Render(120, 30);
    EXPECT_NE(Dump().find("engine   compute of GPU 1"), std::string::npos) << Dump();
    tui_model_key(&m, TUI_KEY_ESC);
    for (int i = 0; i < 4; i++) tui_model_key(&m, TUI_KEY_DOWN);  // D2H, s2, link, GPU 0 -> GPU 1
    tui_model_key(&m, TUI_KEY_TAB);
    EXPECT_EQ(m.sel.engine, TRACE_ENGINE_LINK);
    EXPECT_EQ(m.sel.start_ns, 5020000u);
    tui_model_key(&m, TUI_KEY_ENTER);
    Render(120, 30);
    EXPECT_NE(Dump().find("engine   link, GPU 0 -> GPU 1"), std::string::npos) << Dump();
}

TEST_F(DrawTest, OneDeviceHasNoDeviceHeadings) {
    EventStream ev;
    Pipeline(ev);
    Feed(yours, ev);
    Render(160, 24);
    EXPECT_LT(Lane("GPU 0"), 0) << Dump();
    EXPECT_LT(Lane("link"), 0) << Dump();
    EXPECT_NE(Row(1).find("busy H2D 33% compute 33% D2H 33%"), std::string::npos) << Row(1);
    EXPECT_EQ(Row(1).find("GPU"), std::string::npos) << Row(1);
}

// Lab 09's reference on the simulator (h200x2, seed 3): its timed run, as the harness sent
// it (tui/testdata/two_gpus_events.jsonl, API spans left out).
TEST_F(DrawTest, Lab09sEventStreamShowsBothGpusAndTheLink) {
    FILE *f = fopen("tui/testdata/two_gpus_events.jsonl", "r");
    ASSERT_NE(f, nullptr);
    std::string text;
    char buf[4096];
    size_t k;
    while ((k = fread(buf, 1, sizeof(buf), f)) > 0) text.append(buf, k);
    fclose(f);
    tui_session_feed(yours, text.data(), text.size(), 0);
    Render(140, 40);
    int gpu0 = Lane("GPU 0"), gpu1 = Lane("GPU 1"), link = Lane("link"), dir = Lane("GPU 0 -> GPU 1");
    ASSERT_GE(gpu0, 0) << Dump();
    EXPECT_LT(gpu0, gpu1);
    EXPECT_LT(gpu1, link);
    EXPECT_EQ(dir, link + 1) << Dump();
    // Each slot's stream under its own GPU.
    for (const char *name : {"GPU 0 slot 0", "GPU 0 slot 2"}) {
        int y = RowOf(name);
        EXPECT_GT(y, gpu0) << name;
        EXPECT_LT(y, gpu1) << name;
    }
    for (const char *name : {"GPU 1 slot 0", "GPU 1 slot 2"}) {
        int y = RowOf(name);
        EXPECT_GT(y, gpu1) << name;
        EXPECT_LT(y, link) << name;
    }
    // 24 peer copies on the link lane; GPU 1 has no upload, GPU 0 no download.
    EXPECT_GE(Span(dir, MEDIUM).first, 0) << Row(dir);
    EXPECT_LT(Lane("H2D engine", gpu1), 0) << Dump();
    EXPECT_GT(Lane("D2H engine", gpu0), gpu1) << Dump();
}

}  // namespace
