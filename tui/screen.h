/* tui/screen.h: the virtual screen the timeline is drawn into: a grid of cells, each one
 * code point (one column wide) with a colour role and attributes. Everything the TUI shows
 * is drawn here first, with no ncurses: the terminal layer (term.h) copies the grid to the
 * real screen, and the tests read it back as text. */
#ifndef STREAMLAB_TUI_SCREEN_H
#define STREAMLAB_TUI_SCREEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a cell's colour means; the terminal layer gives each role one colour pair. */
typedef enum tui_color {
    TUI_COLOR_DEFAULT = 0,
    TUI_COLOR_H2D,
    TUI_COLOR_KERNEL,
    TUI_COLOR_D2H,
    TUI_COLOR_MEMSET,
    TUI_COLOR_SYNC,
    TUI_COLOR_HOSTFN,
    TUI_COLOR_API,
    TUI_COLOR_RACE,
    TUI_COLOR_TITLE,   /* the header and pane titles */
    TUI_COLOR_PASS,
    TUI_COLOR_FAIL,
    TUI_COLOR_WARN,
    TUI_COLOR_DIM,     /* axis, labels of secondary things */
    TUI_COLOR_SELECT,  /* the selected bar */
    TUI_COLOR_COUNT
} tui_color;

#define TUI_ATTR_BOLD 0x1u
#define TUI_ATTR_REVERSE 0x2u
#define TUI_ATTR_UNDERLINE 0x4u
#define TUI_ATTR_DIM 0x8u

typedef struct tui_cell {
    uint32_t ch;    /* a Unicode code point drawn one column wide */
    uint8_t color;  /* tui_color */
    uint8_t attr;   /* TUI_ATTR_* */
} tui_cell;

typedef struct tui_screen {
    int cols, rows;
    tui_cell *cells; /* rows * cols, row-major */
} tui_screen;

/* A screen of cols x rows blank cells (at least 1 x 1). NULL when out of memory. */
tui_screen *tui_screen_create(int cols, int rows);
void tui_screen_destroy(tui_screen *s);
/* Changes the size; the content is cleared. Returns 0, or -1 when out of memory (the
 * screen is then unchanged). */
int tui_screen_resize(tui_screen *s, int cols, int rows);
/* Every cell blank (space, default colour, no attributes). */
void tui_screen_clear(tui_screen *s);

/* The cell at (x, y), or NULL outside the screen. */
tui_cell *tui_screen_at(tui_screen *s, int x, int y);
const tui_cell *tui_screen_cell(const tui_screen *s, int x, int y);
/* Sets one cell; outside the screen nothing happens. */
void tui_screen_put(tui_screen *s, int x, int y, uint32_t ch, tui_color color, unsigned attr);
/* Fills columns [x, x + n) of row y with ch. */
void tui_screen_fill(tui_screen *s, int x, int y, int n, uint32_t ch, tui_color color, unsigned attr);
/* Draws UTF-8 text from (x, y), at most max columns (max < 0: to the right edge), one
 * column per code point. Control characters and invalid UTF-8 show as '?'. Returns the
 * columns written. */
int tui_screen_text(tui_screen *s, int x, int y, int max, const char *utf8, tui_color color, unsigned attr);
/* Like tui_screen_text, but printf-formatted. */
int tui_screen_printf(tui_screen *s, int x, int y, int max, tui_color color, unsigned attr, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));

/* Row y as UTF-8 (trailing spaces kept), NUL-terminated, into buf. Returns the bytes
 * written (without the NUL), or 0 when y is outside the screen. At most 4 bytes a cell. */
size_t tui_screen_row_text(const tui_screen *s, int y, char *buf, size_t size);
/* The whole screen as UTF-8 lines, trailing spaces removed, each ending in '\n'. The
 * caller frees it. NULL when out of memory. */
char *tui_screen_dump(const tui_screen *s);
/* The first row (from `from`) containing needle, or -1. */
int tui_screen_find_row(const tui_screen *s, const char *needle, int from);

/* Decodes one UTF-8 code point from s (at most n bytes): the code point, and in *len the
 * bytes used (1 for an invalid byte, which decodes as U+FFFD). */
uint32_t tui_utf8_decode(const char *s, size_t n, size_t *len);
/* Encodes ch into out (at least 5 bytes, NUL-terminated). Returns the bytes written. */
size_t tui_utf8_encode(uint32_t ch, char *out);
/* Columns of a UTF-8 string drawn by tui_screen_text (one per code point). */
size_t tui_utf8_columns(const char *s);

#ifdef __cplusplus
}
#endif

#endif
