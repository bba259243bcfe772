/* trace/gpu/capture.h: whether a stream is capturing into a CUDA graph. Work enqueued
 * there never runs, so the interposer, the kernel launchers and the event timer record
 * nothing for it. */
#ifndef STREAMLAB_TRACE_GPU_CAPTURE_H
#define STREAMLAB_TRACE_GPU_CAPTURE_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Whether stream is capturing into a CUDA graph (or its capture was invalidated, or the
 * runtime refuses to say: the legacy stream while a blocking stream captures). */
bool trace_gpu_stream_capturing(const void *stream);

#ifdef __cplusplus
}
#endif

#endif
