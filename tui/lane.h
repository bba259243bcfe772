/* tui/lane.h: one row of the timeline: an engine (what the hardware did) or a stream
 * (what one queue asked for), holding its bars sorted by start time; in a run on several
 * devices also the link's lanes and the headings that group lanes by device. A redraw looks at
 * the bars that reach the visible window only (binary search, then a walk), so drawing
 * costs O(visible bars), not O(all bars). */
#ifndef STREAMLAB_TUI_LANE_H
#define STREAMLAB_TUI_LANE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/record/op.h"
#include "trace/view/timeline.h"
#include "tui/bar.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tui_lane {
    bool is_stream;
    bool heading;        /* a run on several devices: a row naming a device ("GPU 1") or the
                            link, above its lanes; it holds no bars */
    trace_engine engine; /* engine lanes (TRACE_ENGINE_LINK: a link lane, or the link's heading) */
    uint32_t device;     /* engine lanes and headings: the device (a link lane: the source) */
    uint32_t dst_device; /* link lanes: the destination */
    int32_t stream;      /* stream lanes: the stream id */
    tui_bar *bars;
    size_t n, cap;
    bool sorted;         /* bars are in (start, id) order */
    uint64_t max_len;    /* the longest bar, for the window search */
} tui_lane;

void tui_lane_init_engine(tui_lane *lane, trace_engine engine);
/* An engine lane of one device; a link lane (TRACE_ENGINE_LINK) from device to dst_device. */
void tui_lane_init_engine_on(tui_lane *lane, trace_engine engine, uint32_t device, uint32_t dst_device);
/* The heading of a device's lanes, or of the link's (engine TRACE_ENGINE_LINK). */
void tui_lane_init_heading(tui_lane *lane, trace_engine engine, uint32_t device);
void tui_lane_init_stream(tui_lane *lane, int32_t stream);
void tui_lane_free(tui_lane *lane);

/* Whether op belongs on this lane (the trace timeline's rule: an engine lane holds the
 * ops its engine ran, a stream lane the copies, memsets, kernels, host functions and
 * event records and waits of its stream). */
bool tui_lane_wants(const tui_lane *lane, const trace_op *op);
/* The lane as the trace timeline describes one (for trace_lane_has, trace_metrics_lane). */
trace_lane tui_lane_as_trace(const tui_lane *lane);

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
