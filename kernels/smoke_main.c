/* kernels/smoke_main.c: `bazel run //kernels:smoke` checks that this machine can run the
 * GPU build: it launches one kernel, checks its output, and says what it found.
 * Exit status: 0 the GPU ran it correctly, 1 wrong results or a CUDA error, 77 no device. */
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#include "kernels/smoke.h"

int main(void) {
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        printf("no CUDA device (%s)\n", err != cudaSuccess ? cudaGetErrorString(err) : "0 devices");
        return 77;
    }
    struct cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    enum { N = 1 << 20 };
    float *out = malloc(N * sizeof(float));
    if (!out) return 1;
    err = kernels_smoke_run(out, N, 0.5f);
    if (err != cudaSuccess) {
        printf("%s: kernel failed: %s\n", prop.name, cudaGetErrorString(err));
        free(out);
        return 1;
    }
    for (int i = 0; i < N; i++) {
        if (out[i] != (float)i * 0.5f) {
            printf("%s: wrong value at %d: %g\n", prop.name, i, out[i]);
            free(out);
            return 1;
        }
    }
    free(out);
    printf("GPU ok: %s (sm_%d%d, %d SMs)\n", prop.name, prop.major, prop.minor, prop.multiProcessorCount);
    return 0;
}
