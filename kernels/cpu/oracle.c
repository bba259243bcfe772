/* kernels/cpu/oracle.c: whole-launch results, from the block bodies (see cpu.h). */
#include "kernels/cpu/cpu.h"

#include <stdbool.h>

/* The blocks [0, blocks) in chunks whose block indices fit a uint32_t, as a block body takes
 * them: *at is the next chunk's first block (0 to begin); each call gives that chunk's first
 * element (per_block elements a block) and its number of blocks, and false after the last. */
static bool next_chunk(uint64_t blocks, uint64_t per_block, uint64_t *at, size_t *first, uint32_t *count) {
    if (*at >= blocks) return false;
    uint64_t end = blocks - *at < UINT32_MAX ? blocks : *at + UINT32_MAX;
    *first = (size_t)(*at * per_block);
    *count = (uint32_t)(end - *at);
    *at = end;
    return true;
}

void kernels_oracle_process(uint32_t *out, const uint32_t *in, size_t n, kernels_process_params params) {
    kernels_affine map = kernels_affine_power(params);
    uint64_t at = 0;
    size_t off;
    uint32_t count;
    while (next_chunk(kernels_process_blocks(n), KERNELS_PROCESS_THREADS, &at, &off, &count))
        kernels_cpu_process_affine(out + off, in + off, n - off, map, 0, count);
}

void kernels_oracle_widen(uint64_t *out, const uint32_t *in, size_t n, kernels_process_params params) {
    kernels_affine map = kernels_affine_power(params);
    uint64_t at = 0;
    size_t off;
    uint32_t count;
    while (next_chunk(kernels_process_blocks(n), KERNELS_PROCESS_THREADS, &at, &off, &count))
        kernels_cpu_widen_affine(out + off, in + off, n - off, map, 0, count);
}

void kernels_oracle_narrow(uint32_t *out, const uint64_t *in, size_t n, kernels_process_params params) {
    kernels_affine map = kernels_affine_power(params);
    uint64_t at = 0;
    size_t off;
    uint32_t count;
    while (next_chunk(kernels_process_blocks(n), KERNELS_PROCESS_THREADS, &at, &off, &count))
        kernels_cpu_narrow_affine(out + off, in + off, n - off, map, 0, count);
}

void kernels_oracle_spin(uint32_t *marks, uint32_t blocks, uint32_t mark) {
    kernels_cpu_spin(marks, mark, 0, blocks);
}

uint64_t kernels_oracle_checksum(const uint32_t *in, size_t n) {
    uint64_t sum = 0, at = 0;
    size_t off;
    uint32_t count;
    while (next_chunk(kernels_checksum_blocks(n), KERNELS_CHECKSUM_BLOCK_ELEMS, &at, &off, &count))
        kernels_cpu_checksum(&sum, in + off, n - off, 0, count);
    return sum;
}
