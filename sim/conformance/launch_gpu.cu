// sim/conformance/launch_gpu.cu: the conformance kernels on a real GPU (see launch.h).
#include "sim/conformance/launch.h"

__global__ static void conformance_empty() {}

__global__ static void conformance_spin(long long cycles) {
    long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
}

__global__ static void conformance_poke(int *addr) { *addr = 1; }

// A <<<...>>> launch reports through the last error, which may still hold an earlier
// call's error: clear it first, so that each launch returns its own result.

extern "C" cudaError_t conformance_launch_empty(dim3 grid, dim3 block, size_t shared_bytes, cudaStream_t stream) {
    (void)cudaGetLastError();
    conformance_empty<<<grid, block, shared_bytes, stream>>>();
    return cudaGetLastError();
}

extern "C" cudaError_t conformance_launch_spin(double ms, cudaStream_t stream) {
    int khz = 0;
    cudaError_t err = cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0);
    if (err != cudaSuccess) return err;
    (void)cudaGetLastError();
    conformance_spin<<<1, 32, 0, stream>>>((long long)(khz * ms));
    return cudaGetLastError();
}

extern "C" cudaError_t conformance_launch_poke(int *addr, cudaStream_t stream) {
    (void)cudaGetLastError();
    conformance_poke<<<1, 1, 0, stream>>>(addr);
    return cudaGetLastError();
}
