/* sim/host_clock.h: the host thread's virtual clock and the framing of every runtime
 * call: a call begins (is it allowed? is the device in a sticky error?), charges its host
 * cost from the profile (perturbed when a perturbation is set), may block until device
 * work completes, and ends: the device is simulated forward to the host's new time, the
 * call's span goes to the recorder and a failure becomes the last error. */
#ifndef STREAMLAB_SIM_HOST_CLOCK_H
#define STREAMLAB_SIM_HOST_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include <cuda_runtime.h>

#include "sim/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sim_call {
    const char *name;
    uint64_t start_ns;
    bool active;       /* the call runs (counts time, is recorded) */
    bool record_error; /* a failure becomes the last error */
} sim_call;

/* Flags for sim_call_begin. */
#define SIM_CALL_NO_STICKY 0x1u /* the call works despite a sticky error (queries, reset) */

/* Starts a runtime call. Returns cudaSuccess, or the error the call must return at once:
 * cudaErrorNotPermitted inside a host function, cudaErrorInitializationError when no
 * profile could be loaded, or the sticky error. Either way, finish with sim_call_end. */
cudaError_t sim_call_begin(sim_call *call, const char *name, unsigned flags);
/* Ends a call begun with sim_call_begin and returns err. */
cudaError_t sim_call_end(sim_call *call, cudaError_t err);

/* The profile of the running call (non-NULL between a successful begin and end). */
const sim_profile *sim_prof(void);

/* Charges ns of host time (perturbed). */
void sim_host_charge(double ns);
/* Moves the host clock forward to t (no-op if it is already later). */
void sim_host_advance_to(uint64_t t);
/* The host clock. */
uint64_t sim_host_now(void);
/* The cost of a trivial query call. */
double sim_host_cost_api_min(void);

/* Host functions run on the simulator's thread; runtime calls made from one fail. */
void sim_host_fn_enter(void);
void sim_host_fn_leave(void);
bool sim_in_host_fn(void);

/* Back to time 0. */
void sim_host_clock_reset(void);

#ifdef __cplusplus
}
#endif

#endif
