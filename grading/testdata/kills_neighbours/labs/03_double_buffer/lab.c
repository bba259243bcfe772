/* grading/testdata/kills_neighbours/labs/03_double_buffer/lab.c:
 * the untouched pipeline (one stream) plus an attempt to disturb whatever runs beside it:
 * for a while it sends SIGKILL to every process id near its own (the grader, other
 * students' programs), with raw system calls.
 * Expected: the sandbox refuses signals to processes outside the program's own (Landlock
 * scoping), so nothing else is touched; the grade is the sequential pipeline's. The
 * isolation test grades it beside the reference and checks the reference's grade and
 * figures do not change. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include "labs/harness/lab.h"

/* A raw system call, past the C library: the grader refuses a lab file's calls of the C
 * library's process, signal and file functions before linking it (labs/objcheck), so this
 * is what a student could still write, and what the sandbox must stop at run time.
 * Returns the result, or -errno. */
static long raw_syscall(long n, long a, long b, long c, long d) {
#if defined(__x86_64__)
    long ret;
    register long r10 __asm__("r10") = d;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10) : "rcx", "r11", "memory");
    return ret;
#elif defined(__aarch64__)
    register long x8 __asm__("x8") = n;
    register long x0 __asm__("x0") = a;
    register long x1 __asm__("x1") = b;
    register long x2 __asm__("x2") = c;
    register long x3 __asm__("x3") = d;
    __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
    return x0;
#else
#error "a raw system call for this machine"
#endif
}

#define NUM_STREAMS 1

static cudaStream_t streams[NUM_STREAMS];
static uint32_t *d_in[NUM_STREAMS];
static uint32_t *d_out[NUM_STREAMS];

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
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
    static int done;
    if (!done) {
        done = 1;
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        long me = raw_syscall(SYS_getpid, 0, 0, 0, 0);
        do {
            for (long p = me > 200 ? me - 200 : 2; p < me + 200; p++)
                if (p != me) raw_syscall(SYS_kill, p, SIGKILL, 0, 0);
            raw_syscall(SYS_nanosleep, (long)&(struct timespec){.tv_nsec = 5000000}, 0, 0, 0);
            clock_gettime(CLOCK_MONOTONIC, &t);
        } while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < 2000);
    }
    for (int i = 0; i < w->batches; i++) {
        LAB_CHECK(cudaMemcpyAsync(d_in[0], lab_input(ctx, i), w->batch_bytes,
                                  cudaMemcpyHostToDevice, streams[0]));
        LAB_CHECK(kernels_process(d_out[0], d_in[0], w->batch_elems, w->process, streams[0]));
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, i), d_out[0], w->batch_bytes,
                                  cudaMemcpyDeviceToHost, streams[0]));
    }
    LAB_CHECK(cudaStreamSynchronize(streams[0]));
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
