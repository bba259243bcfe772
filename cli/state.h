/* cli/state.h: a command's state kept between runs, as one JSON object in a file under
 * $XDG_STATE_HOME/streamlab/ (~/.local/state/streamlab/ without it): the hints a student
 * has been given, the puzzles a player has solved. A missing or broken file reads as an
 * empty object; a write goes to a temporary file renamed over the old one. */
#ifndef STREAMLAB_CLI_STATE_H
#define STREAMLAB_CLI_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The path of the state file named name ("hints.json") into buf; false when there is no
 * home to keep it in, or it does not fit. */
bool cli_state_path(const char *name, char *buf, size_t len);
/* The object in the file at path (NULL: none), or an empty object when the file is
 * missing or is not a JSON object. The caller deletes it. */
cJSON *cli_state_load(const char *path);
/* Writes state to path, making its folders. Returns 0, or -1 when it could not. */
int cli_state_save(const char *path, const cJSON *state);

#ifdef __cplusplus
}
#endif

#endif
