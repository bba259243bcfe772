/* kernels/cpu/process.c: the CPU bodies of process and of its two forms for lab 09's stages,
 * widen and narrow, over the same grid (see cpu.h). */
#include "kernels/cpu/cpu.h"
#include "kernels/math.h"

/* Elements [first, last) of blocks [block_begin, block_end) of a grid of
 * `per_block`-element blocks over n elements. */
static void block_span(size_t n, uint64_t per_block, uint32_t block_begin, uint32_t block_end,
                       size_t *first, size_t *last) {
    uint64_t lo = (uint64_t)block_begin * per_block;
    uint64_t hi = (uint64_t)block_end * per_block;
    if (lo > n) lo = n;
    if (hi > n) hi = n;
    if (hi < lo) hi = lo;
    *first = (size_t)lo;
    *last = (size_t)hi;
}

void kernels_cpu_process_affine(uint32_t *out, const uint32_t *in, size_t n, kernels_affine map,
                                uint32_t block_begin, uint32_t block_end) {
    size_t first, last;
    block_span(n, KERNELS_PROCESS_THREADS, block_begin, block_end, &first, &last);
    for (size_t i = first; i < last; i++) out[i] = kernels_affine_apply(map, in[i]);
}

void kernels_cpu_process(uint32_t *out, const uint32_t *in, size_t n, kernels_process_params params,
                         uint32_t block_begin, uint32_t block_end) {
    kernels_cpu_process_affine(out, in, n, kernels_affine_power(params), block_begin, block_end);
}

void kernels_cpu_widen_affine(uint64_t *out, const uint32_t *in, size_t n, kernels_affine map, uint32_t block_begin,
                              uint32_t block_end) {
    size_t first, last;
    block_span(n, KERNELS_PROCESS_THREADS, block_begin, block_end, &first, &last);
    for (size_t i = first; i < last; i++) out[i] = kernels_widen_pack(kernels_affine_apply(map, in[i]), in[i]);
}

void kernels_cpu_narrow_affine(uint32_t *out, const uint64_t *in, size_t n, kernels_affine map, uint32_t block_begin,
                               uint32_t block_end) {
    size_t first, last;
    block_span(n, KERNELS_PROCESS_THREADS, block_begin, block_end, &first, &last);
    for (size_t i = first; i < last; i++)
        out[i] = kernels_narrow_add(kernels_affine_apply(map, kernels_wide_result(in[i])), in[i]);
}
