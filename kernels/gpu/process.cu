// kernels/gpu/process.cu: the device code of process: out[i] = f^iters(in[i]) with
// f(x) = x * mul + add (mod 2^32), one thread per element, the loop really iterated so that
// the kernel's time grows with iters. mul, add and iters are kernel arguments, never
// constants, so nvcc cannot fold the loop. in and out may be the same buffer.
#include "kernels/gpu/device.h"
#include "kernels/math.h"

__global__ void kernels_process_kernel(uint32_t *out, const uint32_t *in, size_t n, uint32_t mul,
                                       uint32_t add, uint32_t iters) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t x = in[i];
    for (uint32_t k = 0; k < iters; ++k) x = kernels_affine_step(x, mul, add);
    out[i] = x;
}

extern "C" cudaError_t kernels_device_process(uint32_t *out, const uint32_t *in, size_t n,
                                              kernels_process_params params, uint32_t blocks,
                                              cudaStream_t stream) {
    void *args[] = {&out, &in, &n, &params.mul, &params.add, &params.iters};
    return cudaLaunchKernel((const void *)kernels_process_kernel, dim3(blocks), dim3(KERNELS_PROCESS_THREADS),
                            args, 0, stream);
}
