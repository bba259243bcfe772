/* tui/textlog.h: the last lines a child process wrote on stdout and stderr, kept so that
 * the timeline can show them (the output panel, and the status line when the lab fails)
 * instead of letting the child draw over the screen. Bounded: old lines are dropped, and
 * a line longer than TUI_TEXTLOG_LINE is cut. */
#ifndef STREAMLAB_TUI_TEXTLOG_H
#define STREAMLAB_TUI_TEXTLOG_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TUI_TEXTLOG_LINES 400
#define TUI_TEXTLOG_LINE 512

typedef struct tui_textlog {
    char lines[TUI_TEXTLOG_LINES][TUI_TEXTLOG_LINE];
    size_t first, count;          /* a ring of complete lines */
    char partial[TUI_TEXTLOG_LINE];
    size_t partial_len;
} tui_textlog;

void tui_textlog_clear(tui_textlog *log);
/* Adds bytes as they come; lines end at '\n' ('\r' is dropped). */
void tui_textlog_feed(tui_textlog *log, const char *bytes, size_t n);
/* The writer is done: a last line without '\n' becomes a line. */
void tui_textlog_flush(tui_textlog *log);
/* Complete lines kept, and the i-th of them (0 is the oldest kept). */
size_t tui_textlog_count(const tui_textlog *log);
const char *tui_textlog_line(const tui_textlog *log, size_t i);
/* The last line that is not blank, or NULL. */
const char *tui_textlog_last(const tui_textlog *log);

#ifdef __cplusplus
}
#endif

#endif
