// docs/calibration/engine_switch_probe.cu: what an enqueue costs the host when the op before
// it on its stream ran on another engine (a launch after an upload, a download after a
// kernel), against the same call after one of its own kind (docs/measured.md, "Every
// single-GPU lab with CUPTI kept out of the timed runs"). One non-blocking stream (and a
// second for the control case), a pinned buffer of the size given (1 MiB by default), a
// 1024-block kernel; each call timed alone on the host clock, the device synchronised after
// every four rounds so the queue stays short; medians and tenth percentiles of 144 calls,
// every case twice. On a lent H200 (2026-11-28) no switch cost showed: a launch 4.5-4.9 us
// after a launch and 4.8-5.9 after an upload, an upload 2.1-2.4 us either way.
//
//   nvcc -O2 -arch=sm_90 -o engine_switch_probe engine_switch_probe.cu && ./engine_switch_probe [bytes]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include <time.h>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(1);} } while (0)
static double now_us() { timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e6 + t.tv_nsec / 1e3; }
__global__ void work(unsigned *p, int iters) { unsigned v = p[blockIdx.x * blockDim.x + threadIdx.x]; for (int i = 0; i < iters; i++) v = v * 1664525u + 1013904223u; p[blockIdx.x * blockDim.x + threadIdx.x] = v; }
__global__ void empty() {}
enum { H2D, KER, D2H, EMPTY };
static const char *nm[] = {"H2D", "kernel", "D2H", "empty"};
struct Case { const char *name; std::vector<int> ops; bool two_streams; };
int main(int argc, char **argv) {
  size_t bytes = argc > 1 ? strtoul(argv[1], 0, 0) : (1u << 20);
  int blocks = 1024, threads = 256, iters = 64;
  unsigned *h, *d, *d2; CHECK(cudaMallocHost(&h, bytes)); CHECK(cudaMalloc(&d, bytes)); CHECK(cudaMalloc(&d2, (size_t)blocks * threads * 4));
  cudaStream_t s, s2; CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  std::vector<Case> cases = {
    {"kernel,kernel", {KER, KER}, false}, {"H2D,H2D", {H2D, H2D}, false}, {"empty,empty", {EMPTY, EMPTY}, false},
    {"H2D,kernel", {H2D, KER}, false}, {"H2D,kernel,D2H", {H2D, KER, D2H}, false},
    {"H2D,empty", {H2D, EMPTY}, false}, {"H2D|kernel two streams", {H2D, KER}, true},
  };
  for (int rep = 0; rep < 2; rep++)
  for (auto &c : cases) {
    std::vector<std::vector<double>> t(c.ops.size());
    for (int round = 0; round < 40; round++) {
      for (int k = 0; k < 4; k++)
        for (size_t i = 0; i < c.ops.size(); i++) {
          cudaStream_t st = (c.two_streams && i % 2) ? s2 : s;
          double t0 = now_us();
          switch (c.ops[i]) {
            case H2D: CHECK(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, st)); break;
            case D2H: CHECK(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, st)); break;
            case KER: work<<<blocks, threads, 0, st>>>(d2, iters); break;
            case EMPTY: empty<<<1, 32, 0, st>>>(); break;
          }
          double t1 = now_us();
          if (round >= 4) t[i].push_back(t1 - t0);
        }
      CHECK(cudaDeviceSynchronize());
    }
    std::printf("%-24s", c.name);
    for (size_t i = 0; i < c.ops.size(); i++) { auto v = t[i]; std::sort(v.begin(), v.end()); std::printf("  %s p50 %.2f us (p10 %.2f)", nm[c.ops[i]], v[v.size() / 2], v[v.size() / 10]); }
    std::printf("\n");
  }
  return 0;
}
