/* grading/testdata/refereed/output_store/labs/03_double_buffer/lab.c: writing a result
 * into lab_output() from the host. run() computes batch 0's first result on the host and
 * tries to store it into the output: first it asks for the page to be made writable
 * (mprotect), then it writes through /proc/self/mem (which ignores page protections where
 * the kernel allows it), then it stores it with a plain assignment. Raw system calls: the
 * C library's file and memory-protection functions are refused before linking
 * (labs/objcheck), so this is what a student could still write.
 * Expected: the outputs live in memory the student's process may read and never write
 * (docs/referee.md): mprotect and /proc/self/mem fail, and the store crashes run() with
 * SIGSEGV, reported at its line. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
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

static int setup(lab_ctx *ctx) {
    (void)ctx;
    return 0;
}

static int run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    uint32_t a = 1, c = 0;
    for (uint32_t k = 0; k < w->process.iters; k++) {
        a *= w->process.mul;
        c = c * w->process.mul + w->process.add;
    }
    uint32_t value = lab_input(ctx, 0)[0] * a + c;
    uint32_t *out = lab_output(ctx, 0);
    long page = (long)((uintptr_t)out & ~(uintptr_t)4095);
    long rc = raw_syscall(SYS_mprotect, page, 4096, PROT_READ | PROT_WRITE, 0);
    fprintf(stderr, "attack: mprotect of the output's page: %ld\n", rc);
    long fd = raw_syscall(SYS_openat, AT_FDCWD, (long)"/proc/self/mem", O_RDWR, 0);
    if (fd >= 0) {
        rc = raw_syscall(SYS_pwrite64, fd, (long)&value, sizeof(value), (long)(uintptr_t)out);
        raw_syscall(SYS_close, fd, 0, 0, 0);
    } else {
        rc = fd;
    }
    fprintf(stderr, "attack: write through /proc/self/mem: %ld\n", rc);
    fflush(stderr);
    out[0] = value; /* the store */
    return 0;
}

static void teardown(lab_ctx *ctx) { (void)ctx; }

const lab_impl LAB_STUDENT = {setup, run, teardown};
