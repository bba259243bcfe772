/* trace/view/export_text.h: a compact text timeline, for terminals without ncurses and for
 * the lab report: one row per lane (engines, then streams), scaled to a given width,
 * batch numbers inside bars where they fit, each lane's busy percentage, a time axis with
 * units, and a legend. Plain ASCII or UTF-8 block characters:
 *
 *   H2D engine        ██1██ ██2██ ██3██                      60%
 *   compute                 ▓▓1▓▓ ▓▓2▓▓ ▓▓3▓▓                60%
 *   D2H engine                    ░░1░░ ░░2░░ ░░3░░          60%
 *   time (us)         0         10        20        30
 *
 * Each kind has its glyph (█ H2D, ▓ kernel, ░ D2H, ▒ memset and other copies; > # < = in
 * ASCII). A column the lane's work (copies, memsets, kernels) keeps busy less than
 * TRACE_TEXT_SPARSE of its time gets the kind's light glyph instead (› • ‹ ◦; ASCII ) : ( -),
 * so that short operations with gaps between them never draw as a solid bar.
 *
 * A run on several devices (trace_timeline_multi_device) has the host lane first, then a
 * row naming each device ("GPU 0") above its engines and streams, then "link" above a
 * lane per direction of peer copies ("GPU 0 -> GPU 1"); each engine's percentage is its
 * own device's.
 *
 * The label column is as wide as the longest label needs (TRACE_TEXT_LABEL_WIDTH at least,
 * TRACE_TEXT_LABEL_MAX_WIDTH and a third of the width at most); a stream's name that still
 * does not fit is shortened in the middle (lane_label.h: `s13 "grap…ch 1"`), and a line
 * after the legend gives it in full (`streams: s13 "graph branch 1 of 12"`). */
#ifndef STREAMLAB_TRACE_EXPORT_TEXT_H
#define STREAMLAB_TRACE_EXPORT_TEXT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "trace/view/timeline.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TRACE_TEXT_LABEL_WIDTH 18     /* columns of the lane labels, at least */
#define TRACE_TEXT_LABEL_MAX_WIDTH 32 /* at most (and a third of the width at most) */
#define TRACE_TEXT_MIN_WIDTH 40
#define TRACE_TEXT_SPARSE 0.5     /* a column busy less than this fraction: light glyphs */

typedef struct trace_text_options {
    int width;     /* total columns, labels and percentages included; 0: 100; at least
                      TRACE_TEXT_MIN_WIDTH */
    bool utf8;     /* block characters; false: plain ASCII */
    int32_t run;   /* TRACE_RUN_ANY: everything kept */
    bool legend;   /* end with a legend line */
    uint64_t span_ns; /* 0: the axis covers the timeline's own span; larger: this many ns from
                         its first op, so that several timelines drawn one above the other
                         share one scale */
} trace_text_options;

/* The timeline as text, one line per lane then the axis (and legend), each line ending
 * in a newline. Never wider than the width. Returns a malloc'd string the caller frees,
 * or NULL when out of memory. */
char *trace_export_text(trace_timeline *tl, const trace_text_options *options);

/* Writes it to out. Returns 0, or -1 when out of memory or the write failed. */
int trace_export_text_write(trace_timeline *tl, const trace_text_options *options, FILE *out);

/* Display columns of a UTF-8 string in which every code point is one column wide (as the
 * timeline's are). */
size_t trace_text_columns(const char *s);

#ifdef __cplusplus
}
#endif

#endif
