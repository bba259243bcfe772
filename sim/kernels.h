/* sim/kernels.h: turning a launch (grid, block, shared memory, registers, cost) into SM
 * work: the launch's validity as the runtime checks it, a block's residency footprint,
 * and how long a block runs on the current profile (the cost formula of
 * streamlab_sim.h). Used by sim_launch_kernel and by memsets and device-to-device copies,
 * which run as kernels. */
#ifndef STREAMLAB_SIM_KERNELS_H
#define STREAMLAB_SIM_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime.h>

#include "sim/core/ops.h"
#include "sim/profile_choice.h"
#include "streamlab_sim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fills k's shape (nblocks, threads, regs, smem) and block_ns from the launch, or returns
 * the error the runtime gives for it. */
cudaError_t sim_kernel_prepare(const sim_profile *p, dim3 grid, dim3 block, size_t shared_bytes,
                               const sim_kernel_cost *cost, sim_kernel_state *k);
/* How many blocks of this shape fit on one empty SM (0: none). */
uint32_t sim_kernel_residency(const sim_profile *p, uint32_t threads, uint32_t regs_per_thread,
                              size_t shared_bytes);
/* block_ns = fixed_ns + max(share * throughput_ns, chain_ns) (see streamlab_sim.h). */
double sim_kernel_block_ns(const sim_profile *p, const sim_kernel_cost *cost, uint32_t nblocks,
                           uint32_t residency);

#ifdef __cplusplus
}
#endif

#endif
