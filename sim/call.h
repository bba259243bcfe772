/* sim/call.h: the framing of every runtime call: a call begins (is it allowed? is the
 * device in a sticky error? the device model is brought up on first use), charges its
 * host cost from the profile to the virtual clock (sim/core/clock.h), may block until
 * device work completes, and ends: the device is simulated forward to the host's new time,
 * the call's span goes to the recorder and a failure becomes the last error. */
#ifndef STREAMLAB_SIM_CALL_H
#define STREAMLAB_SIM_CALL_H

#include <stdbool.h>
#include <stdint.h>

#include <cuda_runtime.h>

#include "sim/core/clock.h"
#include "sim/profile_choice.h"
#include "trace/record/op.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sim_call {
    const char *name;
    uint64_t start_ns;
    bool active;       /* the call runs (counts time, is recorded) */
    bool record_error; /* a failure becomes the last error */
    bool site_marked;  /* the call marked the program's call site (trace_call_site_enter) */
} sim_call;

/* Flags for sim_call_begin. */
#define SIM_CALL_NO_STICKY 0x1u /* the call works despite a sticky error (queries, reset) */

/* Starts a runtime call. Returns cudaSuccess, or the error the call must return at once:
 * cudaErrorNotPermitted inside a host function, cudaErrorInitializationError when no
 * profile could be loaded, or the sticky error. Either way, finish with sim_call_end. */
cudaError_t sim_call_begin_at(sim_call *call, const char *name, unsigned flags, const void *caller);
/* In the runtime call itself, so that the ops it records carry the line of the program
 * that called it (trace/record/recorder.h, call sites). A helper that begins the call for
 * several entry points gets their site from TRACE_CALL_SITE() in each of them. */
#define sim_call_begin(call, name, flags) sim_call_begin_at((call), (name), (flags), __builtin_return_address(0))
/* Ends a call begun with sim_call_begin and returns err (every begun call must end). */
cudaError_t sim_call_end(sim_call *call, cudaError_t err);
/* Ends a query (cudaEventQuery, cudaStreamQuery) that found its event or stream not done,
 * as sim_call_end does with cudaErrorNotReady, its span naming what it asked about: the
 * event, or the stream's trace handle (trace_record_query). */
cudaError_t sim_call_end_not_ready(sim_call *call, trace_sync_target target, const void *handle);

/* The profile of the running call (non-NULL between a successful begin and end). */
const sim_profile *sim_prof(void);
/* The cost of a trivial query call. */
double sim_host_cost_api_min(void);

#ifdef __cplusplus
}
#endif

#endif
