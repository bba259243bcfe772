/* trace/gpu/device_streams.c: each GPU's default streams for the recorder (see
 * device_streams.h). */
#include "trace/gpu/device_streams.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <cuda_runtime_api.h>

#include "trace/gpu/real.h"
#include "trace/record/recorder.h"

/* One byte per GPU and kind (legacy, per-thread): their addresses are the handles. */
static char handles[TRACE_MAX_DEVICES][2];

const void *trace_gpu_record_stream(const void *stream) {
    bool per_thread = stream == (const void *)cudaStreamPerThread;
    if (stream != NULL && stream != (const void *)cudaStreamLegacy && !per_thread) return stream;
    int device = 0;
    cudaError_t pending = cudaPeekAtLastError();
    cudaError_t err = cudaGetDevice(&device);
    trace_gpu_forget_error(err, pending);
    if (err != cudaSuccess || device <= 0 || device >= TRACE_MAX_DEVICES) return stream;
    const void *h = &handles[device][per_thread];
    /* Registered once per recording (trace_reset forgets streams). */
    if (trace_stream_id(h) < 0) {
        trace_stream_created_on(h, 0, 0, (uint32_t)device);
        if (!per_thread) trace_stream_set_legacy(h);
        char name[32];
        snprintf(name, sizeof(name), per_thread ? "GPU %d per-thread" : "GPU %d stream 0", device);
        trace_stream_set_name(h, name);
    }
    return h;
}
