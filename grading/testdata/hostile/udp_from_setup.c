/* grading/testdata/hostile/udp_from_setup.c: the reference pipeline that, from setup(),
 * sends a UDP datagram to 127.0.0.1 (a "telemetry" report, or a way out of the sandbox to a
 * helper on the grading host), through raw system calls so that the link-time check of
 * its calls does not see them. grade_hostile_test writes the port of a socket it listens
 * on in place of @PORT@.
 * Expected: socket() is refused (Permission denied), nothing arrives, and the lab is graded
 * for what it does: full points. */
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "labs/harness/lab.h"

#define NUM_STREAMS 3
#define TELEMETRY_PORT @PORT@

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

static void report_home(const char *what) {
    long fd = raw_syscall(SYS_socket, AF_INET, SOCK_DGRAM, 0, 0, 0);
    if (fd < 0) {
        fprintf(stderr, "telemetry socket: %s\n", strerror((int)-fd));
        return;
    }
    struct sockaddr_in to;
    memset(&to, 0, sizeof(to));
    to.sin_family = AF_INET;
    to.sin_port = (uint16_t)((TELEMETRY_PORT >> 8) | ((TELEMETRY_PORT & 0xff) << 8));
    to.sin_addr.s_addr = 0x0100007f; /* 127.0.0.1 */
    long rc = raw_syscall(SYS_connect, fd, (long)&to, (long)sizeof(to), 0, 0);
    if (rc == 0) rc = raw_syscall(SYS_write, fd, (long)what, (long)strlen(what), 0, 0);
    if (rc < 0) fprintf(stderr, "telemetry: %s\n", strerror((int)-rc));
    raw_syscall(SYS_close, fd, 0, 0, 0, 0);
}

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    report_home("setup reached");
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
