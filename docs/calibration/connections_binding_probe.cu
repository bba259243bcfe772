// docs/calibration/connections_binding_probe.cu: which hardware work queue an idle stream
// is given (docs/calibration/h200_connections.md): some streams hold their queues (a long
// kernel, then a dependent tiny one), then an idle stream runs a tiny kernel; its start
// says whose queue it joined. Build: nvcc -O2 -arch=sm_90 connections_binding_probe.cu.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%d %s\n", __LINE__, cudaGetErrorString(e_)); exit(1);} } while (0)
__device__ __forceinline__ unsigned long long gt() { unsigned long long t; asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t)); return t; }
__global__ void spin(unsigned long long ns, unsigned long long *rec) {
    unsigned long long t0 = gt(); while (gt() - t0 < ns) {}
    if (threadIdx.x == 0) { rec[0] = t0; rec[1] = gt(); }
}
static unsigned long long *d, *h;
static std::vector<cudaStream_t> s;
static const unsigned long long MS = 1000000ull;
// busy[i] >0: s[i] gets a kernel of busy[i] ms then a dependent tiny one (chain=1) or only it (chain=0).
// Then probe stream p gets a tiny kernel; prints its start (ms after the earliest start).
static void probe(const char *label, std::vector<int> busy_idx, std::vector<int> busy_ms, int chain, int p) {
    CK(cudaDeviceSynchronize());
    for (size_t k = 0; k < busy_idx.size(); k++) {
        spin<<<1, 32, 0, s[busy_idx[k]]>>>(busy_ms[k] * MS, d + 4 * k);
        if (chain) spin<<<1, 32, 0, s[busy_idx[k]]>>>(1000, d + 4 * k + 2);
    }
    spin<<<1, 32, 0, s[p]>>>(1000, d + 1000);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h, d, 1002 * 8, cudaMemcpyDeviceToHost));
    unsigned long long lo = ~0ull;
    for (size_t k = 0; k < busy_idx.size(); k++) if (h[4 * k] < lo) lo = h[4 * k];
    printf("%s: s%d's tiny kernel starts at %.2f ms\n", label, p + 1, ((long long)(h[1000] - lo)) / 1e6);
}
int main() {
    CK(cudaMalloc(&d, 8192 * 8)); CK(cudaMallocHost(&h, 8192 * 8));
    s.resize(40);
    for (auto &x : s) CK(cudaStreamCreate(&x));
    spin<<<1, 32>>>(1000, d); CK(cudaDeviceSynchronize());
    std::vector<int> i7 = {0,1,2,3,4,5,6}, i8 = {0,1,2,3,4,5,6,7};
    std::vector<int> m7(7, 20), m8(8, 20), mstair = {11,12,13,14,15,16,17,18};
    probe("P1 7 streams blocked (long+tiny), probe s9", i7, m7, 1, 8);
    probe("P2 8 streams blocked (long+tiny), probe s9", i8, m8, 1, 8);
    probe("P2b 8 streams blocked, probe s10", i8, m8, 1, 9);
    probe("P2c 8 streams busy, no chain (long only), probe s9", i8, m8, 0, 8);
    for (int r = 0; r < 4; r++) probe("P4 8 blocked with 11..18 ms, probe s9 (start tells the queue)", i8, mstair, 1, 8);
    for (int r = 0; r < 3; r++) probe("P4b 8 blocked with 11..18 ms, probe s20", i8, mstair, 1, 19);
    // streams 9..16 blocked instead (other streams): probe s1
    std::vector<int> j8 = {8,9,10,11,12,13,14,15};
    for (int r = 0; r < 2; r++) probe("P5 s9..s16 blocked 11..18 ms, probe s1", j8, mstair, 1, 0);
    // 9 blocked streams (s1..s9) 11..19 ms, probe s10
    std::vector<int> i9 = {0,1,2,3,4,5,6,7,8}; std::vector<int> m9 = {11,12,13,14,15,16,17,18,19};
    for (int r = 0; r < 3; r++) probe("P6 s1..s9 blocked 11..19 ms, probe s10", i9, m9, 1, 9);
    // The probe stream busy itself first: s9 long (5 ms) already queued, then 8 blocked, then s9 tiny
    return 0;
}
