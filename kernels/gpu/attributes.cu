// kernels/gpu/attributes.cu: cudaFuncGetAttributes for each kernel's device function, so
// tests and the probe can compare the compiled kernels with their cost descriptions.
#include "kernels/gpu/device.h"

__global__ void kernels_process_kernel(uint32_t *out, const uint32_t *in, size_t n, uint32_t mul,
                                       uint32_t add, uint32_t iters);
__global__ void kernels_spin_kernel(uint32_t *marks, uint64_t duration_ns, uint32_t mark);
__global__ void kernels_checksum_kernel(unsigned long long *sum, const uint32_t *in, size_t n);
__global__ void kernels_widen_kernel(uint64_t *out, const uint32_t *in, size_t n, uint32_t mul, uint32_t add,
                                     uint32_t iters);
__global__ void kernels_narrow_kernel(uint32_t *out, const uint64_t *in, size_t n, uint32_t mul, uint32_t add,
                                      uint32_t iters);

extern "C" cudaError_t kernels_device_attributes(kernels_id id, struct cudaFuncAttributes *attr) {
    switch (id) {
    case KERNELS_PROCESS: return cudaFuncGetAttributes(attr, (const void *)kernels_process_kernel);
    case KERNELS_SPIN: return cudaFuncGetAttributes(attr, (const void *)kernels_spin_kernel);
    case KERNELS_CHECKSUM: return cudaFuncGetAttributes(attr, (const void *)kernels_checksum_kernel);
    case KERNELS_WIDEN: return cudaFuncGetAttributes(attr, (const void *)kernels_widen_kernel);
    case KERNELS_NARROW: return cudaFuncGetAttributes(attr, (const void *)kernels_narrow_kernel);
    case KERNELS_COUNT: break;
    }
    return cudaErrorInvalidValue;
}
