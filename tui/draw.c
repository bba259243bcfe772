/* tui/draw.c: the whole screen into the virtual screen (see draw.h). */
#include "tui/draw.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/view/metrics.h"

/* Status-line messages (an export, a key with nothing to do) show for this long. */
#define MESSAGE_MS 8000.0

#define BULLET " \xc2\xb7 " /* " · " */

/* ---- small helpers -------------------------------------------------------------------------- */

void tui_format_ns(double ns, char *buf, size_t size) {
    double a = fabs(ns);
    if (a >= 1e9)
        snprintf(buf, size, "%.3g s", ns / 1e9);
    else if (a >= 1e6)
        snprintf(buf, size, "%.3g ms", ns / 1e6);
    else if (a >= 1e3)
        snprintf(buf, size, "%.3g us", ns / 1e3);
    else
        snprintf(buf, size, "%.0f ns", ns);
}

/* Times in the details panel, to the nanosecond where it matters: "2.9003 ms", "89.300 us". */
static void format_ns_precise(double ns, char *buf, size_t size) {
    if (ns >= 1e9)
        snprintf(buf, size, "%.6f s", ns / 1e9);
    else if (ns >= 1e6)
        snprintf(buf, size, "%.4f ms", ns / 1e6);
    else if (ns >= 1e3)
        snprintf(buf, size, "%.3f us", ns / 1e3);
    else
        snprintf(buf, size, "%.0f ns", ns);
}

static void format_bytes(uint64_t b, char *buf, size_t size) {
    if (b >= (1ull << 30))
        snprintf(buf, size, "%.2f GiB", (double)b / (double)(1ull << 30));
    else if (b >= (1ull << 20))
        snprintf(buf, size, "%.2f MiB", (double)b / (double)(1ull << 20));
    else if (b >= 1024)
        snprintf(buf, size, "%.1f KiB", (double)b / 1024.0);
    else
        snprintf(buf, size, "%" PRIu64 " B", b);
}

static uint32_t glyph_or(const tui_model *m, uint32_t utf8, char ascii) { return m->utf8 ? utf8 : (uint32_t)ascii; }

/* Text at x on row y; returns the column after it. */
static int text(tui_screen *s, int x, int y, int max_x, const char *t, tui_color c, unsigned a) {
    if (x >= max_x) return x;
    return x + tui_screen_text(s, x, y, max_x - x, t, c, a);
}

static int columns(const char *t) { return (int)tui_utf8_columns(t); }

/* ---- bars -------------------------------------------------------------------------------------- */

typedef struct span_cols {
    double a, b; /* columns, fractional, not clamped */
} span_cols;

static span_cols cols_of(const tui_layout *L, const tui_run *run, const tui_bar *bar) {
    span_cols c;
    c.a = tui_layout_column_of(L, (double)(bar->start_ns - run->t0_ns));
    c.b = tui_layout_column_of(L, (double)(bar->end_ns - run->t0_ns));
    return c;
}

static void put_bar_cell(tui_screen *s, const tui_model *m, int x, int y, tui_kind kind, bool sparse, bool racy,
                         bool selected, char digit) {
    tui_color color = selected ? TUI_COLOR_SELECT : racy ? TUI_COLOR_RACE : tui_kind_color(kind);
    unsigned attr = selected && !m->color ? TUI_ATTR_REVERSE : 0;
    if (digit) {
        tui_screen_put(s, x, y, (unsigned char)digit, color, m->color ? (attr | TUI_ATTR_REVERSE) : attr);
        return;
    }
    tui_screen_put(s, x, y, tui_kind_glyph(kind, sparse, m->utf8), color, attr);
}

/* How much of each bar column [0, w) the lane's work (H2D, kernel, D2H, memset: what an
 * engine does) covers, as a fraction of the column (ops that overlap on an engine add up).
 * A difference array carries the columns bars cover whole. NULL when out of memory. */
static double *work_coverage(const tui_layout *L, const tui_run *run, const tui_lane *lane, size_t first,
                             size_t end) {
    int w = L->bar_w;
    double *cov = calloc(2 * ((size_t)w + 1), sizeof(double));
    if (!cov) return NULL;
    double *full = cov + (size_t)w + 1;
    for (size_t i = first; i < end; i++) {
        const tui_bar *bar = &lane->bars[i];
        if (!tui_kind_is_work((tui_kind)bar->kind) || bar->end_ns <= bar->start_ns) continue;
        span_cols c = cols_of(L, run, bar);
        double fa = c.a < 0 ? 0 : c.a, fb = c.b > w ? w : c.b;
        if (fb <= 0 || fa >= w || fb <= fa) continue;
        long ca = (long)floor(fa), cb = (long)floor(fb);
        if (ca >= w) ca = w - 1;
        if (ca == cb) {
            cov[ca] += fb - fa;
        } else {
            cov[ca] += (double)(ca + 1) - fa;
            full[ca + 1] += 1;
            full[cb] -= 1;
            if (cb < w) cov[cb] += fb - (double)cb;
        }
    }
    double run_full = 0;
    for (int x = 0; x < w; x++) {
        run_full += full[x];
        cov[x] += run_full;
    }
    return cov;
}

/* Each visible bar on its own, like the text timeline: layers bottom up, later bars over
 * earlier ones, a blank last column on bars of 4 columns or more, batch numbers inside. */
static void paint_bars(tui_screen *s, const tui_model *m, const tui_layout *L, const tui_pane *pane,
                       const tui_lane *lane, int y, size_t first, size_t end) {
    const tui_run *run = pane->run;
    int w = L->bar_w;
    double *busy = work_coverage(L, run, lane, first, end);
    for (int layer = 0; layer < 3; layer++) {
        for (size_t i = first; i < end; i++) {
            const tui_bar *bar = &lane->bars[i];
            if (tui_bar_layer(bar) != layer) continue;
            span_cols c = cols_of(L, run, bar);
            if (c.b < 0 || c.a >= w) continue;
            long a = lround(c.a), b = lround(c.b);
            if (a < 0) a = 0;
            if (a >= w) a = w - 1;
            if (b > w) b = w;
            if (b <= a) b = a + 1;
            if (b - a >= 4 && c.b <= w) b--;
            bool racy = tui_run_is_racy(run, bar->id);
            bool selected = tui_model_selected(m, pane, lane, bar);
            char digits[16] = "";
            size_t nd = 0, at = 0;
            if (bar->batch >= 0) {
                nd = (size_t)snprintf(digits, sizeof(digits), "%" PRId32, bar->batch);
                if ((size_t)(b - a) >= nd + 2)
                    at = (size_t)a + ((size_t)(b - a) - nd) / 2;
                else
                    nd = 0;
            }
            for (long x = a; x < b; x++) {
                char digit = nd && (size_t)x >= at && (size_t)x < at + nd ? digits[(size_t)x - at] : 0;
                bool sparse = busy && busy[x] < TUI_SPARSE;
                put_bar_cell(s, m, L->bar_x + (int)x, y, (tui_kind)bar->kind, sparse, racy, selected, digit);
            }
            if (racy) tui_screen_put(s, L->bar_x + (int)a, y, '!', TUI_COLOR_RACE, TUI_ATTR_BOLD);
        }
    }
    free(busy);
}

/* Many bars: per column, how much of it each kind covers; the column shows the kind that
 * covers most of it (bars over runtime-call spans over zero-length markers), with its light
 * glyph when the lane's work covers less than TUI_SPARSE of the column. O(visible bars +
 * columns x kinds). */
static void bin_bars(tui_screen *s, const tui_model *m, const tui_layout *L, const tui_pane *pane,
                     const tui_lane *lane, int y, size_t first, size_t end) {
    const tui_run *run = pane->run;
    int w = L->bar_w;
    size_t stride = (size_t)w + 1;
    double *cov = calloc((size_t)TUI_KIND_COUNT * stride * 2, sizeof(double));
    int *racy = calloc(stride, sizeof(int));
    unsigned *markers = calloc(stride, sizeof(unsigned));
    if (!cov || !racy || !markers) {
        free(cov);
        free(racy);
        free(markers);
        return;
    }
    double *full = cov + (size_t)TUI_KIND_COUNT * stride; /* difference array of whole columns */
    long sel_a = -1, sel_b = -1;
    for (size_t i = first; i < end; i++) {
        const tui_bar *bar = &lane->bars[i];
        span_cols c = cols_of(L, run, bar);
        double fa = c.a < 0 ? 0 : c.a, fb = c.b > w ? w : c.b;
        if (fb < 0 || fa >= w) continue;
        long ca = (long)floor(fa), cb = (long)floor(fb);
        if (ca >= w) ca = w - 1;
        if (tui_model_selected(m, pane, lane, bar)) {
            sel_a = ca;
            sel_b = cb < w ? cb : w - 1;
        }
        if (tui_run_is_racy(run, bar->id)) {
            racy[ca]++;
            racy[cb < w ? cb + 1 : w]--;
        }
        if (bar->end_ns <= bar->start_ns) {
            markers[ca] |= 1u << bar->kind;
            continue;
        }
        double *k = cov + (size_t)bar->kind * stride;
        double *f = full + (size_t)bar->kind * stride;
        if (ca == cb) {
            k[ca] += fb - fa;
        } else {
            k[ca] += (double)(ca + 1) - fa;
            f[ca + 1] += 1;
            f[cb] -= 1;
            if (cb < w) k[cb] += fb - (double)cb;
        }
    }
    int racy_run = 0;
    bool prev_racy = false;
    for (int x = 0; x < w; x++) {
        racy_run += racy[x];
        bool racy_here = racy_run > 0, starts_racy = racy_here && !prev_racy;
        prev_racy = racy_here;
        int best = -1, api = -1;
        double best_cov = 0, work = 0;
        for (int k = 0; k < TUI_KIND_COUNT; k++) {
            double *f = full + (size_t)k * stride;
            if (x > 0) f[x] += f[x - 1];
            double v = cov[(size_t)k * stride + (size_t)x] + f[x];
            if (v <= 0) continue;
            if (tui_kind_is_work((tui_kind)k)) work += v;
            if (k == TUI_KIND_API) {
                api = k;
            } else if (v > best_cov) {
                best_cov = v;
                best = k;
            }
        }
        if (best < 0) best = api;
        if (best < 0 && markers[x]) {
            for (int k = 0; k < TUI_KIND_COUNT && best < 0; k++)
                if (markers[x] & (1u << k)) best = k;
        }
        if (best < 0) continue;
        bool selected = x >= sel_a && x <= sel_b && sel_a >= 0;
        put_bar_cell(s, m, L->bar_x + x, y, (tui_kind)best, work < TUI_SPARSE, racy_here, selected, 0);
        if (starts_racy) tui_screen_put(s, L->bar_x + x, y, '!', TUI_COLOR_RACE, TUI_ATTR_BOLD);
    }
    free(cov);
    free(racy);
    free(markers);
}

void tui_draw_lane_bars(tui_screen *s, const tui_model *m, const tui_layout *L, const tui_pane *pane,
                        const tui_lane *lane, int y) {
    const tui_run *run = pane->run;
    if (!run || !run->any || lane->n == 0) return;
    double w0 = L->w0 > 0 ? L->w0 : 0;
    uint64_t from = run->t0_ns + (uint64_t)w0;
    uint64_t to = run->t0_ns + (uint64_t)ceil(L->w1 > 0 ? L->w1 : 0);
    size_t first = tui_lane_first_reaching(lane, from);
    size_t end = first;
    while (end < lane->n && lane->bars[end].start_ns <= to) end++;
    if (end - first <= 2 * (size_t)L->bar_w)
        paint_bars(s, m, L, pane, lane, y, first, end);
    else
        bin_bars(s, m, L, pane, lane, y, first, end);
}

/* ---- lanes and panes ------------------------------------------------------------------------- */

static const trace_metrics *run_metrics(const tui_model *m, const tui_session *s, tui_run *run) {
    return tui_model_metrics(m, s, run);
}

static double lane_busy(const trace_metrics *mt, const tui_lane *lane) {
    if (!mt) return -1;
    trace_lane l = tui_lane_as_trace(lane);
    const trace_busy *b = trace_metrics_lane(mt, &l);
    return b ? b->utilisation : -1;
}

static void draw_lane(tui_screen *s, tui_model *m, const tui_layout *L, const tui_pane_layout *p, size_t index,
                      int y) {
    const tui_lane *lane = p->lanes[index];
    char label[96];
    tui_run_lane_label(p->pane.run, lane, L->label_w - 1, m->utf8, label, sizeof(label));
    bool cursor = m->lane_cursor == p->cursor_base + (int)index;
    if (cursor) tui_screen_put(s, 0, y, glyph_or(m, 0x25B6, '>'), TUI_COLOR_TITLE, TUI_ATTR_BOLD); /* ▶ */
    if (lane->heading) {
        /* A device's (or the link's) heading: its name, bold, and a rule under the bars. */
        tui_screen_text(s, 1, y, L->label_w - 1, label, TUI_COLOR_TITLE, TUI_ATTR_BOLD);
        tui_screen_fill(s, L->bar_x, y, L->bar_w, glyph_or(m, 0x2508, '.'), TUI_COLOR_DIM, 0); /* ┈ */
        return;
    }
    tui_screen_text(s, 1, y, L->label_w - 1, label, lane->is_stream ? TUI_COLOR_DEFAULT : TUI_COLOR_TITLE,
                    cursor ? TUI_ATTR_BOLD : 0);
    tui_draw_lane_bars(s, m, L, &p->pane, lane, y);
    double busy = lane_busy(run_metrics(m, p->pane.session, p->pane.run), lane);
    if (busy >= 0) tui_screen_printf(s, L->pct_x, y, 4, TUI_COLOR_DIM, 0, "%3d%%", (int)lround(busy * 100));
}

static const char *state_words(const tui_session *s) {
    if (!s) return "not available";
    switch (s->state) {
    case TUI_SESSION_IDLE: return "not run yet";
    case TUI_SESSION_WAITING: return "waiting for its turn";
    case TUI_SESSION_RUNNING: return "running";
    case TUI_SESSION_DONE: return "finished";
    case TUI_SESSION_FAILED: return "failed";
    }
    return "";
}

static tui_color verdict_color(const tui_session *s) {
    const char *st = s ? tui_session_result_status(s) : NULL;
    if (!st) return TUI_COLOR_DEFAULT;
    if (!strcmp(st, "pass")) return TUI_COLOR_PASS;
    if (!strcmp(st, "below_target")) return TUI_COLOR_WARN;
    return TUI_COLOR_FAIL;
}

static void draw_pane_title(tui_screen *s, tui_model *m, const tui_layout *L, const tui_pane_layout *p) {
    int y = p->title_row;
    uint32_t line = glyph_or(m, 0x2500, '-'); /* ─ */
    tui_screen_fill(s, 0, y, L->cols, line, TUI_COLOR_DIM, 0);
    char t[256];
    const tui_run *run = p->pane.run;
    const tui_session *se = p->pane.session;
    /* Which lanes are shown, at the right end, when not all of them fit. */
    int right = L->cols;
    if (p->n_lanes > p->n_shown) {
        snprintf(t, sizeof(t), " lanes %zu-%zu of %zu ", p->first_lane + 1, p->first_lane + p->n_shown, p->n_lanes);
        right = L->cols - 2 - columns(t);
        text(s, right, y, L->cols, t, TUI_COLOR_WARN, 0);
        right -= 1;
    }
    int x = 2;
    x = text(s, x, y, right, " ", TUI_COLOR_DEFAULT, 0);
    x = text(s, x, y, right, tui_variant_name(p->pane.variant), TUI_COLOR_TITLE, TUI_ATTR_BOLD);
    if (run) {
        const trace_metrics *mt = run_metrics(m, p->pane.session, p->pane.run);
        char ms[32] = "";
        if (mt) tui_format_ns((double)mt->makespan_ns, ms, sizeof(ms));
        char name[96];
        tui_session_run_name(se, run, name, sizeof(name));
        snprintf(t, sizeof(t), BULLET "%s" BULLET "makespan %s" BULLET "overlap %d%%" BULLET "races %zu", name, ms,
                 mt ? (int)lround(mt->overlap * 100) : 0, run->races);
    } else {
        snprintf(t, sizeof(t), BULLET "%s",
                 se && se->state == TUI_SESSION_RUNNING                  ? "waiting for the first run"
                 : m->baseline && se && se->state != TUI_SESSION_IDLE ? "no baseline run"
                                                                         : state_words(se));
    }
    x = text(s, x, y, right, t, TUI_COLOR_DEFAULT, 0);
    text(s, x, y, right, " ", TUI_COLOR_DEFAULT, 0);
}

static void draw_pane(tui_screen *s, tui_model *m, const tui_layout *L, const tui_pane_layout *p) {
    draw_pane_title(s, m, L, p);
    if (p->n_shown == 0) {
        const tui_session *se = p->pane.session;
        const char *msg = !se                                 ? "no lab"
                          : se->state == TUI_SESSION_IDLE     ? "not run yet: press r to run it"
                          : se->state == TUI_SESSION_WAITING  ? se->status
                          : se->state == TUI_SESSION_RUNNING  ? "waiting for the lab's first run..."
                          : m->baseline                       ? "this lab has no baseline run to show"
                          : se->status[0]                     ? se->status
                                                              : "the lab produced no timeline";
        if (p->lane_rows > 0)
            tui_screen_text(s, 2, p->lane_top, L->cols - 4, msg,
                            se && se->state == TUI_SESSION_FAILED ? TUI_COLOR_FAIL : TUI_COLOR_DIM, 0);
        return;
    }
    for (size_t i = 0; i < p->n_shown; i++) draw_lane(s, m, L, p, p->first_lane + i, p->lane_top + (int)i);
}

/* ---- axis, legend, keys --------------------------------------------------------------------- */

static double nice_step(double raw) {
    if (!(raw > 0)) return 1;
    double p = pow(10.0, floor(log10(raw)));
    const double mult[] = {1, 2, 5, 10};
    for (int i = 0; i < 4; i++)
        if (mult[i] * p >= raw) return mult[i] * p;
    return 10 * p;
}

static void draw_axis(tui_screen *s, const tui_layout *L) {
    int y = L->axis_row;
    double span = L->w1 - L->w0;
    double unit;
    const char *name;
    if (span >= 1e10) {
        unit = 1e9;
        name = "s";
    } else if (span >= 1e7) {
        unit = 1e6;
        name = "ms";
    } else if (span >= 1e4) {
        unit = 1e3;
        name = "us";
    } else {
        unit = 1;
        name = "ns";
    }
    tui_screen_printf(s, 1, y, L->label_w - 1, TUI_COLOR_DIM, 0, "time (%s)", name);
    double step = nice_step(span / unit * 10.0 / L->bar_w); /* a label every 10 columns or more */
    double first = ceil(L->w0 / unit / step - 1e-9) * step;
    int next_free = 0;
    for (int k = 0; k < 10000; k++) {
        double t = first + k * step;
        if (t * unit > L->w1 + 1e-6) break;
        int col = (int)floor(tui_layout_column_of(L, t * unit) + 1e-6);
        char num[32];
        snprintf(num, sizeof(num), "%.10g", fabs(t) < step * 1e-6 ? 0.0 : t);
        int len = (int)strlen(num);
        if (col + len > L->bar_w) col = L->bar_w - len; /* the last label ends at the edge */
        if (col < next_free || col < 0) continue;
        tui_screen_text(s, L->bar_x + col, y, len, num, TUI_COLOR_DIM, 0);
        next_free = col + len + 1;
    }
}

static void draw_legend(tui_screen *s, const tui_model *m, const tui_layout *L) {
    int y = L->legend_row, x = 1;
    static const tui_kind kinds[] = {TUI_KIND_H2D,   TUI_KIND_KERNEL, TUI_KIND_D2H,
                                     TUI_KIND_MEMSET, TUI_KIND_SYNC,   TUI_KIND_API};
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        const char *name = tui_kind_name(kinds[i]);
        if (x + 2 + columns(name) > L->cols) return;
        tui_screen_put(s, x, y, tui_kind_glyph(kinds[i], false, m->utf8), tui_kind_color(kinds[i]), 0);
        x = text(s, x + 2, y, L->cols, name, TUI_COLOR_DEFAULT, 0) + 2;
    }
    if (x + 7 <= L->cols) {
        tui_screen_put(s, x, y, '!', TUI_COLOR_RACE, TUI_ATTR_BOLD);
        x = text(s, x + 2, y, L->cols, "race", TUI_COLOR_DEFAULT, 0) + 2;
    }
    /* The light glyphs: a cell that the work covers for less than half its time. */
    static const char light_text[] = "<50% busy";
    if (x + 5 + columns(light_text) <= L->cols) {
        for (int k = 0; k < 4; k++)
            tui_screen_put(s, x + k, y, tui_kind_glyph(kinds[k], true, m->utf8), tui_kind_color(kinds[k]), 0);
        x = text(s, x + 5, y, L->cols, light_text, TUI_COLOR_DEFAULT, 0) + 2;
    }
    if (x + 16 <= L->cols) text(s, x, y, L->cols, "numbers: batches", TUI_COLOR_DIM, 0);
}

typedef struct key_help {
    const char *key_utf8, *key_ascii, *what;
} key_help;

static void draw_keys(tui_screen *s, const tui_model *m, int y, int cols, const key_help *keys, size_t n,
                      size_t always) {
    /* The last `always` entries are always shown; the others while they fit. */
    int tail = 0;
    for (size_t i = n - always; i < n; i++)
        tail += columns(m->utf8 ? keys[i].key_utf8 : keys[i].key_ascii) + 1 + columns(keys[i].what) + 2;
    int x = 1;
    for (size_t i = 0; i < n; i++) {
        const char *k = m->utf8 ? keys[i].key_utf8 : keys[i].key_ascii;
        int need = columns(k) + 1 + columns(keys[i].what) + 2;
        if (i < n - always && x + need + tail > cols) continue;
        x = text(s, x, y, cols, k, TUI_COLOR_TITLE, TUI_ATTR_BOLD);
        x = text(s, x + 1, y, cols, keys[i].what, TUI_COLOR_DEFAULT, 0) + 2;
    }
}

static void draw_footer(tui_screen *s, const tui_model *m, const tui_layout *L) {
    static const key_help keys[] = {
        {"r", "r", "rerun"},         {"s", "s", "mine/ref"},   {"c", "c", "compare"},
        {"b", "b", "baseline"},      {"+/-", "+/-", "zoom"},   {"\xe2\x86\x90\xe2\x86\x92", "<>", "pan"},
        {"f", "f", "fit"},           {"\xe2\x86\x91\xe2\x86\x93", "^v", "lane"},
        {"Tab", "Tab", "bar"},       {"\xe2\x8f\x8e", "Enter", "details"},
        {"t", "t", "trace"},         {"o", "o", "output"},     {"?", "?", "help"},
        {"q", "q", "quit"},
    };
    draw_keys(s, m, L->footer_row, L->cols, keys, sizeof(keys) / sizeof(keys[0]), 2);
}

/* ---- header and status --------------------------------------------------------------------- */

static const tui_session *front_session(const tui_model *m) { return m->sessions[m->front]; }

static void draw_title_row(tui_screen *s, const tui_model *m, const tui_layout *L) {
    const tui_session *se = front_session(m);
    char backend[160] = "";
    if (se) tui_session_backend(se, backend, sizeof(backend));
    if (!backend[0] && m->sessions[TUI_YOURS]) tui_session_backend(m->sessions[TUI_YOURS], backend, sizeof(backend));
    char t[512];
    const char *who = m->compare ? "yours vs reference" : tui_variant_name(m->front);
    const char *where = !se                                  ? ""
                        : se->state == TUI_SESSION_RUNNING   ? (se->progress[0] ? se->progress : "starting")
                        : se->state == TUI_SESSION_DONE      ? "finished"
                        : se->state == TUI_SESSION_FAILED    ? "failed"
                        : se->state == TUI_SESSION_WAITING   ? "waiting"
                                                             : "not run yet";
    snprintf(t, sizeof(t), " streamlab" BULLET "%s" BULLET "%s%s%s%s" BULLET "%s", m->lab_id, who,
             m->baseline ? " (baseline runs)" : "", backend[0] ? BULLET : "", backend, where);
    int help_x = L->cols - 7;
    text(s, 0, 0, help_x - 1, t, TUI_COLOR_TITLE, TUI_ATTR_BOLD);
    text(s, help_x, 0, L->cols, "? help", TUI_COLOR_DIM, 0);
}

/* One header item; false when it does not fit (nothing is drawn then). */
static bool item(tui_screen *s, int *x, int y, int cols, const char *t, tui_color c, unsigned a) {
    int w = columns(t);
    if (*x + w > cols) return false;
    *x = text(s, *x, y, cols, t, c, a) + 2;
    return true;
}

static void draw_metrics_row(tui_screen *s, tui_model *m, const tui_layout *L) {
    int y = 1, x = 1;
    char t[256];
    if (m->compare) {
        for (int v = 0; v < TUI_VARIANTS; v++) {
            tui_session *se = m->sessions[v];
            tui_run *run = se ? tui_session_latest(se, m->baseline ? TUI_ROLE_BASELINE : TUI_ROLE_YOURS) : NULL;
            const trace_metrics *mt = run_metrics(m, se, run);
            char ms[32] = "-";
            if (mt) tui_format_ns((double)mt->makespan_ns, ms, sizeof(ms));
            double sp = 0;
            char value[64];
            bool have_value = se && tui_session_metric_text(se, false, true, value, sizeof(value));
            if (!have_value && se && tui_session_live_speedup(se, &sp)) {
                snprintf(value, sizeof(value), "%.2fx", sp);
                have_value = true;
            }
            snprintf(t, sizeof(t), "%s: %s", tui_variant_name((tui_variant)v), ms);
            if (!item(s, &x, y, L->cols, t, TUI_COLOR_DEFAULT, 0)) return;
            if (have_value) {
                x -= 1;
                if (!item(s, &x, y, L->cols, value, TUI_COLOR_DEFAULT, 0)) return;
            }
            const char *verdict = se ? tui_session_verdict(se) : NULL;
            if (verdict) {
                x -= 1;
                if (!item(s, &x, y, L->cols, verdict, verdict_color(se), TUI_ATTR_BOLD)) return;
            }
            x += 2;
        }
        return;
    }
    tui_session *se = m->sessions[m->front];
    tui_pane panes[TUI_VARIANTS];
    tui_model_panes(m, panes);
    const trace_metrics *mt = run_metrics(m, se, panes[0].run);
    char ms[32] = "-";
    if (mt) tui_format_ns((double)mt->makespan_ns, ms, sizeof(ms));
    snprintf(t, sizeof(t), "makespan %s", ms);
    if (!item(s, &x, y, L->cols, t, TUI_COLOR_DEFAULT, 0)) return;
    double sp = 0;
    const char *verdict = se ? tui_session_verdict(se) : NULL;
    if (se && tui_session_metric_text(se, true, false, t, sizeof(t))) {
        /* the lab's own metric, in its unit */
    } else if (se && tui_session_live_speedup(se, &sp)) {
        snprintf(t, sizeof(t), "speedup ~%.2fx so far", sp);
    } else {
        snprintf(t, sizeof(t), "speedup -");
    }
    if (!item(s, &x, y, L->cols, t, TUI_COLOR_DEFAULT, 0)) return;
    if (verdict) {
        x -= 1;
        if (!item(s, &x, y, L->cols, verdict, verdict_color(se), TUI_ATTR_BOLD)) return;
    }
    if (mt && mt->devices > 1)  /* each GPU's engines overlapping, not both GPUs' together */
        snprintf(t, sizeof(t), "overlap GPU 0 %d%% GPU 1 %d%%", (int)lround(mt->device_overlap[0] * 100),
                 (int)lround(mt->device_overlap[1] * 100));
    else
        snprintf(t, sizeof(t), "overlap %d%%", mt ? (int)lround(mt->overlap * 100) : 0);
    if (!item(s, &x, y, L->cols, t, TUI_COLOR_DEFAULT, 0)) return;
    double races = 0;
    if (!(se && tui_session_result_number(se, "races", &races))) races = panes[0].run ? (double)panes[0].run->races : 0;
    snprintf(t, sizeof(t), "races %.0f", races);
    if (!item(s, &x, y, L->cols, t, races > 0 ? TUI_COLOR_FAIL : TUI_COLOR_DEFAULT, races > 0 ? TUI_ATTR_BOLD : 0))
        return;
    if (mt && mt->devices > 1) {
        /* Each device's engines: the figures above count them together. */
        for (uint32_t d = 0; d < mt->devices && d < TRACE_MAX_DEVICES; d++) {
            const trace_busy *e = mt->device_engine[d];
            snprintf(t, sizeof(t), "GPU %u busy H2D %d%% compute %d%% D2H %d%%", d,
                     (int)lround(e[TRACE_ENGINE_H2D].utilisation * 100),
                     (int)lround(e[TRACE_ENGINE_COMPUTE].utilisation * 100),
                     (int)lround(e[TRACE_ENGINE_D2H].utilisation * 100));
            if (!item(s, &x, y, L->cols, t, TUI_COLOR_DIM, 0)) return;
        }
    } else if (mt) {
        snprintf(t, sizeof(t), "busy H2D %d%% compute %d%% D2H %d%%",
                 (int)lround(mt->engine[TRACE_ENGINE_H2D].utilisation * 100),
                 (int)lround(mt->engine[TRACE_ENGINE_COMPUTE].utilisation * 100),
                 (int)lround(mt->engine[TRACE_ENGINE_D2H].utilisation * 100));
        item(s, &x, y, L->cols, t, TUI_COLOR_DIM, 0);
    }
}

static void draw_status(tui_screen *s, const tui_model *m, const tui_layout *L) {
    int y = L->status_row, x = 1;
    char t[512];
    if (m->message[0] && m->now_ms - m->message_ms < MESSAGE_MS) {
        x = text(s, x, y, L->cols, m->message, m->message_error ? TUI_COLOR_FAIL : TUI_COLOR_TITLE, 0) + 2;
        return;
    }
    const tui_session *se = front_session(m);
    if (!se) return;
    switch (se->state) {
    case TUI_SESSION_IDLE:
        x = text(s, x, y, L->cols, "not run yet (r runs it)", TUI_COLOR_DIM, 0) + 2;
        break;
    case TUI_SESSION_WAITING: x = text(s, x, y, L->cols, se->status, TUI_COLOR_DIM, 0) + 2; break;
    case TUI_SESSION_RUNNING: {
        double quiet = m->now_ms - se->last_event_ms;
        if (quiet >= TUI_QUIET_WARN_MS) {
            snprintf(t, sizeof(t), "no events from the lab for %.0f s: it may be stuck (r restarts it, q quits)",
                     quiet / 1000);
            x = text(s, x, y, L->cols, t, TUI_COLOR_WARN, TUI_ATTR_BOLD) + 2;
        } else {
            snprintf(t, sizeof(t), "running %s" BULLET "%s" BULLET "%" PRIu64 " ops" BULLET "%.1f s",
                     tui_variant_name(se->variant), se->progress[0] ? se->progress : "starting", se->ops,
                     (m->now_ms - se->started_ms) / 1000);
            x = text(s, x, y, L->cols, t, TUI_COLOR_DIM, 0) + 2;
        }
        break;
    }
    case TUI_SESSION_DONE:
    case TUI_SESSION_FAILED:
        x = text(s, x, y, L->cols, se->status, se->state == TUI_SESSION_FAILED ? TUI_COLOR_FAIL : verdict_color(se),
                 se->state == TUI_SESSION_FAILED ? TUI_ATTR_BOLD : 0) +
            2;
        break;
    }
    if (se->bad_lines) {
        snprintf(t, sizeof(t), "%" PRIu64 " bad line%s on the event stream (first: %s)", se->bad_lines,
                 se->bad_lines == 1 ? "" : "s", se->first_bad);
        text(s, x, y, L->cols, t, TUI_COLOR_WARN, 0);
    }
}

/* The student's file is newer than the build the timeline runs: on a row of its own, the long
 * form where it fits. */
static void draw_notice(tui_screen *s, const tui_model *m, const tui_layout *L) {
    if (L->notice_row < 0 || !m->notice[0]) return;
    const char *t = columns(m->notice) <= L->cols - 2 || !m->notice_short[0] ? m->notice : m->notice_short;
    tui_screen_put(s, 0, L->notice_row, '!', TUI_COLOR_WARN, TUI_ATTR_BOLD);
    text(s, 2, L->notice_row, L->cols, t, TUI_COLOR_WARN, TUI_ATTR_BOLD);
}

/* ---- panels ----------------------------------------------------------------------------------- */

/* A box of w x h centred on the screen, with a title in its top border; returns its
 * inner left column and first inner row. */
static void box(tui_screen *s, const tui_model *m, int w, int h, const char *title, int *ix, int *iy) {
    if (w > s->cols) w = s->cols;
    if (h > s->rows) h = s->rows;
    int x0 = (s->cols - w) / 2, y0 = (s->rows - h) / 2;
    uint32_t hz = glyph_or(m, 0x2500, '-'), vt = glyph_or(m, 0x2502, '|');
    uint32_t tl = glyph_or(m, 0x250C, '+'), tr = glyph_or(m, 0x2510, '+');
    uint32_t bl = glyph_or(m, 0x2514, '+'), br = glyph_or(m, 0x2518, '+');
    for (int y = y0; y < y0 + h; y++) tui_screen_fill(s, x0, y, w, ' ', TUI_COLOR_DEFAULT, 0);
    tui_screen_fill(s, x0 + 1, y0, w - 2, hz, TUI_COLOR_TITLE, 0);
    tui_screen_fill(s, x0 + 1, y0 + h - 1, w - 2, hz, TUI_COLOR_TITLE, 0);
    for (int y = y0 + 1; y < y0 + h - 1; y++) {
        tui_screen_put(s, x0, y, vt, TUI_COLOR_TITLE, 0);
        tui_screen_put(s, x0 + w - 1, y, vt, TUI_COLOR_TITLE, 0);
    }
    tui_screen_put(s, x0, y0, tl, TUI_COLOR_TITLE, 0);
    tui_screen_put(s, x0 + w - 1, y0, tr, TUI_COLOR_TITLE, 0);
    tui_screen_put(s, x0, y0 + h - 1, bl, TUI_COLOR_TITLE, 0);
    tui_screen_put(s, x0 + w - 1, y0 + h - 1, br, TUI_COLOR_TITLE, 0);
    char t[128];
    snprintf(t, sizeof(t), " %s ", title);
    tui_screen_text(s, x0 + 2, y0, w - 4, t, TUI_COLOR_TITLE, TUI_ATTR_BOLD);
    *ix = x0 + 2;
    *iy = y0 + 1;
}

/* Lines in a scrollable box: scroll is clamped to what there is. */
static void panel(tui_screen *s, tui_model *m, const char *title, char (*lines)[256], size_t n, const char *hint) {
    int w = s->cols - 4 < 100 ? s->cols - 4 : 100;
    int max_h = s->rows - 2;
    int h = (int)n + 3 < max_h ? (int)n + 3 : max_h;
    int inner = h - 3;
    if (m->overlay_scroll > (int)n - inner) m->overlay_scroll = (int)n - inner > 0 ? (int)n - inner : 0;
    if (m->overlay_scroll < 0) m->overlay_scroll = 0;
    int ix, iy;
    box(s, m, w, h, title, &ix, &iy);
    for (int i = 0; i < inner && (size_t)(i + m->overlay_scroll) < n; i++)
        tui_screen_text(s, ix, iy + i, w - 4, lines[i + m->overlay_scroll], TUI_COLOR_DEFAULT, 0);
    char more[64] = "";
    if ((int)n > inner)
        snprintf(more, sizeof(more), "  (%d-%d of %zu, %s scroll)", m->overlay_scroll + 1,
                 m->overlay_scroll + inner, n, m->utf8 ? "\xe2\x86\x91\xe2\x86\x93" : "up/down");
    char t[256];
    snprintf(t, sizeof(t), "%s%s", hint, more);
    tui_screen_text(s, ix, iy + inner, w - 4, t, TUI_COLOR_DIM, 0);
}

static const char *const HELP[] = {
    "r         run the lab again (both when comparing)",
    "s         switch between your lab and the reference",
    "c         compare: yours above the reference, one time scale",
    "b         the latest baseline run (b again: back to yours)",
    "+ - wheel zoom in and out (the wheel zooms at the pointer)",
    "<- ->     pan; Shift or PgUp/PgDn: half a screen; Home, End",
    "f         fit the whole run, and follow it while it grows",
    "up down   move between lanes",
    "Tab       select the next bar on the lane (Shift-Tab: back)",
    "Enter     details of the selected bar (or click a bar)",
    "t         write the Chrome trace of what is on screen (to",
    "          ~/.local/state/streamlab/traces; the status says where)",
    "o         what the lab printed: its report, or why it failed",
    "l         back to the list of labs",
    "? q       this help; quit",
    "",
    "Engine lanes (H2D, compute, D2H, host) show what the hardware",
    "did; stream lanes what each queue asked for, with the stream's",
    "priority (p0; lower is more urgent). Numbers in bars are batch",
    "numbers: follow one batch across the lanes. ! marks a bar that",
    "takes part in a race: Enter on it says with what, and the fix.",
    "The right column is each lane's busy time in the run.",
    "A light glyph (\u203a H2D, \u2022 kernel, \u2039 D2H, \u25e6 memset) marks a",
    "cell busy less than half its time: short ops, gaps between.",
    "If lab.c is newer than the build r runs, a line above the",
    "status says so and how to rebuild.",
    "With two GPUs the lanes are grouped under GPU 0, GPU 1 and",
    "link (the peer copies, a lane per direction).",
    "",
    "The header follows your latest run while the lab runs; the",
    "verdict comes from the lab's result (speedup: the median over",
    "the timed runs, against the baseline's).",
};

static void help_panel(tui_screen *s, tui_model *m) {
    size_t n = sizeof(HELP) / sizeof(HELP[0]);
    char(*lines)[256] = calloc(n, sizeof(*lines));
    if (!lines) return;
    for (size_t i = 0; i < n; i++) snprintf(lines[i], sizeof(lines[i]), "%s", HELP[i]);
    panel(s, m, "streamlab keys", lines, n, "Esc closes");
    free(lines);
}

static size_t wrap(char (*lines)[256], size_t at, size_t max, const char *first, const char *indent, const char *t,
                   int width);

static void output_panel(tui_screen *s, tui_model *m) {
    const tui_session *se = front_session(m);
    size_t n_src = se ? tui_textlog_count(se->output) : 0;
    int w = s->cols - 4 < 100 ? s->cols - 4 : 100;
    size_t max = n_src * 4 + 1;
    char(*lines)[256] = calloc(max, sizeof(*lines));
    if (!lines) return;
    size_t n = 0;
    for (size_t i = 0; i < n_src && n < max; i++) {
        const char *line = tui_textlog_line(se->output, i);
        if (!*line)
            lines[n++][0] = '\0';
        else
            n = wrap(lines, n, max, "", "  ", line, w - 4);
    }
    if (n == 0) snprintf(lines[n++], sizeof(lines[0]), "(the lab has printed nothing yet)");
    char title[96];
    snprintf(title, sizeof(title), "what %s printed", se && se->variant == TUI_REFERENCE ? "the reference" : "your lab");
    panel(s, m, title, lines, n, "Esc closes");
    free(lines);
}

/* Word-wraps text at width into lines (with indent on continuation lines). */
static size_t wrap(char (*lines)[256], size_t at, size_t max, const char *first, const char *indent, const char *t,
                   int width) {
    char line[64];
    snprintf(line, sizeof(line), "%s", first);
    const char *p = t;
    while (*p && at < max) {
        int room = width - columns(line);
        if (room < 10) room = 10;
        size_t len = strlen(p);
        size_t cut = len;
        if ((int)tui_utf8_columns(p) > room) {
            cut = 0;
            int cols = 0;
            size_t i = 0, last_space = 0;
            while (p[i] && cols < room) {
                size_t l;
                tui_utf8_decode(p + i, strlen(p + i), &l);
                if (p[i] == ' ') last_space = i;
                i += l;
                cols++;
            }
            cut = last_space > 0 ? last_space : i;
        }
        size_t head = strlen(line);
        if (head + cut > 255) cut = 255 - head;
        memcpy(lines[at], line, head);
        memcpy(lines[at] + head, p, cut);
        lines[at++][head + cut] = '\0';
        p += cut;
        while (*p == ' ') p++;
        snprintf(line, sizeof(line), "%s", indent);
    }
    return at;
}

size_t tui_details_lines(tui_model *m, char (*lines)[256], size_t max, int width) {
    size_t n = 0;
    tui_session *se = m->sessions[m->sel.variant];
    tui_run *run = m->sel.on && se ? tui_session_run(se, m->sel.run) : NULL;
    const trace_op *op = run ? tui_run_op(run, m->sel.start_ns, m->sel.id) : NULL;
    if (!op) {
        if (n < max) snprintf(lines[n++], 256, "no bar selected (Tab selects one, or click a bar)");
        return n;
    }
    trace_op o = *op; /* the store may move while we look up streams */
    char a[64], b[64], c[64];
    const char *kind = o.kind == TRACE_OP_COPY ? trace_copy_dir_name(o.dir) : trace_op_kind_name(o.kind);
    char batch[32] = "";
    if (o.batch >= 0) snprintf(batch, sizeof(batch), BULLET "batch %" PRId32, o.batch);
    char what[TRACE_NAME_MAX + 16];
    snprintf(what, sizeof(what), "%s", o.name);
    if ((o.kind == TRACE_OP_EVENT_RECORD || o.kind == TRACE_OP_EVENT_WAIT) && o.event)
        trace_event_label(o.event, o.name, what, sizeof(what)); /* event "ready", event 3 */
    if (n < max)
        snprintf(lines[n++], 256, "%s%s%s%s" BULLET "op %" PRIu64 "%s", kind, o.kind == TRACE_OP_COPY ? " copy" : "",
                 what[0] ? " " : "", what, o.id, batch);
    if (o.stream >= 0) {
        const trace_stream *st = trace_timeline_stream(run->tl, o.stream);
        char id[16];
        snprintf(id, sizeof(id), o.stream == 0 ? "stream 0" : "s%d", (int)o.stream);
        bool named = o.stream != 0 && st && st->name[0] && strcmp(st->name, id) != 0;
        if (n < max)
            snprintf(lines[n++], 256, "stream   %s%s%s%s (priority %d%s%s)", id, named ? " \"" : "",
                     named ? st->name : "", named ? "\"" : "", (int)o.priority,
                     st && (st->flags & 1u) ? ", non-blocking" : "", o.stream == 0 ? ", the legacy default stream" : "");
    } else if (n < max) {
        snprintf(lines[n++], 256, "stream   none (the host thread)");
    }
    char name[96];
    tui_session_run_name(se, run, name, sizeof(name));
    /* On several devices: whose engine, or the link's direction. */
    char engine[64];
    if (run->multi_device && o.engine == TRACE_ENGINE_LINK)
        snprintf(engine, sizeof(engine), "link, GPU %u -> GPU %u", o.device, o.dst_device);
    else if (run->multi_device && o.engine != TRACE_ENGINE_NONE && o.engine != TRACE_ENGINE_HOST)
        snprintf(engine, sizeof(engine), "%s of GPU %u", trace_engine_name(o.engine), o.device);
    else
        snprintf(engine, sizeof(engine), "%s", o.engine == TRACE_ENGINE_NONE ? "none (a marker)" : trace_engine_name(o.engine));
    if (n < max) snprintf(lines[n++], 256, "engine   %s" BULLET "run %d: %s", engine, (int)run->number, name);
    format_ns_precise((double)(o.start_ns - run->t0_ns), a, sizeof(a));
    format_ns_precise((double)(o.end_ns - run->t0_ns), b, sizeof(b));
    format_ns_precise((double)(o.end_ns - o.start_ns), c, sizeof(c));
    if (n < max) snprintf(lines[n++], 256, "time     %s to %s (from the run's first op)" BULLET "takes %s", a, b, c);
    if (o.bytes) {
        format_bytes(o.bytes, a, sizeof(a));
        char rate[64] = "";
        if (o.end_ns > o.start_ns && (o.kind == TRACE_OP_COPY || o.kind == TRACE_OP_MEMSET))
            snprintf(rate, sizeof(rate), BULLET "%.2f GB/s", (double)o.bytes / (double)(o.end_ns - o.start_ns));
        if (n < max)
            snprintf(lines[n++], 256, "bytes    %s (%" PRIu64 ")%s%s", a, o.bytes, rate,
                     o.kind == TRACE_OP_COPY && (o.dir == TRACE_COPY_H2D || o.dir == TRACE_COPY_D2H)
                         ? (o.pinned ? BULLET "pinned host memory" : BULLET "pageable host memory (staged)")
                         : "");
    }
    if (o.kind == TRACE_OP_KERNEL && n < max)
        snprintf(lines[n++], 256, "launch   grid %ux%ux%u" BULLET "block %ux%ux%u", o.grid[0], o.grid[1], o.grid[2],
                 o.block[0], o.block[1], o.block[2]);
    if (o.kind == TRACE_OP_SYNC && n < max)
        snprintf(lines[n++], 256, "waited   for %s", o.sync == TRACE_SYNC_STREAM   ? "a stream"
                                                     : o.sync == TRACE_SYNC_EVENT  ? "an event"
                                                     : o.sync == TRACE_SYNC_DEVICE ? "the whole device"
                                                     : o.sync == TRACE_SYNC_OP     ? "one operation (a blocking call)"
                                                                                   : "(unknown)");
    /* The op's line in the student's file, where a race report gives it. */
    for (size_t i = 0; i < se->n_races && n < max; i++) {
        const trace_race *r = &se->races[i];
        bool first = r->first.id == o.id && r->first.run == o.run;
        bool second = r->second.id == o.id && r->second.run == o.run;
        const char *src = first ? tui_session_race_line(se, r, false) : second ? tui_session_race_line(se, r, true) : NULL;
        if (src) {
            snprintf(lines[n++], 256, "source   %s", src);
            break;
        }
    }
    size_t races = 0;
    for (size_t i = 0; i < se->n_races && n < max; i++) {
        const trace_race *r = &se->races[i];
        const trace_race_op *me = NULL, *other = NULL;
        bool other_second = false;
        if (r->first.id == o.id && r->first.run == o.run) {
            me = &r->first;
            other = &r->second;
            other_second = true;
        } else if (r->second.id == o.id && r->second.run == o.run) {
            me = &r->second;
            other = &r->first;
        }
        if (!me) continue;
        races++;
        char desc[160], bytes[32], head[96], line[512], where[128] = "";
        trace_race_op_describe(other, desc, sizeof(desc));
        format_bytes(r->bytes, bytes, sizeof(bytes));
        const char *other_line = tui_session_race_line(se, r, other_second);
        if (other_line) snprintf(where, sizeof(where), " (%s)", other_line);
        /* Numbered as the lab's report numbers the races of a run. */
        snprintf(head, sizeof(head), "race %-4zu", tui_session_race_number(se, i));
        snprintf(line, sizeof(line), "%s (%s) with %s on %s%s, %s at 0x%" PRIx64, trace_race_kind_name(r->kind),
                 trace_race_kind_text(r->kind), desc, other->stream_name, where, bytes, r->addr);
        n = wrap(lines, n, max, head, "         ", line, width);
        if (r->fix[0]) n = wrap(lines, n, max, "         fix: ", "              ", r->fix, width);
    }
    if (races == 0 && tui_run_is_racy(run, o.id) && n < max)
        snprintf(lines[n++], 256, "race     takes part in a race (its report was not kept)");
    if (races == 0 && !tui_run_is_racy(run, o.id) && n < max)
        snprintf(lines[n++], 256, "races    none involve this op");
    return n;
}

static void details_panel(tui_screen *s, tui_model *m) {
    size_t max = 200;
    char(*lines)[256] = calloc(max, sizeof(*lines));
    if (!lines) return;
    int w = s->cols - 4 < 100 ? s->cols - 4 : 100;
    size_t n = tui_details_lines(m, lines, max, w - 4);
    panel(s, m, "bar details", lines, n, "Esc closes; Tab: next bar");
    free(lines);
}

/* ---- the picker, too small, and everything ---------------------------------------------------- */

static void format_ago(long long seconds, char *buf, size_t size) {
    if (seconds < 0) seconds = 0;
    if (seconds < 90)
        snprintf(buf, size, "just now");
    else if (seconds < 90 * 60)
        snprintf(buf, size, "%lld min ago", seconds / 60);
    else if (seconds < 36 * 3600)
        snprintf(buf, size, "%lld h ago", seconds / 3600);
    else
        snprintf(buf, size, "%lld days ago", seconds / 86400);
}

static const char *status_words(const char *status) {
    if (!strcmp(status, "pass")) return "PASS";
    if (!strcmp(status, "below_target")) return "BELOW TARGET";
    if (!strcmp(status, "incorrect")) return "FAIL: incorrect";
    if (!strcmp(status, "racy")) return "FAIL: racy";
    if (!strcmp(status, "crashed")) return "CRASHED";
    return "ERROR";
}

static void draw_picker(tui_screen *s, tui_model *m, const tui_layout *L) {
    text(s, 0, 0, L->cols - 8, " streamlab" BULLET "labs", TUI_COLOR_TITLE, TUI_ATTR_BOLD);
    text(s, L->cols - 7, 0, L->cols, "? help", TUI_COLOR_DIM, 0);
    text(s, 1, 1, L->cols,
         "Pick a lab: it runs your lab.c against the baseline and draws every stream and engine live.",
         TUI_COLOR_DEFAULT, 0);
    tui_screen_fill(s, 0, 2, L->cols, glyph_or(m, 0x2500, '-'), TUI_COLOR_DIM, 0);
    size_t n = m->catalog ? m->catalog->n : 0;
    if (n == 0) text(s, 2, 3, L->cols, "no labs found in labs/catalog.json", TUI_COLOR_FAIL, 0);
    int rows = L->footer_row - 3;
    int first = m->picker_cursor >= rows ? m->picker_cursor - rows + 1 : 0;
    for (int i = 0; i < rows && (size_t)(first + i) < n; i++) {
        int idx = first + i, y = 3 + i;
        const tui_lab *lab = &m->catalog->labs[idx];
        bool cur = idx == m->picker_cursor;
        if (cur) tui_screen_put(s, 0, y, glyph_or(m, 0x25B6, '>'), TUI_COLOR_TITLE, TUI_ATTR_BOLD);
        /* The last result, right-aligned; the title gets the rest. */
        char result[128] = "", ago[48] = "";
        const char *verdict = NULL;
        tui_color c = TUI_COLOR_DIM;
        tui_last_result last;
        if (m->history && tui_history_get(m->history, lab->id, "yours", &last)) {
            verdict = status_words(last.status);
            c = !strcmp(last.status, "pass")           ? TUI_COLOR_PASS
                : !strcmp(last.status, "below_target") ? TUI_COLOR_WARN
                                                       : TUI_COLOR_FAIL;
            if (last.speedup > 0) snprintf(result, sizeof(result), " %.2fx", last.speedup);
            if (last.when > 0 && L->cols >= 90) {
                char a[32];
                format_ago(m->wall_now - (long long)last.when, a, sizeof(a));
                snprintf(ago, sizeof(ago), BULLET "%s", a);
            }
        }
        int result_w = verdict ? 6 + columns(verdict) + columns(result) + columns(ago) : columns("not run yet");
        int x = L->cols - 1 - result_w;
        char t[256];
        snprintf(t, sizeof(t), "%02d  %s", lab->number, lab->title);
        text(s, 2, y, x - 1, t, TUI_COLOR_DEFAULT, cur ? TUI_ATTR_BOLD : 0);
        if (verdict) {
            x = text(s, x, y, L->cols, "last: ", TUI_COLOR_DIM, 0);
            x = text(s, x, y, L->cols, verdict, c, TUI_ATTR_BOLD);
            x = text(s, x, y, L->cols, result, TUI_COLOR_DEFAULT, 0);
            text(s, x, y, L->cols, ago, TUI_COLOR_DIM, 0);
        } else {
            text(s, x, y, L->cols, "not run yet", TUI_COLOR_DIM, 0);
        }
    }
    static const key_help keys[] = {
        {"\xe2\x8f\x8e", "Enter", "open"},
        {"\xe2\x86\x91\xe2\x86\x93", "^v", "choose"},
        {"?", "?", "help"},
        {"q", "q", "quit"},
    };
    draw_keys(s, m, L->footer_row, L->cols, keys, 4, 2);
    if (m->message[0] && m->now_ms - m->message_ms < MESSAGE_MS)
        text(s, 1, L->status_row, L->cols, m->message, m->message_error ? TUI_COLOR_FAIL : TUI_COLOR_TITLE, 0);
}

static void draw_too_small(tui_screen *s, const tui_layout *L) {
    char size[64], need[64];
    snprintf(size, sizeof(size), "This terminal is %dx%d;", L->cols, L->rows);
    snprintf(need, sizeof(need), "the timeline needs %dx%d.", TUI_MIN_COLS, TUI_MIN_ROWS);
    const char *lines[] = {size, need, "Please make the window larger.", "(q quits)"};
    int n = 4, y = (s->rows - n) / 2;
    if (y < 0) y = 0;
    for (int i = 0; i < n; i++) {
        int w = columns(lines[i]);
        int x = (s->cols - w) / 2;
        tui_screen_text(s, x > 0 ? x : 0, y + i, s->cols, lines[i], i == 0 ? TUI_COLOR_WARN : TUI_COLOR_DEFAULT,
                        i == 0 ? TUI_ATTR_BOLD : 0);
    }
}

/* Without UTF-8, the few non-ASCII characters the drawing uses become ASCII, and anything
 * else (a stream named in another script) '?'. */
static void ascii_fallback(tui_screen *s) {
    for (int y = 0; y < s->rows; y++)
        for (int x = 0; x < s->cols; x++) {
            tui_cell *c = tui_screen_at(s, x, y);
            if (c->ch < 0x80) continue;
            switch (c->ch) {
            case 0x00B7: c->ch = '-'; break; /* · */
            case 0x2500: c->ch = '-'; break; /* ─ */
            case 0x2502: c->ch = '|'; break; /* │ */
            case 0x250C:
            case 0x2510:
            case 0x2514:
            case 0x2518: c->ch = '+'; break;
            case 0x25B6: c->ch = '>'; break; /* ▶ */
            case 0x2191: c->ch = '^'; break; /* ↑ */
            case 0x2193: c->ch = 'v'; break; /* ↓ */
            case 0x2190: c->ch = '<'; break; /* ← */
            case 0x2192: c->ch = '>'; break; /* → */
            default: c->ch = '?'; break;
            }
        }
}

static void draw_all(tui_screen *s, tui_model *m, const tui_layout *L);

void tui_draw(tui_screen *s, tui_model *m, const tui_layout *L) {
    draw_all(s, m, L);
    if (!m->utf8) ascii_fallback(s);
}

static void draw_all(tui_screen *s, tui_model *m, const tui_layout *L) {
    tui_screen_clear(s);
    if (L->too_small) {
        draw_too_small(s, L);
        return;
    }
    if (m->mode == TUI_MODE_PICKER) {
        draw_picker(s, m, L);
        if (m->overlay == TUI_OVERLAY_HELP) help_panel(s, m);
        return;
    }
    draw_title_row(s, m, L);
    draw_metrics_row(s, m, L);
    for (int i = 0; i < L->n_panes; i++) draw_pane(s, m, L, &L->panes[i]);
    draw_axis(s, L);
    draw_legend(s, m, L);
    draw_footer(s, m, L);
    draw_notice(s, m, L);
    draw_status(s, m, L);
    switch (m->overlay) {
    case TUI_OVERLAY_HELP: help_panel(s, m); break;
    case TUI_OVERLAY_DETAILS: details_panel(s, m); break;
    case TUI_OVERLAY_OUTPUT: output_panel(s, m); break;
    case TUI_OVERLAY_NONE: break;
    }
}
