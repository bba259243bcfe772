/* sim/call.c: the framing of runtime calls (see call.h), and the sim_now_ns / sim_host_work
 * / sim_host_copy_ns / sim_host_copy_cold_ns entry points of streamlab_sim.h. */
#include "sim/call.h"

#include "sim/core/scheduler.h"
#include "sim/errors.h"
#include "sim/runtime.h"
#include "streamlab_sim.h"
#include "trace/record/recorder.h"

static const sim_profile *g_prof;

cudaError_t sim_call_begin_at(sim_call *call, const char *name, unsigned flags, const void *caller) {
    trace_call_site_enter(caller);
    call->site_marked = true;
    call->name = name;
    call->start_ns = sim_host_now();
    call->active = false;
    call->record_error = false;
    /* The real runtime forbids calls from a host function; that function runs on a
     * driver thread, whose last-error state is not the program's. */
    if (sim_in_host_fn()) return cudaErrorNotPermitted;
    call->record_error = true;
    g_prof = sim_profile_current();
    if (!g_prof) return cudaErrorInitializationError;
    sim_runtime_ensure_ready();
    call->active = true;
    if (!(flags & SIM_CALL_NO_STICKY) && sim_error_sticky() != cudaSuccess) return sim_error_sticky();
    return cudaSuccess;
}

/* Ends call with err; a query that answered not ready names what it asked (target and
 * handle), every other call records a plain span (target TRACE_SYNC_NONE). */
static cudaError_t end_call(sim_call *call, cudaError_t err, trace_sync_target target, const void *handle) {
    if (call->active) {
        sim_sched_advance(sim_host_now());
        if (target != TRACE_SYNC_NONE)
            trace_record_query(target, handle, call->name, call->start_ns, sim_host_now());
        else
            trace_record_api(call->name, call->start_ns, sim_host_now());
    }
    if (call->record_error) sim_error_record(err);
    if (call->site_marked) {
        call->site_marked = false;
        trace_call_site_exit();
    }
    return err;
}

cudaError_t sim_call_end(sim_call *call, cudaError_t err) { return end_call(call, err, TRACE_SYNC_NONE, NULL); }

cudaError_t sim_call_end_not_ready(sim_call *call, trace_sync_target target, const void *handle) {
    return end_call(call, cudaErrorNotReady, target, handle);
}

const sim_profile *sim_prof(void) { return g_prof; }

double sim_host_cost_api_min(void) { return g_prof ? g_prof->api_min_ns : 0; }

uint64_t sim_now_ns(void) { return sim_host_now(); }

void sim_host_work(uint64_t ns) {
    /* A host function runs on another thread in the real runtime: its work does not
     * hold up the program's thread; it lengthens the function's op in its stream. */
    if (sim_in_host_fn()) {
        sim_host_fn_add_work(ns);
        return;
    }
    sim_host_advance_to(sim_host_now() + ns);
    if (sim_profile_current()) {
        sim_runtime_ensure_ready();
        sim_sched_advance(sim_host_now());
    }
}

uint64_t sim_host_copy_ns(uint64_t bytes) {
    const sim_profile *p = sim_profile_current();
    if (!p) return 0;
    return sim_clock_ns(sim_profile_host_copy_ns(p, (double)bytes));
}

uint64_t sim_host_copy_cold_ns(uint64_t bytes) {
    const sim_profile *p = sim_profile_current();
    if (!p) return 0;
    return sim_clock_ns(sim_profile_host_copy_cold_ns(p, (double)bytes));
}
