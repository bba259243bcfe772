// copy_engines_probe.cu: what the H200 does with its copy engines (asyncEngineCount 3).
// Two copies in the same direction on two streams: do they run one after the other, or at
// once (sharing the link)? Each copy is bracketed by events on its own stream, all timed
// from one base event that every stream waits for.
//   nvcc -O2 -arch=sm_90 copy_engines_probe.cu -o copy_engines_probe && ./copy_engines_probe
#include <cstdio>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); return 1; } } while (0)

static const size_t kBytes = 256u << 20;

struct Copy { int dir; };  // 0 = H2D, 1 = D2H

static int run(const char *name, const int *dirs, int n, char **host, char **dev) {
  cudaStream_t s[4]; cudaEvent_t base, b[4], e[4];
  CK(cudaEventCreate(&base));
  for (int i = 0; i < n; i++) {
    CK(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking));
    CK(cudaEventCreate(&b[i])); CK(cudaEventCreate(&e[i]));
  }
  for (int rep = 0; rep < 3; rep++) {
    CK(cudaDeviceSynchronize());
    CK(cudaEventRecord(base, s[0]));
    for (int i = 0; i < n; i++) CK(cudaStreamWaitEvent(s[i], base, 0));
    for (int i = 0; i < n; i++) {
      CK(cudaEventRecord(b[i], s[i]));
      if (dirs[i] == 0) CK(cudaMemcpyAsync(dev[i], host[i], kBytes, cudaMemcpyHostToDevice, s[i]));
      else CK(cudaMemcpyAsync(host[i], dev[i], kBytes, cudaMemcpyDeviceToHost, s[i]));
      CK(cudaEventRecord(e[i], s[i]));
    }
    CK(cudaDeviceSynchronize());
    if (rep < 2) continue;  // report the last of three runs
    float end = 0;
    printf("%s:", name);
    for (int i = 0; i < n; i++) {
      float t0, t1; CK(cudaEventElapsedTime(&t0, base, b[i])); CK(cudaEventElapsedTime(&t1, base, e[i]));
      if (t1 > end) end = t1;
      printf("  %s%d %.3f-%.3f ms (%.1f GB/s)", dirs[i] ? "D2H" : "H2D", i, t0, t1, kBytes / ((t1 - t0) * 1e6));
    }
    printf("  | all done %.3f ms, %.1f GB/s total\n", end, n * (double)kBytes / (end * 1e6));
  }
  for (int i = 0; i < n; i++) { cudaStreamDestroy(s[i]); cudaEventDestroy(b[i]); cudaEventDestroy(e[i]); }
  cudaEventDestroy(base);
  return 0;
}

int main() {
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
  printf("device %s asyncEngineCount %d\n", p.name, p.asyncEngineCount);
  char *host[4], *dev[4];
  for (int i = 0; i < 4; i++) { CK(cudaMallocHost(&host[i], kBytes)); CK(cudaMalloc(&dev[i], kBytes)); }
  const int one_up[] = {0}, one_down[] = {1}, two_up[] = {0, 0}, two_down[] = {1, 1},
            up_down[] = {0, 1}, two_up_one_down[] = {0, 0, 1}, two_each[] = {0, 0, 1, 1};
  if (run("one H2D", one_up, 1, host, dev)) return 1;
  if (run("one D2H", one_down, 1, host, dev)) return 1;
  if (run("two H2D", two_up, 2, host, dev)) return 1;
  if (run("two D2H", two_down, 2, host, dev)) return 1;
  if (run("H2D + D2H", up_down, 2, host, dev)) return 1;
  if (run("two H2D + D2H", two_up_one_down, 3, host, dev)) return 1;
  if (run("two H2D + two D2H", two_each, 4, host, dev)) return 1;
  return 0;
}
