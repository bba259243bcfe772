/* trace/gpu/device_streams.h: the handle the recorder gets for a stream the program names.
 *
 * The runtime's default streams (NULL, cudaStreamLegacy, cudaStreamPerThread) are one per
 * GPU: the handle means the current GPU's. The recorder knows one of each, GPU 0's. So the
 * default streams of GPU 1 and up get handles of their own here, registered with their GPU
 * (trace_stream_created_on) and named "GPU 1 stream 0" / "GPU 1 per-thread" on first use,
 * as the simulator registers them (sim/stream_handles.c): their work is drawn as that GPU's,
 * and the race checker does not take it for GPU 0's stream. Every other handle is returned as
 * it is. The runtime still gets the program's handle; only the recorder sees these. */
#ifndef STREAMLAB_TRACE_GPU_DEVICE_STREAMS_H
#define STREAMLAB_TRACE_GPU_DEVICE_STREAMS_H

#ifdef __cplusplus
extern "C" {
#endif

const void *trace_gpu_record_stream(const void *stream);

#ifdef __cplusplus
}
#endif

#endif
