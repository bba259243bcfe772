/* kernels/cpu/checksum.c: the CPU body of checksum (see cpu.h). */
#include "kernels/cpu/cpu.h"

void kernels_cpu_checksum(uint64_t *sum, const uint32_t *in, size_t n, uint32_t block_begin,
                          uint32_t block_end) {
    uint64_t lo = (uint64_t)block_begin * KERNELS_CHECKSUM_BLOCK_ELEMS;
    uint64_t hi = (uint64_t)block_end * KERNELS_CHECKSUM_BLOCK_ELEMS;
    if (hi > n) hi = n;
    uint64_t s = 0;
    for (uint64_t i = lo; i < hi; i++) s += in[i];
    *sum += s;
}
