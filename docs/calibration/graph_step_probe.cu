// docs/calibration/graph_step_probe.cu: what lab 07's step costs on a GPU in each shape a
// student may give it, for choosing the lab's workload (how many chains, how many kernels
// a chain, how many steps) so that a graph replayed without host waits passes and every
// slower shape stays clearly below the target on every GPU host.
//
// A step is lab 07's: a 32 KiB upload on stream A, K chains of L tiny kernels (the lab's
// process kernel, 16 iterations, 256 threads a block) over K slices of the batch (chain 0
// on A, the others on K-1 streams forked from A by an event and joined back), a 32 KiB
// download on A. For each (K, L) and a run of N steps it times, on the host clock from the
// first call to the return of the final cudaStreamSynchronize, interleaved, median of 9
// after a warm-up:
//   bound    the step captured once into a graph, replayed: upload, launch, download
//   sync1    the same with cudaStreamSynchronize(A) after each step's download
//   sync2    the same with a synchronisation after the upload too
//   rebuilt  the graph captured, instantiated and destroyed inside the timed run
//   direct   every kernel launched on its own (the lab's baseline)
// and prints each as a fraction of the bound (bound time / its time).
//
//   nvcc -O2 -arch=sm_90 -o graph_step_probe graph_step_probe.cu && ./graph_step_probe
#include <algorithm>
#include <chrono>
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

__global__ void process(uint32_t *buf, size_t n, uint32_t mul, uint32_t add, uint32_t iters) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t x = buf[i];
    for (uint32_t k = 0; k < iters; ++k) x = x * mul + add;
    buf[i] = x;
}

static double now_us() {
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

enum { ELEMS = 8 << 10, MAX_K = 8, MAX_STEPS = 96, REPS = 9 };

struct shape {
    int k, l;
};

static cudaStream_t st[MAX_K];
static cudaEvent_t fork_ev, join_ev[MAX_K];
static uint32_t *d_buf, *h_in, *h_out;

static void queue_chains(shape s) {
    size_t slice = ELEMS / s.k;
    unsigned blocks = (unsigned)((slice + 255) / 256);
    CHECK(cudaEventRecord(fork_ev, st[0]));
    for (int c = 1; c < s.k; c++) CHECK(cudaStreamWaitEvent(st[c], fork_ev, 0));
    for (int j = 0; j < s.l; j++)
        for (int c = 0; c < s.k; c++) process<<<blocks, 256, 0, st[c]>>>(d_buf + c * slice, slice, 0, 0, 16);
    for (int c = 1; c < s.k; c++) {
        CHECK(cudaEventRecord(join_ev[c], st[c]));
        CHECK(cudaStreamWaitEvent(st[0], join_ev[c], 0));
    }
}

static cudaGraphExec_t make_graph(shape s) {
    cudaGraph_t g;
    cudaGraphExec_t e;
    CHECK(cudaStreamBeginCapture(st[0], cudaStreamCaptureModeGlobal));
    queue_chains(s);
    CHECK(cudaStreamEndCapture(st[0], &g));
    CHECK(cudaGraphInstantiate(&e, g, 0));
    CHECK(cudaGraphDestroy(g));
    return e;
}

enum how { BOUND, SYNC1, SYNC2, REBUILT, DIRECT, N_HOW };

/* Where a run's host time went: queuing (to the loop's end), and in which calls. */
struct host_split {
    double queued_us, launch_us, launch_max_us, upload_us, download_us;
};

static double run(enum how h, shape s, int steps, cudaGraphExec_t exec, host_split *split = nullptr) {
    const size_t bytes = ELEMS * sizeof(uint32_t);
    host_split hs = {};
    double t0 = now_us();
    if (h == REBUILT) exec = make_graph(s);
    for (int i = 0; i < steps; i++) {
        double c0 = now_us();
        CHECK(cudaMemcpyAsync(d_buf, h_in + (size_t)i * ELEMS, bytes, cudaMemcpyHostToDevice, st[0]));
        double c1 = now_us();
        if (h == SYNC2) CHECK(cudaStreamSynchronize(st[0]));
        double c2 = now_us();
        if (h == DIRECT)
            queue_chains(s);
        else
            CHECK(cudaGraphLaunch(exec, st[0]));
        double c3 = now_us();
        CHECK(cudaMemcpyAsync(h_out + (size_t)i * ELEMS, d_buf, bytes, cudaMemcpyDeviceToHost, st[0]));
        double c4 = now_us();
        hs.upload_us += c1 - c0;
        hs.launch_us += c3 - c2;
        hs.launch_max_us = std::max(hs.launch_max_us, c3 - c2);
        hs.download_us += c4 - c3;
        if (h == SYNC1 || h == SYNC2) CHECK(cudaStreamSynchronize(st[0]));
    }
    hs.queued_us = now_us() - t0;
    if (split) *split = hs;
    CHECK(cudaStreamSynchronize(st[0]));
    if (h == REBUILT) CHECK(cudaGraphExecDestroy(exec));
    return now_us() - t0;
}

int main() {
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device: %s\n", prop.name);
    CHECK(cudaMalloc(&d_buf, ELEMS * sizeof(uint32_t)));
    CHECK(cudaMallocHost(&h_in, (size_t)MAX_STEPS * ELEMS * sizeof(uint32_t)));
    CHECK(cudaMallocHost(&h_out, (size_t)MAX_STEPS * ELEMS * sizeof(uint32_t)));
    for (size_t i = 0; i < (size_t)MAX_STEPS * ELEMS; i++) h_in[i] = (uint32_t)i;
    for (int c = 0; c < MAX_K; c++) {
        CHECK(cudaStreamCreateWithFlags(&st[c], cudaStreamNonBlocking));
        CHECK(cudaEventCreateWithFlags(&join_ev[c], cudaEventDisableTiming));
    }
    CHECK(cudaEventCreateWithFlags(&fork_ev, cudaEventDisableTiming));

    const shape shapes[] = {{2, 32}, {2, 24}, {2, 16}, {2, 12}, {2, 8}, {4, 16}, {4, 12}, {4, 8}, {8, 8}, {8, 6}, {8, 4}};
    const int step_counts[] = {24, 48, 96};
    std::printf("%-6s %-6s %-6s %10s %8s %8s %8s %8s %8s  (bound in us; the rest as fractions of the bound)\n", "K",
                "L", "steps", "bound_us", "b/step", "sync1", "sync2", "rebuilt", "direct");
    for (shape s : shapes) {
        cudaGraphExec_t exec = make_graph(s);
        for (int steps : step_counts) {
            std::vector<double> t[N_HOW];
            for (int h = 0; h < N_HOW; h++) run((enum how)h, s, steps, exec); /* warm-up */
            for (int r = 0; r < REPS; r++)
                for (int h = 0; h < N_HOW; h++) t[h].push_back(run((enum how)h, s, steps, exec));
            double b = median(t[BOUND]);
            std::printf("%-6d %-6d %-6d %10.1f %8.2f", s.k, s.l, steps, b, b / steps);
            for (int h = SYNC1; h < N_HOW; h++) std::printf(" %8.3f", b / median(t[h]));
            host_split hs;
            double whole = run(BOUND, s, steps, exec, &hs);
            std::printf("\n   bound's host: queued at %.0f of %.0f us; graph launches %.1f us a step (longest %.1f), "
                        "uploads %.1f, downloads %.1f\n",
                        hs.queued_us, whole, hs.launch_us / steps, hs.launch_max_us, hs.upload_us / steps,
                        hs.download_us / steps);
        }
        CHECK(cudaGraphExecDestroy(exec));
    }
    return 0;
}
