/* kernels/gpu/device.h: the nvcc-compiled side of the GPU kernels, callable from C.
 *
 * Each kernels_device_* function enqueues one kernel with cudaLaunchKernel on the given
 * stream and returns what cudaLaunchKernel returns (the runtime also keeps that error for
 * cudaGetLastError, as for any launch). Arguments are not checked here: kernels.h's GPU
 * launchers (launch_gpu.c) check them, record the launch for the timeline and call these. */
#ifndef STREAMLAB_KERNELS_GPU_DEVICE_H
#define STREAMLAB_KERNELS_GPU_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime.h>

#include "kernels/params.h"

#ifdef __cplusplus
extern "C" {
#endif

/* blocks = kernels_process_blocks(n), KERNELS_PROCESS_THREADS threads each. */
cudaError_t kernels_device_process(uint32_t *out, const uint32_t *in, size_t n, kernels_process_params params,
                                   uint32_t blocks, cudaStream_t stream);
/* widen and narrow (kernels.h), as process: blocks = kernels_process_blocks(n). */
cudaError_t kernels_device_widen(uint64_t *out, const uint32_t *in, size_t n, kernels_process_params params,
                                 uint32_t blocks, cudaStream_t stream);
cudaError_t kernels_device_narrow(uint32_t *out, const uint64_t *in, size_t n, kernels_process_params params,
                                  uint32_t blocks, cudaStream_t stream);
/* Every thread spins for duration_ns by the %globaltimer clock; then thread 0 of block b
 * writes kernels_spin_mark(mark, b) to marks[b]. */
cudaError_t kernels_device_spin(uint32_t *marks, uint32_t blocks, uint32_t threads, uint64_t duration_ns,
                                uint32_t mark, cudaStream_t stream);
/* blocks = kernels_checksum_blocks(n), KERNELS_CHECKSUM_THREADS threads each; one
 * atomicAdd per block into *sum. */
cudaError_t kernels_device_checksum(uint64_t *sum, const uint32_t *in, size_t n, uint32_t blocks,
                                    cudaStream_t stream);

/* cudaFuncGetAttributes of a kernel's device function (registers, shared memory, ...). */
cudaError_t kernels_device_attributes(kernels_id id, struct cudaFuncAttributes *attr);

#ifdef __cplusplus
}
#endif

#endif
