/* tui/term.h: the only file that speaks ncurses. It opens the terminal (the wide-character
 * API, so UTF-8 glyphs draw; colours when the terminal has them and the user has not
 * asked for none), copies a virtual screen to it, and turns keys, mouse clicks, the
 * wheel and resizes into input events. Closing it (also from SIGINT/SIGTERM handling in
 * the loop, and from a fatal signal in the TUI itself) restores the terminal. */
#ifndef STREAMLAB_TUI_TERM_H
#define STREAMLAB_TUI_TERM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "tui/screen.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tui_term tui_term;

typedef enum tui_input_type {
    TUI_INPUT_KEY = 1, /* key: a tui key (model.h) */
    TUI_INPUT_CLICK,   /* x, y */
    TUI_INPUT_WHEEL,   /* x, y, up */
    TUI_INPUT_RESIZE
} tui_input_type;

typedef struct tui_input {
    tui_input_type type;
    int key;
    int x, y;
    bool up;
} tui_input;

/* Whether colours are wanted: not when no_color (--no-color), NO_COLOR is set to anything
 * non-empty, or TERM is dumb. (The terminal must also have them.) */
bool tui_term_want_color(bool no_color);
/* Whether the locale's character set is UTF-8 (after setlocale). */
bool tui_term_locale_utf8(void);

/* Opens the controlling terminal on stdin/stdout. NULL with a message in err when stdin or
 * stdout is not a terminal or the terminal cannot be driven (TERM unknown, or dumb). */
tui_term *tui_term_open(bool no_color, char *err, size_t err_size);
/* Opens a terminal of type term_type writing to out (a benchmark measures the real cost
 * of drawing this way, into /dev/null). */
tui_term *tui_term_open_stream(FILE *out, FILE *in, const char *term_type, int cols, int rows, bool no_color,
                               char *err, size_t err_size);
/* Restores the terminal and frees. NULL is fine. */
void tui_term_close(tui_term *t);

bool tui_term_color(const tui_term *t);
bool tui_term_utf8(const tui_term *t);
void tui_term_size(const tui_term *t, int *cols, int *rows);
/* The descriptor to poll for input. */
int tui_term_fd(const tui_term *t);

/* Copies the screen to the terminal and shows it. full: repaint everything (after a
 * resize). */
void tui_term_blit(tui_term *t, const tui_screen *s, bool full);
/* The next input event, if one is waiting: 1 with *in filled, 0 when none. */
int tui_term_read(tui_term *t, tui_input *in);

#ifdef __cplusplus
}
#endif

#endif
