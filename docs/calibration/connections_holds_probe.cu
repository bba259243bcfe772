// docs/calibration/connections_holds_probe.cu: which ops hold their hardware work queue
// while they wait for the op before them in their stream (docs/calibration/h200_connections.md).
// Build: nvcc -O2 -arch=sm_90 connections_holds_probe.cu; run with CUDA_DEVICE_MAX_CONNECTIONS=1.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%d %s\n", __LINE__, cudaGetErrorString(e_)); exit(1);} } while (0)
__device__ __forceinline__ unsigned long long gt() { unsigned long long t; asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t)); return t; }
__global__ void spin(unsigned long long ns, unsigned long long *rec) {
    unsigned long long t0 = gt(); while (gt() - t0 < ns) {}
    if (threadIdx.x == 0 && rec) { rec[0] = t0; rec[1] = gt(); }
}
static void hostfn(void *) {}
int main() {
    unsigned long long *d, *h; CK(cudaMalloc(&d, 4096)); CK(cudaMallocHost(&h, 4096));
    void *hp, *dp, *dp2; CK(cudaMallocHost(&hp, 1 << 20)); CK(cudaMalloc(&dp, 1 << 20)); CK(cudaMalloc(&dp2, 1 << 20));
    cudaStream_t s1, s2; CK(cudaStreamCreate(&s1)); CK(cudaStreamCreate(&s2));
    cudaEvent_t et, en, done; CK(cudaEventCreate(&et)); CK(cudaEventCreateWithFlags(&en, cudaEventDisableTiming));
    CK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    CK(cudaEventRecord(done, s2)); CK(cudaDeviceSynchronize());
    spin<<<1, 32>>>(1000, nullptr); CK(cudaDeviceSynchronize());
    const char *names[] = {"kernel", "event record (timing)", "event record (no timing)", "H2D copy 1 MiB pinned",
                           "D2H copy 1 MiB pinned", "D2D copy 1 MiB", "memset 1 MiB", "host function",
                           "wait on a completed event", "nothing (control)"};
    for (int x = 0; x < 10; x++) {
        for (int rep = 0; rep < 2; rep++) {
            CK(cudaDeviceSynchronize());
            spin<<<1, 32, 0, s1>>>(20000000ull, d);
            switch (x) {
            case 0: spin<<<1, 32, 0, s1>>>(1000, nullptr); break;
            case 1: CK(cudaEventRecord(et, s1)); break;
            case 2: CK(cudaEventRecord(en, s1)); break;
            case 3: CK(cudaMemcpyAsync(dp, hp, 1 << 20, cudaMemcpyHostToDevice, s1)); break;
            case 4: CK(cudaMemcpyAsync(hp, dp, 1 << 20, cudaMemcpyDeviceToHost, s1)); break;
            case 5: CK(cudaMemcpyAsync(dp2, dp, 1 << 20, cudaMemcpyDeviceToDevice, s1)); break;
            case 6: CK(cudaMemsetAsync(dp, 0, 1 << 20, s1)); break;
            case 7: CK(cudaLaunchHostFunc(s1, hostfn, nullptr)); break;
            case 8: CK(cudaStreamWaitEvent(s1, done, 0)); break;
            case 9: break;
            }
            spin<<<1, 32, 0, s2>>>(1000, d + 2);
            CK(cudaDeviceSynchronize());
            CK(cudaMemcpy(h, d, 32, cudaMemcpyDeviceToHost));
            printf("%s: s2's kernel starts %.2f ms after s1's 20 ms kernel\n", names[x], ((long long)(h[2] - h[0])) / 1e6);
        }
    }
    return 0;
}
