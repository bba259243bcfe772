/* kernels/cpu/cpu.h: the CPU bodies of the kernels, bit-exact with the device code.
 *
 * Each body runs blocks [block_begin, block_end) of the launch's grid, in the grid's block
 * numbering, so the simulator can run a kernel wave by wave at the virtual times its blocks
 * finish. The oracle helpers run a whole launch at once: the lab harness uses them to
 * compute the expected output.
 *
 * process is not iterated here: f^iters is itself an affine map, composed once per launch
 * by exponentiation by squaring (kernels_affine_power), then applied to each element, so a
 * body costs the same for any iters. Integer arithmetic mod 2^32 makes this exact. */
#ifndef STREAMLAB_KERNELS_CPU_H
#define STREAMLAB_KERNELS_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/params.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The affine map x -> a * x + c (mod 2^32). */
typedef struct kernels_affine {
    uint32_t a;
    uint32_t c;
} kernels_affine;

/* outer ∘ inner: x -> outer(inner(x)). */
kernels_affine kernels_affine_compose(kernels_affine outer, kernels_affine inner);
/* f^iters for f(x) = x * mul + add; iters 0 gives the identity (1, 0). */
kernels_affine kernels_affine_power(kernels_process_params params);
/* a * x + c (mod 2^32). */
uint32_t kernels_affine_apply(kernels_affine map, uint32_t x);

/* ---- bodies over a block range ------------------------------------------------------ */

/* process: blocks of KERNELS_PROCESS_THREADS elements; out may equal in (in place). */
void kernels_cpu_process(uint32_t *out, const uint32_t *in, size_t n, kernels_process_params params,
                         uint32_t block_begin, uint32_t block_end);
/* The same with f^iters already composed (what a simulator launch computes once). */
void kernels_cpu_process_affine(uint32_t *out, const uint32_t *in, size_t n, kernels_affine map,
                                uint32_t block_begin, uint32_t block_end);

/* widen (lab 09's stage 1): out[i] = kernels_widen_pack(map(in[i]), in[i]), 8 bytes an
 * element; narrow (its stage 2): out[i] = kernels_narrow_add(map(low half of in[i]), in[i]).
 * Blocks of KERNELS_PROCESS_THREADS elements; map is f^iters, composed once. */
void kernels_cpu_widen_affine(uint64_t *out, const uint32_t *in, size_t n, kernels_affine map, uint32_t block_begin,
                              uint32_t block_end);
void kernels_cpu_narrow_affine(uint32_t *out, const uint64_t *in, size_t n, kernels_affine map, uint32_t block_begin,
                               uint32_t block_end);

/* spin: block b writes kernels_spin_mark(mark, b) to marks[b]. The CPU does not spin: the
 * simulator charges the duration through the kernel's cost. */
void kernels_cpu_spin(uint32_t *marks, uint32_t mark, uint32_t block_begin, uint32_t block_end);

/* checksum: adds in[] of blocks [block_begin, block_end) (KERNELS_CHECKSUM_BLOCK_ELEMS
 * elements each, clipped to n) to *sum, mod 2^64. Addition commutes, so any block order
 * gives the GPU's result. */
void kernels_cpu_checksum(uint64_t *sum, const uint32_t *in, size_t n, uint32_t block_begin,
                          uint32_t block_end);

/* ---- whole launches (the correctness oracle) ----------------------------------------- */

/* out[i] = f^iters(in[i]) for i < n. */
void kernels_oracle_process(uint32_t *out, const uint32_t *in, size_t n, kernels_process_params params);
/* A whole widen launch, and a whole narrow launch. */
void kernels_oracle_widen(uint64_t *out, const uint32_t *in, size_t n, kernels_process_params params);
void kernels_oracle_narrow(uint32_t *out, const uint64_t *in, size_t n, kernels_process_params params);
/* marks[b] = kernels_spin_mark(mark, b) for b < blocks. */
void kernels_oracle_spin(uint32_t *marks, uint32_t blocks, uint32_t mark);
/* The sum of in[0..n) mod 2^64 (what *sum holds after a checksum launch on a zeroed sum). */
uint64_t kernels_oracle_checksum(const uint32_t *in, size_t n);

#ifdef __cplusplus
}
#endif

#endif
