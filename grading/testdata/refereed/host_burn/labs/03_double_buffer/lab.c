/* grading/testdata/refereed/host_burn/labs/03_double_buffer/lab.c: the reference's
 * pipeline (three streams, a buffer pair each) with heavy host work between its calls:
 * before each batch's calls, run() spends 5 ms of its thread's CPU time on work of its
 * own, as a program that computes on the host between CUDA calls does, hoping the
 * simulated host does not see it (on the simulator the host's clock is virtual).
 * Expected: the referee charges the student's CPU time beyond the client's share to the
 * simulated host (labs/harness/host_charge.h): correct and race-free, and slower than the
 * sequential baseline, so no speed points. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "labs/harness/lab.h"

#define NUM_STREAMS 3
#define BURN_NS 5000000ll

static cudaStream_t streams[NUM_STREAMS];
static uint32_t *d_in[NUM_STREAMS];
static uint32_t *d_out[NUM_STREAMS];
static volatile uint64_t sink;

static long long thread_cpu_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (long long)t.tv_sec * 1000000000ll + t.tv_nsec;
}

/* BURN_NS of this thread's CPU time. */
static void burn(void) {
    long long until = thread_cpu_ns() + BURN_NS;
    uint64_t x = 1;
    while (thread_cpu_ns() < until)
        for (int k = 0; k < 1000; k++) x = x * 6364136223846793005ull + 1442695040888963407ull;
    sink = x;
}

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int s = 0; s < NUM_STREAMS; s++) {
        LAB_CHECK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
        LAB_CHECK(cudaMalloc((void **)&d_in[s], w->batch_bytes));
        LAB_CHECK(cudaMalloc((void **)&d_out[s], w->batch_bytes));
    }
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int i = 0; i < w->batches; i++) {
        int s = i % NUM_STREAMS;
        burn();
        LAB_CHECK(cudaMemcpyAsync(d_in[s], lab_input(ctx, i), w->batch_bytes, cudaMemcpyHostToDevice, streams[s]));
        LAB_CHECK(kernels_process(d_out[s], d_in[s], w->batch_elems, w->process, streams[s]));
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, i), d_out[s], w->batch_bytes, cudaMemcpyDeviceToHost, streams[s]));
    }
    for (int s = 0; s < NUM_STREAMS; s++) LAB_CHECK(cudaStreamSynchronize(streams[s]));
    return 0;
}

static void teardown(lab_ctx *ctx) {
    (void)ctx;
    for (int s = 0; s < NUM_STREAMS; s++) {
        cudaFree(d_in[s]);
        cudaFree(d_out[s]);
        cudaStreamDestroy(streams[s]);
    }
}

const lab_impl LAB_STUDENT = {setup, run, teardown};
