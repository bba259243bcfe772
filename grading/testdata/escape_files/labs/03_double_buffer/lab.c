/* grading/testdata/escape_files/labs/03_double_buffer/lab.c:
 * the reference pipeline plus attempts to write outside its scratch folder: next to its
 * home folder, in /tmp, and in the grader's work folder, with raw system calls.
 * Expected: every write is refused (the sandbox lets a lab write only inside its own
 * scratch folder), nothing is created, and the lab is graded for what it does: full
 * points. The test checks that the files do not exist. */
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

#define NUM_STREAMS 3

static cudaStream_t streams[NUM_STREAMS];
static uint32_t *d_in[NUM_STREAMS];
static uint32_t *d_out[NUM_STREAMS];

/* $HOME from /proc/self/environ (getenv is refused before linking, as raw_syscall says);
 * NULL when it cannot be read. */
static const char *home(char *env, size_t len) {
    long fd = raw_syscall(SYS_openat, AT_FDCWD, (long)"/proc/self/environ", O_RDONLY, 0);
    if (fd < 0) return NULL;
    long n = raw_syscall(SYS_read, fd, (long)env, (long)len - 1, 0);
    raw_syscall(SYS_close, fd, 0, 0, 0);
    if (n <= 0) return NULL;
    env[n] = '\0';
    for (long i = 0; i < n; i += (long)strlen(env + i) + 1)
        if (!strncmp(env + i, "HOME=", 5)) return env + i + 5;
    return NULL;
}

static void try_write(const char *path) {
    long fd = raw_syscall(SYS_openat, AT_FDCWD, (long)path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        raw_syscall(SYS_write, fd, (long)"escaped\n", 8, 0);
        raw_syscall(SYS_close, fd, 0, 0, 0);
    }
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
    static int tried;
    if (!tried) {
        tried = 1;
        char path[4096];
        char env[8192];
        const char *h = home(env, sizeof(env));
        snprintf(path, sizeof(path), "%s/../streamlab_escape_home", h ? h : ".");
        try_write(path);
        try_write("../streamlab_escape_parent");
        try_write("/tmp/streamlab_escape_tmp");
    }
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
