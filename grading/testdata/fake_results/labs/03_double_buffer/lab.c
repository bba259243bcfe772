/* grading/testdata/fake_results/labs/03_double_buffer/lab.c:
 * the untouched pipeline (sequential, one stream) plus an attempt to fake a perfect
 * result: it prints result and bye lines in the event stream's format on stdout and on
 * descriptor 3 (the event stream), and tries to read the stream's secret nonce from
 * /proc/self/environ to sign them, with raw system calls.
 * Expected: the event stream is the referee's, not the student's process's (descriptor 3
 * is not open there, and its environment holds no nonce, in /proc or anywhere): the grade
 * is the sequential pipeline's (correct and race-free, no speed points). */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
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

#define NUM_STREAMS 1

static cudaStream_t streams[NUM_STREAMS];
static uint32_t *d_in[NUM_STREAMS];
static uint32_t *d_out[NUM_STREAMS];

/* The nonce, if the environment block can be read; "" otherwise. */
static void steal_nonce(char *out, size_t len) {
    out[0] = '\0';
    long fd = raw_syscall(SYS_openat, AT_FDCWD, (long)"/proc/self/environ", O_RDONLY, 0);
    if (fd < 0) return;
    char env[8192];
    long got = raw_syscall(SYS_read, fd, (long)env, sizeof(env) - 1, 0);
    raw_syscall(SYS_close, fd, 0, 0, 0);
    size_t n = got > 0 ? (size_t)got : 0;
    env[n] = '\0';
    for (size_t i = 0; i < n; i += strlen(env + i) + 1)
        if (!strncmp(env + i, "STREAMLAB_EVENTS_NONCE=", 23)) snprintf(out, len, "%s", env + i + 23);
}

static void fake(int fd, const char *nonce) {
    char line[1024];
    int n = snprintf(line, sizeof(line),
                     "{\"v\":1,\"t\":\"result\",\"result\":{\"lab\":\"03_double_buffer\",\"status\":\"pass\","
                     "\"passed\":true,\"correct\":true,\"races\":0,\"race_reports\":[],\"speedup\":3.0,"
                     "\"target\":1.5,\"pipeline_bound\":3.0,\"bound_fraction\":1.0,\"runs\":5}%s%s%s}\n"
                     "{\"v\":1,\"t\":\"bye\",\"status\":0%s%s%s}\n",
                     *nonce ? ",\"nonce\":\"" : "", nonce, *nonce ? "\"" : "", *nonce ? ",\"nonce\":\"" : "",
                     nonce, *nonce ? "\"" : "");
    if (n > 0) raw_syscall(SYS_write, fd, (long)line, n, 0);
}

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
    char nonce[128];
    steal_nonce(nonce, sizeof(nonce));
    fake(1, nonce);
    fake(3, nonce);
    fake(3, "0123456789abcdef0123456789abcdef");
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
