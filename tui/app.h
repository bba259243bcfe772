/* tui/app.h: the timeline's main loop. It owns the catalog, the history of results, the
 * open lab's two sessions and their child processes, the model, the virtual screen and
 * (unless headless) the terminal. Each step polls the terminal and the children's pipes,
 * feeds what arrived to the sessions, handles keys, mouse and resizes, and redraws: at
 * once after input, and at most every TUI_FRAME_MS while ops stream in, so an op is on
 * screen within a frame of arriving. One lab program runs at a time (a second one waits
 * its turn), so that two never compete for the GPU they are measuring. */
#ifndef STREAMLAB_TUI_APP_H
#define STREAMLAB_TUI_APP_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "tui/catalog.h"
#include "tui/child.h"
#include "tui/history.h"
#include "tui/layout.h"
#include "tui/model.h"
#include "tui/screen.h"
#include "tui/session.h"
#include "tui/term.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Redraw at most this often while events stream in. */
#define TUI_FRAME_MS 33.0
/* Read at most this much from one pipe per step, so that keys stay responsive under a flood. */
#define TUI_PUMP_BUDGET (256u * 1024u)

typedef struct tui_app_options {
    const char *lab;        /* open this lab at once (id, number or prefix); NULL: the picker */
    const char *backend;    /* passed to the lab: --backend=... */
    const char *profile;    /* --profile=... */
    const char *runs;       /* --runs */
    const char *schedules;  /* --schedules */
    const char *seed;       /* --seed */
    const char *timeout;    /* --timeout */
    const char *program;    /* run this lab binary as "yours" instead of the catalog's launcher */
    const char *replay;     /* draw a recorded event stream (a file) instead of running a lab */
    const char *history;    /* the results file; NULL: the default place */
    bool no_color;
} tui_app_options;

typedef struct tui_app tui_app;
typedef void (*tui_frame_hook)(void *ctx, tui_app *app);

struct tui_app {
    tui_app_options opt;
    char runfiles[4096];
    tui_catalog catalog;
    tui_history history;
    tui_model model;
    tui_session *sessions[TUI_VARIANTS];
    tui_child child[TUI_VARIANTS];
    unsigned queued;             /* variants waiting for their turn */
    bool recorded[TUI_VARIANTS]; /* this run's verdict is in the history */
    tui_term *term;              /* NULL: headless */
    tui_screen *screen;
    int cols, rows;              /* the headless screen's size */
    tui_layout layout;
    bool have_layout;
    bool dirty, full;
    bool quit;
    double last_draw_ms;
    double last_refresh_ms;   /* metrics last brought up to date */
    uint64_t frames;
    tui_frame_hook on_frame;     /* called after each frame is drawn (benchmarks) */
    void *on_frame_ctx;
    double last_stale_ms;        /* when the student's file was last compared with its build */
    /* The student's file as it was while the build of it was newer (see tui_app_stale). */
    int built_lab;
    struct timespec built_time;
    bool built_hash_known;
    uint64_t built_hash;
};

/* Milliseconds on a monotonic clock. */
double tui_now_ms(void);

/* Sets the app up: the catalog from the runfiles (argv0 helps find them), the history,
 * and the lab or the replay to open at once. Headless with a screen of cols x rows until
 * a terminal is attached. Returns 0, or -1 with a message in err (tui_app_free is still
 * to be called). */
int tui_app_init(tui_app *a, const tui_app_options *o, const char *argv0, int cols, int rows, char *err,
                 size_t err_size);
/* Draws on this terminal from now on (its size, colours and UTF-8 support). */
void tui_app_attach(tui_app *a, tui_term *term);
/* Opens the lab at catalog index (making its sessions) and starts yours. */
void tui_app_open_lab(tui_app *a, int index);
/* Starts (or restarts) a variant of the open lab, or queues it while the other runs. */
void tui_app_start(tui_app *a, tui_variant v);
/* Handles a key as the user pressed it. */
void tui_app_key(tui_app *a, int key);
/* One turn of the loop: waits up to max_wait_ms for input or events (less when a frame
 * is due), handles them, and redraws when due. False once the user has quit. */
bool tui_app_step(tui_app *a, int max_wait_ms);
/* Runs until the user quits or *stop becomes non-zero (a signal handler sets it). */
void tui_app_run(tui_app *a, volatile sig_atomic_t *stop);
/* Lays out and draws now (and copies to the terminal when there is one). */
void tui_app_draw(tui_app *a);
/* Whether the open lab's source (labs/NN_topic/lab.c in the workspace `bazel run` was started
 * from, BUILD_WORKSPACE_DIRECTORY) is newer than the build of it the timeline runs (the
 * student's program among the runfiles): `r` would then rerun the old code. A file saved
 * again with the contents it had when the timeline last saw it older than the build is not
 * (Bazel would rebuild nothing); one already newer when the timeline started is. When it is, says
 * so and how to rebuild, in why (short_why: the same within 78 columns for the labs' names;
 * either may be NULL). False where the source
 * is not known (no workspace, --program, --replay, no lab open). */
bool tui_app_stale(tui_app *a, char *why, size_t size, char *short_why, size_t short_size);
/* Compares them now and sets or clears the model's notice. */
void tui_app_check_stale(tui_app *a);
/* Where `t` writes Chrome traces: $XDG_STATE_HOME/streamlab/traces (~/.local/state/streamlab/
 * traces without it; made when missing), else the system's temporary folder. Never the
 * workspace, where a trace would show up in git status. */
void tui_app_trace_dir(char *out, size_t size);
/* Stops the children and frees everything (not the terminal). */
void tui_app_free(tui_app *a);

#ifdef __cplusplus
}
#endif

#endif
