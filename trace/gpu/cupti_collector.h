/* trace/gpu/cupti_collector.h: device times from CUPTI's activity API (the collector's
 * CUPTI mode; see collector.h). Internal to trace/gpu/.
 *
 * Enabled kinds: CONCURRENT_KERNEL (not KERNEL, which serialises kernels), MEMCPY, MEMSET,
 * SYNCHRONIZATION, EXTERNAL_CORRELATION, CUDA_EVENT (with device timestamps, where this
 * CUPTI offers them), and the API records that make CUPTI emit external correlation
 * records: by default the RUNTIME and DRIVER kinds; STREAMLAB_CUPTI_API=runtime or =driver
 * enables one kind, =selected only the runtime calls that enqueue device work (copies,
 * memsets, kernel launches, event records), the cheapest if it suffices. */
#ifndef STREAMLAB_TRACE_GPU_CUPTI_COLLECTOR_H
#define STREAMLAB_TRACE_GPU_CUPTI_COLLECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/gpu/collector.h"

/* Loads CUPTI and enables activity collection. true on success; false with a sentence in
 * why (nothing stays enabled then). */
bool trace_gpu_cupti_start(char *why, size_t why_size, char *info, size_t info_size);
/* Forces every buffer out, delivers what is known, disables collection. */
void trace_gpu_cupti_stop(void);

/* True when the CUPTI library is loaded (its clock is then the trace clock). */
bool trace_gpu_cupti_clock_available(void);
uint64_t trace_gpu_cupti_now_ns(void);

/* True when cudaEventRecord gets a device timestamp record. */
bool trace_gpu_cupti_event_timestamps(void);

uint64_t trace_gpu_cupti_op_begin(void);
void trace_gpu_cupti_op_end(uint64_t token);
void trace_gpu_cupti_op_bind(uint64_t token, uint64_t op_id, uint64_t enqueue_ns);
void trace_gpu_cupti_op_cancel(uint64_t token);

/* Asks CUPTI for its completed buffers (forced: every buffer) and delivers the device
 * times known so far to the recorder. */
void trace_gpu_cupti_flush(bool forced);

void trace_gpu_cupti_add_stats(trace_gpu_stats *stats);

#endif
