// kernels/gpu/widen.cu: the device code of widen and narrow, lab 09's two stages: process's
// loop (f(x) = x * mul + add, mod 2^32, really iterated, its arguments never constants),
// widen writing each result with its input beside it in 8 bytes, narrow iterating the
// result half and adding the input half back (kernels/math.h has the shared formulas).
#include "kernels/gpu/device.h"
#include "kernels/math.h"

__global__ void kernels_widen_kernel(uint64_t *out, const uint32_t *in, size_t n, uint32_t mul, uint32_t add,
                                     uint32_t iters) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t x0 = in[i], x = x0;
    for (uint32_t k = 0; k < iters; ++k) x = kernels_affine_step(x, mul, add);
    out[i] = kernels_widen_pack(x, x0);
}

__global__ void kernels_narrow_kernel(uint32_t *out, const uint64_t *in, size_t n, uint32_t mul, uint32_t add,
                                      uint32_t iters) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint64_t v = in[i];
    uint32_t x = kernels_wide_result(v);
    for (uint32_t k = 0; k < iters; ++k) x = kernels_affine_step(x, mul, add);
    out[i] = kernels_narrow_add(x, v);
}

extern "C" cudaError_t kernels_device_widen(uint64_t *out, const uint32_t *in, size_t n,
                                            kernels_process_params params, uint32_t blocks, cudaStream_t stream) {
    void *args[] = {&out, &in, &n, &params.mul, &params.add, &params.iters};
    return cudaLaunchKernel((const void *)kernels_widen_kernel, dim3(blocks), dim3(KERNELS_PROCESS_THREADS), args, 0,
                            stream);
}

extern "C" cudaError_t kernels_device_narrow(uint32_t *out, const uint64_t *in, size_t n,
                                             kernels_process_params params, uint32_t blocks, cudaStream_t stream) {
    void *args[] = {&out, &in, &n, &params.mul, &params.add, &params.iters};
    return cudaLaunchKernel((const void *)kernels_narrow_kernel, dim3(blocks), dim3(KERNELS_PROCESS_THREADS), args, 0,
                            stream);
}
