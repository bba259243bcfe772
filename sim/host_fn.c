/* sim/host_fn.c: cudaLaunchHostFunc. The function is an op in its stream: it runs when
 * the work before it has completed (after the host-function thread's wake-up latency), on
 * the simulator's thread, at that point of simulated time, and the stream's later work
 * waits for it. Runtime calls made from it fail with cudaErrorNotPermitted, as the real
 * runtime may make them fail. */
#include <string.h>

#include "sim/call.h"
#include "sim/stream_capture.h"
#include "sim/core/ops.h"
#include "sim/core/scheduler.h"
#include "sim/stream_handles.h"
#include "trace/record/recorder.h"

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, "cudaLaunchHostFunc", 0);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    const sim_profile *p = sim_prof();
    uint32_t si;
    bool captured = false;
    bool stream_ok = sim_stream_resolve(stream, &si);
    cudaError_t cap_err = stream_ok ? sim_capture_enqueue_check(si, &captured) : cudaSuccess;
    sim_host_charge(captured ? p->capture_call_ns : p->host_func_call_ns);
    if (!stream_ok) return sim_call_end(&call, cudaErrorInvalidResourceHandle);
    if (cap_err != cudaSuccess) return sim_call_end(&call, cap_err);
    if (!fn) return sim_call_end(&call, cudaErrorInvalidValue);
    sim_op *op = sim_op_new(SIM_OP_HOST_FN);
    op->u.host_fn.fn = fn;
    op->u.host_fn.data = userData;
    trace_op t;
    memset(&t, 0, sizeof(t));
    t.kind = TRACE_OP_HOST_FN;
    t.engine = TRACE_ENGINE_HOST;
    t.batch = -1;
    t.enqueue_ns = call.start_ns;
    memcpy(t.name, "host function", sizeof("host function"));
    if (captured) {
        sim_capture_add_op(si, op, &t);
        return sim_call_end(&call, cudaSuccess);
    }
    op->trace_id = trace_record(&t, sim_stream_trace_handle(si));
    op->visible_ns = sim_host_now() + (uint64_t)p->submit_latency_ns;
    sim_sched_enqueue(op, si);
    return sim_call_end(&call, cudaSuccess);
}
