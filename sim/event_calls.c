/* sim/event_calls.c: event handles (an entry of sim/core/events.h's table and its reset
 * generation, never an address) and cudaEventCreate*, cudaEventRecord,
 * cudaEventQuery, cudaEventSynchronize, cudaEventElapsedTime, cudaEventDestroy and
 * cudaStreamWaitEvent. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/call.h"
#include "sim/core/events.h"
#include "sim/devices.h"
#include "sim/stream_capture.h"
#include "sim/core/ops.h"
#include "sim/core/scheduler.h"
#include "sim/errors.h"
#include "sim/stream_handles.h"
#include "trace/record/recorder.h"

#define HANDLE_TAG 0x5e5e000000000000ull
#define HANDLE_TAG_MASK 0xffff000000000000ull

static bool resolve(cudaEvent_t handle, uint32_t *index) {
    uint64_t v = (uint64_t)(uintptr_t)handle;
    if ((v & HANDLE_TAG_MASK) != HANDLE_TAG || (v & 0xf)) return false;
    if (((v >> 32) & 0xffffu) != (sim_events_generation() & 0xffffu)) return false;
    uint64_t i = (v & 0xffffffffull) >> 4;
    if (i >= sim_events_count() || !sim_event_at((uint32_t)i)->live) return false;
    *index = (uint32_t)i;
    return true;
}

/* ---- the runtime calls -------------------------------------------------------------- */

static cudaError_t create(const char *name, cudaEvent_t *event, unsigned flags) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, name, 0);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    sim_host_charge(sim_prof()->event_create_ns);
    unsigned valid = cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;
    if (!event || (flags & ~valid)) return sim_call_end(&call, cudaErrorInvalidValue);
    /* An interprocess event must not record timing data. */
    if ((flags & cudaEventInterprocess) && !(flags & cudaEventDisableTiming))
        return sim_call_end(&call, cudaErrorInvalidValue);
    if (sim_events_count() >= (1u << 27)) return sim_call_end(&call, cudaErrorMemoryAllocation);
    uint32_t i;
    sim_event *e = sim_events_add(flags, &i);
    if (!e) return sim_call_end(&call, cudaErrorMemoryAllocation);
    uint64_t v = HANDLE_TAG | ((uint64_t)(sim_events_generation() & 0xffffu) << 32) | ((uint64_t)i << 4);
    cudaEvent_t handle = (cudaEvent_t)(uintptr_t)v;
    e->handle = handle;
    e->device = sim_current_device();
    trace_event_created(handle, flags);
    *event = handle;
    return sim_call_end(&call, cudaSuccess);
}

cudaError_t cudaEventCreate(cudaEvent_t *event) {
    TRACE_CALL_SITE();
    return create("cudaEventCreate", event, 0);
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags) {
    TRACE_CALL_SITE();
    return create("cudaEventCreateWithFlags", event, flags);
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, "cudaEventDestroy", 0);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    sim_host_charge(sim_prof()->event_destroy_ns);
    uint32_t i;
    if (!resolve(event, &i)) return sim_call_end(&call, cudaErrorInvalidResourceHandle);
    /* A pending record still completes; it just stamps nothing. */
    sim_event_at(i)->live = false;
    trace_event_destroyed(event);
    return sim_call_end(&call, cudaSuccess);
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, "cudaEventRecord", 0);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    uint32_t ei, si;
    bool event_ok = resolve(event, &ei);
    const sim_profile *p = sim_prof();
    sim_host_charge(event_ok && ((*sim_event_at(ei)).flags & cudaEventDisableTiming) ? p->event_record_no_timing_ns
                                                                              : p->event_record_ns);
    if (!event_ok || !sim_stream_resolve(stream, &si))
        return sim_call_end(&call, cudaErrorInvalidResourceHandle);
    /* An event is recorded on a stream of its own device (Programming Guide, "Stream and
     * Event Behavior": cudaEventRecord fails when they belong to different devices). */
    if (sim_event_at(ei)->device != sim_stream_at(si)->device)
        return sim_call_end(&call, cudaErrorInvalidResourceHandle);
    bool captured;
    err = sim_capture_enqueue_check(si, &captured);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    if (captured) {
        /* In a capture a record makes no node: the event stands for the stream's current
         * nodes, for waits to depend on. */
        sim_capture_event_record(ei, si);
        return sim_call_end(&call, cudaSuccess);
    }
    sim_capture_event_forget(ei);
    sim_event *e = sim_event_at(ei);
    sim_op *op = sim_op_new(SIM_OP_EVENT_RECORD);
    op->u.record.event = ei;
    op->u.record.gen = ++e->gen;
    op->u.record.timing = !(e->flags & cudaEventDisableTiming);
    op->visible_ns = sim_host_now() + (uint64_t)p->submit_latency_ns;
    op->trace_id = trace_record_event_record(event, sim_stream_trace_handle(si), call.start_ns);
    sim_sched_enqueue(op, si);
    e->recorded = true;
    e->stream = si;
    e->seq = op->seq;
    e->stamped = false;
    return sim_call_end(&call, cudaSuccess);
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, "cudaEventQuery", 0);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    /* A query costs query_ns when it finds the event complete and query_pending_ns when it
     * does not, and answers as the device is when it returns: the cheaper of the two is
     * paid, the event looked at, the rest of that answer's cost paid, and the event looked
     * at again. */
    const sim_profile *p = sim_prof();
    double first = p->query_ns < p->query_pending_ns ? p->query_ns : p->query_pending_ns;
    sim_host_charge(first);
    uint32_t i;
    if (!resolve(event, &i)) return sim_call_end(&call, cudaErrorInvalidResourceHandle);
    err = sim_capture_check_event_sync(i);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    sim_sched_advance(sim_host_now());
    bool done = sim_event_complete(sim_event_at(i));
    sim_host_charge((done ? p->query_ns : p->query_pending_ns) - first);
    sim_sched_advance(sim_host_now());
    if (!done && !sim_event_complete(sim_event_at(i))) return sim_call_end_not_ready(&call, TRACE_SYNC_EVENT, event);
    /* cudaSuccess: the event's last record has completed, which orders its work before what
     * the host does next, as cudaEventSynchronize would (a cudaErrorNotReady orders nothing). */
    trace_record_sync(TRACE_SYNC_EVENT, event, "cudaEventQuery", call.start_ns, sim_host_now());
    return sim_call_end(&call, cudaSuccess);
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, "cudaEventSynchronize", 0);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    sim_host_charge(sim_prof()->sync_call_ns);
    uint32_t i;
    if (!resolve(event, &i)) return sim_call_end(&call, cudaErrorInvalidResourceHandle);
    err = sim_capture_check_event_sync(i);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    const sim_event *e = sim_event_at(i);
    if (e->recorded) sim_sched_wait_seq(e->stream, e->seq);
    trace_record_sync(TRACE_SYNC_EVENT, event, "cudaEventSynchronize", call.start_ns, sim_host_now());
    return sim_call_end(&call, sim_error_sticky_or(cudaSuccess));
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, "cudaEventElapsedTime", 0);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    sim_host_charge(sim_prof()->query_ns);
    uint32_t a, b;
    if (!ms) return sim_call_end(&call, cudaErrorInvalidValue);
    if (!resolve(start, &a) || !resolve(end, &b)) return sim_call_end(&call, cudaErrorInvalidResourceHandle);
    /* The two events must belong to one device (Programming Guide, "Stream and Event
     * Behavior"). */
    if (sim_event_at(a)->device != sim_event_at(b)->device)
        return sim_call_end(&call, cudaErrorInvalidResourceHandle);
    sim_sched_advance(sim_host_now());
    const sim_event *ea = sim_event_at(a), *eb = sim_event_at(b);
    /* As documented: never recorded, or created with cudaEventDisableTiming. */
    if (!ea->recorded || !eb->recorded) return sim_call_end(&call, cudaErrorInvalidResourceHandle);
    if ((ea->flags | eb->flags) & cudaEventDisableTiming)
        return sim_call_end(&call, cudaErrorInvalidResourceHandle);
    if (!sim_event_complete(ea) || !sim_event_complete(eb)) return sim_call_end(&call, cudaErrorNotReady);
    /* complete() and stamped agree, except for an event destroyed and never stamped,
     * which cannot be resolved here. */
    double diff = (double)eb->time_ns - (double)ea->time_ns;
    *ms = (float)(diff / 1e6);
    return sim_call_end(&call, cudaSuccess);
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, "cudaStreamWaitEvent", 0);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    const sim_profile *p = sim_prof();
    sim_host_charge(p->stream_wait_event_ns);
    uint32_t si, ei;
    if (!sim_stream_resolve(stream, &si) || !resolve(event, &ei))
        return sim_call_end(&call, cudaErrorInvalidResourceHandle);
    if (flags & ~(unsigned)cudaEventWaitExternal) return sim_call_end(&call, cudaErrorInvalidValue);
    bool captured, handled;
    err = sim_capture_enqueue_check(si, &captured);
    if (err == cudaSuccess) err = sim_capture_wait_event(si, ei, &handled);
    if (err != cudaSuccess || handled) return sim_call_end(&call, err);
    const sim_event *e = sim_event_at(ei);
    sim_op *op = sim_op_new(SIM_OP_EVENT_WAIT);
    /* It waits for the record as it is now; later records do not change this wait, and
     * an event never recorded makes it wait for nothing. */
    if (e->recorded && e->stream != si) sim_op_add_dep(op, e->stream, e->seq);
    op->visible_ns = sim_host_now() + (uint64_t)p->submit_latency_ns;
    op->trace_id = trace_record_stream_wait(sim_stream_trace_handle(si), event, call.start_ns);
    sim_sched_enqueue(op, si);
    return sim_call_end(&call, cudaSuccess);
}
