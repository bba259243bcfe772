/* trace/gpu/event_clock.c: CUDA event times on the trace clock (see event_clock.h). */
#include "trace/gpu/event_clock.h"

#include <math.h>

uint64_t trace_gpu_event_base_ns(uint64_t host_before_ns, uint64_t host_after_ns) {
    if (host_after_ns < host_before_ns) return host_before_ns;
    return host_before_ns + (host_after_ns - host_before_ns) / 2;
}

uint64_t trace_gpu_event_ns(uint64_t base_ns, float elapsed_ms) {
    double delta = (double)elapsed_ms * 1e6;
    if (!isfinite(delta)) return base_ns;
    if (delta < 0) {
        double back = floor(-delta + 0.5);
        return back >= (double)base_ns ? 0 : base_ns - (uint64_t)back;
    }
    return base_ns + (uint64_t)floor(delta + 0.5);
}

void trace_gpu_event_span(uint64_t base_ns, float start_ms, float end_ms, uint64_t enqueue_ns, uint64_t observed_ns,
                          uint64_t *start_ns, uint64_t *end_ns) {
    uint64_t s = trace_gpu_event_ns(base_ns, start_ms);
    uint64_t e = trace_gpu_event_ns(base_ns, end_ms);
    const uint64_t lo = enqueue_ns, hi = observed_ns < enqueue_ns ? enqueue_ns : observed_ns;
    if (s < lo) s = lo;
    if (s > hi) s = hi;
    if (e < s) e = s;
    if (e > hi) e = hi;
    *start_ns = s;
    *end_ns = e;
}

bool trace_gpu_event_rebase_due(uint64_t base_ns, uint64_t now_ns) {
    return now_ns > base_ns && now_ns - base_ns >= TRACE_GPU_EVENT_REBASE_NS;
}
