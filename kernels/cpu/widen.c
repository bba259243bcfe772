/* kernels/cpu/widen.c: the CPU bodies of widen and narrow, lab 09's two stages (see cpu.h). */
#include "kernels/cpu/cpu.h"
#include "kernels/math.h"

/* Elements [first, last) of blocks [block_begin, block_end), KERNELS_PROCESS_THREADS each,
 * over n elements. */
static void span(size_t n, uint32_t block_begin, uint32_t block_end, size_t *first, size_t *last) {
    uint64_t lo = (uint64_t)block_begin * KERNELS_PROCESS_THREADS;
    uint64_t hi = (uint64_t)block_end * KERNELS_PROCESS_THREADS;
    *first = (size_t)(lo < n ? lo : n);
    *last = (size_t)(hi < n ? hi : n);
    if (*last < *first) *last = *first;
}

void kernels_cpu_widen_affine(uint64_t *out, const uint32_t *in, size_t n, kernels_affine map, uint32_t block_begin,
                              uint32_t block_end) {
    size_t first, last;
    span(n, block_begin, block_end, &first, &last);
    for (size_t i = first; i < last; i++) out[i] = kernels_widen_pack(kernels_affine_apply(map, in[i]), in[i]);
}

void kernels_cpu_narrow_affine(uint32_t *out, const uint64_t *in, size_t n, kernels_affine map, uint32_t block_begin,
                               uint32_t block_end) {
    size_t first, last;
    span(n, block_begin, block_end, &first, &last);
    for (size_t i = first; i < last; i++)
        out[i] = kernels_narrow_add(kernels_affine_apply(map, kernels_wide_result(in[i])), in[i]);
}
