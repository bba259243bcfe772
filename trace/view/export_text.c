/* trace/view/export_text.c: the text timeline (see export_text.h). */
#include "trace/view/export_text.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/view/lane_label.h"
#include "trace/view/metrics.h"

#define PCT_WIDTH 5 /* " 100%" */

typedef struct cell {
    const char *glyph;
    char digit; /* non-zero: a batch digit drawn instead of the glyph */
} cell;

typedef struct strbuf {
    char *s;
    size_t n, cap;
    bool failed;
} strbuf;

static void put(strbuf *b, const char *text, size_t len) {
    if (b->failed) return;
    if (b->n + len + 1 > b->cap) {
        size_t ncap = b->cap ? b->cap * 2 : 4096;
        while (ncap < b->n + len + 1) ncap *= 2;
        char *p = realloc(b->s, ncap);
        if (!p) {
            b->failed = true;
            return;
        }
        b->s = p;
        b->cap = ncap;
    }
    memcpy(b->s + b->n, text, len);
    b->n += len;
    b->s[b->n] = '\0';
}

static void puts_(strbuf *b, const char *text) { put(b, text, strlen(text)); }

static void spaces(strbuf *b, size_t n) {
    for (size_t i = 0; i < n; i++) put(b, " ", 1);
}

size_t trace_text_columns(const char *s) {
    size_t n = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xC0) != 0x80) n++;
    return n;
}

/* Whether op does work on an engine (a copy, a memset, a kernel): the kinds whose cells show
 * how busy they are. */
static bool is_work(const trace_op *op) {
    return op->end_ns > op->start_ns &&
           (op->kind == TRACE_OP_COPY || op->kind == TRACE_OP_MEMSET || op->kind == TRACE_OP_KERNEL);
}

/* The light glyph of a work op in a cell busy less than TRACE_TEXT_SPARSE of its time. */
static const char *sparse_glyph_of(const trace_op *op, bool utf8) {
    if (op->kind == TRACE_OP_KERNEL) return utf8 ? "\u2022" : ":"; /* • */
    if (op->kind == TRACE_OP_COPY && op->dir == TRACE_COPY_H2D) return utf8 ? "\u203a" : ")"; /* › */
    if (op->kind == TRACE_OP_COPY && op->dir == TRACE_COPY_D2H) return utf8 ? "\u2039" : "("; /* ‹ */
    return utf8 ? "\u25e6" : "-"; /* ◦ memsets and other copies */
}

static const char *glyph_of(const trace_op *op, bool utf8) {
    switch (op->kind) {
    case TRACE_OP_COPY:
        if (op->dir == TRACE_COPY_H2D) return utf8 ? "\u2588" : ">"; /* █ */
        if (op->dir == TRACE_COPY_D2H) return utf8 ? "\u2591" : "<"; /* ░ */
        return utf8 ? "\u2592" : "=";                                 /* ▒ */
    case TRACE_OP_MEMSET: return utf8 ? "\u2592" : "=";
    case TRACE_OP_KERNEL: return utf8 ? "\u2593" : "#"; /* ▓ */
    case TRACE_OP_HOST_FN: return utf8 ? "\u25aa" : "f"; /* ▪ */
    case TRACE_OP_EVENT_RECORD:
    case TRACE_OP_EVENT_WAIT: return utf8 ? "\u2502" : "|"; /* │ */
    case TRACE_OP_SYNC: return utf8 ? "\u2500" : "~";       /* ─ */
    case TRACE_OP_HOST_ACCESS: return utf8 ? "\u25ab" : "h"; /* ▫ */
    case TRACE_OP_API: return utf8 ? "\u254e" : ".";        /* ╎ */
    default: return "?";
    }
}

/* A time unit that makes the span read as 1 .. 10000 units. */
static void pick_unit(uint64_t span, double *unit_ns, const char **name) {
    if (span >= 10000000000ull) {
        *unit_ns = 1e9;
        *name = "s";
    } else if (span >= 10000000ull) {
        *unit_ns = 1e6;
        *name = "ms";
    } else if (span >= 10000ull) {
        *unit_ns = 1e3;
        *name = "us";
    } else {
        *unit_ns = 1.0;
        *name = "ns";
    }
}

/* A 1, 2 or 5 times a power of ten step of at least raw. */
static double nice_step(double raw) {
    if (raw <= 0) return 1;
    double p = pow(10.0, floor(log10(raw)));
    const double m[] = {1, 2, 5, 10};
    for (int i = 0; i < 4; i++)
        if (m[i] * p >= raw) return m[i] * p;
    return 10 * p;
}

/* Columns [a, b) for op, rounded to the nearest column edge; a bar of four columns or
 * more leaves its last column blank, so that back-to-back bars read as separate. A work op's
 * column that busy (the lane's work, per column) says was busy less than TRACE_TEXT_SPARSE
 * of its time gets the light glyph. */
static void draw(cell *row, size_t w, const trace_op *op, uint64_t t0, uint64_t span, bool utf8,
                 const double *busy) {
    double scale = (double)w / (double)span;
    uint64_t end = op->end_ns > op->start_ns ? op->end_ns : op->start_ns;
    size_t a = (size_t)llround((double)(op->start_ns - t0) * scale);
    size_t b = (size_t)llround((double)(end - t0) * scale);
    if (a >= w) a = w - 1;
    if (b > w) b = w;
    if (b <= a) b = a + 1;
    if (b - a >= 4) b--;
    const char *g = glyph_of(op, utf8), *light = is_work(op) ? sparse_glyph_of(op, utf8) : g;
    for (size_t c = a; c < b; c++) {
        row[c].glyph = busy && busy[c] < TRACE_TEXT_SPARSE ? light : g;
        row[c].digit = 0;
    }
    if (op->batch >= 0) {
        char digits[16];
        int len = snprintf(digits, sizeof(digits), "%" PRId32, op->batch);
        if (len > 0 && b - a >= (size_t)len + 2) {
            size_t at = a + (b - a - (size_t)len) / 2;
            for (int i = 0; i < len; i++) row[at + (size_t)i].digit = digits[i];
        }
    }
}

/* How much of each of the w columns the lane's work covers (a fraction of the column; ops that
 * overlap on an engine add up), into busy[0 .. w). */
static void work_coverage(trace_timeline *tl, int32_t run, const trace_lane *lane, size_t w, uint64_t t0,
                          uint64_t span, double *busy) {
    for (size_t c = 0; c < w; c++) busy[c] = 0;
    double scale = (double)w / (double)span;
    size_t n = trace_timeline_count(tl);
    for (size_t i = 0; i < n; i++) {
        const trace_op *op = trace_timeline_get(tl, i);
        if (!is_work(op) || !trace_timeline_in_run(op, run) || !trace_lane_has(lane, op)) continue;
        double a = (double)(op->start_ns - t0) * scale, b = (double)(op->end_ns - t0) * scale;
        if (a < 0) a = 0;
        if (b > (double)w) b = (double)w;
        for (size_t c = (size_t)a; c < w && (double)c < b; c++) {
            double lo = a > (double)c ? a : (double)c, hi = b < (double)(c + 1) ? b : (double)(c + 1);
            if (hi > lo) busy[c] += hi - lo;
        }
    }
}

/* The label in a column of width columns, one column per byte: anything but printable
 * ASCII (a stream named in another script, a control character) shows as '?', except the
 * ellipsis of a shortened name where the timeline is UTF-8. */
static void label(strbuf *b, const char *text, size_t width, bool utf8) {
    char cut[TRACE_TEXT_LABEL_MAX_WIDTH * 3 + 1];
    size_t n = 0, cols = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p && cols + 1 < width && n + 4 < sizeof(cut); p++) {
        if (utf8 && p[0] == 0xE2 && p[1] == 0x80 && p[2] == 0xA6) { /* U+2026 … */
            memcpy(cut + n, p, 3);
            n += 3;
            p += 2;
            cols++;
            continue;
        }
        if (*p >= 0x80 && (*p & 0xC0) == 0x80) continue; /* continuation bytes: one '?' per code point */
        cut[n++] = (*p >= 0x20 && *p < 0x7F) ? (char)*p : '?';
        cols++;
    }
    cut[n] = '\0';
    puts_(b, cut);
    spaces(b, width - cols);
}

/* The name of a stream as the timeline may print it: printable ASCII, '?' for the rest. */
static void plain_name(const char *name, char *out, size_t len) {
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)name; *p && n + 1 < len; p++) {
        if (*p >= 0x80 && (*p & 0xC0) == 0x80) continue;
        out[n++] = (*p >= 0x20 && *p < 0x7F) ? (char)*p : '?';
    }
    out[n] = '\0';
}

/* A stream lane's label in cols columns (lane_label.h); true when its name was shortened. */
static bool stream_label(trace_timeline *tl, const trace_lane *lane, size_t cols, bool utf8, char *buf, size_t len) {
    const trace_stream *info = trace_timeline_stream(tl, lane->stream);
    char id[16], prio[16] = "", name[64] = "";
    snprintf(id, sizeof(id), lane->stream == TRACE_STREAM_LEGACY ? "stream 0" : "s%d", (int)lane->stream);
    if (lane->stream != TRACE_STREAM_LEGACY && info && info->name[0] && strcmp(info->name, id) != 0)
        plain_name(info->name, name, sizeof(name));
    if (lane->priority != 0) snprintf(prio, sizeof(prio), "p%d", (int)lane->priority);
    return trace_lane_label_fit(id, name, prio, cols, utf8, buf, len);
}

/* The full names of the streams whose labels were shortened, after the legend, wrapped at
 * width: `s13 "graph branch 1", s14 "graph branch 2"`. */
static void full_names(strbuf *b, trace_timeline *tl, const trace_lane *lanes, const bool *shortened, size_t n,
                       size_t width) {
    size_t used = 0;
    for (size_t l = 0; l < n; l++) {
        if (!shortened[l]) continue;
        char full[96], name[64];
        const trace_stream *info = trace_timeline_stream(tl, lanes[l].stream);
        plain_name(info ? info->name : "", name, sizeof(name));
        snprintf(full, sizeof(full), "%ss%d \"%s\"", used ? ", " : "streams: ", (int)lanes[l].stream, name);
        size_t cols = strlen(full);
        if (used && used + cols > width) {
            puts_(b, "\n");
            snprintf(full, sizeof(full), "         s%d \"%s\"", (int)lanes[l].stream, name);
            cols = strlen(full);
            used = 0;
        }
        puts_(b, full);
        used += cols;
    }
    if (used) puts_(b, "\n");
}

/* multi: a run on several devices, whose peer copies share the D2D glyph. */
static void legend(strbuf *b, size_t width, bool utf8, bool multi) {
    static const char *const ascii[] = {"> H2D", "# kernel", "< D2H", "= memset/D2D", "~ sync", ". API",
                                        "| event", "f host fn", "h host access", "):(- <50% busy"};
    static const char *const blocks[] = {"\u2588 H2D", "\u2593 kernel", "\u2591 D2H", "\u2592 memset/D2D",
                                         "\u2500 sync", "\u254e API", "\u2502 event", "\u25aa host fn",
                                         "\u25ab host access", "\u203a\u2022\u2039\u25e6 <50% busy"};
    static const char *const ascii_multi[] = {"> H2D", "# kernel", "< D2H", "= memset/D2D/peer", "~ sync", ". API",
                                              "| event", "f host fn", "h host access", "):(- <50% busy"};
    static const char *const blocks_multi[] = {"\u2588 H2D", "\u2593 kernel", "\u2591 D2H",
                                               "\u2592 memset/D2D/peer", "\u2500 sync", "\u254e API",
                                               "\u2502 event", "\u25aa host fn", "\u25ab host access",
                                               "\u203a\u2022\u2039\u25e6 <50% busy"};
    const char *const *items = multi ? (utf8 ? blocks_multi : ascii_multi) : (utf8 ? blocks : ascii);
    size_t used = 0;
    for (size_t i = 0; i < sizeof(ascii) / sizeof(ascii[0]); i++) {
        size_t cols = trace_text_columns(items[i]);
        if (used > 0 && used + 2 + cols > width) {
            puts_(b, "\n");
            used = 0;
        }
        if (used > 0) {
            puts_(b, "  ");
            used += 2;
        }
        puts_(b, items[i]);
        used += cols;
    }
    puts_(b, "\n");
}

static void axis(strbuf *b, size_t w, uint64_t span, size_t label_w) {
    double unit;
    const char *uname;
    pick_unit(span, &unit, &uname);
    char head[32];
    snprintf(head, sizeof(head), "time (%s)", uname);
    label(b, head, label_w, false);
    char *line = malloc(w + 1);
    if (!line) {
        b->failed = true;
        return;
    }
    memset(line, ' ', w);
    line[w] = '\0';
    double span_u = (double)span / unit;
    double step = nice_step(span_u * 10.0 / (double)w); /* a label every ~10 columns or more */
    size_t next_free = 0;
    for (int k = 0;; k++) {
        double t = k * step;
        if (t > span_u + 1e-9) break;
        size_t col = (size_t)floor(t / span_u * (double)w);
        char num[32];
        snprintf(num, sizeof(num), "%g", t);
        size_t len = strlen(num);
        if (col + len > w) col = len <= w ? w - len : 0; /* the last label ends at the edge */
        if (col < next_free || col + len > w) continue;
        memcpy(line + col, num, len);
        next_free = col + len + 1;
    }
    puts_(b, line);
    free(line);
    puts_(b, "\n");
}

char *trace_export_text(trace_timeline *tl, const trace_text_options *options) {
    trace_text_options o = *options;
    if (o.width == 0) o.width = 100;
    if (o.width < TRACE_TEXT_MIN_WIDTH) o.width = TRACE_TEXT_MIN_WIDTH;
    strbuf b = {0};
    trace_metrics m;
    if (trace_metrics_compute(tl, o.run, &m) != 0) {
        puts_(&b, "(no timed operations)\n");
        return b.failed ? (free(b.s), NULL) : b.s;
    }
    uint64_t t0 = m.t0_ns, span = m.makespan_ns ? m.makespan_ns : 1;
    if (o.span_ns > span) span = o.span_ns;
    size_t n_lanes = trace_timeline_lanes(tl, o.run, NULL, 0);
    trace_lane *lanes = calloc(n_lanes + 1, sizeof(trace_lane));
    bool *shortened = calloc(n_lanes + 1, sizeof(bool));
    if (!lanes || !shortened) {
        free(lanes);
        free(shortened);
        trace_metrics_free(&m);
        return NULL;
    }
    trace_timeline_lanes(tl, o.run, lanes, n_lanes);
    /* The label column: TRACE_TEXT_LABEL_WIDTH, or as wide as the longest label needs, up
     * to a third of the width (TRACE_TEXT_LABEL_MAX_WIDTH at most); a stream's name longer
     * than that is shortened in the middle and given in full under the legend. */
    size_t label_w = TRACE_TEXT_LABEL_WIDTH;
    size_t cap = (size_t)o.width / 3 < TRACE_TEXT_LABEL_MAX_WIDTH ? (size_t)o.width / 3 : TRACE_TEXT_LABEL_MAX_WIDTH;
    for (size_t l = 0; l < n_lanes; l++) {
        char full[128];
        if (lanes[l].is_stream && !lanes[l].heading)
            stream_label(tl, &lanes[l], sizeof(full), o.utf8, full, sizeof(full));
        else
            snprintf(full, sizeof(full), "%s", lanes[l].label);
        size_t need = trace_text_columns(full) + 1;
        if (need > label_w) label_w = need < cap ? need : cap > label_w ? cap : label_w;
    }
    size_t w = (size_t)o.width - label_w - PCT_WIDTH;
    cell *row = calloc(w, sizeof(cell));
    double *busy = calloc(w, sizeof(double));
    if (!row || !busy) {
        free(lanes);
        free(shortened);
        free(row);
        free(busy);
        trace_metrics_free(&m);
        return NULL;
    }
    size_t n = trace_timeline_count(tl);
    bool multi = false;
    for (size_t l = 0; l < n_lanes; l++) {
        if (lanes[l].heading) {
            /* A device's (or the link's) heading: its name alone on the row. */
            multi = true;
            char head[TRACE_TEXT_LABEL_WIDTH];
            snprintf(head, sizeof(head), "%s", lanes[l].label);
            puts_(&b, head);
            puts_(&b, "\n");
            continue;
        }
        for (size_t c = 0; c < w; c++) row[c] = (cell){" ", 0};
        work_coverage(tl, o.run, &lanes[l], w, t0, span, busy);
        /* Markers first, then runtime-call spans, then everything else, so that bars win
         * a shared column and a synchronising call shows as the wait it is, not as the
         * API span recorded alongside it. */
        for (int pass = 0; pass < 3; pass++)
            for (size_t i = 0; i < n; i++) {
                const trace_op *op = trace_timeline_get(tl, i);
                if (!trace_timeline_in_run(op, o.run) || !trace_lane_has(&lanes[l], op)) continue;
                int layer = op->end_ns <= op->start_ns ? 0 : op->kind == TRACE_OP_API ? 1 : 2;
                if (layer == pass) draw(row, w, op, t0, span, o.utf8, busy);
            }
        char text[TRACE_TEXT_LABEL_MAX_WIDTH * 3 + 1];
        if (lanes[l].is_stream)
            shortened[l] = stream_label(tl, &lanes[l], label_w - 1, o.utf8, text, sizeof(text));
        else
            snprintf(text, sizeof(text), "%s", lanes[l].label);
        label(&b, text, label_w, o.utf8);
        for (size_t c = 0; c < w; c++) {
            if (row[c].digit)
                put(&b, &row[c].digit, 1);
            else
                puts_(&b, row[c].glyph);
        }
        const trace_busy *busy = trace_metrics_lane(&m, &lanes[l]);
        char pct[16];
        snprintf(pct, sizeof(pct), " %3d%%", busy ? (int)lround(busy->utilisation * 100.0) : 0);
        puts_(&b, pct);
        puts_(&b, "\n");
    }
    axis(&b, w, span, label_w);
    if (o.legend) legend(&b, (size_t)o.width, o.utf8, multi);
    full_names(&b, tl, lanes, shortened, n_lanes, (size_t)o.width);
    free(lanes);
    free(shortened);
    free(row);
    free(busy);
    trace_metrics_free(&m);
    if (b.failed) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

int trace_export_text_write(trace_timeline *tl, const trace_text_options *options, FILE *out) {
    char *text = trace_export_text(tl, options);
    if (!text) return -1;
    int rc = fputs(text, out) == EOF ? -1 : 0;
    free(text);
    return rc;
}
