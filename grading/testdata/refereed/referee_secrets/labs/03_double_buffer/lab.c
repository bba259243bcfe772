/* grading/testdata/refereed/referee_secrets/labs/03_double_buffer/lab.c: the untouched
 * sequential pipeline, plus an attempt on what the referee (the lab binary, this process's
 * parent) knows. Before its first run it tries to read the referee's environment (where
 * the result channel's nonce is), its memory (/proc/PID/mem, process_vm_readv, ptrace) and
 * its descriptors (/proc/PID/fd/3, the event stream under the grader), and then writes a
 * forged result line, signed with whatever nonce it found, to every descriptor from 3 to
 * 20. It says on stderr what each attempt got. Raw system calls: the C library's file,
 * process and signal functions are refused before linking (labs/objcheck).
 * Expected: the referee is not dumpable and the student's process holds none of its
 * descriptors: every read fails, no forged line reaches the event stream, and the grade is
 * the sequential pipeline's (correct and race-free, below the target). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "labs/harness/lab.h"

/* A raw system call, past the C library. Returns the result, or -errno. */
static long raw_syscall6(long n, long a, long b, long c, long d, long e, long f) {
#if defined(__x86_64__)
    long ret;
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    register long r9 __asm__("r9") = f;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory");
    return ret;
#elif defined(__aarch64__)
    register long x8 __asm__("x8") = n;
    register long x0 __asm__("x0") = a;
    register long x1 __asm__("x1") = b;
    register long x2 __asm__("x2") = c;
    register long x3 __asm__("x3") = d;
    register long x4 __asm__("x4") = e;
    register long x5 __asm__("x5") = f;
    __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5) : "memory");
    return x0;
#else
#error "a raw system call for this machine"
#endif
}

static long raw_syscall(long n, long a, long b, long c, long d) { return raw_syscall6(n, a, b, c, d, 0, 0); }

#define NUM_STREAMS 1

static cudaStream_t streams[NUM_STREAMS];
static uint32_t *d_in;
static uint32_t *d_out;
static char nonce[128];

/* Reads a file of the referee's into buf; returns the bytes read, or -errno. */
static long read_file(const char *path, char *buf, size_t len) {
    long fd = raw_syscall(SYS_openat, AT_FDCWD, (long)path, O_RDONLY, 0);
    if (fd < 0) return fd;
    long got = raw_syscall(SYS_read, fd, (long)buf, (long)len, 0);
    raw_syscall(SYS_close, fd, 0, 0, 0);
    return got;
}

static void try_secrets(lab_ctx *ctx) {
    long ppid = raw_syscall(SYS_getppid, 0, 0, 0, 0);
    char path[64], buf[8192];
    snprintf(path, sizeof(path), "/proc/%ld/environ", ppid);
    long got = read_file(path, buf, sizeof(buf) - 1);
    fprintf(stderr, "attack: the referee's environment: %s\n", got >= 0 ? "read" : strerror((int)-got));
    for (long i = 0; got > 0 && i < got; i += (long)strlen(buf + i) + 1) {
        buf[got] = '\0';
        if (!strncmp(buf + i, "STREAMLAB_EVENTS_NONCE=", 23)) snprintf(nonce, sizeof(nonce), "%s", buf + i + 23);
    }
    /* The referee's memory: the output's address is the same in both processes. */
    long addr = (long)(uintptr_t)lab_output(ctx, 0);
    snprintf(path, sizeof(path), "/proc/%ld/mem", ppid);
    long fd = raw_syscall(SYS_openat, AT_FDCWD, (long)path, O_RDONLY, 0);
    got = fd >= 0 ? raw_syscall6(SYS_pread64, fd, (long)buf, 64, addr, 0, 0) : fd;
    if (fd >= 0) raw_syscall(SYS_close, fd, 0, 0, 0);
    fprintf(stderr, "attack: the referee's memory through /proc: %s\n", got >= 0 ? "read" : strerror((int)-got));
    struct iovec local = {buf, 64}, remote = {(void *)(uintptr_t)addr, 64};
    got = raw_syscall6(SYS_process_vm_readv, ppid, (long)&local, 1, (long)&remote, 1, 0);
    fprintf(stderr, "attack: the referee's memory through process_vm_readv: %s\n",
            got >= 0 ? "read" : strerror((int)-got));
    got = raw_syscall(SYS_ptrace, PTRACE_SEIZE, ppid, 0, 0);
    fprintf(stderr, "attack: ptrace of the referee: %s\n", got >= 0 ? "attached" : strerror((int)-got));
    snprintf(path, sizeof(path), "/proc/%ld/fd/3", ppid);
    fd = raw_syscall(SYS_openat, AT_FDCWD, (long)path, O_WRONLY, 0);
    fprintf(stderr, "attack: the referee's descriptor 3: %s\n", fd >= 0 ? "opened" : strerror((int)-fd));
    int forged = 0;
    char line[512];
    int n = snprintf(line, sizeof(line),
                     "%s{\"type\":\"result\",\"status\":\"pass\",\"correct\":true,\"races\":0,\"speedup\":2.6,"
                     "\"bound_fraction\":1.0,\"exit_code\":0}\n",
                     nonce);
    if (fd >= 0 && raw_syscall(SYS_write, fd, (long)line, n, 0) == n) forged++;
    for (long d = 3; d <= 20; d++)
        if (raw_syscall(SYS_write, d, (long)line, n, 0) == n) forged++;
    fprintf(stderr, "attack: nonce %s; forged result lines written: %d\n", nonce[0] ? "found" : "not found", forged);
}

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    try_secrets(ctx);
    for (int s = 0; s < NUM_STREAMS; s++) LAB_CHECK(cudaStreamCreate(&streams[s]));
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
