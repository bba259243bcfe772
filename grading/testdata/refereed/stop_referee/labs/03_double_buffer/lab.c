/* grading/testdata/refereed/stop_referee/labs/03_double_buffer/lab.c: the untouched
 * sequential pipeline, plus an attempt on the referee itself (the lab binary, this
 * process's parent). In setup() it stops the referee (SIGSTOP), then kills it (SIGKILL,
 * with kill and with tgkill), and asks whether it may signal its process group and every
 * process of its user (signal 0: a question, not a signal). A referee stopped while the
 * student's code runs, or killed before it reports, would leave the grader with no verdict
 * or a stale one. Raw system calls: the C library's signal functions are refused before
 * linking (labs/objcheck). It says on stderr what each attempt got.
 * Expected: the student's process may signal itself only (its seccomp filter,
 * labs/client/): every attempt fails with EPERM, and the grade is the sequential
 * pipeline's (correct and race-free, below the target). */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>

#include "labs/harness/lab.h"

/* A raw system call, past the C library. Returns the result, or -errno. */
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
static uint32_t *d_in;
static uint32_t *d_out;

static void say(const char *what, long rc) {
    fprintf(stderr, "attack: %s: %s\n", what, rc == 0 ? "done" : strerror((int)-rc));
    fflush(stderr);
}

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    long ppid = raw_syscall(SYS_getppid, 0, 0, 0, 0);
    say("SIGSTOP to the referee", raw_syscall(SYS_kill, ppid, SIGSTOP, 0, 0));
    say("SIGKILL to the referee", raw_syscall(SYS_kill, ppid, SIGKILL, 0, 0));
    say("tgkill SIGKILL to the referee", raw_syscall(SYS_tgkill, ppid, ppid, SIGKILL, 0));
    say("signal 0 to the process group", raw_syscall(SYS_kill, 0, 0, 0, 0));
    say("signal 0 to every process", raw_syscall(SYS_kill, -1, 0, 0, 0));
    LAB_CHECK(cudaStreamCreate(&streams[0]));
    LAB_CHECK(cudaMalloc((void **)&d_in, w->batch_bytes));
    LAB_CHECK(cudaMalloc((void **)&d_out, w->batch_bytes));
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int i = 0; i < w->batches; i++) {
        LAB_CHECK(cudaMemcpyAsync(d_in, lab_input(ctx, i), w->batch_bytes, cudaMemcpyHostToDevice, streams[0]));
        LAB_CHECK(kernels_process(d_out, d_in, w->batch_elems, w->process, streams[0]));
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, i), d_out, w->batch_bytes, cudaMemcpyDeviceToHost, streams[0]));
    }
    LAB_CHECK(cudaStreamSynchronize(streams[0]));
    return 0;
}

static void teardown(lab_ctx *ctx) {
    (void)ctx;
    cudaStreamDestroy(streams[0]);
    cudaFree(d_in);
    cudaFree(d_out);
}

const lab_impl LAB_STUDENT = {setup, run, teardown};
