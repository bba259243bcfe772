// docs/calibration/sm_sharing_probe.cu: where the blocks of small concurrent kernels run,
// and what sharing an SM costs them (lab 06's requests, docs/measured.md "Lab 06").
//
// Lab 06's process kernel (32 blocks of 256 threads, a dependent chain of integer
// multiply-adds per thread) alone, then K copies of it launched back to back on K
// non-blocking streams (K = 2, 3, 4, 8), over separate buffers. Each block records the SM
// it ran on (%smid) and its start and end (%globaltimer). Printed per K: each kernel's span
// (first block start to last block end), the SMs used by all kernels together, and how many
// SMs ran blocks of more than one kernel at once.
//
//   nvcc -O2 -arch=sm_90 -o sm_sharing_probe sm_sharing_probe.cu && ./sm_sharing_probe
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <vector>

#include <cuda_runtime.h>

#define CHECK(x)                                                                                  \
    do {                                                                                          \
        cudaError_t e_ = (x);                                                                     \
        if (e_ != cudaSuccess) {                                                                  \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            std::exit(1);                                                                         \
        }                                                                                         \
    } while (0)

struct BlockRec {
    unsigned sm;
    unsigned long long t0, t1;
};

__device__ unsigned smid() {
    unsigned r;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
    return r;
}

__device__ unsigned long long gtime() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void process(unsigned *x, unsigned mul, unsigned add, unsigned iters, BlockRec *rec) {
    __shared__ unsigned long long t0;
    if (threadIdx.x == 0) t0 = gtime();
    __syncthreads();
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = x[i];
    for (unsigned k = 0; k < iters; ++k) v = v * mul + add;
    x[i] = v;
    __syncthreads();
    if (threadIdx.x == 0) rec[blockIdx.x] = {smid(), t0, gtime()};
}

int main() {
    const int blocks = 32, threads = 256, maxk = 8;
    const unsigned iters = 10000;
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device: %s, %d SMs\n", prop.name, prop.multiProcessorCount);
    unsigned *x;
    BlockRec *rec;
    CHECK(cudaMalloc(&x, (size_t)maxk * blocks * threads * sizeof(unsigned)));
    CHECK(cudaMemset(x, 1, (size_t)maxk * blocks * threads * sizeof(unsigned)));
    CHECK(cudaMallocHost(&rec, (size_t)maxk * blocks * sizeof(BlockRec))); /* pinned: the kernels write it directly */
    cudaStream_t s[maxk];
    for (int k = 0; k < maxk; k++) CHECK(cudaStreamCreateWithFlags(&s[k], cudaStreamNonBlocking));
    const int ks[] = {1, 2, 3, 4, 8};
    for (int rep = 0; rep < 2; rep++) {
        for (int K : ks) {
            CHECK(cudaDeviceSynchronize());
            for (int k = 0; k < K; k++)
                process<<<blocks, threads, 0, s[k]>>>(x + (size_t)k * blocks * threads, 1664525u, 1013904223u, iters,
                                                       rec + k * blocks);
            CHECK(cudaGetLastError());
            CHECK(cudaDeviceSynchronize());
            if (rep == 0) continue; /* warm-up */
            unsigned long long first = ~0ull;
            for (int k = 0; k < K; k++)
                for (int b = 0; b < blocks; b++) first = std::min(first, rec[k * blocks + b].t0);
            std::printf("K=%d:", K);
            std::set<unsigned> all;
            for (int k = 0; k < K; k++) {
                unsigned long long a = ~0ull, z = 0;
                std::set<unsigned> sms;
                for (int b = 0; b < blocks; b++) {
                    const BlockRec &r = rec[k * blocks + b];
                    a = std::min(a, r.t0);
                    z = std::max(z, r.t1);
                    sms.insert(r.sm);
                    all.insert(r.sm);
                }
                std::printf(" [k%d %.1f-%.1f us, %zu SMs]", k, (a - first) / 1e3, (z - first) / 1e3, sms.size());
            }
            /* SMs that ran blocks of two kernels at overlapping times. */
            std::set<unsigned> shared;
            for (int i = 0; i < K * blocks; i++)
                for (int j = i + 1; j < K * blocks; j++) {
                    const BlockRec &p = rec[i], &q = rec[j];
                    if (i / blocks != j / blocks && p.sm == q.sm && p.t0 < q.t1 && q.t0 < p.t1) shared.insert(p.sm);
                }
            std::printf("; %zu SMs in all, %zu shared at once; SM ids of k0:", all.size(), shared.size());
            std::vector<unsigned> ids;
            for (int b = 0; b < blocks; b++) ids.push_back(rec[b].sm);
            std::sort(ids.begin(), ids.end());
            for (unsigned id : ids) std::printf(" %u", id);
            std::printf("\n");
        }
    }
    return 0;
}
