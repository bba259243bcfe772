// docs/calibration/pageable_size_probe.cu: what a pageable copy of 64 KiB to 64 MiB costs,
// measured the way //sim:calibrate measures it and the ways the labs make it (docs/
// calibration.md, "Pageable copies").
//
// //sim:calibrate times one synchronous cudaMemcpy at the start of one 256 MiB malloc'd
// buffer. Lab 01's baseline instead uploads eight 8 MiB batches from buffers of their own
// with cudaMemcpyAsync on one stream, a kernel after each, and downloads each into a buffer
// of its own. If the two ways differ on one host, a curve from the first does not describe
// the second. For each size, host time, the median of REPS (after one call not counted):
//   big-sync    cudaMemcpy from/to offset 0 of one 256 MiB buffer (calibrate's way)
//   own-sync    cudaMemcpy from/to a buffer of exactly that size, malloc'd and touched
//   own-async   cudaMemcpyAsync on a non-blocking stream, then cudaStreamSynchronize
//   rotate      cudaMemcpyAsync, each repetition from/to the next of 8 buffers of that size
// and lab 01's baseline loop (8 x: upload, 64-iteration kernel, download; one stream),
// its time per batch.
//
//   nvcc -O2 -arch=sm_90 -o pageable_size_probe pageable_size_probe.cu && ./pageable_size_probe
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>
#include <sched.h>
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

__global__ void process(unsigned *d, size_t n, int iters) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned v = d[i];
    for (int k = 0; k < iters; k++) v = v * 1664525u + 1013904223u;
    d[i] = v;
}

static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

enum { REPS = 9, ROT = 8, BATCHES = 8 };

static void *touched(size_t bytes) {
    void *p = std::malloc(bytes);
    if (!p) {
        std::fprintf(stderr, "malloc of %zu bytes failed\n", bytes);
        std::exit(1);
    }
    std::memset(p, 7, bytes);
    return p;
}

/* Host time of one copy of `bytes` between host buffer h and device buffer d. */
static double copy_us(bool up, void *h, void *d, size_t bytes, cudaStream_t s) {
    CHECK(cudaDeviceSynchronize());
    double t0 = now_us();
    if (s == nullptr) {
        CHECK(cudaMemcpy(up ? d : h, up ? h : d, bytes, up ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost));
    } else {
        CHECK(cudaMemcpyAsync(up ? d : h, up ? h : d, bytes, up ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost, s));
        CHECK(cudaStreamSynchronize(s));
    }
    return now_us() - t0;
}

int main() {
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    int driver = 0;
    CHECK(cudaDriverGetVersion(&driver));
    std::printf("# %s, driver API %d, host CPU %d\n", prop.name, driver, sched_getcpu());
    const size_t big = 256u << 20;
    void *hbig = touched(big);
    void *dbuf = nullptr;
    CHECK(cudaMalloc(&dbuf, big));
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    const size_t kib[] = {64, 256, 1024, 8192, 65536};
    std::printf("| size | dir | big-sync | own-sync | own-async | rotate |\n| --- | --- | --- | --- | --- | --- |\n");
    for (size_t k : kib) {
        size_t bytes = k << 10;
        std::vector<void *> own(ROT);
        for (int i = 0; i < ROT; i++) own[i] = touched(bytes);
        for (int dir = 0; dir < 2; dir++) {
            bool up = dir == 0;
            std::vector<double> a, b, c, r;
            copy_us(up, hbig, dbuf, bytes, nullptr); /* not counted */
            for (int i = 0; i < REPS; i++) a.push_back(copy_us(up, hbig, dbuf, bytes, nullptr));
            copy_us(up, own[0], dbuf, bytes, nullptr);
            for (int i = 0; i < REPS; i++) b.push_back(copy_us(up, own[0], dbuf, bytes, nullptr));
            for (int i = 0; i < REPS; i++) c.push_back(copy_us(up, own[0], dbuf, bytes, s));
            for (int i = 0; i < REPS; i++) r.push_back(copy_us(up, own[(i + 1) % ROT], dbuf, bytes, s));
            std::printf("| %zu KiB | %s | %.1f | %.1f | %.1f | %.1f |\n", k, up ? "H2D" : "D2H", median(a), median(b),
                        median(c), median(r));
        }
        for (void *p : own) std::free(p);
    }

    /* Lab 01's baseline: 8 batches of 8 MiB, each uploaded, processed and downloaded on one
     * stream, from and into buffers of their own. */
    const size_t bb = 8u << 20, n = bb / 4;
    std::vector<void *> in(BATCHES), out(BATCHES);
    for (int i = 0; i < BATCHES; i++) {
        in[i] = touched(bb);
        out[i] = touched(bb);
    }
    unsigned *d = static_cast<unsigned *>(dbuf);
    std::vector<double> loop, ups, downs;
    for (int rep = 0; rep < REPS + 1; rep++) {
        CHECK(cudaDeviceSynchronize());
        double t0 = now_us(), up_sum = 0, down_sum = 0;
        for (int i = 0; i < BATCHES; i++) {
            double t = now_us();
            CHECK(cudaMemcpyAsync(d, in[i], bb, cudaMemcpyHostToDevice, s));
            up_sum += now_us() - t;
            process<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(d, n, 64);
            t = now_us();
            CHECK(cudaMemcpyAsync(out[i], d, bb, cudaMemcpyDeviceToHost, s));
            down_sum += now_us() - t;
        }
        CHECK(cudaStreamSynchronize(s));
        if (rep == 0) continue;
        loop.push_back((now_us() - t0) / BATCHES);
        ups.push_back(up_sum / BATCHES);
        downs.push_back(down_sum / BATCHES);
    }
    std::printf("lab 01 baseline loop: %.1f us a batch (upload call %.1f us, download call %.1f us), %.2f ms for 8\n",
                median(loop), median(ups), median(downs), median(loop) * BATCHES / 1e3);
    return 0;
}
