/* trace/gpu/capture.c: whether a stream is capturing into a CUDA graph (capture.h). Work enqueued on such a stream never runs, so the
 * interposer and the kernel launchers record no op for it, and the event timer brackets
 * nothing there (an event recorded in a capture would become part of the graph). */
#include <cuda_runtime_api.h>

#include "trace/gpu/capture.h"
#include "trace/gpu/real.h"

bool trace_gpu_stream_capturing(const void *stream) {
    enum cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    cudaError_t pending = cudaPeekAtLastError();
    cudaError_t err = cudaStreamIsCapturing((cudaStream_t)stream, &status);
    trace_gpu_forget_error(err, pending);
    /* A failed query (cudaErrorStreamCaptureImplicit: the legacy stream while a blocking
     * stream captures) counts as capturing: nothing can run there either. */
    return err != cudaSuccess || status != cudaStreamCaptureStatusNone;
}
