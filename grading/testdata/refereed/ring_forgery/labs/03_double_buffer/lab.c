/* grading/testdata/refereed/ring_forgery/labs/03_double_buffer/lab.c: writing into the
 * command ring by hand. The ring's layout is public (labs/referee/protocol.h, ring.h and
 * ring.c): the student's process finds the shared memory's address in its own command
 * line (/proc/self/cmdline, --referee=FD,BASE,...), and the command ring one page after it.
 * After its first batch, run() appends a record of its own making behind the client's (a
 * CUDA call's number, a payload of nonsense, a sequence number the referee does not
 * expect), publishes it by moving the ring's head, and goes on with the pipeline, whose
 * next call wakes the referee. Raw system calls: the C library's file functions are
 * refused before linking (labs/objcheck).
 * Expected: the referee copies and checks every record before it reads it, finds one no
 * lab program writes, and ends the student's process: the lab fails, saying so, with no
 * result. Under the grader on the simulator the run may not read /proc at all, so it never
 * finds the ring and is graded for the pipeline it runs ("reads_confined" in expected.json). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
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

/* labs/referee/ring.c's shared header, as it is laid out: the producer's head at 0, the
 * ring's capacity at 152, the records from 4288 (4096 bytes of reply area at 192). */
#define RING_OFFSET 4096u /* the control page comes first (LAB_CONTROL_BYTES) */
#define HEAD_AT 0u
#define HEAD_FUTEX_AT 8u
#define CAPACITY_AT 152u
#define DATA_AT 4288u
#define LAB_OP_CUDA 64u

#define NUM_STREAMS 1

static cudaStream_t streams[NUM_STREAMS];
static uint32_t *d_in;
static uint32_t *d_out;

/* The shared memory's address, from --referee=FD,BASE,... on the command line; 0 if none. */
static unsigned char *shared_base(void) {
    char buf[4096];
    long fd = raw_syscall(SYS_openat, AT_FDCWD, (long)"/proc/self/cmdline", O_RDONLY, 0);
    if (fd < 0) return NULL;
    long got = raw_syscall(SYS_read, fd, (long)buf, sizeof(buf) - 1, 0);
    raw_syscall(SYS_close, fd, 0, 0, 0);
    if (got <= 0) return NULL;
    buf[got] = '\0';
    for (long i = 0; i < got; i += (long)strlen(buf + i) + 1) {
        const char *arg = buf + i;
        if (strncmp(arg, "--referee=", 10) != 0) continue;
        const char *comma = strchr(arg + 10, ',');
        if (!comma) return NULL;
        return (unsigned char *)(uintptr_t)strtoull(comma + 1, NULL, 16);
    }
    return NULL;
}

static void forge(void) {
    unsigned char *ring = shared_base();
    if (!ring) {
        fprintf(stderr, "attack: no --referee argument found\n");
        return;
    }
    ring += RING_OFFSET;
    uint64_t head = __atomic_load_n((uint64_t *)(ring + HEAD_AT), __ATOMIC_SEQ_CST);
    uint64_t capacity = *(uint64_t *)(ring + CAPACITY_AT);
    uint64_t pos = head & (capacity - 1);
    if (pos + 64 > capacity) {
        fprintf(stderr, "attack: no room before the ring's end\n");
        return;
    }
    unsigned char *rec = ring + DATA_AT + pos;
    uint32_t op = LAB_OP_CUDA + 7, len = 32;
    uint64_t seq = 0x5eed5eedull;
    memcpy(rec, &op, 4);
    memcpy(rec + 4, &len, 4);
    memcpy(rec + 8, &seq, 8);
    memset(rec + 16, 0xa5, len);
    __atomic_store_n((uint64_t *)(ring + HEAD_AT), head + 16 + len, __ATOMIC_SEQ_CST);
    __atomic_fetch_add((uint32_t *)(ring + HEAD_FUTEX_AT), 1, __ATOMIC_SEQ_CST);
    fprintf(stderr, "attack: a forged record written at %llu\n", (unsigned long long)pos);
}

static int setup(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
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
        if (i == 0) forge();
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
