/* trace/gpu/event_timer.h: device times from CUDA events, the collector's mode when CUPTI
 * cannot start (see collector.h). Internal to trace/gpu/.
 *
 * Single (the default): each timed op gets one timing event, recorded on its stream just
 * after it; its end is the event's time and its start the latest of its enqueue and the
 * ends before it (event_chain.h). Pair: an event just before and one just after each op.
 * Resolving (at flushes) converts every op whose last event completed to trace times
 * against a base event (event_clock.h), in enqueue order, and delivers it. Events are
 * pooled; the base lives on a private non-blocking stream so it never orders the program's
 * streams. Ops on a stream that is being captured into a graph are not timed (an event
 * would become part of the graph). All calls come from the host thread that drives the
 * runtime. */
#ifndef STREAMLAB_TRACE_GPU_EVENT_TIMER_H
#define STREAMLAB_TRACE_GPU_EVENT_TIMER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/gpu/gpu_types.h"

/* Creates the base; false with a sentence in why when the device cannot be used. single:
 * one event per op, else a pair. */
bool trace_gpu_events_start(bool single, char *why, size_t why_size);
/* Delivers what has completed, then destroys every event and the private stream. */
void trace_gpu_events_stop(void);
/* Whether the last start asked for one event per op. */
bool trace_gpu_events_single(void);

uint64_t trace_gpu_events_op_begin(const void *stream, trace_gpu_op_class op_class);
void trace_gpu_events_op_end(uint64_t token, const void *stream);
void trace_gpu_events_op_bind(uint64_t token, uint64_t op_id, uint64_t enqueue_ns);
void trace_gpu_events_op_cancel(uint64_t token);

/* Streams and their flags (kept whether or not event timing runs: the legacy stream's
 * barrier depends on them). */
void trace_gpu_events_stream_created(const void *stream, unsigned flags);
void trace_gpu_events_stream_destroyed(const void *stream);

/* Delivers every bound op whose last event has completed; may_rebase: the base may be
 * renewed once nothing of the program's is pending (the device is then idle). */
void trace_gpu_events_resolve(bool may_rebase);

void trace_gpu_events_add_stats(trace_gpu_stats *stats);

#endif
