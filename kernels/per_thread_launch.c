/* kernels/per_thread_launch.c: kernels.h's per-thread launches (kernels_*_ptsz), which a
 * file compiled with CUDA_API_PER_THREAD_DEFAULT_STREAM calls for kernels_*: the plain
 * launch with a NULL stream read as cudaStreamPerThread, as cudaLaunchKernel_ptsz reads it.
 * Built into both backends' launchers (//kernels:kernels_sim, //kernels:kernels_gpu), whose
 * plain launches it calls; the student's process has its own (labs/client/kernels.c). The
 * call site stays the caller's: the outermost TRACE_CALL_SITE marks it. */
#include "kernels/kernels.h"
#include "trace/record/recorder.h"

static cudaStream_t per_thread(cudaStream_t stream) { return stream ? stream : cudaStreamPerThread; }

cudaError_t kernels_process_ptsz(uint32_t *out, const uint32_t *in, size_t n, kernels_process_params params,
                                 cudaStream_t stream) {
    TRACE_CALL_SITE();
    return kernels_process(out, in, n, params, per_thread(stream));
}

cudaError_t kernels_widen_ptsz(uint64_t *out, const uint32_t *in, size_t n, kernels_process_params params,
                               cudaStream_t stream) {
    TRACE_CALL_SITE();
    return kernels_widen(out, in, n, params, per_thread(stream));
}

cudaError_t kernels_narrow_ptsz(uint32_t *out, const uint64_t *in, size_t n, kernels_process_params params,
                                cudaStream_t stream) {
    TRACE_CALL_SITE();
    return kernels_narrow(out, in, n, params, per_thread(stream));
}

cudaError_t kernels_spin_ptsz(uint32_t *marks, uint32_t blocks, uint32_t threads, uint64_t duration_ns,
                              uint32_t mark, cudaStream_t stream) {
    TRACE_CALL_SITE();
    return kernels_spin(marks, blocks, threads, duration_ns, mark, per_thread(stream));
}

cudaError_t kernels_checksum_ptsz(uint64_t *sum, const uint32_t *in, size_t n, cudaStream_t stream) {
    TRACE_CALL_SITE();
    return kernels_checksum(sum, in, n, per_thread(stream));
}
