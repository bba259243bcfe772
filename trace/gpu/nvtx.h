/* trace/gpu/nvtx.h: NVTX names for streams, events and harness phases, so that a lab binary reads
 * well in Nsight Systems (nsys profile ./lab) as well as in streamlab's own timeline.
 *
 * NVTX costs next to nothing when no tool is attached. Phases are ranges in the
 * "streamlab" NVTX domain; they nest. */
#ifndef STREAMLAB_TRACE_GPU_NVTX_H
#define STREAMLAB_TRACE_GPU_NVTX_H

#ifdef __cplusplus
extern "C" {
#endif

/* Names a stream (a cudaStream_t) for the timeline (trace_stream_set_name) and for NVTX. */
void trace_gpu_name_stream(const void *stream, const char *name);
/* Names an event (a cudaEvent_t) for the race reports and the timeline
 * (trace_event_set_name) and for NVTX. */
void trace_gpu_name_event(const void *event, const char *name);
/* Names a stream for NVTX only (the interposer names each new stream as the recorder
 * does: "s1", "s2", ...). */
void trace_gpu_nvtx_name_stream(const void *stream, const char *name);

/* Opens and closes a harness phase ("warm-up", "run 3", ...) as an NVTX range. */
void trace_gpu_phase_begin(const char *name);
void trace_gpu_phase_end(void);

#ifdef __cplusplus
}
#endif

#endif
