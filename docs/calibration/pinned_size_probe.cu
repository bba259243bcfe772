// docs/calibration/pinned_size_probe.cu: how long a pinned copy of each size takes on the
// device, from 4 KiB to 16 MiB, in each direction, and a one-block kernel (docs/calibration.md,
// "What is approximate": the simulator gives every pinned copy the set-up fitted to copies of
// 4 MiB and more, 14 us up, which a 32 KiB copy may not pay).
//
// Each figure is event-timed on a stream held back by a spin kernel while the events and the
// copy are queued, so that it times the device alone (as //sim:calibrate does): the median
// and the 10th and 90th percentiles of REPS. A second table times the same copies queued
// back to back, eight in one stream between one pair of events, per copy: what a queued
// copy costs after the one before it.
//
//   nvcc -O2 -arch=sm_90 -o pinned_size_probe pinned_size_probe.cu && ./pinned_size_probe
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define CHECK(x)                                                                                     \
    do {                                                                                             \
        cudaError_t e_ = (x);                                                                        \
        if (e_ != cudaSuccess) {                                                                     \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            std::exit(1);                                                                            \
        }                                                                                            \
    } while (0)

static const int REPS = 21;
static const int QUEUED = 8;
static const size_t MAX_BYTES = 16u << 20;

__global__ void spin(long long cycles) {
    long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
}

__global__ void one_block(unsigned *x, int iters) {
    unsigned v = x[threadIdx.x];
    for (int i = 0; i < iters; i++) v = v * 1664525u + 1013904223u;
    x[threadIdx.x] = v;
}

struct Stat {
    double p10, p50, p90;
};

static Stat stat(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return {v[n / 10], v[n / 2], v[n * 9 / 10]};
}

// The device time of count copies of bytes in one direction (dir 0: H2D), queued back to back
// in s behind a gate, per copy, over REPS: each copy from its own part of h and d.
static Stat copies(cudaStream_t s, cudaEvent_t a, cudaEvent_t b, char *h, char *d, size_t bytes, int dir, int count,
                   long long gate) {
    std::vector<double> t;
    for (int r = 0; r < REPS; r++) {
        spin<<<1, 32, 0, s>>>(gate);
        CHECK(cudaEventRecord(a, s));
        for (int q = 0; q < count; q++) {
            char *hp = h + q * bytes, *dp = d + q * bytes;
            if (dir == 0)
                CHECK(cudaMemcpyAsync(dp, hp, bytes, cudaMemcpyHostToDevice, s));
            else
                CHECK(cudaMemcpyAsync(hp, dp, bytes, cudaMemcpyDeviceToHost, s));
        }
        CHECK(cudaEventRecord(b, s));
        CHECK(cudaEventSynchronize(b));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms * 1e3 / count);
    }
    return stat(t);
}

int main() {
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    int clock_khz = 0;
    CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    std::printf("%s\n", prop.name);
    char *h, *d;
    CHECK(cudaMallocHost(&h, MAX_BYTES * QUEUED));
    CHECK(cudaMalloc(&d, MAX_BYTES * QUEUED));
    unsigned *k;
    CHECK(cudaMalloc(&k, 256 * sizeof(unsigned)));
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    long long gate = (long long)clock_khz * 1000 / 5000; // about 200 us
    const size_t sizes[] = {4u << 10, 32u << 10, 132u << 10, 256u << 10, 1u << 20, 4u << 20, 16u << 20};
    // Warm-up: each direction once.
    CHECK(cudaMemcpy(d, h, MAX_BYTES, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(h, d, MAX_BYTES, cudaMemcpyDeviceToHost));

    for (int count : {1, QUEUED}) {
        if (count == 1)
            std::printf("\none copy alone on the device (event-timed behind a gate), us: p10 / median / p90\n");
        else
            std::printf("\n%d copies queued back to back in one stream, per copy, us: p10 / median / p90\n", count);
        std::printf("| size | H2D | D2H |\n| --- | --- | --- |\n");
        for (size_t bytes : sizes) {
            Stat up = copies(s, a, b, h, d, bytes, 0, count, gate), down = copies(s, a, b, h, d, bytes, 1, count, gate);
            std::printf("| %zu KiB | %.1f / %.1f / %.1f | %.1f / %.1f / %.1f |\n", bytes >> 10, up.p10, up.p50, up.p90,
                        down.p10, down.p50, down.p90);
        }
    }

    std::printf("\na one-block kernel of 256 threads, 200 iterations (event-timed behind a gate), us: ");
    std::vector<double> t;
    for (int r = 0; r < REPS; r++) {
        spin<<<1, 32, 0, s>>>(gate);
        CHECK(cudaEventRecord(a, s));
        one_block<<<1, 256, 0, s>>>(k, 200);
        CHECK(cudaEventRecord(b, s));
        CHECK(cudaEventSynchronize(b));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms * 1e3);
    }
    Stat ks = stat(t);
    std::printf("%.1f / %.1f / %.1f\n", ks.p10, ks.p50, ks.p90);
    CHECK(cudaGetLastError());
    return 0;
}
