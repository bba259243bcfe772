// kernels/gpu/spin.cu: the device code of spin: every thread busy-waits for duration_ns,
// measured on the %globaltimer nanosecond clock (independent of the SM clock, so the
// duration holds whatever clock the GPU runs at; see docs/kernels.md), then thread 0 of
// each block writes the block's marker, once all of the block's threads have waited.
#include "kernels/gpu/device.h"
#include "kernels/math.h"

__device__ static __forceinline__ uint64_t globaltimer_ns() {
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void kernels_spin_kernel(uint32_t *marks, uint64_t duration_ns, uint32_t mark) {
    uint64_t start = globaltimer_ns();
    while (globaltimer_ns() - start < duration_ns) {
    }
    __syncthreads();
    if (threadIdx.x == 0) marks[blockIdx.x] = kernels_spin_mark(mark, blockIdx.x);
}

extern "C" cudaError_t kernels_device_spin(uint32_t *marks, uint32_t blocks, uint32_t threads,
                                           uint64_t duration_ns, uint32_t mark, cudaStream_t stream) {
    void *args[] = {&marks, &duration_ns, &mark};
    return cudaLaunchKernel((const void *)kernels_spin_kernel, dim3(blocks), dim3(threads), args, 0, stream);
}
