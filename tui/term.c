/* tui/term.c: the ncurses layer (see term.h). */
#define _XOPEN_SOURCE_EXTENDED 1
#define _XOPEN_SOURCE 700
#define _DEFAULT_SOURCE
#include "tui/term.h"

#include "tui/model.h"

#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <wchar.h>

#include <ncurses.h>

struct tui_term {
    SCREEN *screen;
    bool color, utf8;
    int fd_in;
    bool own_terminal; /* stdin/stdout: restore it on fatal signals too */
};

/* For a fatal signal in the TUI itself: what puts the terminal back, prepared at open. */
static struct {
    volatile sig_atomic_t armed;
    int fd;
    struct termios saved;
    char reset[256];
    size_t reset_len;
} RESTORE;

static void fatal_restore(int sig) {
    if (RESTORE.armed) {
        RESTORE.armed = 0;
        tcsetattr(RESTORE.fd, TCSANOW, &RESTORE.saved);
        (void)!write(RESTORE.fd, RESTORE.reset, RESTORE.reset_len);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void append_cap(const char *cap) {
    char *s = tigetstr((char *)cap);
    if (!s || s == (char *)-1) return;
    size_t n = strlen(s);
    if (RESTORE.reset_len + n < sizeof(RESTORE.reset)) {
        memcpy(RESTORE.reset + RESTORE.reset_len, s, n);
        RESTORE.reset_len += n;
    }
}

static void arm_fatal_restore(int fd) {
    if (tcgetattr(fd, &RESTORE.saved) != 0) return;
    RESTORE.fd = fd;
    RESTORE.reset_len = 0;
    /* mouse tracking off (xterm), attributes off, cursor on, leave the alternate screen */
    const char *mouse_off = "\033[?1000l\033[?1002l\033[?1006l";
    memcpy(RESTORE.reset, mouse_off, strlen(mouse_off));
    RESTORE.reset_len = strlen(mouse_off);
    append_cap("sgr0");
    append_cap("cnorm");
    append_cap("rmcup");
    RESTORE.armed = 1;
    const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = fatal_restore;
        sa.sa_flags = SA_RESETHAND;
        sigaction(sigs[i], &sa, NULL);
    }
}

bool tui_term_want_color(bool no_color) {
    const char *nc = getenv("NO_COLOR");
    const char *term = getenv("TERM");
    if (no_color || (nc && *nc)) return false;
    if (term && !strcmp(term, "dumb")) return false;
    return true;
}

bool tui_term_locale_utf8(void) {
    const char *cs = nl_langinfo(CODESET);
    return cs && (!strcmp(cs, "UTF-8") || !strcmp(cs, "utf8"));
}

/* Colour pairs by role: foreground on the terminal's own background. */
static void init_colors(void) {
    start_color();
    use_default_colors();
    static const short fg[TUI_COLOR_COUNT] = {
        [TUI_COLOR_DEFAULT] = -1,        [TUI_COLOR_H2D] = COLOR_GREEN,  [TUI_COLOR_KERNEL] = COLOR_MAGENTA,
        [TUI_COLOR_D2H] = COLOR_YELLOW,  [TUI_COLOR_MEMSET] = COLOR_CYAN, [TUI_COLOR_SYNC] = COLOR_RED,
        [TUI_COLOR_HOSTFN] = COLOR_BLUE, [TUI_COLOR_API] = COLOR_WHITE,   [TUI_COLOR_RACE] = COLOR_RED,
        [TUI_COLOR_TITLE] = COLOR_CYAN,  [TUI_COLOR_PASS] = COLOR_GREEN,  [TUI_COLOR_FAIL] = COLOR_RED,
        [TUI_COLOR_WARN] = COLOR_YELLOW, [TUI_COLOR_DIM] = -1,            [TUI_COLOR_SELECT] = COLOR_WHITE,
    };
    for (short i = 1; i < TUI_COLOR_COUNT && i < COLOR_PAIRS; i++) init_pair(i, fg[i], -1);
}

static tui_term *finish_open(tui_term *t, bool no_color, char *err, size_t err_size) {
    char *cup = tigetstr("cup");
    if (!cup || cup == (char *)-1) {
        endwin();
        delscreen(t->screen);
        snprintf(err, err_size, "this terminal (TERM=%s) cannot move the cursor; run the timeline in a terminal "
                                "such as xterm, or use `bazel run //labs:NN_topic` for the text timeline",
                 getenv("TERM") ? getenv("TERM") : "");
        free(t);
        return NULL;
    }
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    curs_set(0);
    set_escdelay(25);
    mousemask(BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
    mouseinterval(0);
    t->utf8 = tui_term_locale_utf8();
    t->color = tui_term_want_color(no_color) && has_colors();
    if (t->color) init_colors();
    return t;
}

tui_term *tui_term_open(bool no_color, char *err, size_t err_size) {
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        snprintf(err, err_size, "the timeline needs a terminal (stdin and stdout are not one)");
        return NULL;
    }
    const char *type = getenv("TERM");
    if (!type || !*type) {
        snprintf(err, err_size, "TERM is not set, so the terminal type is unknown");
        return NULL;
    }
    tui_term *t = calloc(1, sizeof(*t));
    if (!t) {
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    t->screen = newterm(NULL, stdout, stdin);
    if (!t->screen) {
        snprintf(err, err_size, "could not open the terminal (TERM=%s unknown to ncurses?)", type);
        free(t);
        return NULL;
    }
    set_term(t->screen);
    t->fd_in = STDIN_FILENO;
    t->own_terminal = true;
    if (!finish_open(t, no_color, err, err_size)) return NULL;
    arm_fatal_restore(STDOUT_FILENO);
    return t;
}

tui_term *tui_term_open_stream(FILE *out, FILE *in, const char *term_type, int cols, int rows, bool no_color,
                               char *err, size_t err_size) {
    tui_term *t = calloc(1, sizeof(*t));
    if (!t) {
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    t->screen = newterm(term_type, out, in);
    if (!t->screen) {
        snprintf(err, err_size, "could not open a %s terminal", term_type);
        free(t);
        return NULL;
    }
    set_term(t->screen);
    t->fd_in = fileno(in);
    if (!finish_open(t, no_color, err, err_size)) return NULL;
    resizeterm(rows, cols);
    return t;
}

void tui_term_close(tui_term *t) {
    if (!t) return;
    set_term(t->screen);
    endwin();
    delscreen(t->screen);
    if (t->own_terminal) RESTORE.armed = 0;
    free(t);
}

bool tui_term_color(const tui_term *t) { return t->color; }
bool tui_term_utf8(const tui_term *t) { return t->utf8; }
int tui_term_fd(const tui_term *t) { return t->fd_in; }

void tui_term_size(const tui_term *t, int *cols, int *rows) {
    set_term(t->screen);
    *cols = COLS;
    *rows = LINES;
}

void tui_term_blit(tui_term *t, const tui_screen *s, bool full) {
    set_term(t->screen);
    if (full) clearok(curscr, TRUE);
    int rows = s->rows < LINES ? s->rows : LINES, cols = s->cols < COLS ? s->cols : COLS;
    for (int y = 0; y < rows; y++) {
        for (int x = 0; x < cols; x++) {
            const tui_cell *c = tui_screen_cell(s, x, y);
            wchar_t wc[2] = {(wchar_t)c->ch, 0};
            if (c->ch > 0x7E && (!t->utf8 || wcwidth((wchar_t)c->ch) != 1)) wc[0] = '?';
            attr_t a = 0;
            if (c->attr & TUI_ATTR_BOLD) a |= A_BOLD;
            if (c->attr & TUI_ATTR_REVERSE) a |= A_REVERSE;
            if (c->attr & TUI_ATTR_UNDERLINE) a |= A_UNDERLINE;
            if ((c->attr & TUI_ATTR_DIM) || (!t->color && c->color == TUI_COLOR_DIM)) a |= A_DIM;
            short pair = t->color ? (short)c->color : 0;
            if (!t->color && c->color == TUI_COLOR_SELECT) a |= A_REVERSE;
            cchar_t cc;
            setcchar(&cc, wc, a, pair, NULL);
            mvadd_wch(y, x, &cc);
        }
    }
    wnoutrefresh(stdscr);
    doupdate();
}

int tui_term_read(tui_term *t, tui_input *in) {
    set_term(t->screen);
    memset(in, 0, sizeof(*in));
    for (;;) {
        wint_t wch;
        int rc = wget_wch(stdscr, &wch);
        if (rc == ERR) return 0;
        in->type = TUI_INPUT_KEY;
        if (rc == OK) {
            in->key = wch == '\r' ? TUI_KEY_ENTER : (int)wch;
            return 1;
        }
        switch (wch) {
        case KEY_UP: in->key = TUI_KEY_UP; return 1;
        case KEY_DOWN: in->key = TUI_KEY_DOWN; return 1;
        case KEY_LEFT: in->key = TUI_KEY_LEFT; return 1;
        case KEY_RIGHT: in->key = TUI_KEY_RIGHT; return 1;
        case KEY_SLEFT: in->key = TUI_KEY_SHIFT_LEFT; return 1;
        case KEY_SRIGHT: in->key = TUI_KEY_SHIFT_RIGHT; return 1;
        case KEY_PPAGE: in->key = TUI_KEY_PAGE_UP; return 1;
        case KEY_NPAGE: in->key = TUI_KEY_PAGE_DOWN; return 1;
        case KEY_HOME: in->key = TUI_KEY_HOME; return 1;
        case KEY_END: in->key = TUI_KEY_END; return 1;
        case KEY_BTAB: in->key = TUI_KEY_BACKTAB; return 1;
        case KEY_ENTER: in->key = TUI_KEY_ENTER; return 1;
        case KEY_RESIZE: in->type = TUI_INPUT_RESIZE; return 1;
        case KEY_MOUSE: {
            MEVENT ev;
            if (getmouse(&ev) != OK) continue;
            in->x = ev.x;
            in->y = ev.y;
            if (ev.bstate & BUTTON4_PRESSED) {
                in->type = TUI_INPUT_WHEEL;
                in->up = true;
                return 1;
            }
            if (ev.bstate & BUTTON5_PRESSED) {
                in->type = TUI_INPUT_WHEEL;
                in->up = false;
                return 1;
            }
            if (ev.bstate & BUTTON1_PRESSED) {
                in->type = TUI_INPUT_CLICK;
                return 1;
            }
            continue;
        }
        default: continue; /* a key the timeline does not use */
        }
    }
}
