/* kernels/smoke.h: a minimal C-callable kernel launch that proves nvcc objects link into C.
 *
 * kernels_smoke_run() allocates n floats on the current device, fills them with i * scale
 * on the GPU, copies them back into host_out and returns the first CUDA error, if any.
 * It is the build's smoke test for the GPU path, not part of any lab. */
#ifndef STREAMLAB_KERNELS_SMOKE_H
#define STREAMLAB_KERNELS_SMOKE_H

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

cudaError_t kernels_smoke_run(float *host_out, int n, float scale);

#ifdef __cplusplus
}
#endif

#endif
