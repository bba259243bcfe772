/* tui/history.h: each lab's last verdict, remembered between sessions for the lab picker,
 * in $XDG_STATE_HOME/streamlab/last_results.json (by default
 * ~/.local/state/streamlab/last_results.json):
 *
 *   {"labs": {"03_double_buffer": {"yours": {"status": "pass", "speedup": 2.57,
 *                                            "target": 1.69, "when": 1718000000}, ...}}}
 *
 * A missing, unreadable or malformed file is an empty history (and is replaced on the
 * next save); a save writes a temporary file and renames it over the old one. */
#ifndef STREAMLAB_TUI_HISTORY_H
#define STREAMLAB_TUI_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include <cjson/cJSON.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tui_history {
    char path[4096]; /* "" when there is nowhere to keep it */
    cJSON *root;
} tui_history;

typedef struct tui_last_result {
    char status[32]; /* "pass", "below_target", "incorrect", "racy", "error", "crashed" */
    double speedup;
    double target;   /* 0 when unknown */
    time_t when;
} tui_last_result;

/* The default path from the environment (XDG_STATE_HOME, else HOME). Returns 0, or -1
 * when neither is set. */
int tui_history_default_path(char *buf, size_t size);
/* Opens the history at path (NULL or "": none is kept). A bad file is an empty history;
 * err (may be NULL) then says why. */
void tui_history_open(tui_history *h, const char *path, char *err, size_t err_size);
void tui_history_close(tui_history *h);

/* The last result of lab's variant ("yours", "reference"). False when none. */
bool tui_history_get(const tui_history *h, const char *lab, const char *variant, tui_last_result *out);
/* Records it and saves the file. Returns 0, or -1 with a message in err. */
int tui_history_put(tui_history *h, const char *lab, const char *variant, const tui_last_result *r, char *err,
                    size_t err_size);

#ifdef __cplusplus
}
#endif

#endif
