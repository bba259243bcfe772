/* grading/testdata/sleeps_forever/labs/03_double_buffer/lab.c:
 * a submission that blocks the harness's timer signal and then sleeps forever (with raw system
 * calls), hoping that the harness cannot report the hang itself.
 * Expected: the timer is the referee's, in a process of its own, which the student's process
 * cannot block: the lab reports the hang ("timed out"); no points. (The grader's
 * wall-clock limit stays behind it, for a harness that cannot report at all.) */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <sys/syscall.h>
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

#define NUM_STREAMS 3

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
    unsigned long alarm_only = 1ul << (SIGALRM - 1);
    raw_syscall(SYS_rt_sigprocmask, SIG_BLOCK, (long)&alarm_only, 0, sizeof(alarm_only));
    for (;;) raw_syscall(SYS_ppoll, 0, 0, 0, 0);
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
