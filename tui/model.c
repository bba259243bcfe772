/* tui/model.c: the view state and what keys do to it (see model.h). */
#include "tui/model.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The narrowest window: 100 ns across the whole width. */
#define MIN_WINDOW_NS 100.0

void tui_model_init(tui_model *m, const tui_catalog *catalog, tui_history *history) {
    memset(m, 0, sizeof(*m));
    m->catalog = catalog;
    m->history = history;
    m->mode = TUI_MODE_PICKER;
    m->lab = -1;
    m->follow = true;
    m->w1 = 1;
    m->color = true;
    m->utf8 = true;
}

void tui_model_open_lab(tui_model *m, int index, tui_session *yours, tui_session *reference) {
    m->mode = TUI_MODE_TIMELINE;
    m->lab = index;
    snprintf(m->lab_id, sizeof(m->lab_id), "%s",
             m->catalog && index >= 0 && (size_t)index < m->catalog->n ? m->catalog->labs[index].id
             : yours                                                 ? yours->lab
                                                                     : "");
    m->sessions[TUI_YOURS] = yours;
    m->sessions[TUI_REFERENCE] = reference;
    m->front = TUI_YOURS;
    m->compare = false;
    m->baseline = false;
    m->overlay = TUI_OVERLAY_NONE;
    m->lane_cursor = 0;
    memset(m->lane_scroll, 0, sizeof(m->lane_scroll));
    memset(&m->sel, 0, sizeof(m->sel));
    tui_model_fit(m);
}

static tui_run *shown_run(const tui_model *m, const tui_session *s) {
    if (!s) return NULL;
    return tui_session_latest(s, m->baseline ? TUI_ROLE_BASELINE : TUI_ROLE_YOURS);
}

int tui_model_panes(const tui_model *m, tui_pane out[TUI_VARIANTS]) {
    int n = 0;
    for (int v = 0; v < TUI_VARIANTS; v++) {
        if (!m->compare && v != (int)m->front) continue;
        out[n].variant = (tui_variant)v;
        out[n].session = m->sessions[v];
        out[n].run = shown_run(m, m->sessions[v]);
        n++;
    }
    return n;
}

double tui_model_data_span(const tui_model *m) {
    tui_pane p[TUI_VARIANTS];
    int n = tui_model_panes(m, p);
    double span = 0;
    for (int i = 0; i < n; i++)
        if (p[i].run && p[i].run->any) {
            double s = (double)(p[i].run->t1_ns - p[i].run->t0_ns);
            if (s > span) span = s;
        }
    return span > 1 ? span : 1;
}

static double metrics_interval(const tui_session *s, const tui_run *run) {
    if (!(s && s->state == TUI_SESSION_RUNNING)) return 0;
    double adaptive = 10 * run->metrics_cost_ms;
    return adaptive > TUI_METRICS_INTERVAL_MS ? adaptive : TUI_METRICS_INTERVAL_MS;
}

const trace_metrics *tui_model_metrics(const tui_model *m, const tui_session *s, tui_run *run) {
    if (!run) return NULL;
    if (m->defer_metrics && run->have_metrics) return &run->metrics;
    return tui_run_metrics(run, m->now_ms, metrics_interval(s, run));
}

bool tui_model_refresh(tui_model *m, bool force) {
    if (m->mode != TUI_MODE_TIMELINE) return false;
    tui_pane p[TUI_VARIANTS];
    int n = tui_model_panes(m, p);
    bool any = false;
    for (int i = 0; i < n; i++) {
        tui_run *run = p[i].run;
        if (!run || !tui_run_metrics_stale(run)) continue;
        tui_run_metrics(run, m->now_ms, force ? 0 : metrics_interval(p[i].session, run));
        any |= !tui_run_metrics_stale(run);
    }
    return any;
}

void tui_model_settle(tui_model *m) {
    double span = tui_model_data_span(m);
    if (m->follow) {
        m->w0 = 0;
        m->w1 = span;
        return;
    }
    double win = m->w1 - m->w0;
    if (!(win > 0) || !isfinite(win)) win = span;
    if (win < MIN_WINDOW_NS) win = MIN_WINDOW_NS;
    if (win >= span) {
        m->follow = true;
        m->w0 = 0;
        m->w1 = span;
        return;
    }
    if (!(m->w0 >= 0)) m->w0 = 0;
    if (m->w0 > span - win) m->w0 = span - win;
    m->w1 = m->w0 + win;
}

void tui_model_zoom(tui_model *m, double factor, double at) {
    tui_model_settle(m);
    double win = m->w1 - m->w0;
    double nwin = win * factor;
    if (nwin < MIN_WINDOW_NS) nwin = MIN_WINDOW_NS;
    if (!(at >= m->w0 && at <= m->w1)) at = (m->w0 + m->w1) / 2;
    double f = nwin / win;
    m->w0 = at - (at - m->w0) * f;
    m->w1 = m->w0 + nwin;
    m->follow = false;
    tui_model_settle(m);
}

void tui_model_pan(tui_model *m, double fraction) {
    tui_model_settle(m);
    if (m->follow) return; /* everything is on screen already */
    double win = m->w1 - m->w0, span = tui_model_data_span(m);
    double w0 = m->w0 + win * fraction;
    if (w0 > span - win) w0 = span - win;
    if (w0 < 0) w0 = 0;
    m->w0 = w0;
    m->w1 = w0 + win;
}

void tui_model_fit(tui_model *m) {
    m->follow = true;
    tui_model_settle(m);
}

void tui_model_say(tui_model *m, bool error, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->message, sizeof(m->message), fmt, ap);
    va_end(ap);
    m->message_error = error;
    m->message_ms = m->now_ms;
}

/* ---- lanes and bars --------------------------------------------------------------------- */

/* The lane under the cursor: its pane and lane. False when there are no lanes. */
static bool cursor_lane(tui_model *m, tui_pane *pane_out, tui_lane **lane_out) {
    tui_pane p[TUI_VARIANTS];
    int n = tui_model_panes(m, p);
    size_t total = 0;
    for (int i = 0; i < n; i++) total += p[i].run ? tui_run_lanes(p[i].run, NULL, 0) : 0;
    if (total == 0) return false;
    if (m->lane_cursor < 0) m->lane_cursor = 0;
    if ((size_t)m->lane_cursor >= total) m->lane_cursor = (int)total - 1;
    size_t at = (size_t)m->lane_cursor;
    for (int i = 0; i < n; i++) {
        size_t k = p[i].run ? tui_run_lanes(p[i].run, NULL, 0) : 0;
        if (at < k) {
            tui_lane **lanes = malloc(k * sizeof(tui_lane *));
            if (!lanes) return false;
            tui_run_lanes(p[i].run, lanes, k);
            *pane_out = p[i];
            *lane_out = lanes[at];
            free(lanes);
            return true;
        }
        at -= k;
    }
    return false;
}

static bool selection_on(const tui_model *m, const tui_pane *pane, const tui_lane *lane) {
    return m->sel.on && pane->run && m->sel.variant == pane->variant && m->sel.run == pane->run->number &&
           m->sel.is_stream == lane->is_stream &&
           (lane->is_stream ? m->sel.stream == lane->stream
                            : m->sel.engine == lane->engine && m->sel.device == lane->device &&
                                  m->sel.dst_device == lane->dst_device);
}

void tui_model_select(tui_model *m, const tui_pane *pane, const tui_lane *lane, const tui_bar *bar) {
    m->sel.on = true;
    m->sel.variant = pane->variant;
    m->sel.run = pane->run->number;
    m->sel.is_stream = lane->is_stream;
    m->sel.engine = lane->engine;
    m->sel.device = lane->device;
    m->sel.dst_device = lane->dst_device;
    m->sel.stream = lane->stream;
    m->sel.start_ns = bar->start_ns;
    m->sel.id = bar->id;
    /* Bring it on screen, keeping the zoom. */
    tui_model_settle(m);
    double a = (double)(bar->start_ns - pane->run->t0_ns), b = (double)(bar->end_ns - pane->run->t0_ns);
    if (b < m->w0 || a > m->w1) {
        double win = m->w1 - m->w0;
        m->w0 = (a + b) / 2 - win / 2;
        m->w1 = m->w0 + win;
        m->follow = false;
        tui_model_settle(m);
    }
}

bool tui_model_selected(const tui_model *m, const tui_pane *pane, const tui_lane *lane, const tui_bar *bar) {
    return selection_on(m, pane, lane) && m->sel.start_ns == bar->start_ns && m->sel.id == bar->id;
}

/* Tab / Shift-Tab: the next or previous bar on the cursor's lane. */
static void step_bar(tui_model *m, int dir) {
    tui_pane pane;
    tui_lane *lane;
    if (!cursor_lane(m, &pane, &lane) || lane->n == 0) return;
    long i;
    if (selection_on(m, &pane, lane) && (i = tui_lane_find(lane, m->sel.start_ns, m->sel.id)) >= 0) {
        i += dir;
        if (i < 0 || (size_t)i >= lane->n) return;
    } else {
        tui_model_settle(m);
        uint64_t from = pane.run->t0_ns + (uint64_t)(m->w0 > 0 ? m->w0 : 0);
        i = (long)tui_lane_first_reaching(lane, from);
        while ((size_t)i < lane->n && lane->bars[i].end_ns < from) i++;
        if ((size_t)i >= lane->n) i = (long)lane->n - 1;
    }
    tui_model_select(m, &pane, lane, &lane->bars[i]);
}

/* Enter: the selected bar's details; with none on the cursor's lane, the bar nearest the
 * middle of the window is selected first. */
static void details(tui_model *m) {
    tui_pane pane;
    tui_lane *lane;
    if (!cursor_lane(m, &pane, &lane) || lane->n == 0) {
        tui_model_say(m, false, "no bar to show: move to a lane with ↑/↓ and pick a bar with Tab");
        return;
    }
    if (!selection_on(m, &pane, lane) || tui_lane_find(lane, m->sel.start_ns, m->sel.id) < 0) {
        tui_model_settle(m);
        uint64_t mid = pane.run->t0_ns + (uint64_t)((m->w0 + m->w1) / 2);
        size_t best = 0;
        uint64_t best_d = UINT64_MAX;
        for (size_t i = tui_lane_first_reaching(lane, pane.run->t0_ns + (uint64_t)m->w0); i < lane->n; i++) {
            const tui_bar *b = &lane->bars[i];
            uint64_t d = mid < b->start_ns ? b->start_ns - mid : mid > b->end_ns ? mid - b->end_ns : 0;
            if (d < best_d) {
                best_d = d;
                best = i;
            }
            if (b->start_ns > mid) break;
        }
        tui_model_select(m, &pane, lane, &lane->bars[best]);
    }
    m->overlay = TUI_OVERLAY_DETAILS;
    m->overlay_scroll = 0;
}

/* ---- keys ---------------------------------------------------------------------------------- */

static tui_request run_variant(tui_model *m, tui_variant v) {
    m->run_mask = 1u << v;
    return TUI_REQUEST_RUN;
}

static tui_request picker_key(tui_model *m, int key) {
    int n = m->catalog ? (int)m->catalog->n : 0;
    switch (key) {
    case 'q':
    case 'Q': return TUI_REQUEST_QUIT;
    case TUI_KEY_UP:
    case 'k':
        if (m->picker_cursor > 0) m->picker_cursor--;
        break;
    case TUI_KEY_DOWN:
    case 'j':
        if (m->picker_cursor + 1 < n) m->picker_cursor++;
        break;
    case TUI_KEY_HOME: m->picker_cursor = 0; break;
    case TUI_KEY_END: m->picker_cursor = n > 0 ? n - 1 : 0; break;
    case TUI_KEY_ENTER:
    case '\r':
    case ' ':
        if (n > 0) return TUI_REQUEST_OPEN;
        break;
    case '?': m->overlay = m->overlay == TUI_OVERLAY_HELP ? TUI_OVERLAY_NONE : TUI_OVERLAY_HELP; break;
    case TUI_KEY_ESC: m->overlay = TUI_OVERLAY_NONE; break;
    default: break;
    }
    return TUI_REQUEST_NONE;
}

/* Keys an open panel takes for itself. True when the key was used. */
static bool overlay_key(tui_model *m, int key) {
    switch (key) {
    case TUI_KEY_ESC:
    case TUI_KEY_ENTER:
    case '\r':
        m->overlay = TUI_OVERLAY_NONE;
        return true;
    case TUI_KEY_UP:
    case 'k':
        if (m->overlay_scroll > 0) m->overlay_scroll--;
        return true;
    case TUI_KEY_DOWN:
    case 'j': m->overlay_scroll++; return true;
    case TUI_KEY_PAGE_UP: m->overlay_scroll = m->overlay_scroll > 10 ? m->overlay_scroll - 10 : 0; return true;
    case TUI_KEY_PAGE_DOWN: m->overlay_scroll += 10; return true;
    case '?':
    case 'o':
        if ((key == '?' && m->overlay == TUI_OVERLAY_HELP) || (key == 'o' && m->overlay == TUI_OVERLAY_OUTPUT)) {
            m->overlay = TUI_OVERLAY_NONE;
            return true;
        }
        return false;
    default: return false;
    }
}

tui_request tui_model_key(tui_model *m, int key) {
    if (m->mode == TUI_MODE_PICKER) return picker_key(m, key);
    if (m->overlay != TUI_OVERLAY_NONE) {
        if (overlay_key(m, key)) return TUI_REQUEST_NONE;
        m->overlay = TUI_OVERLAY_NONE;
    }
    switch (key) {
    case 'q':
    case 'Q': return TUI_REQUEST_QUIT;
    case '?':
        m->overlay = TUI_OVERLAY_HELP;
        m->overlay_scroll = 0;
        break;
    case 'o':
        /* Opens at the end: the report's verdict and the reason for a failure are last. */
        m->overlay = TUI_OVERLAY_OUTPUT;
        m->overlay_scroll = 1 << 30;
        break;
    case 'r':
        if (m->compare) {
            m->run_mask = (1u << TUI_YOURS) | (1u << TUI_REFERENCE);
            return TUI_REQUEST_RUN;
        }
        return run_variant(m, m->front);
    case 's': {
        m->compare = false;
        m->front = m->front == TUI_YOURS ? TUI_REFERENCE : TUI_YOURS;
        m->lane_cursor = 0;
        const tui_session *s = m->sessions[m->front];
        if (s && s->state == TUI_SESSION_IDLE) return run_variant(m, m->front);
        break;
    }
    case 'c': {
        m->compare = !m->compare;
        m->lane_cursor = 0;
        if (!m->compare) break;
        m->run_mask = 0;
        for (int v = 0; v < TUI_VARIANTS; v++)
            if (m->sessions[v] && m->sessions[v]->state == TUI_SESSION_IDLE) m->run_mask |= 1u << v;
        if (m->run_mask) return TUI_REQUEST_RUN;
        break;
    }
    case 'b':
        m->baseline = !m->baseline;
        m->lane_cursor = 0;
        tui_model_say(m, false, "%s", m->baseline ? "showing the latest baseline run (b: back to yours)"
                                                  : "showing the latest of your runs");
        break;
    case '+':
    case '=': tui_model_zoom(m, 0.5, NAN); break;
    case '-':
    case '_': tui_model_zoom(m, 2.0, NAN); break;
    case TUI_KEY_LEFT: tui_model_pan(m, -0.125); break;
    case TUI_KEY_RIGHT: tui_model_pan(m, 0.125); break;
    case TUI_KEY_SHIFT_LEFT:
    case TUI_KEY_PAGE_UP: tui_model_pan(m, -0.5); break;
    case TUI_KEY_SHIFT_RIGHT:
    case TUI_KEY_PAGE_DOWN: tui_model_pan(m, 0.5); break;
    case TUI_KEY_HOME: tui_model_pan(m, -1e18); break;
    case TUI_KEY_END: tui_model_pan(m, 1e18); break;
    case 'f': tui_model_fit(m); break;
    case TUI_KEY_UP:
    case 'k':
        if (m->lane_cursor > 0) m->lane_cursor--;
        break;
    case TUI_KEY_DOWN:
    case 'j': m->lane_cursor++; break; /* clamped when drawn */
    case TUI_KEY_TAB:
    case 'n': step_bar(m, +1); break;
    case TUI_KEY_BACKTAB:
    case 'p': step_bar(m, -1); break;
    case TUI_KEY_ENTER:
    case '\r': details(m); break;
    case 't': return TUI_REQUEST_EXPORT;
    case 'l':
        m->mode = TUI_MODE_PICKER;
        m->overlay = TUI_OVERLAY_NONE;
        break;
    case TUI_KEY_ESC: break;
    default: break;
    }
    return TUI_REQUEST_NONE;
}
