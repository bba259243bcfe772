/* tui/layout.h: where everything goes on a screen of a given size: the two header rows,
 * each pane's title row and lane rows, the label, bar and busy-% columns, the time axis,
 * the legend, the key footer and the status line. Also what is under a mouse position.
 *
 *   row 0      streamlab · lab · yours · backend · run            ? help
 *   row 1      makespan · speedup (target) verdict · overlap · races · engines busy
 *   per pane   ── title ──────────────────────────────────────────
 *              lanes: label | bars | busy %
 *   rows-4     time axis
 *   rows-3     legend
 *   rows-2     keys
 *   rows-1     status line
 * With a notice (the model's: lab.c is newer than its build), the axis, legend and keys move
 * up a row and the notice is on rows-2, above the status line.
 */
#ifndef STREAMLAB_TUI_LAYOUT_H
#define STREAMLAB_TUI_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>

#include "tui/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The smallest screen the timeline is drawn on; below it, a message asks for room. */
#define TUI_MIN_COLS 60
#define TUI_MIN_ROWS 16

typedef struct tui_pane_layout {
    tui_pane pane;
    int title_row;
    int lane_top, lane_rows; /* rows for lanes */
    size_t n_lanes;          /* lanes the run has: lanes[0 .. n_lanes) */
    tui_lane **lanes;
    size_t first_lane;       /* the shown ones: lanes[first_lane .. first_lane + n_shown) */
    size_t n_shown;
    int cursor_base;         /* model lane_cursor of this pane's first lane */
} tui_pane_layout;

typedef struct tui_layout {
    int cols, rows;
    bool too_small;
    int label_w;             /* lane label column */
    int bar_x, bar_w;        /* the bars' columns */
    int pct_x;               /* the busy-% column */
    int axis_row, legend_row, footer_row, status_row;
    int notice_row;          /* -1 when there is no notice */
    int n_panes;
    tui_pane_layout panes[TUI_VARIANTS];
    double w0, w1;           /* the window (ns from each run's first op) */
} tui_layout;

/* Lays out the model on cols x rows. Settles the model's window and keeps its lane cursor
 * in range and on screen (scrolling the pane). Free with tui_layout_free. */
void tui_layout_compute(tui_layout *L, tui_model *m, int cols, int rows);
void tui_layout_free(tui_layout *L);

/* The time (ns from the run's first op) at the left edge of bar column c, and the column
 * of time t (may be outside 0 .. bar_w). */
double tui_layout_time_at(const tui_layout *L, double c);
double tui_layout_column_of(const tui_layout *L, double t);

/* What is at screen position (x, y): a pane and lane (index into the pane's shown lanes),
 * and the time under x when it is over the bars. False when it is not on a lane. */
typedef struct tui_hit {
    int pane;
    size_t lane;   /* index into panes[pane].lanes (all of the run's lanes) */
    bool on_bars;
    double t;      /* ns from the run's first op */
} tui_hit;
bool tui_layout_hit(const tui_layout *L, int x, int y, tui_hit *out);

/* A click at (x, y): moves the lane cursor there and, over a bar, selects it and opens
 * its details. Returns true when something changed. */
bool tui_layout_click(const tui_layout *L, tui_model *m, int x, int y);
/* The mouse wheel at (x, y): zooms in (up) or out (down) around the time under x. */
void tui_layout_wheel(const tui_layout *L, tui_model *m, int x, int y, bool up);

#ifdef __cplusplus
}
#endif

#endif
