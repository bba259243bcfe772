// kernels/smoke.cu: the device side of kernels_smoke_run() (see smoke.h).
#include "kernels/smoke.h"

__global__ static void smoke_fill(float *out, int n, float scale) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (float)i * scale;
}

extern "C" cudaError_t kernels_smoke_run(float *host_out, int n, float scale) {
    float *dev = nullptr;
    cudaError_t err = cudaMalloc(&dev, (size_t)n * sizeof(float));
    if (err != cudaSuccess) return err;
    smoke_fill<<<(n + 255) / 256, 256>>>(dev, n, scale);
    err = cudaGetLastError();
    if (err == cudaSuccess)
        err = cudaMemcpy(host_out, dev, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost);
    cudaError_t free_err = cudaFree(dev);
    return err != cudaSuccess ? err : free_err;
}
