// docs/calibration/stream_gap_probe.cu: how long an op of a stream takes from the end of
// the op before it, when it was queued long before and when the host submitted it only
// after waiting for that op, for each pair of kinds (upload, download, kernel). For the
// simulator's copy model (docs/simulator.md, "Known differences"): on a lent H200 a host
// wait after lab 07's download cost nothing, because the queued next upload starts late
// anyway.
//
// One non-blocking stream, 32 KiB pinned copies, a one-block kernel of a few instructions.
// For a pair X -> Y it times with CUDA events (device clock; median of 64):
//   queued  X, event a, Y, event b, all queued behind a 2 ms spin kernel: b - a
//   waited  X, event a, cudaStreamSynchronize, then Y, event b: b - a (the host's wake-up,
//           its call and the way to the device are in it)
//   alone   Y between two events on an idle stream, all submitted together
//
//   nvcc -O2 -arch=sm_90 -o stream_gap_probe stream_gap_probe.cu && ./stream_gap_probe
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
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

__global__ void tiny(uint32_t *x) { x[threadIdx.x] = x[threadIdx.x] * 1664525u + 1013904223u; }

__global__ void spin(long long cycles) {
    long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
}

enum kind { UP, DOWN, KERNEL };
static const char *kind_name[] = {"upload", "download", "kernel"};
enum { BYTES = 32 << 10, REPS = 64 };

static cudaStream_t st;
static uint32_t *d_buf, *h_in, *h_out;

static void op(kind k) {
    switch (k) {
    case UP: CHECK(cudaMemcpyAsync(d_buf, h_in, BYTES, cudaMemcpyHostToDevice, st)); break;
    case DOWN: CHECK(cudaMemcpyAsync(h_out, d_buf, BYTES, cudaMemcpyDeviceToHost, st)); break;
    case KERNEL: tiny<<<1, 32, 0, st>>>(d_buf); break;
    }
}

static float median(std::vector<float> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int main() {
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device: %s\n", prop.name);
    CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    CHECK(cudaMalloc(&d_buf, BYTES));
    CHECK(cudaMallocHost(&h_in, BYTES));
    CHECK(cudaMallocHost(&h_out, BYTES));
    std::vector<cudaEvent_t> a(REPS), b(REPS);
    for (int i = 0; i < REPS; i++) {
        CHECK(cudaEventCreate(&a[i]));
        CHECK(cudaEventCreate(&b[i]));
    }
    int khz = 0;
    CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
    const long long gate = (long long)khz * 2; /* about 2 ms at the SM clock (kHz) */
    std::printf("%-9s -> %-9s %10s %10s %10s  (us, median of %d)\n", "X", "Y", "queued", "waited", "alone", REPS);
    for (int x = UP; x <= KERNEL; x++)
        for (int y = UP; y <= KERNEL; y++) {
            std::vector<float> q(REPS), w(REPS), al(REPS);
            for (int pass = 0; pass < 2; pass++) { /* the first pass warms up */
                spin<<<1, 1, 0, st>>>(gate);
                for (int i = 0; i < REPS; i++) {
                    op((kind)x);
                    CHECK(cudaEventRecord(a[i], st));
                    op((kind)y);
                    CHECK(cudaEventRecord(b[i], st));
                }
                CHECK(cudaStreamSynchronize(st));
                for (int i = 0; i < REPS; i++) CHECK(cudaEventElapsedTime(&q[i], a[i], b[i]));
                for (int i = 0; i < REPS; i++) {
                    op((kind)x);
                    CHECK(cudaEventRecord(a[i], st));
                    CHECK(cudaStreamSynchronize(st));
                    op((kind)y);
                    CHECK(cudaEventRecord(b[i], st));
                }
                CHECK(cudaStreamSynchronize(st));
                for (int i = 0; i < REPS; i++) CHECK(cudaEventElapsedTime(&w[i], a[i], b[i]));
                for (int i = 0; i < REPS; i++) {
                    CHECK(cudaEventRecord(a[i], st));
                    op((kind)y);
                    CHECK(cudaEventRecord(b[i], st));
                    CHECK(cudaStreamSynchronize(st));
                    CHECK(cudaEventElapsedTime(&al[i], a[i], b[i]));
                }
            }
            std::printf("%-9s -> %-9s %10.2f %10.2f %10.2f\n", kind_name[x], kind_name[y], 1e3f * median(q),
                        1e3f * median(w), 1e3f * median(al));
        }
    return 0;
}
