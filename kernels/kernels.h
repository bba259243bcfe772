/* kernels/kernels.h: the kernels the labs launch, as C functions (one per kernel).
 *
 * Each function enqueues one kernel on `stream` and returns what a kernel launch returns:
 * cudaSuccess, or the launch error (also kept for cudaGetLastError, as the runtime does).
 * Errors in the kernel itself (a bad pointer) show up at the next synchronising call, as
 * cudaErrorIllegalAddress. Bad arguments are refused before anything is enqueued:
 *   cudaErrorInvalidValue          a NULL pointer, or n / blocks of 0
 *   cudaErrorInvalidConfiguration  a grid over the device limit, or threads not 1..1024
 * and kernels_last_message() (kernels/validate.h) says which argument was wrong.
 *
 * The same declarations serve both backends: on a real GPU the functions launch the nvcc
 * kernels in kernels/gpu/ and report each launch to the timeline; on the simulated GPU they
 * run the CPU bodies of kernels/cpu/ at simulated times. Every pointer is device memory. */
#ifndef STREAMLAB_KERNELS_KERNELS_H
#define STREAMLAB_KERNELS_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime.h>

#include "kernels/params.h"

#ifdef __cplusplus
extern "C" {
#endif

/* out[i] = f^iters(in[i]) for i < n, with f(x) = x * params.mul + params.add (mod 2^32):
 * the per-element compute of the double-buffering lesson, iters times per element.
 * ceil(n / 256) blocks of 256 threads. out may equal in. */
cudaError_t kernels_process(uint32_t *out, const uint32_t *in, size_t n, kernels_process_params params,
                            cudaStream_t stream);

/* Lab 09's two stages, process's f^iters with a residual carried between them:
 * widen: out[i] = (uint64_t)in[i] << 32 | f^iters(in[i]), each value made 8 bytes wide (its
 *   result in the low half, the input beside it in the high half);
 * narrow: out[i] = f^iters(low half of in[i]) + high half of in[i] (mod 2^32), back to 4.
 * ceil(n / 256) blocks of 256 threads, as process; out and in are separate buffers. */
cudaError_t kernels_widen(uint64_t *out, const uint32_t *in, size_t n, kernels_process_params params,
                          cudaStream_t stream);
cudaError_t kernels_narrow(uint32_t *out, const uint64_t *in, size_t n, kernels_process_params params,
                           cudaStream_t stream);

/* blocks blocks of threads threads, each thread busy for duration_ns; then block b writes
 * kernels_spin_mark(mark, b) = mark + b to marks[b]. A kernel of a known duration and
 * shape: for priorities, concurrency and default-stream lessons. */
cudaError_t kernels_spin(uint32_t *marks, uint32_t blocks, uint32_t threads, uint64_t duration_ns, uint32_t mark,
                         cudaStream_t stream);

/* *sum += in[0] + ... + in[n-1] (mod 2^64). The caller zeroes *sum first (for example with
 * cudaMemsetAsync on the same stream). ceil(n / 2048) blocks of 256 threads. */
cudaError_t kernels_checksum(uint64_t *sum, const uint32_t *in, size_t n, cudaStream_t stream);

/* ---- the per-thread default stream ------------------------------------------------------ */
/* The same launches for code compiled with CUDA_API_PER_THREAD_DEFAULT_STREAM, as a
 * <<<...>>> launch written there reaches cudaLaunchKernel_ptsz: a NULL stream is
 * cudaStreamPerThread. The mode is that of the file that writes the launch, which is why
 * these are renamed here (below) rather than chosen where kernels.h's functions are
 * compiled. Each implementation of kernels.h defines them (kernels/per_thread_launch.c for
 * the simulator's and the GPU's, labs/client/kernels.c in a student's process). */
cudaError_t kernels_process_ptsz(uint32_t *out, const uint32_t *in, size_t n, kernels_process_params params,
                                 cudaStream_t stream);
cudaError_t kernels_widen_ptsz(uint64_t *out, const uint32_t *in, size_t n, kernels_process_params params,
                               cudaStream_t stream);
cudaError_t kernels_narrow_ptsz(uint32_t *out, const uint64_t *in, size_t n, kernels_process_params params,
                                cudaStream_t stream);
cudaError_t kernels_spin_ptsz(uint32_t *marks, uint32_t blocks, uint32_t threads, uint64_t duration_ns,
                              uint32_t mark, cudaStream_t stream);
cudaError_t kernels_checksum_ptsz(uint64_t *sum, const uint32_t *in, size_t n, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
#define kernels_process kernels_process_ptsz
#define kernels_widen kernels_widen_ptsz
#define kernels_narrow kernels_narrow_ptsz
#define kernels_spin kernels_spin_ptsz
#define kernels_checksum kernels_checksum_ptsz
#endif

#endif
