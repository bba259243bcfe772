/* sim/bench/bench_million_ops.c: how fast the simulator simulates. Enqueues one million
 * operations (uploads, kernels with CPU bodies, downloads, event records and cross-stream
 * waits, round-robin over four streams, synchronising every few thousand as a real
 * pipeline would) and prints the wall time. The target is under 2 seconds.
 *
 *   bazel run -c opt //sim:bench_million_ops [-- --ops N --profile NAME] */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime.h>

#include "streamlab_sim.h"
#include "cli/cli.h"

#define NSTREAMS 4
#define BYTES 4096
#define BLOCKS 64
#define THREADS 256

#define CK(call)                                                                          \
    do {                                                                                  \
        cudaError_t ck_err_ = (call);                                                     \
        if (ck_err_ != cudaSuccess) {                                                     \
            fprintf(stderr, "bench: %s failed: %s\n", #call, cudaGetErrorString(ck_err_)); \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

typedef struct bump_args {
    int *data;
} bump_args;

/* Each block bumps one counter: a body that touches memory but costs little. It reaches
 * device memory through the simulator's view, as kernels/sim's bodies do. */
static void bump(const void *args, uint32_t b0, uint32_t b1) {
    const bump_args *a = args;
    int *data = sim_device_view(a->data);
    for (uint32_t b = b0; b < b1; b++) data[b]++;
}

static double wall_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    long ops = 1000000;
    const char *profile = NULL;
    static const struct option options[] = {
        {"ops", required_argument, NULL, 'n'}, {"profile", required_argument, NULL, 'p'}, {NULL, 0, NULL, 0}};
    int opt;
    while ((opt = getopt_long(argc, argv, "n:p:", options, NULL)) != -1) {
        if (opt == 'n') {
            long long v;
            if (!cli_int(optarg, 5, 1000000000, &v)) {
                fprintf(stderr, "bench: --ops wants a whole number of at least 5, not \"%s\"\n", optarg);
                return 2;
            }
            ops = (long)v;
        } else if (opt == 'p') {
            profile = optarg;
        } else {
            fprintf(stderr, "usage: bench_million_ops [--ops N] [--profile NAME|PATH]\n");
            return 2;
        }
    }
    if (profile && sim_select_profile(profile) != 0) {
        fprintf(stderr, "bench: %s\n", sim_last_message());
        return 2;
    }

    cudaStream_t s[NSTREAMS];
    cudaEvent_t e[NSTREAMS];
    void *h[NSTREAMS], *d[NSTREAMS];
    int *counters;
    for (int i = 0; i < NSTREAMS; i++) {
        CK(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking));
        CK(cudaEventCreateWithFlags(&e[i], cudaEventDisableTiming));
        CK(cudaMallocHost(&h[i], BYTES));
        CK(cudaMalloc(&d[i], BYTES));
    }
    CK(cudaMalloc((void **)&counters, NSTREAMS * BLOCKS * sizeof(int)));

    double t0 = wall_s();
    uint64_t v0 = sim_now_ns();
    long done = 0, iter = 0, syncs = 0;
    while (done < ops) {
        int k = (int)(iter % NSTREAMS);
        bump_args args = {counters + k * BLOCKS};
        sim_kernel_launch l;
        memset(&l, 0, sizeof(l));
        l.name = "bump";
        l.grid = (dim3){BLOCKS, 1, 1};
        l.block = (dim3){THREADS, 1, 1};
        l.body = bump;
        l.body_uses_device_view = true;
        l.args = &args;
        l.args_size = sizeof(args);
        l.cost.int_ops = THREADS * 8.0;
        l.cost.dram_bytes = 8.0 * THREADS;
        l.n_ranges = 1;
        l.ranges[0].addr = (uint64_t)(uintptr_t)args.data;
        l.ranges[0].bytes = BLOCKS * sizeof(int);
        l.ranges[0].flags = TRACE_RANGE_READ | TRACE_RANGE_WRITE;

        CK(cudaMemcpyAsync(d[k], h[k], BYTES, cudaMemcpyHostToDevice, s[k]));
        CK(sim_launch_kernel(&l, s[k]));
        CK(cudaMemcpyAsync(h[k], d[k], BYTES, cudaMemcpyDeviceToHost, s[k]));
        CK(cudaEventRecord(e[k], s[k]));
        CK(cudaStreamWaitEvent(s[(k + 1) % NSTREAMS], e[k], 0));
        done += 5;
        iter++;
        if (iter % 2000 == 0) {
            CK(cudaStreamSynchronize(s[k]));
            syncs++;
        }
    }
    CK(cudaDeviceSynchronize());
    double wall = wall_s() - t0;
    double virt = (double)(sim_now_ns() - v0) / 1e9;

    int *check = malloc(NSTREAMS * BLOCKS * sizeof(int));
    if (!check) return 1;
    CK(cudaMemcpy(check, counters, NSTREAMS * BLOCKS * sizeof(int), cudaMemcpyDeviceToHost));
    long total = 0;
    for (int i = 0; i < NSTREAMS * BLOCKS; i++) total += check[i];
    free(check);

    printf("profile          %s\n", sim_profile_name());
    printf("operations       %ld (uploads, kernels, downloads, event records, event waits)\n", done);
    printf("synchronisations %ld\n", syncs);
    printf("wall time        %.3f s\n", wall);
    printf("throughput       %.0f operations/s\n", (double)done / wall);
    printf("simulated time   %.3f s of device and host activity\n", virt);
    printf("kernel blocks    %ld run (expected %ld)\n", total, iter * (long)BLOCKS);
    printf("target           < 2 s for 1000000 operations: %s\n",
           ops == 1000000 ? (wall < 2.0 ? "met" : "MISSED") : "n/a");
    return total == iter * (long)BLOCKS ? 0 : 1;
}
