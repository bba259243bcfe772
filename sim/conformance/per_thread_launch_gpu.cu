// sim/conformance/per_thread_launch_gpu.cu: conformance_ptds_launch_spin (per_thread.h) on
// a real GPU. Compiled with nvcc --default-stream per-thread, which defines
// CUDA_API_PER_THREAD_DEFAULT_STREAM: the <<<...>>> launch below reaches
// cudaLaunchKernel_ptsz, where stream 0 is the per-thread stream.
#include "sim/conformance/per_thread.h"

#if !defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
#error "per_thread_launch_gpu.cu must be compiled with --default-stream per-thread"
#endif

__global__ static void conformance_ptds_spin(long long cycles) {
    long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
}

// As in launch_gpu.cu: clear the last error first, so that the launch returns its own.
extern "C" cudaError_t conformance_ptds_launch_spin(double ms, cudaStream_t stream) {
    int khz = 0;
    cudaError_t err = cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0);
    if (err != cudaSuccess) return err;
    (void)cudaGetLastError();
    conformance_ptds_spin<<<1, 32, 0, stream>>>((long long)(khz * ms));
    return cudaGetLastError();
}
