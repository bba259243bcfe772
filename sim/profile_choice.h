/* sim/profile_choice.h: which device profile the simulated runtime uses: one of the JSON
 * files of sim/profiles/ embedded in the library (by name), or a profile file (by path),
 * parsed by sim/core/profile.h; STREAMLAB_PROFILE or h200 when the program chooses none. */
#ifndef STREAMLAB_SIM_PROFILE_CHOICE_H
#define STREAMLAB_SIM_PROFILE_CHOICE_H

#include <stdbool.h>
#include <stddef.h>

#include "sim/core/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A built-in profile file, embedded at build time (profiles_data.c, generated). */
typedef struct sim_profile_blob {
    const char *name; /* "h200" */
    const char *json;
    size_t size;
} sim_profile_blob;

extern const sim_profile_blob sim_profile_blobs[];
extern const size_t sim_profile_blob_count;

/* The profile in use, loading the default (STREAMLAB_PROFILE, else h200) if none is
 * chosen yet; NULL when that fails (sim_last_message() says why). */
const sim_profile *sim_profile_current(void);

/* Loads a profile by built-in name or path and makes it the one in use: 0, or -1 with
 * sim_last_message() saying why (the profile in use is then unchanged). Whether the device
 * may change profile now is the caller's to ask (sim_select_profile, sim/reset.c). */
int sim_profile_choose(const char *name_or_path);

/* Forgets the choice: the next sim_profile_current() loads the default again. */
void sim_profile_forget(void);

/* Records a message for sim_last_message(). */
void sim_set_message(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#ifdef __cplusplus
}
#endif

#endif
