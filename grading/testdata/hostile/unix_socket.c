/* grading/testdata/hostile/unix_socket.c: the reference pipeline that, from setup(),
 * writes to a Unix socket on the grading host that anyone may write to (a datagram, then a
 * stream connection), as a program would reach a careless local service, through raw
 * system calls so that the link-time check of its calls does not see them.
 * grade_hostile_test makes the socket (mode 0777) and writes its path in place of
 * @SOCKET@.
 * Expected: socket() is refused (Permission denied), nothing arrives, and the lab is graded
 * for what it does: full points. */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>

#include "labs/harness/lab.h"

#define NUM_STREAMS 3
#define SERVICE "@SOCKET@"

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

static void tell_service(int type, const char *kind) {
    struct sockaddr_un to;
    memset(&to, 0, sizeof(to));
    to.sun_family = AF_UNIX;
    strncpy(to.sun_path, SERVICE, sizeof(to.sun_path) - 1);
    long fd = raw_syscall(SYS_socket, AF_UNIX, type, 0, 0, 0);
    if (fd < 0) {
        fprintf(stderr, "service socket (%s): %s\n", kind, strerror((int)-fd));
        return;
    }
    long rc = raw_syscall(SYS_connect, fd, (long)&to, (long)sizeof(to), 0, 0);
    if (rc == 0) rc = raw_syscall(SYS_write, fd, (long)"hello", 5, 0, 0);
    if (rc < 0) fprintf(stderr, "service (%s): %s\n", kind, strerror((int)-rc));
    raw_syscall(SYS_close, fd, 0, 0, 0, 0);
}

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    tell_service(SOCK_DGRAM, "datagram");
    tell_service(SOCK_STREAM, "stream");
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
