/* kernels/cpu/oracle.c: whole-launch results, from the block bodies (see cpu.h). */
#include "kernels/cpu/cpu.h"

void kernels_oracle_process(uint32_t *out, const uint32_t *in, size_t n, kernels_process_params params) {
    kernels_affine map = kernels_affine_power(params);
    /* Block by block in chunks that fit a uint32_t block index. */
    uint64_t blocks = kernels_process_blocks(n);
    for (uint64_t b = 0; b < blocks; b += UINT32_MAX) {
        uint64_t e = blocks - b < UINT32_MAX ? blocks : b + UINT32_MAX;
        size_t off = (size_t)(b * KERNELS_PROCESS_THREADS);
        kernels_cpu_process_affine(out + off, in + off, n - off, map, 0, (uint32_t)(e - b));
    }
}

/* widen and narrow block by block as process, in chunks that fit a uint32_t block index. */
void kernels_oracle_widen(uint64_t *out, const uint32_t *in, size_t n, kernels_process_params params) {
    kernels_affine map = kernels_affine_power(params);
    uint64_t blocks = kernels_process_blocks(n);
    for (uint64_t b = 0; b < blocks; b += UINT32_MAX) {
        uint64_t e = blocks - b < UINT32_MAX ? blocks : b + UINT32_MAX;
        size_t off = (size_t)(b * KERNELS_PROCESS_THREADS);
        kernels_cpu_widen_affine(out + off, in + off, n - off, map, 0, (uint32_t)(e - b));
    }
}

void kernels_oracle_narrow(uint32_t *out, const uint64_t *in, size_t n, kernels_process_params params) {
    kernels_affine map = kernels_affine_power(params);
    uint64_t blocks = kernels_process_blocks(n);
    for (uint64_t b = 0; b < blocks; b += UINT32_MAX) {
        uint64_t e = blocks - b < UINT32_MAX ? blocks : b + UINT32_MAX;
        size_t off = (size_t)(b * KERNELS_PROCESS_THREADS);
        kernels_cpu_narrow_affine(out + off, in + off, n - off, map, 0, (uint32_t)(e - b));
    }
}

void kernels_oracle_spin(uint32_t *marks, uint32_t blocks, uint32_t mark) {
    kernels_cpu_spin(marks, mark, 0, blocks);
}

uint64_t kernels_oracle_checksum(const uint32_t *in, size_t n) {
    uint64_t sum = 0;
    uint64_t blocks = kernels_checksum_blocks(n);
    for (uint64_t b = 0; b < blocks; b += UINT32_MAX) {
        uint64_t e = blocks - b < UINT32_MAX ? blocks : b + UINT32_MAX;
        size_t off = (size_t)(b * KERNELS_CHECKSUM_BLOCK_ELEMS);
        kernels_cpu_checksum(&sum, in + off, n - off, 0, (uint32_t)(e - b));
    }
    return sum;
}
