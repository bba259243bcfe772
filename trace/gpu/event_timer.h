/* trace/gpu/event_timer.h: device times from CUDA events, the collector's mode when CUPTI
 * cannot start (see collector.h). Internal to trace/gpu/.
 *
 * Each timed op gets a pair of timing events recorded on its stream just before and just
 * after it. At host sync points every pair whose end event has completed is converted to
 * trace times against a base event (event_clock.h) and delivered. Events are pooled; the
 * base lives on a private non-blocking stream so it never orders the program's streams.
 * Ops on a stream that is being captured into a graph are not timed (an event would become
 * part of the graph). */
#ifndef STREAMLAB_TRACE_GPU_EVENT_TIMER_H
#define STREAMLAB_TRACE_GPU_EVENT_TIMER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/gpu/collector.h"

/* Creates the base; false with a sentence in why when the device cannot be used. */
bool trace_gpu_events_start(char *why, size_t why_size);
/* Delivers what has completed, then destroys every event and the private stream. */
void trace_gpu_events_stop(void);

uint64_t trace_gpu_events_op_begin(const void *stream);
void trace_gpu_events_op_end(uint64_t token, const void *stream);
void trace_gpu_events_op_bind(uint64_t token, uint64_t op_id, uint64_t enqueue_ns);
void trace_gpu_events_op_cancel(uint64_t token);

/* Delivers every bound pair whose events have completed; device_wide: the device is idle,
 * so an old base may be renewed. */
void trace_gpu_events_resolve(bool device_wide);

void trace_gpu_events_add_stats(trace_gpu_stats *stats);

#endif
