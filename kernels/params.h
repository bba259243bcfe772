/* kernels/params.h: the arguments and launch shapes of the kernels the labs use.
 *
 * Shared by every face of a kernel: the GPU launchers, the CPU bodies, the cost and
 * memory-access descriptions and the simulator's launchers. Plain C with no CUDA header,
 * so the CPU side builds on machines without a toolkit. */
#ifndef STREAMLAB_KERNELS_PARAMS_H
#define STREAMLAB_KERNELS_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* process: out[i] = f^iters(in[i]) with f(x) = x * mul + add (mod 2^32). mul should be odd
 * so that f is a bijection and the output depends on every input bit. */
typedef struct kernels_process_params {
    uint32_t mul;
    uint32_t add;
    uint32_t iters; /* applications of f per element: the tunable compute per element */
} kernels_process_params;

/* The kernels, for tables indexed by kernel. */
typedef enum kernels_id {
    KERNELS_PROCESS = 0,
    KERNELS_SPIN,
    KERNELS_CHECKSUM,
    KERNELS_WIDEN,
    KERNELS_NARROW,
    KERNELS_COUNT
} kernels_id;

/* Threads per block of process: one thread per element. */
#define KERNELS_PROCESS_THREADS 256u
/* checksum: 256 threads per block, each adding 8 elements (strided by 256, so that a warp's
 * loads are contiguous); one block covers 2048 elements. */
#define KERNELS_CHECKSUM_THREADS 256u
#define KERNELS_CHECKSUM_ITEMS 8u
#define KERNELS_CHECKSUM_BLOCK_ELEMS (KERNELS_CHECKSUM_THREADS * KERNELS_CHECKSUM_ITEMS)
/* spin: the most threads a block may have (the device limit on every supported GPU). */
#define KERNELS_SPIN_MAX_THREADS 1024u
/* The largest grid.x a launch may have (cudaDeviceProp.maxGridSize[0], all GPUs since sm_30). */
#define KERNELS_MAX_GRID_X 2147483647u

/* widen and narrow (lab 09's two stages) run process's f^iters with the process
 * parameters, one thread per element in blocks of KERNELS_PROCESS_THREADS, and the same
 * number of blocks (kernels_process_blocks). */

/* "process", "spin", "checksum", "widen", "narrow": the name on the timeline and in race
 * reports. */
const char *kernels_name(kernels_id id);

/* Blocks of process for n elements (0 when n is 0). May exceed KERNELS_MAX_GRID_X; the
 * launchers reject such n. */
uint64_t kernels_process_blocks(size_t n);
/* Blocks of checksum for n elements (0 when n is 0). */
uint64_t kernels_checksum_blocks(size_t n);

#ifdef __cplusplus
}
#endif

#endif
