/* kernels/gpu/kernel_probe.c: measures the kernels on the GPU it runs on, for calibrating
 * the simulator (its integer rate and dependent-op latency) and for docs/kernels.md.
 *
 * Prints markdown table rows, one per measurement (median of repeated event-timed runs
 * after a warm-up):
 *   process at n = 1M and 4M elements and iters 0, 16, 250, 500, 1000, 2000, with the
 *     integer rate it implies (iters * n IMADs over the kernel time, per SM);
 *   process with one block per SM (latency-bound): ns per dependent iteration;
 *   process with 8 blocks and long chains (lab 00's kernel): ns per dependent iteration;
 *   spin: requested vs measured duration;
 *   checksum at 1M and 4M: time and the bandwidth it reads at.
 * Exit status: 0 done, 1 a CUDA error, 77 no CUDA device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "kernels/cost.h"
#include "kernels/gpu/device.h"
#include "kernels/kernels.h"

#define REPS 7

#define CHECK(expr)                                                                                          \
    do {                                                                                                     \
        cudaError_t e_ = (expr);                                                                             \
        if (e_ != cudaSuccess) {                                                                             \
            fprintf(stderr, "kernel_probe: %s failed: %s\n", #expr, cudaGetErrorString(e_));                 \
            exit(1);                                                                                         \
        }                                                                                                    \
    } while (0)

typedef enum { PROCESS, SPIN, CHECKSUM } which;

typedef struct launch {
    which kind;
    uint32_t *a, *b;
    uint64_t *sum;
    size_t n;
    kernels_process_params params;
    uint32_t blocks, threads;
    uint64_t duration_ns;
} launch;

static cudaStream_t stream;
static cudaEvent_t ev_start, ev_end;

static cudaError_t run(const launch *l) {
    switch (l->kind) {
    case PROCESS: return kernels_process(l->b, l->a, l->n, l->params, stream);
    case SPIN: return kernels_spin(l->a, l->blocks, l->threads, l->duration_ns, 1, stream);
    case CHECKSUM: return kernels_checksum(l->sum, l->a, l->n, stream);
    }
    return cudaErrorInvalidValue;
}

static int cmp_double(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Median event-timed duration of l in ms, after one warm-up launch. */
static double time_ms(const launch *l) {
    double ms[REPS];
    CHECK(run(l));
    CHECK(cudaStreamSynchronize(stream));
    for (int r = 0; r < REPS; r++) {
        CHECK(cudaEventRecord(ev_start, stream));
        CHECK(run(l));
        CHECK(cudaEventRecord(ev_end, stream));
        CHECK(cudaEventSynchronize(ev_end));
        float f = 0;
        CHECK(cudaEventElapsedTime(&f, ev_start, ev_end));
        ms[r] = f;
    }
    qsort(ms, REPS, sizeof(double), cmp_double);
    return ms[REPS / 2];
}

int main(void) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("kernel_probe: no CUDA device\n");
        return 77;
    }
    struct cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    int clock_khz = 0, sms = prop.multiProcessorCount;
    CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    printf("# kernel_probe on %s (sm_%d%d, %d SMs, max clock %.0f MHz), median of %d event-timed runs\n",
           prop.name, prop.major, prop.minor, sms, clock_khz / 1e3, REPS);

    const size_t max_n = (size_t)4 << 20;
    uint32_t *a = NULL, *b = NULL;
    uint64_t *sum = NULL;
    CHECK(cudaMalloc((void **)&a, max_n * 4));
    CHECK(cudaMalloc((void **)&b, max_n * 4));
    CHECK(cudaMalloc((void **)&sum, sizeof(uint64_t)));
    CHECK(cudaMemset(a, 0x5a, max_n * 4));
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CHECK(cudaEventCreate(&ev_start));
    CHECK(cudaEventCreate(&ev_end));

    printf("\n| kernel | n | iters | kernel ms | int ops/ns/SM |\n| --- | --- | --- | --- | --- |\n");
    const size_t sizes[] = {(size_t)1 << 20, (size_t)4 << 20};
    const uint32_t iters_list[] = {0, 16, 250, 500, 1000, 2000};
    for (size_t s = 0; s < 2; s++) {
        for (size_t i = 0; i < sizeof(iters_list) / sizeof(iters_list[0]); i++) {
            launch l = {.kind = PROCESS, .a = a, .b = b, .n = sizes[s]};
            l.params.mul = 0x2545f491u;
            l.params.add = 0x9e3779b9u;
            l.params.iters = iters_list[i];
            double ms = time_ms(&l);
            double rate = (double)l.n * l.params.iters / (ms * 1e6) / sms;
            printf("| process | %zu | %u | %.4f | %.2f |\n", l.n, l.params.iters, ms, rate);
        }
    }

    printf("\n| kernel | n (one block per SM) | iters | kernel ms | ns per dependent iteration |\n"
           "| --- | --- | --- | --- | --- |\n");
    for (uint32_t iters = 1000; iters <= 4000; iters *= 2) {
        launch l = {.kind = PROCESS, .a = a, .b = b, .n = (size_t)sms * KERNELS_PROCESS_THREADS};
        l.params.mul = 0x2545f491u;
        l.params.add = 0x9e3779b9u;
        l.params.iters = iters;
        double ms = time_ms(&l);
        printf("| process | %zu | %u | %.4f | %.3f |\n", l.n, iters, ms, ms * 1e6 / iters);
    }

    /* Lab 00's kernel: 8 blocks, long dependent chains (the SMs' sustained clock shows). */
    printf("\n| kernel | n (8 blocks) | iters | kernel ms | ns per dependent iteration |\n"
           "| --- | --- | --- | --- | --- |\n");
    const uint32_t long_iters[] = {25000, 250000, 1000000};
    for (size_t i = 0; i < sizeof(long_iters) / sizeof(long_iters[0]); i++) {
        launch l = {.kind = PROCESS, .a = a, .b = b, .n = 8 * KERNELS_PROCESS_THREADS};
        l.params.mul = 0x2545f491u;
        l.params.add = 0x9e3779b9u;
        l.params.iters = long_iters[i];
        double ms = time_ms(&l);
        printf("| process | %zu | %u | %.4f | %.3f |\n", l.n, long_iters[i], ms, ms * 1e6 / long_iters[i]);
    }

    printf("\n| kernel | blocks x threads | requested ms | measured ms |\n| --- | --- | --- | --- |\n");
    const uint64_t durations[] = {10000, 100000, 1000000, 5000000};
    for (size_t i = 0; i < 4; i++) {
        launch l = {.kind = SPIN, .a = a, .blocks = (uint32_t)sms, .threads = 128, .duration_ns = durations[i]};
        printf("| spin | %d x 128 | %.3f | %.4f |\n", sms, durations[i] / 1e6, time_ms(&l));
    }

    printf("\n| kernel | n | kernel ms | read GB/s |\n| --- | --- | --- | --- |\n");
    for (size_t s = 0; s < 2; s++) {
        launch l = {.kind = CHECKSUM, .a = a, .sum = sum, .n = sizes[s]};
        double ms = time_ms(&l);
        printf("| checksum | %zu | %.4f | %.1f |\n", l.n, ms, l.n * 4.0 / (ms * 1e6));
    }

    printf("\n| kernel | registers (cudaFuncGetAttributes) | registers in cost.c (sm_90) |\n| --- | --- | --- |\n");
    const uint32_t described[] = {KERNELS_PROCESS_REGS_SM90, KERNELS_SPIN_REGS_SM90, KERNELS_CHECKSUM_REGS_SM90,
                                  KERNELS_WIDEN_REGS_SM90, KERNELS_NARROW_REGS_SM90};
    for (int k = 0; k < KERNELS_COUNT; k++) {
        struct cudaFuncAttributes attr;
        CHECK(kernels_device_attributes((kernels_id)k, &attr));
        printf("| %s | %d | %u |\n", kernels_name((kernels_id)k), attr.numRegs, described[k]);
    }

    cudaEventDestroy(ev_start);
    cudaEventDestroy(ev_end);
    cudaStreamDestroy(stream);
    cudaFree(a);
    cudaFree(b);
    cudaFree(sum);
    return 0;
}
