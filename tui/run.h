/* tui/run.h: one harness run as the timeline shows it. The harness tags every op with
 * the run it belongs to (warm-ups, baseline runs, your runs, perturbed schedules) and
 * names each run in a progress record ("run 3/5 (yours)"). A run keeps its ops twice:
 * whole, in a trace_timeline (for metrics, the details panel and the Chrome export), and
 * as small bars in one lane per engine and per stream (for drawing). */
#ifndef STREAMLAB_TUI_RUN_H
#define STREAMLAB_TUI_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/view/metrics.h"
#include "trace/view/timeline.h"
#include "tui/idset.h"
#include "tui/lane.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tui_role {
    TUI_ROLE_OTHER = 0, /* not named yet, or neither */
    TUI_ROLE_YOURS,     /* "(yours)": the implementation under test */
    TUI_ROLE_BASELINE   /* "(baseline)": the lab's sequential baseline */
} tui_role;

/* Engine lanes in display order: H2D, compute, D2H, host. */
#define TUI_ENGINE_LANES 4
extern const trace_engine tui_engine_order[TUI_ENGINE_LANES];

typedef struct tui_run {
    int32_t number;         /* the recorder's run number (1, 2, ...) */
    char label[64];         /* the harness's name for it: "run 3/5 (yours)"; "" until known */
    tui_role role;
    bool warmup;            /* "warm-up (...)" */
    bool timed;             /* "run k/K (...)": one of the runs the speedup is the median of */
    bool schedule;          /* "schedule k/K (yours)": a perturbed schedule */
    trace_timeline *tl;     /* the whole ops */
    tui_lane engines[TUI_ENGINE_LANES]; /* device 0's engines, and the host */
    /* A run on several devices: */
    bool multi_device;      /* an op of a device other than 0 (or on a stream of one), or a
                               peer copy, arrived: lanes are grouped by device */
    tui_lane device_engines[TRACE_MAX_DEVICES][TUI_ENGINE_LANES]; /* [d][i]: device d >= 1's
                               engine tui_engine_order[i] (the host's entry unused) */
    tui_lane links[TRACE_MAX_DEVICES][TRACE_MAX_DEVICES]; /* peer copies by [source][destination] */
    tui_lane headings[TRACE_MAX_DEVICES + 1]; /* "GPU d", then "link" */
    tui_lane *streams;      /* by stream id */
    int32_t n_streams;
    uint64_t ops;
    bool any;               /* t0/t1 are set */
    uint64_t t0_ns, t1_ns;  /* first start and last end */
    bool have_phase;        /* the harness's timed region of this run is known */
    uint64_t phase_ns;
    tui_idset racy;         /* ids of ops that take part in a race */
    size_t races;           /* races found in this run */
    uint64_t version;       /* bumped on every change */
    /* metrics cache */
    bool have_metrics;
    trace_metrics metrics;
    uint64_t metrics_version;
    double metrics_at_ms;
    double metrics_cost_ms; /* how long the last computation took */
} tui_run;

/* NULL when out of memory. */
tui_run *tui_run_create(int32_t number);
void tui_run_destroy(tui_run *run);

/* Names the run ("run 3/5 (yours)") and so gives it its role. */
void tui_run_set_label(tui_run *run, const char *label);
/* A stream was created, named or destroyed. */
void tui_run_add_stream(tui_run *run, const trace_stream *stream);
/* Adds a timed op. Phases are not drawn (see tui_run_set_phase). Returns 0, or -1 when
 * out of memory. */
int tui_run_add_op(tui_run *run, const trace_op *op);
/* The harness timed this run's region: [start, end]. */
void tui_run_set_phase(tui_run *run, uint64_t start_ns, uint64_t end_ns);
/* An op with this id takes part in a race. */
void tui_run_mark_racy(tui_run *run, uint64_t id);
bool tui_run_is_racy(const tui_run *run, uint64_t id);

/* The lanes that have bars, engines first (H2D, compute, D2H, host), then streams by id.
 * A run on several devices (multi_device), as trace_timeline_lanes: the host, then per
 * device used its heading, engines and streams, then the link's heading and a lane per
 * direction used. Writes at most max; returns how many there are. Each lane is sorted on
 * the way. */
size_t tui_run_lanes(tui_run *run, tui_lane **out, size_t max);
/* "H2D engine", "compute", "s2 \"buf A\" p0": streams always show their id and priority;
 * a name that would make the label wider than max_cols columns is shortened in the middle
 * (trace/view/lane_label.h: "s13 \"grap…ch 1\" p0", '~' for the ellipsis unless utf8).
 * Headings: "GPU 1", "link"; link lanes "GPU 0 -> GPU 1". */
void tui_run_lane_label(tui_run *run, const tui_lane *lane, int max_cols, bool utf8, char *buf, size_t size);

/* The whole op behind a bar, or NULL. Valid until the next add. */
const trace_op *tui_run_op(tui_run *run, uint64_t start_ns, uint64_t id);

/* The run's metrics (trace/view/metrics.h), recomputed when the run changed, but while it
 * keeps changing not more often than every min_interval_ms (now_ms is the caller's
 * clock). NULL when the run has no ops. */
const trace_metrics *tui_run_metrics(tui_run *run, double now_ms, double min_interval_ms);
/* Whether the cached metrics are older than the run. */
bool tui_run_metrics_stale(const tui_run *run);

#ifdef __cplusplus
}
#endif

#endif
