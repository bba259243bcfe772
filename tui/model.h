/* tui/model.h: everything the TUI shows and how the user moves around it, with no I/O:
 * the lab catalog and last results (for the picker), the open lab's two sessions (yours
 * and the reference), which run is on screen, the time window (zoom and pan), the lane
 * cursor and the selected bar, and the open panel. Keys and mouse events change it; what
 * needs doing outside (start or restart a lab, export a trace, quit) comes back as a
 * request for the application loop (app.h). */
#ifndef STREAMLAB_TUI_MODEL_H
#define STREAMLAB_TUI_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tui/catalog.h"
#include "tui/history.h"
#include "tui/run.h"
#include "tui/session.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Keys: Unicode code points for characters, and these for the rest. */
enum {
    TUI_KEY_NONE = 0,
    TUI_KEY_ENTER = '\n',
    TUI_KEY_TAB = '\t',
    TUI_KEY_ESC = 27,
    TUI_KEY_SPECIAL = 0x110000,
    TUI_KEY_UP,
    TUI_KEY_DOWN,
    TUI_KEY_LEFT,
    TUI_KEY_RIGHT,
    TUI_KEY_SHIFT_LEFT,
    TUI_KEY_SHIFT_RIGHT,
    TUI_KEY_PAGE_UP,
    TUI_KEY_PAGE_DOWN,
    TUI_KEY_HOME,
    TUI_KEY_END,
    TUI_KEY_BACKTAB,
    TUI_KEY_RESIZE
};

typedef enum tui_mode { TUI_MODE_PICKER = 0, TUI_MODE_TIMELINE } tui_mode;

typedef enum tui_overlay {
    TUI_OVERLAY_NONE = 0,
    TUI_OVERLAY_HELP,
    TUI_OVERLAY_DETAILS, /* the selected bar */
    TUI_OVERLAY_OUTPUT   /* what the lab printed */
} tui_overlay;

/* What the application loop must do after a key or click. */
typedef enum tui_request {
    TUI_REQUEST_NONE = 0,
    TUI_REQUEST_QUIT,
    TUI_REQUEST_RUN,    /* start (or restart) the variants in `run_mask` */
    TUI_REQUEST_EXPORT, /* write the Chrome trace of what is on screen */
    TUI_REQUEST_OPEN    /* open the lab at picker_cursor (the app makes its sessions) */
} tui_request;

/* One timeline pane: a session and the run of it on screen (NULL while none). */
typedef struct tui_pane {
    tui_variant variant;
    tui_session *session;
    tui_run *run;
} tui_pane;

/* The selected bar. */
typedef struct tui_selection {
    bool on;
    tui_variant variant;
    int32_t run;
    bool is_stream;
    trace_engine engine;
    uint32_t device, dst_device; /* engine lanes: whose engine (a link lane: its direction) */
    int32_t stream;
    uint64_t start_ns, id;
} tui_selection;

typedef struct tui_model {
    /* the labs */
    const tui_catalog *catalog;
    tui_history *history;   /* may be NULL */
    int picker_cursor;
    tui_mode mode;
    int lab;                /* the open lab's index in the catalog, -1 when none */
    char lab_id[64];
    tui_session *sessions[TUI_VARIANTS]; /* the open lab's, owned by the app */

    /* the view */
    tui_variant front;      /* the session in front */
    bool compare;           /* yours above the reference, on one time scale */
    bool baseline;          /* show the latest baseline run instead of the latest of yours */
    bool follow;            /* the window fits the data while it grows */
    double w0, w1;          /* the window: ns from the first op of the run on screen */
    int lane_cursor;        /* over the lanes of every pane, top to bottom */
    size_t lane_scroll[TUI_VARIANTS]; /* first lane shown, per pane */
    tui_selection sel;
    tui_overlay overlay;
    int overlay_scroll;

    /* the terminal */
    bool color, utf8;

    /* a warning that stays on a row of its own above the status line while it is set: the
     * student's file is newer than the build the timeline runs (the app sets it) */
    char notice[256];
    char notice_short[128]; /* the same within 79 columns, for narrow terminals */

    /* a message for the status line, and when it was set */
    char message[256];
    bool message_error;
    double message_ms;
    double now_ms;          /* the loop's clock, for metrics throttling and messages */
    long long wall_now;     /* seconds since 1970, for "last run 5 min ago" */

    /* drawing reads cached metrics; the loop refreshes them (tui_model_refresh) */
    bool defer_metrics;

    /* set with TUI_REQUEST_RUN: bit v starts (or restarts) variant v */
    unsigned run_mask;
} tui_model;

/* A model on the catalog (and history, may be NULL), in the picker. */
void tui_model_init(tui_model *m, const tui_catalog *catalog, tui_history *history);
/* The lab at index is open with these sessions (either may be NULL); the view starts
 * on yours, fitted and following. */
void tui_model_open_lab(tui_model *m, int index, tui_session *yours, tui_session *reference);

/* The panes on screen: one, or two when comparing (yours first). Returns how many. */
int tui_model_panes(const tui_model *m, tui_pane out[TUI_VARIANTS]);
/* The span of the runs on screen (ns, at least 1): what "fit" shows. */
double tui_model_data_span(const tui_model *m);
/* Makes the window valid (and fitted when following). Call before drawing. */
void tui_model_settle(tui_model *m);

/* While a lab runs, the metrics of its runs on screen are recomputed at most every
 * TUI_METRICS_INTERVAL_MS, or 10 times as long as the last computation took (sorting and
 * measuring 100,000 ops takes tens of ms); at once when the lab has finished. */
#define TUI_METRICS_INTERVAL_MS 250.0

/* The metrics of a run of session s. With m->defer_metrics, what is cached (computed only
 * when there is nothing yet); without, recomputed as TUI_METRICS_INTERVAL_MS says. NULL
 * when the run has no ops. */
const trace_metrics *tui_model_metrics(const tui_model *m, const tui_session *s, tui_run *run);
/* Recomputes the stale metrics of the runs on screen that are due (see above). Returns
 * true when any was recomputed. The loop calls it when no events are waiting, so that new
 * ops go on screen before the metrics are brought up to date. */
bool tui_model_refresh(tui_model *m, bool force);

/* Zoom by factor (< 1: in) keeping time `at` (ns in the window's frame) in place. */
void tui_model_zoom(tui_model *m, double factor, double at);
/* Pan by a fraction of the window (negative: earlier). */
void tui_model_pan(tui_model *m, double fraction);
/* Fit the window to the data and follow it again. */
void tui_model_fit(tui_model *m);

/* Selects bar (on lane of pane) and brings it on screen, keeping the zoom. */
void tui_model_select(tui_model *m, const tui_pane *pane, const tui_lane *lane, const tui_bar *bar);
/* Whether the selection is this bar. */
bool tui_model_selected(const tui_model *m, const tui_pane *pane, const tui_lane *lane, const tui_bar *bar);

/* A message on the status line. */
void tui_model_say(tui_model *m, bool error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Handles a key. Returns what the loop must do. */
tui_request tui_model_key(tui_model *m, int key);

#ifdef __cplusplus
}
#endif

#endif
