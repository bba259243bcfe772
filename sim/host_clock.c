/* sim/host_clock.c: the host clock and runtime-call framing (see host_clock.h), and the
 * sim_now_ns / sim_host_work / sim_host_copy_ns entry points of streamlab_sim.h. */
#include "sim/host_clock.h"

#include <math.h>

#include "sim/errors.h"
#include "sim/perturb.h"
#include "sim/runtime.h"
#include "sim/scheduler.h"
#include "streamlab_sim.h"
#include "trace/record/recorder.h"

static uint64_t g_host_ns;
static int g_host_fn_depth;
static const sim_profile *g_prof;

static uint64_t to_ns(double ns) {
    if (!(ns > 0)) return 0;
    if (ns >= 1.8e19) return UINT64_MAX / 2;
    return (uint64_t)llround(ns);
}

cudaError_t sim_call_begin(sim_call *call, const char *name, unsigned flags) {
    call->name = name;
    call->start_ns = g_host_ns;
    call->active = false;
    call->record_error = false;
    /* The real runtime forbids calls from a host function; that function runs on a
     * driver thread, whose last-error state is not the program's. */
    if (g_host_fn_depth > 0) return cudaErrorNotPermitted;
    call->record_error = true;
    g_prof = sim_profile_current();
    if (!g_prof) return cudaErrorInitializationError;
    sim_runtime_ensure_ready();
    call->active = true;
    if (!(flags & SIM_CALL_NO_STICKY) && sim_error_sticky() != cudaSuccess) return sim_error_sticky();
    return cudaSuccess;
}

cudaError_t sim_call_end(sim_call *call, cudaError_t err) {
    if (call->active) {
        sim_sched_advance(g_host_ns);
        trace_record_api(call->name, call->start_ns, g_host_ns);
    }
    if (call->record_error) sim_error_record(err);
    return err;
}

const sim_profile *sim_prof(void) { return g_prof; }

void sim_host_charge(double ns) { g_host_ns += to_ns(ns * sim_perturb_factor()); }

void sim_host_advance_to(uint64_t t) {
    if (t > g_host_ns) g_host_ns = t;
}

uint64_t sim_host_now(void) { return g_host_ns; }

double sim_host_cost_api_min(void) { return g_prof ? g_prof->api_min_ns : 0; }

void sim_host_fn_enter(void) { g_host_fn_depth++; }
void sim_host_fn_leave(void) { g_host_fn_depth--; }
bool sim_in_host_fn(void) { return g_host_fn_depth > 0; }

void sim_host_clock_reset(void) { g_host_ns = 0; }

uint64_t sim_now_ns(void) { return g_host_ns; }

void sim_host_work(uint64_t ns) {
    /* A host function runs on another thread in the real runtime: its work does not
     * hold up the program's thread. */
    if (g_host_fn_depth > 0) return;
    g_host_ns += ns;
    if (sim_profile_current()) {
        sim_runtime_ensure_ready();
        sim_sched_advance(g_host_ns);
    }
}

uint64_t sim_host_copy_ns(uint64_t bytes) {
    const sim_profile *p = sim_profile_current();
    if (!p) return 0;
    return to_ns((double)bytes / p->host_memcpy_gbps);
}
