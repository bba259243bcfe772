/* sim/reset.h: what lives on the simulated device (allocations, created streams and
 * events, graphs, queued work) and tearing it all down, for cudaDeviceReset
 * (sim/runtime_api.c) and sim_reset. sim/reset.c also holds sim_select_profile
 * (streamlab_sim.h), which may change the profile only while nothing lives. */
#ifndef STREAMLAB_SIM_RESET_H
#define STREAMLAB_SIM_RESET_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* True while allocations, created streams or events, graphs, or queued work exist. */
bool sim_runtime_in_use(void);
/* Discards queued work and frees every allocation, stream, event and graph (the recorder
 * hears of the streams and events that die); forgets the errors and peer access. */
void sim_runtime_teardown(void);

#ifdef __cplusplus
}
#endif

#endif
