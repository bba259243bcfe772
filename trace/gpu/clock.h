/* trace/gpu/clock.h: the trace clock on a real GPU, in ns: CUPTI's timestamp
 * (cuptiGetTimestamp) whenever the CUPTI library can be loaded, so that host spans and
 * CUPTI's device records always share a clock, CLOCK_MONOTONIC otherwise; chosen once, at
 * its first use. Internal to trace/gpu/ (collector.h re-exports it). */
#ifndef STREAMLAB_TRACE_GPU_CLOCK_H
#define STREAMLAB_TRACE_GPU_CLOCK_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

uint64_t trace_gpu_now_ns(void);

#ifdef __cplusplus
}
#endif

#endif
