/* trace/gpu/event_clock.h: turning CUDA event times into trace times, for the timing that
 * replaces CUPTI when CUPTI cannot start.
 *
 * A base event is recorded on an idle private stream between two host clock reads and
 * waited for; it completed between them, so its trace time is taken as their midpoint (the
 * error is at most half the gap, a few microseconds). An op's start and end events are
 * then placed at base + cudaEventElapsedTime(base, event). Elapsed times come as float
 * milliseconds, whose resolution coarsens as they grow, so the base is renewed when it
 * gets old (trace_gpu_event_rebase_due). */
#ifndef STREAMLAB_TRACE_GPU_EVENT_CLOCK_H
#define STREAMLAB_TRACE_GPU_EVENT_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A base older than this is renewed at the next device-wide sync: at 4 s a float of
 * milliseconds still resolves 0.5 us, the resolution of CUDA event timing itself. */
#define TRACE_GPU_EVENT_REBASE_NS 4000000000ull

/* The trace time of a base event recorded after host_before_ns and found complete at
 * host_after_ns. */
uint64_t trace_gpu_event_base_ns(uint64_t host_before_ns, uint64_t host_after_ns);

/* base_ns + elapsed_ms, rounded to the nearest ns; elapsed may be negative (an event that
 * completed before the base); the result never goes below 0. */
uint64_t trace_gpu_event_ns(uint64_t base_ns, float elapsed_ms);

/* An op's span from its events' elapsed times against the base, clamped so that
 * enqueue_ns <= start <= end <= observed_ns: a device op cannot start before the host
 * enqueued it, nor end after the host saw it complete (observed_ns), and the base's
 * placement error could otherwise show it doing either. */
void trace_gpu_event_span(uint64_t base_ns, float start_ms, float end_ms, uint64_t enqueue_ns, uint64_t observed_ns,
                          uint64_t *start_ns, uint64_t *end_ns);

/* True when the base recorded at base_ns should be renewed at now_ns. */
bool trace_gpu_event_rebase_due(uint64_t base_ns, uint64_t now_ns);

#ifdef __cplusplus
}
#endif

#endif
