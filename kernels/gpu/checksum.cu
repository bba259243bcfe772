// kernels/gpu/checksum.cu: the device code of checksum: each block adds its 2048 elements
// (8 per thread, strided by the block size so a warp's loads are contiguous) with warp
// shuffles and shared memory, then adds its total to *sum with one 64-bit atomicAdd.
// Integer addition mod 2^64 is associative and commutative, so the result is exact
// whatever order the blocks run in.
#include "kernels/gpu/device.h"

static_assert(KERNELS_CHECKSUM_THREADS % 32 == 0, "whole warps");

__global__ void kernels_checksum_kernel(unsigned long long *sum, const uint32_t *in, size_t n) {
    __shared__ unsigned long long warp_sums[KERNELS_CHECKSUM_THREADS / 32];
    size_t base = (size_t)blockIdx.x * KERNELS_CHECKSUM_BLOCK_ELEMS + threadIdx.x;
    unsigned long long s = 0;
#pragma unroll
    for (unsigned j = 0; j < KERNELS_CHECKSUM_ITEMS; ++j) {
        size_t i = base + (size_t)j * KERNELS_CHECKSUM_THREADS;
        if (i < n) s += in[i];
    }
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) s += __shfl_down_sync(0xffffffffu, s, offset);
    if ((threadIdx.x & 31u) == 0) warp_sums[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long total = 0;
#pragma unroll
        for (unsigned w = 0; w < KERNELS_CHECKSUM_THREADS / 32; ++w) total += warp_sums[w];
        atomicAdd(sum, total);
    }
}

extern "C" cudaError_t kernels_device_checksum(uint64_t *sum, const uint32_t *in, size_t n, uint32_t blocks,
                                               cudaStream_t stream) {
    static_assert(sizeof(uint64_t) == sizeof(unsigned long long), "64-bit sum");
    unsigned long long *dsum = reinterpret_cast<unsigned long long *>(sum);
    void *args[] = {&dsum, &in, &n};
    return cudaLaunchKernel((const void *)kernels_checksum_kernel, dim3(blocks), dim3(KERNELS_CHECKSUM_THREADS),
                            args, 0, stream);
}
