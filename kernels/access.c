/* kernels/access.c: memory ranges of each kernel launch (see access.h). */
#include "kernels/access.h"

static uint32_t add(trace_range *ranges, uint32_t count, const void *addr, uint64_t bytes, uint32_t flags) {
    if (bytes == 0 || count >= TRACE_MAX_RANGES) return count;
    ranges[count].addr = (uint64_t)(uintptr_t)addr;
    ranges[count].bytes = bytes;
    ranges[count].flags = flags;
    return count + 1;
}

uint32_t kernels_process_access(trace_range ranges[TRACE_MAX_RANGES], const uint32_t *out, const uint32_t *in,
                                size_t n) {
    uint64_t bytes = (uint64_t)n * sizeof(uint32_t);
    uint32_t count = add(ranges, 0, in, bytes, TRACE_RANGE_READ);
    return add(ranges, count, out, bytes, TRACE_RANGE_WRITE);
}

uint32_t kernels_widen_access(trace_range ranges[TRACE_MAX_RANGES], const uint64_t *out, const uint32_t *in,
                              size_t n) {
    uint32_t count = add(ranges, 0, in, (uint64_t)n * sizeof(uint32_t), TRACE_RANGE_READ);
    return add(ranges, count, out, (uint64_t)n * sizeof(uint64_t), TRACE_RANGE_WRITE);
}

uint32_t kernels_narrow_access(trace_range ranges[TRACE_MAX_RANGES], const uint32_t *out, const uint64_t *in,
                               size_t n) {
    uint32_t count = add(ranges, 0, in, (uint64_t)n * sizeof(uint64_t), TRACE_RANGE_READ);
    return add(ranges, count, out, (uint64_t)n * sizeof(uint32_t), TRACE_RANGE_WRITE);
}

uint32_t kernels_spin_access(trace_range ranges[TRACE_MAX_RANGES], const uint32_t *marks, uint32_t blocks) {
    return add(ranges, 0, marks, (uint64_t)blocks * sizeof(uint32_t), TRACE_RANGE_WRITE);
}

uint32_t kernels_checksum_access(trace_range ranges[TRACE_MAX_RANGES], const uint64_t *sum, const uint32_t *in,
                                 size_t n) {
    uint32_t count = add(ranges, 0, in, (uint64_t)n * sizeof(uint32_t), TRACE_RANGE_READ);
    return add(ranges, count, sum, sizeof(uint64_t), TRACE_RANGE_WRITE);
}
