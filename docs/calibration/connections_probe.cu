// docs/calibration/connections_probe.cu: how streams share the GPU's hardware work queues
// (CUDA_DEVICE_MAX_CONNECTIONS); results in docs/calibration/h200_connections.md. n streams
// each run a chain of two 1 ms one-block kernels (Ka, then Kb), issued depth-first or
// breadth-first; every kernel records its start and end from %globaltimer. Then which
// streams' kernels wait behind a stream whose queue is held, and whether copies, memsets
// and stream waits go through the queues. Build: nvcc -O2 -arch=sm_90 connections_probe.cu;
// run it with CUDA_DEVICE_MAX_CONNECTIONS unset, 1, 4, 16, 32 ("quick": the chains only).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <chrono>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1);} } while (0)

__device__ __forceinline__ unsigned long long gt() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
    return t;
}

__global__ void spin(unsigned long long ns, unsigned long long *rec) {
    unsigned long long t0 = gt();
    while (gt() - t0 < ns) {}
    if (threadIdx.x == 0) { rec[0] = t0; rec[1] = gt(); }
}

static unsigned long long *d_rec, *h_rec;
static const int NREC = 4096;

static double host_ms() {
    using namespace std::chrono;
    return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

// n streams, each Ka then Kb (ms each); depth-first or breadth-first. Prints the span and
// each kernel's start (ms from the first start).
static void chains(const char *label, std::vector<cudaStream_t> &s, int n, bool depth, double ms, bool detail) {
    CK(cudaDeviceSynchronize());
    CK(cudaMemset(d_rec, 0, NREC * 2 * sizeof(unsigned long long)));
    CK(cudaDeviceSynchronize());
    unsigned long long ns = (unsigned long long)(ms * 1e6);
    double h0 = host_ms();
    if (depth) {
        for (int i = 0; i < n; i++) {
            spin<<<1, 32, 0, s[i]>>>(ns, d_rec + 2 * (2 * i));
            spin<<<1, 32, 0, s[i]>>>(ns, d_rec + 2 * (2 * i + 1));
        }
    } else {
        for (int i = 0; i < n; i++) spin<<<1, 32, 0, s[i]>>>(ns, d_rec + 2 * (2 * i));
        for (int i = 0; i < n; i++) spin<<<1, 32, 0, s[i]>>>(ns, d_rec + 2 * (2 * i + 1));
    }
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    double h1 = host_ms();
    CK(cudaMemcpy(h_rec, d_rec, 2 * n * 2 * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    unsigned long long lo = ~0ull, hi = 0;
    for (int k = 0; k < 2 * n; k++) {
        if (h_rec[2 * k] < lo) lo = h_rec[2 * k];
        if (h_rec[2 * k + 1] > hi) hi = h_rec[2 * k + 1];
    }
    printf("%s: streams %d %s kernel %.1f ms: span %.3f ms (host %.3f ms)\n", label, n, depth ? "depth-first" : "breadth-first",
           ms, (hi - lo) / 1e6, h1 - h0);
    if (detail) {
        printf("   starts (ms) Ka/Kb:");
        for (int i = 0; i < n; i++) printf(" s%d:%.1f/%.1f", i + 1, (h_rec[4 * i] - lo) / 1e6, (h_rec[4 * i + 2] - lo) / 1e6);
        printf("\n");
    }
}

// Which streams share a queue with stream a: a runs a long kernel then a dependent tiny
// one; then each other stream j in turn runs a tiny kernel; j shares when its start is late.
static void sharing(const char *label, std::vector<cudaStream_t> &s, int a, cudaStream_t other, const char *other_name) {
    printf("%s: streams whose tiny kernel waited behind %s's chain (long, then dependent tiny):", label, a >= 0 ? "s" : other_name);
    int n = (int)s.size();
    for (int j = -1; j < n; j++) {
        cudaStream_t sa = a >= 0 ? s[a] : other;
        cudaStream_t sj = j >= 0 ? s[j] : other;
        if (j >= 0 && j == a) continue;
        if (j < 0 && a < 0) continue;
        if (j < 0 && other == nullptr) continue;
        CK(cudaDeviceSynchronize());
        spin<<<1, 32, 0, sa>>>(20000000ull, d_rec);
        spin<<<1, 32, 0, sa>>>(1000ull, d_rec + 2);
        spin<<<1, 32, 0, sj>>>(1000ull, d_rec + 4);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(h_rec, d_rec, 6 * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
        double late = ((long long)(h_rec[4] - h_rec[0])) / 1e6;
        if (late > 10) {
            if (j >= 0) printf(" s%d(%.1f)", j + 1, late); else printf(" %s(%.1f)", other_name, late);
        }
    }
    printf("\n");
}

// Does a copy on a stream that shares a queue with a busy chain wait too?
static void copy_probe(std::vector<cudaStream_t> &s, int a, int j, const char *what) {
    void *hp; void *dp;
    CK(cudaMallocHost(&hp, 4096));
    CK(cudaMalloc(&dp, 4096));
    CK(cudaDeviceSynchronize());
    double h0 = host_ms();
    spin<<<1, 32, 0, s[a]>>>(20000000ull, d_rec);
    spin<<<1, 32, 0, s[a]>>>(1000ull, d_rec + 2);
    CK(cudaMemcpyAsync(dp, hp, 4096, cudaMemcpyHostToDevice, s[j]));
    CK(cudaStreamSynchronize(s[j]));
    double h1 = host_ms();
    printf("copy: H2D 4 KiB on s%d after s%d's chain (%s): done after %.2f ms (host)\n", j + 1, a + 1, what, h1 - h0);
    CK(cudaDeviceSynchronize());
    h0 = host_ms();
    spin<<<1, 32, 0, s[a]>>>(20000000ull, d_rec);
    spin<<<1, 32, 0, s[a]>>>(1000ull, d_rec + 2);
    CK(cudaMemsetAsync(dp, 0, 4096, s[j]));
    CK(cudaStreamSynchronize(s[j]));
    h1 = host_ms();
    printf("memset: 4 KiB on s%d after s%d's chain (%s): done after %.2f ms (host)\n", j + 1, a + 1, what, h1 - h0);
    CK(cudaDeviceSynchronize());
    // An event wait at the head of the queue: s[a] waits for an event that a long kernel on a
    // third stream records; then s[j] (sharing) runs a tiny kernel.
    cudaEvent_t e;
    CK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    int third = (a + 1) % (int)s.size();
    if (third == j) third = (third + 1) % (int)s.size();
    spin<<<1, 32, 0, s[third]>>>(20000000ull, d_rec);
    CK(cudaEventRecord(e, s[third]));
    CK(cudaStreamWaitEvent(s[a], e, 0));
    spin<<<1, 32, 0, s[a]>>>(1000ull, d_rec + 2);
    spin<<<1, 32, 0, s[j]>>>(1000ull, d_rec + 4);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h_rec, d_rec, 6 * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    printf("event wait: s%d waits for s%d's 20 ms kernel; s%d's tiny kernel (%s) starts %.2f ms after that kernel's start\n",
           a + 1, third + 1, j + 1, what, ((long long)(h_rec[4] - h_rec[0])) / 1e6);
    CK(cudaEventDestroy(e));
    CK(cudaFreeHost(hp));
    CK(cudaFree(dp));
}

int main(int argc, char **argv) {
    const char *env = getenv("CUDA_DEVICE_MAX_CONNECTIONS");
    bool quick = argc > 1 && !strcmp(argv[1], "quick");
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    printf("== %s, CUDA_DEVICE_MAX_CONNECTIONS=%s\n", p.name, env ? env : "(unset)");
    CK(cudaMalloc(&d_rec, NREC * 2 * sizeof(unsigned long long)));
    CK(cudaMallocHost(&h_rec, NREC * 2 * sizeof(unsigned long long)));
    std::vector<cudaStream_t> s(32);
    for (auto &x : s) CK(cudaStreamCreate(&x));
    // warm-up
    spin<<<1, 32>>>(1000, d_rec);
    CK(cudaDeviceSynchronize());
    chains("chains", s, 16, true, 1.0, true);
    chains("chains", s, 16, false, 1.0, true);
    chains("chains", s, 8, true, 1.0, false);
    chains("chains", s, 8, false, 1.0, false);
    chains("chains", s, 9, true, 1.0, true);
    chains("chains", s, 32, true, 1.0, false);
    chains("chains", s, 32, false, 1.0, false);
    if (quick) return 0;
    sharing("map", s, 0, nullptr, "");
    sharing("map", s, 1, nullptr, "");
    // Non-blocking streams, so that the legacy stream's barrier does not hide anything.
    std::vector<cudaStream_t> nb(16);
    for (auto &x : nb) CK(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking));
    sharing("map-nb-vs-legacy", nb, -1, cudaStreamLegacy, "legacy");
    sharing("map-nb-vs-perthread", nb, -1, cudaStreamPerThread, "per-thread");
    sharing("map-nb0", nb, 0, cudaStreamLegacy, "legacy");
    copy_probe(s, 0, 8, "s1 and s9 share a queue for kernels");
    copy_probe(s, 0, 1, "control: s2 does not");
    // Destroy and recreate: does the round robin go on, or restart?
    for (int i = 0; i < 4; i++) CK(cudaStreamDestroy(s[i]));
    for (int i = 0; i < 4; i++) CK(cudaStreamCreate(&s[i]));
    sharing("map-after-recreating-s1-s4", s, 0, nullptr, "");
    return 0;
}
