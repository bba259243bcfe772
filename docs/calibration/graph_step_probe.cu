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
//   reuse    the bound's, with cudaStreamSynchronize(A) of a step's set before its upload
//            (with several sets: the wait for the set's last step, whose buffer it reuses)
//   pair     the bound's, with cudaDeviceSynchronize after every second step
// and prints each as a fraction of the bound (bound time / its time). With --sets 2 or 3
// the steps take turns between that many sets of buffer, streams and graph, so that a
// step's upload may overlap the steps before it (a workload in which host waits cannot
// hide behind the device's own gap between a download and the next upload).
//
//   nvcc -O2 -arch=sm_90 -o graph_step_probe graph_step_probe.cu && ./graph_step_probe [--sets 2|3]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
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

/* One set of what a step uses: its streams, fork and join events, device buffer and graph.
 * With two sets, step i uses set i % 2: its upload may run while the step before it
 * computes, as a double-buffered pipeline's would. */
struct step_set {
    cudaStream_t st[MAX_K];
    cudaEvent_t fork_ev, join_ev[MAX_K];
    uint32_t *d_buf;
    cudaGraphExec_t exec;
};
enum { MAX_SETS = 3 };
static step_set sets[MAX_SETS];
static uint32_t *h_in, *h_out;

static void queue_chains(step_set &q, shape s) {
    size_t slice = ELEMS / s.k;
    unsigned blocks = (unsigned)((slice + 255) / 256);
    CHECK(cudaEventRecord(q.fork_ev, q.st[0]));
    for (int c = 1; c < s.k; c++) CHECK(cudaStreamWaitEvent(q.st[c], q.fork_ev, 0));
    for (int j = 0; j < s.l; j++)
        for (int c = 0; c < s.k; c++) process<<<blocks, 256, 0, q.st[c]>>>(q.d_buf + c * slice, slice, 0, 0, 16);
    for (int c = 1; c < s.k; c++) {
        CHECK(cudaEventRecord(q.join_ev[c], q.st[c]));
        CHECK(cudaStreamWaitEvent(q.st[0], q.join_ev[c], 0));
    }
}

static cudaGraphExec_t make_graph(step_set &q, shape s) {
    cudaGraph_t g;
    cudaGraphExec_t e;
    CHECK(cudaStreamBeginCapture(q.st[0], cudaStreamCaptureModeGlobal));
    queue_chains(q, s);
    CHECK(cudaStreamEndCapture(q.st[0], &g));
    CHECK(cudaGraphInstantiate(&e, g, 0));
    CHECK(cudaGraphDestroy(g));
    return e;
}

enum how { BOUND, SYNC1, SYNC2, REBUILT, DIRECT, REUSE, PAIR, N_HOW };

/* Where a run's host time went: queuing (to the loop's end), and in which calls. */
struct host_split {
    double queued_us, launch_us, launch_max_us, upload_us, download_us;
};

static double run(enum how h, shape s, int steps, int n_sets, host_split *split = nullptr) {
    const size_t bytes = ELEMS * sizeof(uint32_t);
    host_split hs = {};
    cudaGraphExec_t exec[MAX_SETS];
    for (int q = 0; q < MAX_SETS; q++) exec[q] = sets[q].exec;
    double t0 = now_us();
    if (h == REBUILT)
        for (int q = 0; q < n_sets; q++) exec[q] = make_graph(sets[q], s);
    for (int i = 0; i < steps; i++) {
        step_set &q = sets[i % n_sets];
        if (h == REUSE) CHECK(cudaStreamSynchronize(q.st[0])); /* the set's last step, whose buffer is reused */
        double c0 = now_us();
        CHECK(cudaMemcpyAsync(q.d_buf, h_in + (size_t)i * ELEMS, bytes, cudaMemcpyHostToDevice, q.st[0]));
        double c1 = now_us();
        if (h == SYNC2) CHECK(cudaStreamSynchronize(q.st[0]));
        double c2 = now_us();
        if (h == DIRECT)
            queue_chains(q, s);
        else
            CHECK(cudaGraphLaunch(exec[i % n_sets], q.st[0]));
        double c3 = now_us();
        CHECK(cudaMemcpyAsync(h_out + (size_t)i * ELEMS, q.d_buf, bytes, cudaMemcpyDeviceToHost, q.st[0]));
        double c4 = now_us();
        hs.upload_us += c1 - c0;
        hs.launch_us += c3 - c2;
        hs.launch_max_us = std::max(hs.launch_max_us, c3 - c2);
        hs.download_us += c4 - c3;
        if (h == SYNC1 || h == SYNC2) CHECK(cudaStreamSynchronize(q.st[0]));
        if (h == PAIR && i % 2 == 1) CHECK(cudaDeviceSynchronize());
    }
    hs.queued_us = now_us() - t0;
    if (split) *split = hs;
    for (int q = 0; q < n_sets; q++) CHECK(cudaStreamSynchronize(sets[q].st[0]));
    if (h == REBUILT)
        for (int q = 0; q < n_sets; q++) CHECK(cudaGraphExecDestroy(exec[q]));
    return now_us() - t0;
}

int main(int argc, char **argv) {
    /* --sets 2: two buffers, streams and graphs, step i on set i % 2 (default 1, the lab's). */
    int n_sets = argc > 2 && std::string(argv[1]) == "--sets" ? std::atoi(argv[2]) : 1;
    if (n_sets < 1 || n_sets > MAX_SETS) {
        std::fprintf(stderr, "usage: graph_step_probe [--sets 1|2|3]\n");
        return 64;
    }
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device: %s; %d set(s) of buffer, streams and graph\n", prop.name, n_sets);
    CHECK(cudaMallocHost(&h_in, (size_t)MAX_STEPS * ELEMS * sizeof(uint32_t)));
    CHECK(cudaMallocHost(&h_out, (size_t)MAX_STEPS * ELEMS * sizeof(uint32_t)));
    for (size_t i = 0; i < (size_t)MAX_STEPS * ELEMS; i++) h_in[i] = (uint32_t)i;
    for (step_set &q : sets) {
        CHECK(cudaMalloc(&q.d_buf, ELEMS * sizeof(uint32_t)));
        for (int c = 0; c < MAX_K; c++) {
            CHECK(cudaStreamCreateWithFlags(&q.st[c], cudaStreamNonBlocking));
            CHECK(cudaEventCreateWithFlags(&q.join_ev[c], cudaEventDisableTiming));
        }
        CHECK(cudaEventCreateWithFlags(&q.fork_ev, cudaEventDisableTiming));
    }

    const shape shapes[] = {{2, 32}, {2, 24}, {2, 16}, {2, 12}, {2, 8}, {4, 16}, {4, 12}, {4, 8}, {8, 8}, {8, 6}, {8, 4}};
    const int step_counts[] = {24, 48, 96};
    std::printf("%-6s %-6s %-6s %10s %8s %8s %8s %8s %8s %8s %8s  (bound in us; the rest as fractions of the bound)\n", "K",
                "L", "steps", "bound_us", "b/step", "sync1", "sync2", "rebuilt", "direct", "reuse", "pair");
    for (shape s : shapes) {
        for (int q = 0; q < n_sets; q++) sets[q].exec = make_graph(sets[q], s);
        for (int steps : step_counts) {
            std::vector<double> t[N_HOW];
            for (int h = 0; h < N_HOW; h++) run((enum how)h, s, steps, n_sets); /* warm-up */
            for (int r = 0; r < REPS; r++)
                for (int h = 0; h < N_HOW; h++) t[h].push_back(run((enum how)h, s, steps, n_sets));
            double b = median(t[BOUND]);
            std::printf("%-6d %-6d %-6d %10.1f %8.2f", s.k, s.l, steps, b, b / steps);
            for (int h = SYNC1; h < N_HOW; h++) std::printf(" %8.3f", b / median(t[h]));
            host_split hs;
            double whole = run(BOUND, s, steps, n_sets, &hs);
            std::printf("\n   bound's host: queued at %.0f of %.0f us; graph launches %.1f us a step (longest %.1f), "
                        "uploads %.1f, downloads %.1f\n",
                        hs.queued_us, whole, hs.launch_us / steps, hs.launch_max_us, hs.upload_us / steps,
                        hs.download_us / steps);
        }
        for (int q = 0; q < n_sets; q++) CHECK(cudaGraphExecDestroy(sets[q].exec));
    }
    return 0;
}
