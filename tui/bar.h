/* tui/bar.h: what the timeline draws for one op: a bar of a kind (H2D, kernel, D2H,
 * memset, sync/wait, ...) from start to end, with its batch number and op id. Bars are
 * small (32 bytes) so that lanes of 100,000 ops stay cheap to draw; the whole op is kept
 * in the run's trace_timeline for the details panel and the exporters. */
#ifndef STREAMLAB_TUI_BAR_H
#define STREAMLAB_TUI_BAR_H

#include <stdbool.h>
#include <stdint.h>

#include "trace/record/op.h"
#include "tui/screen.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Kinds as the timeline colours them. The first five are the legend's. */
typedef enum tui_kind {
    TUI_KIND_H2D = 0,
    TUI_KIND_KERNEL,
    TUI_KIND_D2H,
    TUI_KIND_MEMSET,   /* memsets and device-to-device / host-to-host copies */
    TUI_KIND_SYNC,     /* the host blocked (a synchronising call), or a stream waited on an event */
    TUI_KIND_HOSTFN,   /* cudaLaunchHostFunc */
    TUI_KIND_HOSTACC,  /* the host read or wrote a buffer */
    TUI_KIND_API,      /* a runtime call's host-side span */
    TUI_KIND_EVENT,    /* an event recorded */
    TUI_KIND_COUNT
} tui_kind;

/* How many kinds the legend names (H2D, kernel, D2H, memset, wait/sync). */
#define TUI_LEGEND_KINDS 5

typedef struct tui_bar {
    uint64_t start_ns, end_ns; /* run-relative times are made at draw time */
    uint64_t id;               /* the op's id */
    int32_t batch;             /* -1 when none */
    uint8_t kind;              /* tui_kind */
} tui_bar;

tui_kind tui_kind_of(const trace_op *op);
/* "H2D", "kernel", "D2H", "memset", "wait/sync", "host fn", "host access", "API", "event". */
const char *tui_kind_name(tui_kind kind);
tui_color tui_kind_color(tui_kind kind);
/* The glyph that marks the kind, the text timeline's (trace/view/export_text.h), with or
 * without colour, so that a student who cannot tell the colours apart still can: █ H2D,
 * ▓ kernel, ░ D2H, ▒ memset, ─ wait/sync, ╎ runtime call; ASCII ones when the terminal cannot
 * show UTF-8 (> # < = ~ .). sparse: the cell is busy less than half its time (TUI_SPARSE), and
 * the four kinds that do work on an engine get a light glyph instead, so that short operations
 * with gaps between them never draw as a solid bar: › H2D, • kernel, ‹ D2H, ◦ memset
 * (ASCII ) : ( -). */
uint32_t tui_kind_glyph(tui_kind kind, bool sparse, bool utf8);
/* Whether the kind does work on an engine (H2D, kernel, D2H, memset): the kinds whose cells
 * show how busy they are. */
bool tui_kind_is_work(tui_kind kind);
/* A cell busy less than this fraction of its time is drawn with the light glyphs. */
#define TUI_SPARSE 0.5
/* Drawing layers: zero-length markers under runtime-call spans under everything else, so
 * that bars win a shared column and a synchronising call shows as the wait it is. */
int tui_bar_layer(const tui_bar *bar);

#ifdef __cplusplus
}
#endif

#endif
