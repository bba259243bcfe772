/* puzzles/play.h: running a puzzle's variants and reading what they did. Each variant runs
 * twice in this process on the lab backend (labs/harness/backend.h): once to warm up (a
 * GPU's first launches load modules), then timed, with a timeline store kept for the timed
 * run only; the backend is reset between variants, so each starts from an idle device.
 * The figures of puzzle_run come from that timeline, so the judge sees what the device did,
 * not what the program meant. */
#ifndef STREAMLAB_PUZZLES_PLAY_H
#define STREAMLAB_PUZZLES_PLAY_H

#include <stdbool.h>
#include <stddef.h>

#include "puzzles/puzzle.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct puzzle_backend {
    bool simulated;
    char device[160]; /* "simulated NVIDIA H200 (h200 profile)", "NVIDIA H100 80GB HBM3 (...)" */
} puzzle_backend;

/* Starts the backend: backend is "auto", "sim" or "gpu" as the binary allows, profile a
 * simulator profile or NULL. Returns 0, or an exit status with err filled. */
int puzzle_backend_start(const char *backend, const char *profile, puzzle_backend *out, char *err,
                         size_t err_len);
void puzzle_backend_stop(void);

/* A variant shorter than this share of the longest is drawn on its own time scale. */
#define PUZZLE_MIN_SHARE 0.25

/* Runs every variant of p; runs[i] gets variants[i]'s figures, and a text timeline width
 * columns wide (utf8: block characters) drawn on one time scale for all of them, but for a
 * variant that would fill less than PUZZLE_MIN_SHARE of the width on it: that one has its
 * own scale, and its timeline starts with a line that says so. Returns 0, or -1 when a
 * variant failed (its run's error says how). */
int puzzle_play(const puzzle *p, int width, bool utf8, puzzle_run runs[PUZZLE_MAX_VARIANTS]);
void puzzle_runs_free(puzzle_run runs[PUZZLE_MAX_VARIANTS], int n);

/* The choice the runs show (p->judge), with its reason. */
int puzzle_judge(const puzzle *p, const puzzle_run *runs, char *why, size_t why_len);

#ifdef __cplusplus
}
#endif

#endif
