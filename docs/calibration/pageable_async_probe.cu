// docs/calibration/pageable_async_probe.cu: when cudaMemcpyAsync from pageable memory
// returns, with its stream idle and with its stream busy (lab 08's ring of pageable
// buffers; docs/calibration.md, "Pageable copies behind a busy stream").
//
// The Runtime API's "API synchronization behavior" says a pageable upload is staged "and
// the driver may synchronize with the stream". Whether it does decides whether a loader
// that uploads from malloc'd buffers can run ahead of its device. For each size, three
// cases, each repeated and the median printed:
//   idle    the stream idle: the host time of one pageable cudaMemcpyAsync
//   busy    the stream holding a 2 ms spin kernel: the host time of each of up to 6
//           successive pageable cudaMemcpyAsync into it, and when each returned relative
//           to the kernel's end (negative: before the kernel ended)
//   other   the same 2 ms kernel on another stream: the upload's stream is idle
// and, for the download direction, busy only (a pageable download must wait for its data).
//
//   nvcc -O2 -arch=sm_90 -o pageable_async_probe pageable_async_probe.cu && ./pageable_async_probe
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>
#include <time.h>

#define CHECK(x)                                                                                  \
    do {                                                                                          \
        cudaError_t e_ = (x);                                                                     \
        if (e_ != cudaSuccess) {                                                                  \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            std::exit(1);                                                                         \
        }                                                                                         \
    } while (0)

static double now_us() {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

__global__ void spin_ns(unsigned long long ns) {
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (t - t0 < ns);
}

static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

enum { REPS = 7, CALLS = 6 };
static const double SPIN_US = 2000.0;

int main() {
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    int driver = 0;
    CHECK(cudaDriverGetVersion(&driver));
    std::printf("device %s, driver API %d\n", prop.name, driver);
    const size_t sizes[] = {64u << 10, 256u << 10, 1u << 20, 4u << 20, 16u << 20};
    const size_t max_bytes = 16u << 20;
    char *host[CALLS];
    for (int c = 0; c < CALLS; c++) {
        host[c] = static_cast<char *>(std::malloc(max_bytes));
        std::memset(host[c], c + 1, max_bytes);
    }
    char *dev;
    CHECK(cudaMalloc(&dev, CALLS * max_bytes));
    cudaStream_t s, other;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
    cudaEvent_t spin_end;
    CHECK(cudaEventCreate(&spin_end));
    // Warm up: the spin kernel, the copies, the staging.
    spin_ns<<<1, 1, 0, s>>>(10000);
    for (int c = 0; c < CALLS; c++) CHECK(cudaMemcpyAsync(dev + c * max_bytes, host[c], max_bytes, cudaMemcpyHostToDevice, s));
    CHECK(cudaDeviceSynchronize());

    for (size_t bytes : sizes) {
        std::vector<double> idle, other_v, d2h_busy;
        std::vector<std::vector<double>> call(CALLS), ret(CALLS);
        for (int r = 0; r < REPS; r++) {
            double t0 = now_us();
            CHECK(cudaMemcpyAsync(dev, host[0], bytes, cudaMemcpyHostToDevice, s));
            idle.push_back(now_us() - t0);
            CHECK(cudaStreamSynchronize(s));

            spin_ns<<<1, 1, 0, other>>>((unsigned long long)(SPIN_US * 1e3));
            t0 = now_us();
            CHECK(cudaMemcpyAsync(dev, host[0], bytes, cudaMemcpyHostToDevice, s));
            other_v.push_back(now_us() - t0);
            CHECK(cudaDeviceSynchronize());

            double k0 = now_us();
            spin_ns<<<1, 1, 0, s>>>((unsigned long long)(SPIN_US * 1e3));
            double returned[CALLS];
            for (int c = 0; c < CALLS; c++) {
                double c0 = now_us();
                CHECK(cudaMemcpyAsync(dev + c * max_bytes, host[c], bytes, cudaMemcpyHostToDevice, s));
                returned[c] = now_us();
                call[c].push_back(returned[c] - c0);
            }
            // The kernel's end on the host's clock: synchronise on an event recorded after
            // it on a second busy run is not possible here, so estimate it as launch +
            // spin (the launch returns within a few us of the kernel's start on an idle GPU).
            double kernel_end = k0 + SPIN_US;
            for (int c = 0; c < CALLS; c++) ret[c].push_back(returned[c] - kernel_end);
            CHECK(cudaStreamSynchronize(s));

            spin_ns<<<1, 1, 0, s>>>((unsigned long long)(SPIN_US * 1e3));
            t0 = now_us();
            CHECK(cudaMemcpyAsync(host[0], dev, bytes, cudaMemcpyDeviceToHost, s));
            d2h_busy.push_back(now_us() - t0);
            CHECK(cudaStreamSynchronize(s));
        }
        std::printf("\n%zu KiB: idle stream %.1f us; kernel on another stream %.1f us; D2H behind the kernel %.1f us\n",
                    bytes >> 10, median(idle), median(other_v), median(d2h_busy));
        std::printf("  behind a %.0f us kernel on its stream, call by call: host time (returned relative to the kernel's end)\n",
                    SPIN_US);
        for (int c = 0; c < CALLS; c++)
            std::printf("    call %d: %.1f us (%+.1f us)\n", c + 1, median(call[c]), median(ret[c]));
    }
    return 0;
}
