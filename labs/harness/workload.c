/* labs/harness/workload.c: seeded inputs and kernel parameters (see workload.h). */
#define _POSIX_C_SOURCE 200809L
#include "labs/harness/workload.h"

#include <time.h>
#include <unistd.h>

uint64_t lab_mix64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

lab_workload lab_make_workload(const lab_workload *spec_default, uint64_t seed) {
    lab_workload w = *spec_default;
    w.batch_bytes = w.batch_elems * sizeof(uint32_t);
    if (w.steps <= 0) w.steps = 1;
    if (w.process.mul == 0) w.process.mul = (uint32_t)lab_mix64(seed ^ 0x6D756C) | 1u;
    if (w.process.add == 0) w.process.add = (uint32_t)lab_mix64(seed ^ 0x616464);
    return w;
}

void lab_fill_batch(uint32_t *dst, size_t n, uint64_t seed, int run, int batch) {
    uint64_t state = lab_mix64(seed ^ ((uint64_t)(uint32_t)run << 32) ^ (uint64_t)(uint32_t)batch);
    size_t i = 0;
    for (; i + 1 < n; i += 2) {
        uint64_t r = lab_mix64(state + i);
        dst[i] = (uint32_t)r;
        dst[i + 1] = (uint32_t)(r >> 32);
    }
    if (i < n) dst[i] = (uint32_t)lab_mix64(state + i);
}

uint64_t lab_fresh_seed(void) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    uint64_t s = lab_mix64((uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec);
    return lab_mix64(s ^ (uint64_t)getpid()) % 1000000000ull;
}
