// docs/calibration/priority_blocks_probe.cu: where a high-priority request's blocks land beside
// a background that fills the GPU, and what each costs the other (lab 04's shapes;
// docs/calibration.md, "What is approximate").
//
// The background is one spin kernel of 528,000 blocks of 128 threads, 20 us each, on a stream
// of the least priority (16 blocks an SM: every thread slot). The requests are 16 launches of
// a 132-block, 256-thread kernel of dependent integer multiply-adds (its iterations set so
// that it takes about 20 us alone) on a stream of the greatest priority, the first 0.5 ms
// after the background and then one every 0.25 ms, as lab 04's harness sends them. Every
// block records its SM (%smid) and its start and end (%globaltimer). Printed: the background's
// time without and with the requests (twice), each request's kernel time (events), how many
// SMs its blocks ran on and how many blocks each held, the blocks' times, and when one SM's
// first-wave background blocks ended.
//
//   nvcc -O2 -arch=sm_90 -o priority_blocks_probe priority_blocks_probe.cu && ./priority_blocks_probe
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

#define CK(x)                                              \
    do {                                                   \
        cudaError_t e = (x);                               \
        if (e != cudaSuccess) {                            \
            printf("%s: %s\n", #x, cudaGetErrorString(e)); \
            exit(1);                                       \
        }                                                  \
    } while (0)
__device__ __forceinline__ unsigned long long gtime() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
__device__ __forceinline__ unsigned smid() {
    unsigned s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    return s;
}
struct rec {
    unsigned long long t0, t1;
    unsigned sm, pad;
};
__global__ void spin(long long ns, rec *r) {
    unsigned long long t0 = gtime();
    while (gtime() - t0 < (unsigned long long)ns) {
    }
    if (threadIdx.x == 0 && r) {
        rec x;
        x.t0 = t0;
        x.t1 = gtime();
        x.sm = smid();
        r[blockIdx.x] = x;
    }
}
__global__ void work(unsigned *out, int iters, rec *r) {
    unsigned long long t0 = gtime();
    unsigned v = threadIdx.x + blockIdx.x * blockDim.x;
    for (int i = 0; i < iters; i++) v = v * 1664525u + 1013904223u;
    out[blockIdx.x * blockDim.x + threadIdx.x] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        rec x;
        x.t0 = t0;
        x.t1 = gtime();
        x.sm = smid();
        r[blockIdx.x] = x;
    }
}
static double now_us() {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}
int main() {
    int lo, hi;
    CK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
    cudaStream_t bg, rq;
    CK(cudaStreamCreateWithPriority(&bg, cudaStreamNonBlocking, lo));
    CK(cudaStreamCreateWithPriority(&rq, cudaStreamNonBlocking, hi));
    const int BG = 528000, RB = 132, NREQ = 16;
    rec *dbg, *drq;
    unsigned *out;
    CK(cudaMalloc(&dbg, sizeof(rec) * BG));
    CK(cudaMalloc(&drq, sizeof(rec) * RB * NREQ));
    CK(cudaMalloc(&out, 4 * RB * 256));
    // calibrate work iterations so one request alone takes ~20 us
    int iters = 2000;
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int k = 0; k < 6; k++) {
        CK(cudaEventRecord(a, rq));
        work<<<RB, 256, 0, rq>>>(out, iters, drq);
        CK(cudaEventRecord(b, rq));
        CK(cudaEventSynchronize(b));
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        if (k >= 2) iters = (int)(iters * 0.020 / ms);
        if (k == 5) printf("request alone: %.1f us (iters %d)\n", ms * 1e3, iters);
    }
    for (int pass = 0; pass < 3; pass++) {
        bool with = pass > 0;
        CK(cudaDeviceSynchronize());
        CK(cudaEventRecord(a, bg));
        spin<<<BG, 128, 0, bg>>>(20000, dbg);
        CK(cudaEventRecord(b, bg));
        double h0 = now_us();
        std::vector<cudaEvent_t> e0(NREQ), e1(NREQ);
        for (int q = 0; q < NREQ && with; q++) {
            while (now_us() - h0 < 500 + 250 * q) {
            }
            CK(cudaEventCreate(&e0[q]));
            CK(cudaEventCreate(&e1[q]));
            CK(cudaEventRecord(e0[q], rq));
            work<<<RB, 256, 0, rq>>>(out, iters, drq + q * RB);
            CK(cudaEventRecord(e1[q], rq));
        }
        CK(cudaDeviceSynchronize());
        float bgms;
        CK(cudaEventElapsedTime(&bgms, a, b));
        printf("pass %d (%s requests): background %.3f ms\n", pass, with ? "with" : "without", bgms);
        if (!with) continue;
        std::vector<rec> r(RB * NREQ);
        CK(cudaMemcpy(r.data(), drq, sizeof(rec) * RB * NREQ, cudaMemcpyDeviceToHost));
        std::vector<double> spans, blk;
        int maxper = 0;
        double sms = 0;
        for (int q = 0; q < NREQ; q++) {
            float ms;
            CK(cudaEventElapsedTime(&ms, e0[q], e1[q]));
            spans.push_back(ms * 1e3);
            std::vector<int> per(256, 0);
            int distinct = 0;
            for (int i = 0; i < RB; i++) {
                rec &x = r[q * RB + i];
                if (per[x.sm]++ == 0) distinct++;
                blk.push_back((x.t1 - x.t0) / 1e3);
            }
            maxper = std::max(maxper, *std::max_element(per.begin(), per.end()));
            sms += distinct;
            if (q < 3 || q == NREQ - 1) {
                unsigned long long f = ~0ull, l = 0;
                for (int i = 0; i < RB; i++) {
                    f = std::min(f, r[q * RB + i].t0);
                    l = std::max(l, r[q * RB + i].t1);
                }
                int hist[9] = {0};
                for (int s = 0; s < 256; s++)
                    if (per[s]) hist[std::min(per[s], 8)]++;
                printf(
                    "  request %d: kernel %.1f us (events), blocks first-start to last-end %.1f us, %d SMs; SMs "
                    "holding 1..8+ blocks:",
                    q, ms * 1e3, (l - f) / 1e3, distinct);
                for (int h = 1; h <= 8; h++) printf(" %d", hist[h]);
                printf("\n");
            }
        }
        std::sort(spans.begin(), spans.end());
        std::sort(blk.begin(), blk.end());
        printf(
            "  requests: kernel median %.1f us max %.1f; block time median %.1f us p10 %.1f p90 %.1f; mean SMs per "
            "request %.1f, most blocks on one SM %d\n",
            spans[NREQ / 2], spans.back(), blk[blk.size() / 2], blk[blk.size() / 10], blk[blk.size() * 9 / 10],
            sms / NREQ, maxper);
        // background blocks: how staggered are the retirements on one SM?
        std::vector<rec> g(BG);
        CK(cudaMemcpy(g.data(), dbg, sizeof(rec) * BG, cudaMemcpyDeviceToHost));
        unsigned long long gt0 = ~0ull;
        for (auto &x : g) gt0 = std::min(gt0, x.t0);
        std::vector<double> firstwave;
        for (int i = 0; i < BG; i++)
            if (g[i].sm == g[0].sm && (g[i].t0 - gt0) < 20000) firstwave.push_back((g[i].t1 - gt0) / 1e3);
        std::sort(firstwave.begin(), firstwave.end());
        printf("  background: SM %u's first-wave blocks end at (us):", g[0].sm);
        for (double v : firstwave) printf(" %.2f", v);
        printf("\n");
    }
    return 0;
}
