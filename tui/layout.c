/* tui/layout.c: rows, columns and hit-testing (see layout.h). */
#include "tui/layout.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PCT_COLS 5 /* " 100%" */
/* Header rows above the panes, and rows below them (axis, legend, keys, status). */
#define HEADER_ROWS 2
#define FOOTER_ROWS 4

void tui_layout_free(tui_layout *L) {
    for (int i = 0; i < L->n_panes; i++) free(L->panes[i].lanes);
    memset(L, 0, sizeof(*L));
}

void tui_layout_compute(tui_layout *L, tui_model *m, int cols, int rows) {
    memset(L, 0, sizeof(*L));
    L->cols = cols;
    L->rows = rows;
    L->too_small = cols < TUI_MIN_COLS || rows < TUI_MIN_ROWS;
    L->label_w = cols <= 120 ? 19 : (cols >= 200 ? 27 : 19 + (cols - 120) / 10);
    L->bar_x = L->label_w + 1;
    L->pct_x = cols - PCT_COLS + 1;
    L->bar_w = cols - PCT_COLS - L->bar_x;
    if (L->bar_w < 1) L->bar_w = 1;
    L->axis_row = rows - 4;
    L->legend_row = rows - 3;
    L->footer_row = rows - 2;
    L->status_row = rows - 1;
    L->notice_row = -1;
    if (m->mode != TUI_MODE_TIMELINE) return;
    int footer_rows = FOOTER_ROWS;
    if (m->notice[0]) {
        footer_rows++;
        L->notice_row = rows - 2;
        L->axis_row = rows - 5;
        L->legend_row = rows - 4;
        L->footer_row = rows - 3;
    }

    tui_model_settle(m);
    L->w0 = m->w0;
    L->w1 = m->w1 > m->w0 ? m->w1 : m->w0 + 1;

    tui_pane panes[TUI_VARIANTS];
    L->n_panes = tui_model_panes(m, panes);
    size_t total = 0;
    for (int i = 0; i < L->n_panes; i++) {
        tui_pane_layout *p = &L->panes[i];
        p->pane = panes[i];
        p->n_lanes = p->pane.run ? tui_run_lanes(p->pane.run, NULL, 0) : 0;
        if (p->n_lanes) {
            p->lanes = malloc(p->n_lanes * sizeof(tui_lane *));
            if (p->lanes)
                tui_run_lanes(p->pane.run, p->lanes, p->n_lanes);
            else
                p->n_lanes = 0;
        }
        p->cursor_base = (int)total;
        total += p->n_lanes;
    }
    if (m->lane_cursor >= (int)total) m->lane_cursor = total ? (int)total - 1 : 0;
    if (m->lane_cursor < 0) m->lane_cursor = 0;

    /* Rows: each pane has a title row; the lane rows are shared out by need. */
    int avail = rows - HEADER_ROWS - footer_rows - L->n_panes;
    if (avail < L->n_panes) avail = L->n_panes;
    int give[TUI_VARIANTS] = {0, 0};
    if (L->n_panes == 1) {
        give[0] = avail;
    } else {
        /* Each pane as many rows as it has lanes, stacked tightly; when they do not both
         * fit, the one that needs less keeps what it needs up to half, the other the rest. */
        int need0 = (int)L->panes[0].n_lanes, need1 = (int)L->panes[1].n_lanes;
        if (need0 < 1) need0 = 1;
        if (need1 < 1) need1 = 1;
        if (need0 + need1 <= avail) {
            give[0] = need0;
            give[1] = need1;
        } else {
            int half = avail / 2;
            give[0] = need0 < half ? need0 : need1 < avail - half ? avail - need1 : half;
            give[1] = avail - give[0];
        }
    }
    int row = HEADER_ROWS;
    for (int i = 0; i < L->n_panes; i++) {
        tui_pane_layout *p = &L->panes[i];
        p->title_row = row++;
        p->lane_top = row;
        p->lane_rows = give[i];
        row += give[i];
        size_t *scroll = &m->lane_scroll[p->pane.variant];
        int local = m->lane_cursor - p->cursor_base;
        if (local >= 0 && (size_t)local < p->n_lanes) {
            if ((size_t)local < *scroll) *scroll = (size_t)local;
            if ((size_t)local >= *scroll + (size_t)p->lane_rows) *scroll = (size_t)local - (size_t)p->lane_rows + 1;
        }
        size_t max_first = p->n_lanes > (size_t)p->lane_rows ? p->n_lanes - (size_t)p->lane_rows : 0;
        if (*scroll > max_first) *scroll = max_first;
        p->first_lane = *scroll;
        p->n_shown = p->n_lanes - p->first_lane;
        if (p->n_shown > (size_t)p->lane_rows) p->n_shown = (size_t)p->lane_rows;
    }
}

double tui_layout_time_at(const tui_layout *L, double c) { return L->w0 + c * (L->w1 - L->w0) / L->bar_w; }

double tui_layout_column_of(const tui_layout *L, double t) { return (t - L->w0) * L->bar_w / (L->w1 - L->w0); }

bool tui_layout_hit(const tui_layout *L, int x, int y, tui_hit *out) {
    if (L->too_small) return false;
    for (int i = 0; i < L->n_panes; i++) {
        const tui_pane_layout *p = &L->panes[i];
        if (y < p->lane_top || y >= p->lane_top + (int)p->n_shown) continue;
        out->pane = i;
        out->lane = p->first_lane + (size_t)(y - p->lane_top);
        out->on_bars = x >= L->bar_x && x < L->bar_x + L->bar_w;
        out->t = out->on_bars ? tui_layout_time_at(L, (double)(x - L->bar_x) + 0.5) : 0;
        return true;
    }
    return false;
}

bool tui_layout_click(const tui_layout *L, tui_model *m, int x, int y) {
    tui_hit h;
    if (!tui_layout_hit(L, x, y, &h)) return false;
    const tui_pane_layout *p = &L->panes[h.pane];
    m->lane_cursor = p->cursor_base + (int)h.lane;
    if (!h.on_bars || !p->pane.run) return true;
    const tui_lane *lane = p->lanes[h.lane];
    /* The bar covering the clicked column; else the nearest within a column. */
    double col_ns = (L->w1 - L->w0) / L->bar_w;
    double lo = tui_layout_time_at(L, x - L->bar_x), hi = lo + col_ns;
    uint64_t t0 = p->pane.run->t0_ns;
    const tui_bar *best = NULL;
    double best_score = -INFINITY;
    uint64_t from = t0 + (uint64_t)(lo - col_ns > 0 ? lo - col_ns : 0);
    for (size_t i = tui_lane_first_reaching(lane, from); i < lane->n; i++) {
        const tui_bar *b = &lane->bars[i];
        double a = (double)(b->start_ns - t0), e = (double)(b->end_ns - t0);
        if (a > hi + col_ns) break;
        double overlap = fmin(e, hi) - fmax(a, lo);
        /* Bars win over spans and markers, as they are drawn. */
        double score = overlap + (double)tui_bar_layer(b) * 4 * col_ns;
        if (overlap > -col_ns && score > best_score) {
            best_score = score;
            best = b;
        }
    }
    if (best) {
        tui_model_select(m, &p->pane, lane, best);
        m->overlay = TUI_OVERLAY_DETAILS;
        m->overlay_scroll = 0;
    }
    return true;
}

void tui_layout_wheel(const tui_layout *L, tui_model *m, int x, int y, bool up) {
    tui_hit h;
    double at = NAN;
    if (tui_layout_hit(L, x, y, &h) && h.on_bars) at = h.t;
    tui_model_zoom(m, up ? 0.5 : 2.0, at);
}
