/* kernels/math.h: the per-element formulas that the device code and the CPU bodies share.
 *
 * Each function is compiled for the host by the C compiler and for both host and device by
 * nvcc, so the GPU and the CPU evaluate literally the same integer expression. */
#ifndef STREAMLAB_KERNELS_MATH_H
#define STREAMLAB_KERNELS_MATH_H

#include <stdint.h>

#if defined(__CUDACC__)
#define KERNELS_HD static __host__ __device__ __forceinline__
#else
#define KERNELS_HD static inline
#endif

/* One step of process: f(x) = x * mul + add, mod 2^32 (a single IMAD on the GPU). */
KERNELS_HD uint32_t kernels_affine_step(uint32_t x, uint32_t mul, uint32_t add) {
    return x * mul + add;
}

/* widen's value: the result f^iters(x) in the low half, the input x beside it in the high
 * half (a residual carried to the next stage). */
KERNELS_HD uint64_t kernels_widen_pack(uint32_t result, uint32_t x) { return ((uint64_t)x << 32) | result; }

/* The half of widen's value that narrow iterates: the result. */
KERNELS_HD uint32_t kernels_wide_result(uint64_t wide) { return (uint32_t)wide; }

/* narrow's value: its own f^iters of the result, plus the residual (mod 2^32). */
KERNELS_HD uint32_t kernels_narrow_add(uint32_t result, uint64_t wide) { return result + (uint32_t)(wide >> 32); }

/* The marker that block `block` of a spin launch writes to marks[block]. */
KERNELS_HD uint32_t kernels_spin_mark(uint32_t mark, uint32_t block) { return mark + block; }

#endif
