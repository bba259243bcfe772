/* grading/testdata/hostile/disk_filler.c: the reference pipeline whose setup() "caches" its
 * inputs on disk: 8 MiB files in its working folder until 3 GiB are written, whatever the
 * writes return (the run that wrote 3 GiB into the shared scratch disk in its 60 s), through
 * raw system calls so that the link-time check of its calls does not see them.
 * Expected: the writes fail past the scratch cap (a tmpfs of --scratch-mb), the grader ends
 * the run ("wrote more than N MiB into its scratch folder"), nothing of it stays on the
 * grading host's disk, and the others of the class are graded as they would be alone. */
#define _POSIX_C_SOURCE 200809L /* AT_FDCWD */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "labs/harness/lab.h"

#define NUM_STREAMS 3
#define CHUNK (8u << 20)
#define CACHE_BYTES (3ull << 30)

static cudaStream_t streams[NUM_STREAMS];
static uint32_t *d_in[NUM_STREAMS];
static uint32_t *d_out[NUM_STREAMS];

/* A system call by its number, without the C library's wrapper (which the link-time
 * check of a lab's calls would refuse): what a student who reads the refusals does next. */
static long raw_syscall(long n, long a, long b, long c, long d, long e) {
#if defined(__x86_64__)
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    long ret;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8) : "rcx", "r11", "memory");
    return ret;
#elif defined(__aarch64__)
    register long x8 __asm__("x8") = n;
    register long x0 __asm__("x0") = a;
    register long x1 __asm__("x1") = b;
    register long x2 __asm__("x2") = c;
    register long x3 __asm__("x3") = d;
    register long x4 __asm__("x4") = e;
    __asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4) : "memory");
    return x0;
#else
#error "written for x86-64 and arm64"
#endif
}

static void cache_inputs(void) {
    char *block = malloc(CHUNK);
    if (!block) return;
    memset(block, 0x5a, CHUNK);
    unsigned long long written = 0;
    for (unsigned i = 0; written < CACHE_BYTES; i++) {
        char name[64];
        snprintf(name, sizeof(name), "cache_%u.bin", i % 4096);
        long fd = raw_syscall(SYS_openat, AT_FDCWD, (long)name, O_WRONLY | O_CREAT | O_TRUNC, 0600, 0);
        if (fd < 0) continue;
        long n = raw_syscall(SYS_write, fd, (long)block, CHUNK, 0, 0);
        if (n > 0) written += (unsigned long long)n;
        raw_syscall(SYS_close, fd, 0, 0, 0, 0);
    }
    free(block);
}

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    cache_inputs();
    for (int s = 0; s < NUM_STREAMS; s++) {
        LAB_CHECK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
        char name[16];
        snprintf(name, sizeof(name), "buf %c", 'A' + s);
        lab_name_stream(ctx, streams[s], name);
        LAB_CHECK(cudaMalloc((void **)&d_in[s], w->batch_bytes));
        LAB_CHECK(cudaMalloc((void **)&d_out[s], w->batch_bytes));
    }
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int i = 0; i < w->batches; i++) {
        int s = i % NUM_STREAMS;
        LAB_CHECK(cudaMemcpyAsync(d_in[s], lab_input(ctx, i), w->batch_bytes,
                                  cudaMemcpyHostToDevice, streams[s]));
        LAB_CHECK(kernels_process(d_out[s], d_in[s], w->batch_elems, w->process, streams[s]));
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, i), d_out[s], w->batch_bytes,
                                  cudaMemcpyDeviceToHost, streams[s]));
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
