/* labs/client/host_copy.c: lab.h's lab_host_memcpy and lab_host_memmove, what memcpy and
 * memmove are in a lab file. Each copy of LAB_HOST_COPY_MIN bytes or more is told to the
 * referee with the time it took. On the simulator the referee charges the simulated host
 * what such a copy costs the modelled GPU's host (labs/harness/remote.c,
 * charge_host_copy); on a GPU the copy's own time is the cost, and the referee only shows
 * it on the host lane, where the advice finds it. */
#define _GNU_SOURCE
#include <string.h>
#include <time.h>

#include "labs/client/client.h"
#include "labs/harness/lab.h"

/* The copies below are the C library's (lab.h's macros are a lab file's alone). */
#undef memcpy
#undef memmove

static uint64_t clock_ns(clockid_t clock) {
    struct timespec t;
    if (clock_gettime(clock, &t) != 0) return 0;
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* Tells the referee of a copy of n bytes from src to dst that took cpu_ns of this thread's
 * CPU and wall_ns of the host's time: on the simulator it waits for the referee's answer (the
 * copy's charge comes before whatever this thread does next); on a GPU it goes one-way, for
 * the host lane of the timeline and the advice. */
static void tell(const void *dst, const void *src, size_t n, uint64_t cpu_ns, uint64_t wall_ns,
                 const void *return_address) {
    lab_client_call c;
    lab_client_begin(&c, LAB_OP_HOST_COPY, return_address);
    uint64_t v[5] = {(uint64_t)n, cpu_ns, wall_ns, (uint64_t)(uintptr_t)src, (uint64_t)(uintptr_t)dst};
    lab_client_put(&c, v, sizeof(v));
    if (lab_client_student.real_device) {
        lab_client_send(&c);
        return;
    }
    int32_t rc = 0;
    (void)lab_client_ask(&c, &rc, sizeof(rc));
}

void *lab_client_copy(void *dst, const void *src, size_t n, bool overlap, const void *return_address) {
    if (n < LAB_HOST_COPY_MIN) return overlap ? memmove(dst, src, n) : memcpy(dst, src, n);
    uint64_t c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID), w0 = clock_ns(CLOCK_MONOTONIC);
    if (overlap)
        memmove(dst, src, n);
    else
        memcpy(dst, src, n);
    uint64_t c1 = clock_ns(CLOCK_THREAD_CPUTIME_ID), w1 = clock_ns(CLOCK_MONOTONIC);
    tell(dst, src, n, c1 - c0, w1 - w0, return_address);
    return dst;
}

void *lab_host_memcpy(void *dst, const void *src, size_t n) {
    return lab_client_copy(dst, src, n, false, __builtin_return_address(0));
}

void *lab_host_memmove(void *dst, const void *src, size_t n) {
    return lab_client_copy(dst, src, n, true, __builtin_return_address(0));
}
