/* sim/probes/host_memory_probe.c: measures on the GPU it runs on what page-locked host
 * memory costs the host, for the simulator's profiles (the host section of sim/profiles/,
 * docs/calibration.md): cudaMallocHost / cudaFreeHost and cudaHostRegister /
 * cudaHostUnregister (of malloc'd memory, touched first) of 64 and 256 MiB, and a 64 MiB
 * cudaMemcpyAsync each way from and to pinned and pageable memory (its device time, timed
 * by events around it on its stream, and the host time the call takes to return).
 *
 * Prints one line per figure, "name value unit" (units: ms, ns), each time the median of
 * REPS repetitions after one warm-up; lines starting with '#' are comments (the device).
 * The fit_* lines are the straight line through the 64 and 256 MiB figures, in the
 * profile's terms (a fixed cost in ns and a cost per MiB in ns). Built against the real
 * runtime only where a CUDA toolkit is found (//sim:host_memory_probe).
 * Exit status: 0 done, 1 a CUDA or allocation error, 77 no CUDA device. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime.h>

#define REPS 5
#define MIB ((size_t)1 << 20)

#define CHECK(expr)                                                                                \
    do {                                                                                           \
        cudaError_t e_ = (expr);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "host_memory_probe: %s failed: %s\n", #expr, cudaGetErrorName(e_));   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return v[n / 2];
}

static void *must_malloc(size_t bytes) {
    void *p = malloc(bytes);
    if (!p) {
        fprintf(stderr, "host_memory_probe: malloc of %zu bytes failed\n", bytes);
        exit(1);
    }
    memset(p, 1, bytes); /* touched: every page is present before it is registered */
    return p;
}

static void print_ms(const char *name, size_t mib, const char *suffix, double ms) {
    printf("%s_%zuMiB%s %.4f ms\n", name, mib, suffix, ms);
}

/* fit_NAME_ns and fit_NAME_ns_per_mib through the 64 and 256 MiB medians. */
static void print_fit(const char *name, double ms64, double ms256) {
    double per_mib_ns = (ms256 - ms64) * 1e6 / (256.0 - 64.0);
    double fixed_ns = ms64 * 1e6 - per_mib_ns * 64.0;
    printf("fit_%s_ns %.0f ns\n", name, fixed_ns);
    printf("fit_%s_ns_per_mib %.0f ns\n", name, per_mib_ns);
}

/* cudaMallocHost and cudaFreeHost of mib MiB: the medians, in ms. */
static void malloc_host(size_t mib, double *alloc_ms, double *free_ms) {
    double a[REPS], f[REPS];
    for (int r = -1; r < REPS; r++) {
        void *p = NULL;
        double t0 = now_ms();
        CHECK(cudaMallocHost(&p, mib * MIB));
        double t1 = now_ms();
        CHECK(cudaFreeHost(p));
        double t2 = now_ms();
        if (r < 0) continue; /* warm-up */
        a[r] = t1 - t0;
        f[r] = t2 - t1;
    }
    *alloc_ms = median(a, REPS);
    *free_ms = median(f, REPS);
}

/* cudaHostRegister and cudaHostUnregister of mib MiB of malloc'd, touched memory. */
static void host_register(size_t mib, double *reg_ms, double *unreg_ms) {
    double a[REPS], f[REPS];
    void *p = must_malloc(mib * MIB);
    for (int r = -1; r < REPS; r++) {
        double t0 = now_ms();
        CHECK(cudaHostRegister(p, mib * MIB, cudaHostRegisterDefault));
        double t1 = now_ms();
        CHECK(cudaHostUnregister(p));
        double t2 = now_ms();
        if (r < 0) continue;
        a[r] = t1 - t0;
        f[r] = t2 - t1;
    }
    free(p);
    *reg_ms = median(a, REPS);
    *unreg_ms = median(f, REPS);
}

/* A cudaMemcpyAsync of bytes on stream s: the medians of its event-timed device time and
 * of the host time the call took to return, in ms. */
static void copy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind, cudaStream_t s,
                 double *device_ms, double *return_ms) {
    double dev[REPS], ret[REPS];
    cudaEvent_t start, end;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&end));
    for (int r = -1; r < REPS; r++) {
        CHECK(cudaStreamSynchronize(s));
        CHECK(cudaEventRecord(start, s));
        double t0 = now_ms();
        CHECK(cudaMemcpyAsync(dst, src, bytes, kind, s));
        double t1 = now_ms();
        CHECK(cudaEventRecord(end, s));
        CHECK(cudaEventSynchronize(end));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, start, end));
        if (r < 0) continue;
        dev[r] = ms;
        ret[r] = t1 - t0;
    }
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(end));
    *device_ms = median(dev, REPS);
    *return_ms = median(ret, REPS);
}

static void copies(size_t mib) {
    size_t bytes = mib * MIB;
    void *d = NULL, *pinned = NULL;
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaMalloc(&d, bytes));
    CHECK(cudaMemset(d, 0, bytes));
    CHECK(cudaMallocHost(&pinned, bytes));
    memset(pinned, 1, bytes);
    void *pageable = must_malloc(bytes);
    struct {
        const char *name;
        void *dst;
        const void *src;
        enum cudaMemcpyKind kind;
    } cases[] = {
        {"h2d_pinned", d, pinned, cudaMemcpyHostToDevice},
        {"h2d_pageable", d, pageable, cudaMemcpyHostToDevice},
        {"d2h_pinned", pinned, d, cudaMemcpyDeviceToHost},
        {"d2h_pageable", pageable, d, cudaMemcpyDeviceToHost},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        double dev = 0, ret = 0;
        copy(cases[i].dst, cases[i].src, bytes, cases[i].kind, s, &dev, &ret);
        print_ms(cases[i].name, mib, "_device", dev);
        print_ms(cases[i].name, mib, "_return", ret);
    }
    free(pageable);
    CHECK(cudaFreeHost(pinned));
    CHECK(cudaFree(d));
    CHECK(cudaStreamDestroy(s));
}

int main(void) {
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess || n == 0) {
        fprintf(stderr, "host_memory_probe: no CUDA device (%s)\n", cudaGetErrorName(err));
        return 77;
    }
    struct cudaDeviceProp prop;
    int driver = 0, runtime = 0;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    CHECK(cudaDriverGetVersion(&driver));
    CHECK(cudaRuntimeGetVersion(&runtime));
    printf("# host_memory_probe on %s, driver API %d, runtime %d; medians of %d after a warm-up\n", prop.name,
           driver, runtime, REPS);
    CHECK(cudaFree(0)); /* the context, before anything is timed */

    const size_t sizes[] = {64, 256};
    double alloc_ms[2], free_ms[2], reg_ms[2], unreg_ms[2];
    for (int i = 0; i < 2; i++) {
        malloc_host(sizes[i], &alloc_ms[i], &free_ms[i]);
        print_ms("cudaMallocHost", sizes[i], "", alloc_ms[i]);
        print_ms("cudaFreeHost", sizes[i], "", free_ms[i]);
    }
    for (int i = 0; i < 2; i++) {
        host_register(sizes[i], &reg_ms[i], &unreg_ms[i]);
        print_ms("cudaHostRegister", sizes[i], "", reg_ms[i]);
        print_ms("cudaHostUnregister", sizes[i], "", unreg_ms[i]);
    }
    copies(64);
    print_fit("malloc_host", alloc_ms[0], alloc_ms[1]);
    print_fit("free_host", free_ms[0], free_ms[1]);
    print_fit("host_register", reg_ms[0], reg_ms[1]);
    print_fit("host_unregister", unreg_ms[0], unreg_ms[1]);
    return 0;
}
