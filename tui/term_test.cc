// tui/term_test.cc: the ncurses layer on pipes instead of a terminal: when colours are
// wanted (NO_COLOR, TERM=dumb, --no-color), what a blit writes with and without colours,
// a terminal that cannot move the cursor refused with a reason, and keys and mouse events
// decoded from what an xterm sends.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <locale.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" {
#include "tui/model.h"
#include "tui/screen.h"
#include "tui/term.h"
}

namespace {

// An env var set for one scope.
struct Env {
    std::string name, old;
    bool had;
    Env(const char *n, const char *v) : name(n) {
        const char *o = getenv(n);
        had = o != nullptr;
        if (had) old = o;
        if (v)
            setenv(n, v, 1);
        else
            unsetenv(n);
    }
    ~Env() {
        if (had)
            setenv(name.c_str(), old.c_str(), 1);
        else
            unsetenv(name.c_str());
    }
};

TEST(Term, ColoursAreWantedUnlessSomethingSaysNo) {
    Env term("TERM", "xterm-256color");
    {
        Env nc("NO_COLOR", nullptr);
        EXPECT_TRUE(tui_term_want_color(false));
        EXPECT_FALSE(tui_term_want_color(true));  // --no-color
    }
    {
        Env nc("NO_COLOR", "1");
        EXPECT_FALSE(tui_term_want_color(false));
    }
    {
        Env nc("NO_COLOR", "");  // set but empty does not count (no-color.org)
        EXPECT_TRUE(tui_term_want_color(false));
    }
    Env dumb("TERM", "dumb");
    Env nc("NO_COLOR", nullptr);
    EXPECT_FALSE(tui_term_want_color(false));
}

// A terminal on two pipes: what it writes, and what we type.
struct Pipes {
    int out[2], in[2];
    FILE *fout, *fin;
    Pipes() {
        EXPECT_EQ(pipe(out), 0);
        EXPECT_EQ(pipe(in), 0);
        fcntl(out[0], F_SETFL, O_NONBLOCK);
        fcntl(out[1], F_SETFL, O_NONBLOCK);
        fout = fdopen(out[1], "w");
        fin = fdopen(in[0], "r");
    }
    ~Pipes() {
        fclose(fout);
        fclose(fin);
        close(out[0]);
        close(in[1]);
    }
    std::string Written() {
        std::string s;
        char buf[65536];
        ssize_t n;
        while ((n = read(out[0], buf, sizeof(buf))) > 0) s.append(buf, static_cast<size_t>(n));
        return s;
    }
    void Type(const std::string &keys) { ASSERT_EQ(write(in[1], keys.data(), keys.size()), (ssize_t)keys.size()); }
};

struct TermTest : ::testing::Test {
    void SetUp() override { setlocale(LC_ALL, "C.UTF-8"); }
};

TEST_F(TermTest, ABlitWritesTheGlyphsInTheirColours) {
    Env nc("NO_COLOR", nullptr);
    Env term("TERM", "xterm-256color");
    Pipes p;
    char err[256];
    tui_term *t = tui_term_open_stream(p.fout, p.fin, "xterm-256color", 40, 10, false, err, sizeof(err));
    ASSERT_NE(t, nullptr) << err;
    EXPECT_TRUE(tui_term_color(t));
    EXPECT_TRUE(tui_term_utf8(t));
    int cols, rows;
    tui_term_size(t, &cols, &rows);
    EXPECT_EQ(cols, 40);
    EXPECT_EQ(rows, 10);
    p.Written();
    tui_screen *s = tui_screen_create(40, 10);
    tui_screen_fill(s, 2, 3, 5, 0x2588, TUI_COLOR_H2D, 0);  // █ in green
    tui_screen_text(s, 2, 4, -1, "H2D engine", TUI_COLOR_DEFAULT, 0);
    tui_term_blit(t, s, true);
    std::string w = p.Written();
    EXPECT_NE(w.find("\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88"), std::string::npos);
    EXPECT_NE(w.find("H2D engine"), std::string::npos);
    EXPECT_NE(w.find("\x1b[32m"), std::string::npos) << "no green";
    tui_screen_destroy(s);
    tui_term_close(t);
}

TEST_F(TermTest, WithoutColoursOnlyTheGlyphsRemain) {
    Env nc("NO_COLOR", "1");
    Pipes p;
    char err[256];
    tui_term *t = tui_term_open_stream(p.fout, p.fin, "xterm-256color", 40, 10, false, err, sizeof(err));
    ASSERT_NE(t, nullptr) << err;
    EXPECT_FALSE(tui_term_color(t));
    p.Written();
    tui_screen *s = tui_screen_create(40, 10);
    tui_screen_fill(s, 2, 3, 5, 0x2593, TUI_COLOR_KERNEL, 0);
    tui_screen_put(s, 8, 3, 0x2588, TUI_COLOR_SELECT, 0);  // the selection: reverse video instead
    tui_term_blit(t, s, true);
    std::string w = p.Written();
    EXPECT_NE(w.find("\xe2\x96\x93\xe2\x96\x93"), std::string::npos);
    for (const char *sgr : {"\x1b[31m", "\x1b[32m", "\x1b[33m", "\x1b[34m", "\x1b[35m", "\x1b[36m", "\x1b[37m"})
        EXPECT_EQ(w.find(sgr), std::string::npos) << "a colour was written";
    EXPECT_TRUE(w.find("\x1b[7m") != std::string::npos || w.find("\x1b[0;7m") != std::string::npos)
        << "no reverse video for the selection: " << ::testing::PrintToString(w);
    tui_screen_destroy(s);
    tui_term_close(t);
}

TEST_F(TermTest, ATerminalThatCannotMoveTheCursorIsRefused) {
    Pipes p;
    char err[256] = "";
    EXPECT_EQ(tui_term_open_stream(p.fout, p.fin, "dumb", 80, 24, false, err, sizeof(err)), nullptr);
    EXPECT_NE(std::string(err).find("cannot move the cursor"), std::string::npos) << err;
    EXPECT_EQ(tui_term_open_stream(p.fout, p.fin, "no-such-terminal-type", 80, 24, false, err, sizeof(err)), nullptr);
    EXPECT_NE(std::string(err).find("could not open"), std::string::npos) << err;
}

TEST_F(TermTest, KeysAndTheMouseAreDecoded) {
    Pipes p;
    char err[256];
    tui_term *t = tui_term_open_stream(p.fout, p.fin, "xterm-256color", 80, 24, false, err, sizeof(err));
    ASSERT_NE(t, nullptr) << err;
    // q, the up and left arrows (application mode, as keypad() asks), Shift-Tab, Enter;
    // then a left click at column 10, row 5 and a wheel turn up there (SGR mouse reports,
    // one at a time as a terminal sends them).
    const char *typed[] = {"q\x1bOA\x1bOD\x1b[Z\r", nullptr, nullptr, nullptr, nullptr,
                           "\x1b[<0;11;6M",            "\x1b[<64;11;6M"};
    tui_input in;
    ASSERT_EQ(tui_term_read(t, &in), 1);  // setting the size is a resize
    EXPECT_EQ(in.type, TUI_INPUT_RESIZE);
    struct Want {
        tui_input_type type;
        int key, x, y;
        bool up;
    } want[] = {
        {TUI_INPUT_KEY, 'q', 0, 0, false},           {TUI_INPUT_KEY, TUI_KEY_UP, 0, 0, false},
        {TUI_INPUT_KEY, TUI_KEY_LEFT, 0, 0, false},  {TUI_INPUT_KEY, TUI_KEY_BACKTAB, 0, 0, false},
        {TUI_INPUT_KEY, TUI_KEY_ENTER, 0, 0, false}, {TUI_INPUT_CLICK, 0, 10, 5, false},
        {TUI_INPUT_WHEEL, 0, 10, 5, true},
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        const Want &w = want[i];
        if (typed[i]) p.Type(typed[i]);
        ASSERT_EQ(tui_term_read(t, &in), 1) << "event " << i;
        EXPECT_EQ(in.type, w.type) << "event " << i;
        if (w.type == TUI_INPUT_KEY) {
            EXPECT_EQ(in.key, w.key) << "event " << i;
        } else {
            EXPECT_EQ(in.x, w.x);
            EXPECT_EQ(in.y, w.y);
            EXPECT_EQ(in.up, w.up);
        }
    }
    EXPECT_EQ(tui_term_read(t, &in), 0);  // nothing more
    tui_term_close(t);
}

}  // namespace
