/* tui/lane.h: one row of the timeline: an engine (what the hardware did) or a stream
 * (what one queue asked for), holding its bars sorted by start time. A redraw looks at
 * the bars that reach the visible window only (binary search, then a walk), so drawing
 * costs O(visible bars), not O(all bars). */
#ifndef STREAMLAB_TUI_LANE_H
#define STREAMLAB_TUI_LANE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/record/op.h"
#include "tui/bar.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tui_lane {
    bool is_stream;
    trace_engine engine; /* engine lanes */
    int32_t stream;      /* stream lanes: the stream id */
    tui_bar *bars;
    size_t n, cap;
    bool sorted;         /* bars are in (start, id) order */
    uint64_t max_len;    /* the longest bar, for the window search */
} tui_lane;

void tui_lane_init_engine(tui_lane *lane, trace_engine engine);
void tui_lane_init_stream(tui_lane *lane, int32_t stream);
void tui_lane_free(tui_lane *lane);

/* Whether op belongs on this lane (the trace timeline's rule: an engine lane holds the
 * ops its engine ran, a stream lane the copies, memsets, kernels, host functions and
 * event records and waits of its stream). */
bool tui_lane_wants(const tui_lane *lane, const trace_op *op);

/* Appends a bar. Returns 0, or -1 when out of memory (the bar is dropped). */
int tui_lane_add(tui_lane *lane, const tui_bar *bar);
/* Puts the bars in order (only when an out-of-order bar arrived since the last call). */
void tui_lane_sort(tui_lane *lane);
/* The first bar (in start order) that may reach time t: every bar before it ends before
 * t. The lane must be sorted. */
size_t tui_lane_first_reaching(const tui_lane *lane, uint64_t t);
/* The index of the bar with this start and id, or -1. The lane must be sorted. */
long tui_lane_find(const tui_lane *lane, uint64_t start_ns, uint64_t id);

#ifdef __cplusplus
}
#endif

#endif
