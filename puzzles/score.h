/* puzzles/score.h: what a player has solved, kept between runs in
 * $XDG_STATE_HOME/streamlab/puzzles.json (~/.local/state/streamlab/ without it), as
 * {"004_blocking_copies": {"tried": 2, "right": 1}, ...}. A missing or unreadable file is an
 * empty record; a write that fails loses only this answer, with a warning. */
#ifndef STREAMLAB_PUZZLES_SCORE_H
#define STREAMLAB_PUZZLES_SCORE_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The record's path into buf; false when there is no home to keep it in. */
bool puzzle_score_path(char *buf, size_t len);
/* How often the puzzle was answered, and answered right, by the record at path. */
void puzzle_score_get(const char *path, const char *id, int *tried, int *right);
/* Adds an answer to the record at path. Returns 0, or -1 when it could not be written. */
int puzzle_score_add(const char *path, const char *id, bool right);

#ifdef __cplusplus
}
#endif

#endif
