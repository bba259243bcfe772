// docs/calibration/cold_start_probe.cu: what the first work after the device and the host
// have been idle costs, against the same work done back to back (docs/measured.md, "Where
// lab 06's p99 gap comes from": on an H200 the first request of every timed run took 30-45
// us longer than the rest, its first cudaMemcpyAsync 13 us where later ones took 3).
//
// One round: a 32 KiB pinned upload (lab 06's request), a one-block kernel, a 32 KiB
// download, all on one non-blocking stream, then cudaStreamSynchronize. For each idle time
// before a round (0: back to back; then 0.2 to 20 ms, the host sleeping in nanosleep or
// spinning on the clock), REPS rounds, and for each the medians and the 90th percentiles
// of: the host time of the upload's call, the host time from the round's first call to the
// synchronisation's return, and the device time of the round (events around it).
//
//   nvcc -O2 -arch=sm_90 -o cold_start_probe cold_start_probe.cu && ./cold_start_probe
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>
#include <time.h>

#define CHECK(x)                                                                                     \
    do {                                                                                             \
        cudaError_t e_ = (x);                                                                        \
        if (e_ != cudaSuccess) {                                                                     \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            std::exit(1);                                                                            \
        }                                                                                            \
    } while (0)

static const int REPS = 41;
static const size_t BYTES = 32 << 10;

static double now_us() {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static void idle(double us, bool spin) {
    if (us <= 0) return;
    if (spin) {
        double until = now_us() + us;
        while (now_us() < until) {
        }
        return;
    }
    timespec t = {(time_t)(us / 1e6), (long)((us - (time_t)(us / 1e6) * 1e6) * 1e3)};
    nanosleep(&t, nullptr);
}

__global__ void touch(unsigned *p, int n) {
    for (int i = threadIdx.x; i < n; i += blockDim.x) p[i] = p[i] * 2654435761u + 1u;
}

static double pct(std::vector<double> v, double q) {
    std::sort(v.begin(), v.end());
    return v[(size_t)(q * (v.size() - 1) + 0.5)];
}

int main() {
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    unsigned *h_in, *h_out, *d;
    CHECK(cudaMallocHost((void **)&h_in, BYTES));
    CHECK(cudaMallocHost((void **)&h_out, BYTES));
    CHECK(cudaMalloc((void **)&d, BYTES));
    for (size_t i = 0; i < BYTES / 4; i++) h_in[i] = (unsigned)i;
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    const int n = (int)(BYTES / 4);
    for (int w = 0; w < 20; w++) {  // warm-up: module load, first copies
        CHECK(cudaMemcpyAsync(d, h_in, BYTES, cudaMemcpyHostToDevice, s));
        touch<<<1, 256, 0, s>>>(d, n);
        CHECK(cudaMemcpyAsync(h_out, d, BYTES, cudaMemcpyDeviceToHost, s));
        CHECK(cudaStreamSynchronize(s));
    }
    std::printf("cold_start_probe: %d rounds per row; us; median / 90th percentile\n", REPS);
    std::printf("| idle before the round | upload call | round, host | round, device |\n| --- | --- | --- | --- |\n");
    const double idles[] = {0, 200, 1000, 5000, 20000};
    for (int spin = 0; spin < 2; spin++) {
        for (double us : idles) {
            if (spin && us == 0) continue;
            std::vector<double> call, host, dev;
            for (int r = 0; r < REPS; r++) {
                idle(us, spin);
                double t0 = now_us();
                CHECK(cudaEventRecord(e0, s));
                double c0 = now_us();
                CHECK(cudaMemcpyAsync(d, h_in, BYTES, cudaMemcpyHostToDevice, s));
                double c1 = now_us();
                touch<<<1, 256, 0, s>>>(d, n);
                CHECK(cudaMemcpyAsync(h_out, d, BYTES, cudaMemcpyDeviceToHost, s));
                CHECK(cudaEventRecord(e1, s));
                CHECK(cudaStreamSynchronize(s));
                double t1 = now_us();
                float ms = 0;
                CHECK(cudaEventElapsedTime(&ms, e0, e1));
                call.push_back(c1 - c0);
                host.push_back(t1 - t0);
                dev.push_back(ms * 1e3);
            }
            std::printf("| %.1f ms, %s | %.1f / %.1f | %.1f / %.1f | %.1f / %.1f |\n", us / 1e3,
                        us == 0 ? "back to back" : spin ? "host spinning" : "host sleeping", pct(call, 0.5),
                        pct(call, 0.9), pct(host, 0.5), pct(host, 0.9), pct(dev, 0.5), pct(dev, 0.9));
        }
    }
    return 0;
}
