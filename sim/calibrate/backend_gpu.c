/* sim/calibrate/backend_gpu.c: backend.h on a real GPU. */
#define _POSIX_C_SOURCE 200809L
#include "sim/calibrate/backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime.h>

bool cal_backend_simulated(void) { return false; }

uint64_t cal_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void cal_host_wait_ns(uint64_t ns) {
    uint64_t end = cal_now_ns() + ns;
    while (cal_now_ns() < end) {
    }
}

void cal_host_sleep_ns(uint64_t ns) {
    struct timespec ts = {(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

void cal_host_copy(void *dst, const void *src, size_t n, bool cold) {
    (void)cold; /* the host's caches decide what it costs */
    memcpy(dst, src, n);
}

/* Larger than the last-level cache of any host a GPU is lent with (a few hundred MiB at
 * most), written through so that what the host touched before is gone from every level. */
#define EVICT_BYTES ((size_t)512 << 20)

int cal_host_evict(void) {
    static volatile unsigned char *buf;
    if (!buf) buf = malloc(EVICT_BYTES);
    if (!buf) return -1;
    static unsigned char round;
    round++;
    for (size_t i = 0; i < EVICT_BYTES; i += 64) buf[i] = (unsigned char)(round + i);
    return 0;
}

int cal_backend_use_profile(const char *name_or_path, char *err, size_t err_size) {
    snprintf(err, err_size,
             "--profile=%s chooses a simulated device; this build of the calibrator runs on the real "
             "GPU (use //sim:calibrate_sim to calibrate a simulated one)",
             name_or_path);
    return -1;
}

void cal_backend_reset(void) { (void)cudaDeviceSynchronize(); }
