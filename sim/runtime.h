/* sim/runtime.h: bringing the simulated device up: the device model (the stream table, the
 * scheduler, the connections) is set up for the chosen profile on first use (every runtime
 * call begins with it, sim/call.h), again after cudaDeviceReset, and afresh on first use
 * after the profile changed or sim_reset. What lives on the device and tearing it all down
 * are sim/reset.h's. */
#ifndef STREAMLAB_SIM_RUNTIME_H
#define STREAMLAB_SIM_RUNTIME_H

#include <stdbool.h>

#include "sim/core/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sets the device model up for the current profile if it is not yet. */
void sim_runtime_ensure_ready(void);
/* Whether the device model is set up (from first use until the profile changes or
 * sim_reset). */
bool sim_runtime_ready(void);
/* Whether the stream table was ever made (on first use; a reset keeps it and restarts it). */
bool sim_runtime_streams_made(void);
/* Sets the device model up again at once for profile p (cudaDeviceReset, after the
 * teardown). */
void sim_runtime_restart(const sim_profile *p);
/* The profile was (re)chosen, or sim_reset: the device model is set up afresh on next use. */
void sim_runtime_profile_changed(void);

#ifdef __cplusplus
}
#endif

#endif
