/* sim/runtime.h: the simulated runtime's life cycle: bringing the device model up for the
 * chosen profile on first use, whether anything lives on the device (a profile may only
 * change while nothing does), and tearing everything down (cudaDeviceReset, sim_reset). */
#ifndef STREAMLAB_SIM_RUNTIME_H
#define STREAMLAB_SIM_RUNTIME_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Sets the device model up for the current profile if it is not yet. */
void sim_runtime_ensure_ready(void);
/* True while allocations, created streams or events, or queued work exist. */
bool sim_runtime_in_use(void);
/* The profile was (re)chosen: the device model is rebuilt on next use. */
void sim_runtime_profile_changed(void);

#ifdef __cplusplus
}
#endif

#endif
