/* tui/draw.h: draws the model into a virtual screen (screen.h) following a layout
 * (layout.h): the header with the live metrics and verdict, one row per lane with its
 * bars binned into columns (each column shows the kind that covers most of it; races and
 * the selection marked), the time axis with units, the legend, the keys, the status line,
 * and the panels (help, a bar's details, the lab's output), or the lab picker, or a
 * request for a larger terminal. No ncurses: term.h copies the result to the terminal. */
#ifndef STREAMLAB_TUI_DRAW_H
#define STREAMLAB_TUI_DRAW_H

#include <stddef.h>

#include "tui/layout.h"
#include "tui/model.h"
#include "tui/screen.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Draws everything (the screen is cleared first). The layout must be of this model and
 * this screen's size. */
void tui_draw(tui_screen *s, tui_model *m, const tui_layout *L);

/* Draws the bars of one lane into row y, columns [L->bar_x, L->bar_x + L->bar_w). Below
 * 2 bars a column, each bar is drawn on its own (batch numbers inside when they fit, a
 * gap before the next); above, bars are binned per column. */
void tui_draw_lane_bars(tui_screen *s, const tui_model *m, const tui_layout *L, const tui_pane *pane,
                        const tui_lane *lane, int y);

/* The lines of the details panel for the selected bar (NULL-terminated text in
 * lines[i], at most max lines of width columns). Returns how many. */
size_t tui_details_lines(tui_model *m, char (*lines)[256], size_t max, int width);

/* "1.23 ms", "456 us", "12.3 s", "789 ns". */
void tui_format_ns(double ns, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
