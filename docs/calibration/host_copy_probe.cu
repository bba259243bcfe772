// docs/calibration/host_copy_probe.cu: what a host memcpy of 64 KiB to 64 MiB costs a GPU
// machine's host, from and into the kinds of memory a lab's program copies between
// (docs/calibration.md, "Host copies").
//
// A lab program that stages its inputs with memcpy (into pinned buffers it then uploads,
// or into write-combined ones) spends that host time between its CUDA calls; the simulator
// charges it from a curve measured here, not from the CPU of the machine that grades. For
// each size, host time, the median of REPS (after one copy not counted):
//   hot->pinned    from a malloc'd buffer the host has just written (a loader's output)
//                  into cudaMallocHost memory
//   cold->pinned   the same, each repetition from the next of 8 buffers (written long ago)
//   pinned->pinned from cudaMallocHost memory just written into another (lab_input into a
//                  pinned staging buffer)
//   hot->wc        into cudaHostAlloc(cudaHostAllocWriteCombined) memory
//   wc->pageable   out of write-combined memory (the host reading it: uncached)
//   memset-pinned  memset of cudaMallocHost memory
//
//   nvcc -O2 -arch=sm_90 -o host_copy_probe host_copy_probe.cu && ./host_copy_probe
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

static const int REPS = 9;
static const int ROTATE = 8;

static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int main() {
    const size_t sizes[] = {64u << 10, 256u << 10, 1u << 20, 8u << 20, 64u << 20};
    const size_t largest = 64u << 20;
    std::vector<char *> pageable(ROTATE);
    for (auto &p : pageable) {
        p = static_cast<char *>(std::malloc(largest));
        std::memset(p, 1, largest);
    }
    char *pinned = nullptr, *pinned_src = nullptr, *wc = nullptr;
    CHECK(cudaMallocHost(&pinned, largest));
    CHECK(cudaMallocHost(&pinned_src, largest));
    CHECK(cudaHostAlloc(&wc, largest, cudaHostAllocWriteCombined));
    std::memset(pinned, 2, largest);
    std::memset(pinned_src, 3, largest);
    std::memset(wc, 4, largest);
    std::printf("%10s %14s %14s %14s %14s %14s %14s  (us, median of %d)\n", "bytes", "hot->pinned", "cold->pinned",
                "pinned->pinned", "hot->wc", "wc->pageable", "memset-pinned", REPS);
    for (size_t n : sizes) {
        std::vector<double> hot, cold, pp, towc, fromwc, ms;
        for (int r = 0; r <= REPS; r++) {
            std::memset(pageable[0], r, n);
            double t0 = now_us();
            std::memcpy(pinned, pageable[0], n);
            double t1 = now_us();
            if (r) hot.push_back(t1 - t0);

            char *src = pageable[1 + r % (ROTATE - 1)];
            t0 = now_us();
            std::memcpy(pinned, src, n);
            t1 = now_us();
            if (r) cold.push_back(t1 - t0);

            std::memset(pinned_src, r, n);
            t0 = now_us();
            std::memcpy(pinned, pinned_src, n);
            t1 = now_us();
            if (r) pp.push_back(t1 - t0);

            std::memset(pageable[0], r + 1, n);
            t0 = now_us();
            std::memcpy(wc, pageable[0], n);
            t1 = now_us();
            if (r) towc.push_back(t1 - t0);

            t0 = now_us();
            std::memcpy(pageable[0], wc, n);
            t1 = now_us();
            if (r) fromwc.push_back(t1 - t0);

            t0 = now_us();
            std::memset(pinned, r, n);
            t1 = now_us();
            if (r) ms.push_back(t1 - t0);
        }
        std::printf("%10zu %14.1f %14.1f %14.1f %14.1f %14.1f %14.1f\n", n, median(hot), median(cold), median(pp),
                    median(towc), median(fromwc), median(ms));
    }
    CHECK(cudaFreeHost(pinned));
    CHECK(cudaFreeHost(pinned_src));
    CHECK(cudaFreeHost(wc));
    for (auto p : pageable) std::free(p);
    return 0;
}
