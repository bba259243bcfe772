/* trace/gpu/cupti_collector.h: device times from CUPTI's activity API (the collector's
 * CUPTI mode; see collector.h). Internal to trace/gpu/.
 *
 * Activity kinds enabled with every strategy: CONCURRENT_KERNEL (not KERNEL, which
 * serialises kernels), MEMCPY, MEMSET, and CUDA_EVENT with device timestamps where this
 * CUPTI offers them (SYNCHRONIZATION too when STREAMLAB_CUPTI_SYNC=on: its records are
 * only counted; STREAMLAB_CUPTI_KINDS=kernel,memcpy,memset,event or none enables fewer, to
 * measure what each costs: ops of the others then get no times). Then, to match records
 * to ops:
 *   callback  a callback subscriber enabled for the runtime calls that enqueue work (copies,
 *             memsets, kernel launches, event records); the correlation id each call gets
 *             is read as it returns and bound to its op (correlation.h);
 *   stream    nothing more: records are matched by their order on each stream
 *             (stream_order.h), with stream ids from cuptiGetStreamIdEx;
 *   external  EXTERNAL_CORRELATION and the API records it needs (selected runtime calls,
 *             all runtime, all driver, or both), with a token pushed around each call. */
#ifndef STREAMLAB_TRACE_GPU_CUPTI_COLLECTOR_H
#define STREAMLAB_TRACE_GPU_CUPTI_COLLECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/gpu/gpu_types.h"

/* Loads CUPTI and enables activity collection for this strategy (match and api_records
 * resolved, not AUTO). true on success, with a description in info and the strategy
 * actually used in *used (callback falls back to external selected when the callback API
 * is taken); false with a sentence in why (nothing stays enabled then). */
bool trace_gpu_cupti_start(trace_gpu_match match, trace_gpu_api_records api_records, trace_gpu_match *used,
                           char *why, size_t why_size, char *info, size_t info_size);
/* Forces every buffer out, delivers what is known, disables collection. */
void trace_gpu_cupti_stop(void);

/* True when cudaEventRecord gets a device timestamp record. */
bool trace_gpu_cupti_event_timestamps(void);

uint64_t trace_gpu_cupti_op_begin(const void *stream, trace_gpu_op_class op_class);
void trace_gpu_cupti_op_end(uint64_t token);
void trace_gpu_cupti_op_bind(uint64_t token, uint64_t op_id, uint64_t enqueue_ns);
void trace_gpu_cupti_op_cancel(uint64_t token);

/* Streams come and go (stream-order matching keeps their CUPTI ids). */
void trace_gpu_cupti_stream_created(const void *stream);
void trace_gpu_cupti_stream_destroyed(const void *stream);

/* Asks CUPTI for its completed buffers (forced: every buffer) and delivers the device
 * times known so far to the recorder. */
void trace_gpu_cupti_flush(bool forced);

void trace_gpu_cupti_add_stats(trace_gpu_stats *stats);

#endif
