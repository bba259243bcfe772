// docs/calibration/graph_probe.cu: what building a CUDA graph costs the host, call by
// call, for the simulator's capture_call_ns and graph_instantiate_ns_per_node (lab 07).
//
// For graphs of N tiny kernels (16 blocks of 256 threads, a few hundred ns each), captured
// the way lab 07 captures them (two streams forked from the capturing one by an event and
// joined back by another, N/2 kernels on each), it times on the host clock, median of 7
// after a warm-up: the capture (cudaStreamBeginCapture to the return of
// cudaStreamEndCapture: N captured launches and four event calls), cudaGraphInstantiate,
// one cudaGraphLaunch call, the launch's execution to the end of a stream synchronisation,
// and cudaGraphExecDestroy plus cudaGraphDestroy. Then the same N kernels launched directly
// (for the launch cost beside it). Last, probe2.cu's figure (../shared/calibration/h200.md,
// "Launches and graphs"): 2000 tiny kernels (one block of 32 threads) launched directly
// into a non-blocking stream, then captured as one graph and launched after a warm-up
// launch, each timed from the first call to the end of the stream synchronisation.
//
//   nvcc -O2 -arch=sm_90 -o graph_probe graph_probe.cu && ./graph_probe
#include <algorithm>
#include <chrono>
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

__global__ void tiny32(float *x) { x[threadIdx.x] += 1.0f; }

__global__ void tiny(unsigned *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * 1664525u + 1013904223u;
}

static double now_us() {
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int main() {
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device: %s\n", prop.name);
    const int elems = 16 * 256;
    unsigned *d;
    CHECK(cudaMalloc(&d, 2 * elems * sizeof(unsigned)));
    CHECK(cudaMemset(d, 0, 2 * elems * sizeof(unsigned)));
    cudaStream_t a, b;
    CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
    cudaEvent_t fork, join;
    CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));

    std::printf("%6s %12s %12s %14s %14s %12s %14s %12s %12s\n", "nodes", "capture_us", "per_call_ns",
                "instantiate_us", "per_node_ns", "launch_us", "exec_us", "destroy_us", "direct_us");
    const int sizes[] = {16, 64, 256, 1024};
    for (int n : sizes) {
        std::vector<double> cap, inst, launch, exec, destroy, direct;
        for (int rep = 0; rep < 8; rep++) {
            cudaGraph_t g;
            cudaGraphExec_t ge;
            double t0 = now_us();
            CHECK(cudaStreamBeginCapture(a, cudaStreamCaptureModeGlobal));
            CHECK(cudaEventRecord(fork, a));
            CHECK(cudaStreamWaitEvent(b, fork, 0));
            for (int k = 0; k < n / 2; k++) {
                tiny<<<16, 256, 0, a>>>(d, elems);
                tiny<<<16, 256, 0, b>>>(d + elems, elems);
            }
            CHECK(cudaEventRecord(join, b));
            CHECK(cudaStreamWaitEvent(a, join, 0));
            CHECK(cudaStreamEndCapture(a, &g));
            double t1 = now_us();
            CHECK(cudaGraphInstantiate(&ge, g, 0));
            double t2 = now_us();
            CHECK(cudaGraphLaunch(ge, a));
            double t3 = now_us();
            CHECK(cudaStreamSynchronize(a));
            double t4 = now_us();
            CHECK(cudaGraphExecDestroy(ge));
            CHECK(cudaGraphDestroy(g));
            double t5 = now_us();
            CHECK(cudaDeviceSynchronize());
            double t6 = now_us();
            for (int k = 0; k < n / 2; k++) {
                tiny<<<16, 256, 0, a>>>(d, elems);
                tiny<<<16, 256, 0, b>>>(d + elems, elems);
            }
            CHECK(cudaGetLastError());
            CHECK(cudaDeviceSynchronize());
            double t7 = now_us();
            if (rep == 0) continue; /* warm-up */
            cap.push_back(t1 - t0);
            inst.push_back(t2 - t1);
            launch.push_back(t3 - t2);
            exec.push_back(t4 - t2);
            destroy.push_back(t5 - t4);
            direct.push_back(t7 - t6);
        }
        double c = median(cap), i = median(inst);
        std::printf("%6d %12.1f %12.0f %14.1f %14.0f %12.2f %14.1f %12.1f %12.1f\n", n, c, 1e3 * c / (n + 4), i,
                    1e3 * i / n, median(launch), median(exec), median(destroy), median(direct));
    }

    float *x;
    CHECK(cudaMalloc(&x, 32 * sizeof(float)));
    std::vector<double> direct2000, graph2000;
    for (int rep = 0; rep < 4; rep++) {
        double t0 = now_us();
        for (int k = 0; k < 2000; k++) tiny32<<<1, 32, 0, a>>>(x);
        CHECK(cudaStreamSynchronize(a));
        double t1 = now_us();
        cudaGraph_t g;
        cudaGraphExec_t ge;
        CHECK(cudaStreamBeginCapture(a, cudaStreamCaptureModeGlobal));
        for (int k = 0; k < 2000; k++) tiny32<<<1, 32, 0, a>>>(x);
        CHECK(cudaStreamEndCapture(a, &g));
        CHECK(cudaGraphInstantiate(&ge, g, 0));
        CHECK(cudaGraphLaunch(ge, a));
        CHECK(cudaStreamSynchronize(a));
        double t2 = now_us();
        CHECK(cudaGraphLaunch(ge, a));
        CHECK(cudaStreamSynchronize(a));
        double t3 = now_us();
        CHECK(cudaGraphExecDestroy(ge));
        CHECK(cudaGraphDestroy(g));
        if (rep == 0) continue;
        direct2000.push_back(t1 - t0);
        graph2000.push_back(t3 - t2);
    }
    std::printf("2000 tiny kernels: direct %.3f ms, one graph (warm launch) %.3f ms (%.2fx)\n",
                median(direct2000) / 1e3, median(graph2000) / 1e3, median(direct2000) / median(graph2000));
    return 0;
}
