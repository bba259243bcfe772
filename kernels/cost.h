/* kernels/cost.h: what one block of each kernel costs, for the simulator's timing model.
 *
 * kernels_cost has the fields of sim_kernel_cost (sim/include/streamlab_sim.h), in the same
 * order and with the same meaning, so the simulator's launchers copy it field by field.
 * It is declared here, not taken from streamlab_sim.h, so this description stays plain C
 * with no CUDA runtime header and builds (and is tested) in every configuration:
 *   block_ns = fixed_ns + max(share * throughput_ns, chain_ns)
 *   throughput_ns = max(int_ops / int rate, fp32_ops / fp32 rate, dram_bytes / dram share)
 *   chain_ns = chain_ops * op latency
 * All counts are per block, for a full block (the last block of a grid that is not a
 * multiple of the block size is charged as a full one: its idle lanes still issue). */
#ifndef STREAMLAB_KERNELS_COST_H
#define STREAMLAB_KERNELS_COST_H

#include <stdint.h>

#include "kernels/params.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kernels_cost {
    double fixed_ns;          /* device-independent time (spin's wait) */
    double int_ops;           /* 32-bit integer operations, summed over the block's threads */
    double fp32_ops;          /* fp32 operations, summed over the block's threads */
    double dram_bytes;        /* device-memory bytes read plus written */
    double chain_ops;         /* longest dependent chain of operations in one thread */
    uint32_t regs_per_thread; /* registers per thread of the sm_90 build; 0 means 32 */
} kernels_cost;

/* Registers per thread that ptxas gives each kernel for sm_90 (H100/H200), the devices
 * the simulator is calibrated against. gpu_bitexact_test checks them on an sm_90 device. */
#define KERNELS_PROCESS_REGS_SM90 10u
#define KERNELS_SPIN_REGS_SM90 8u
#define KERNELS_CHECKSUM_REGS_SM90 24u
#define KERNELS_WIDEN_REGS_SM90 14u
#define KERNELS_NARROW_REGS_SM90 11u

/* process: one IMAD per iteration per thread (int_ops = threads * iters); the iterations of
 * a thread form one dependent chain (chain_ops = iters); each thread reads and writes one
 * uint32 (dram_bytes = threads * 8). */
kernels_cost kernels_process_cost(kernels_process_params params);
/* widen and narrow: process's IMAD chain (iters a thread) and one more integer op (the pack,
 * the residual's add); widen reads a uint32 and writes a uint64 a thread, narrow the other
 * way round (dram_bytes = threads * 12). */
kernels_cost kernels_widen_cost(kernels_process_params params);
kernels_cost kernels_narrow_cost(kernels_process_params params);
/* spin: the block holds its SM slot for duration_ns whatever the device; thread 0 writes
 * one uint32 marker. */
kernels_cost kernels_spin_cost(uint32_t threads, uint64_t duration_ns);
/* checksum: per thread KERNELS_CHECKSUM_ITEMS loads and 64-bit adds (2 integer ops each),
 * then a 5-step warp shuffle reduction (shuffle pair + 64-bit add: 4 ops a step); thread 0
 * adds the 8 warp sums and does one 64-bit atomic. */
kernels_cost kernels_checksum_cost(void);

/* The cost of kernel `id` as launched with these arguments (the per-kernel functions above
 * behind one entry point, for tables). params is used by process, threads and duration_ns
 * by spin. */
kernels_cost kernels_cost_of(kernels_id id, kernels_process_params params, uint32_t threads,
                             uint64_t duration_ns);

#ifdef __cplusplus
}
#endif

#endif
