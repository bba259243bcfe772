/* sim/core/compute.h: the SMs. A kernel (or a memset / device-to-device copy, which run as
 * kernels) starts after the device-side launch overhead; its blocks are then dispatched
 * onto SMs with room for them (threads, blocks, registers and shared memory per SM), the
 * highest stream priority first, in launch order within a priority, spreading a kernel's
 * blocks breadth-first over the SMs; a running block is never preempted, and kernels of
 * different streams share SMs when their blocks fit. The SMs fall into classes (SM s in
 * class s mod sm_classes) that differ slightly in block turnaround; blocks dispatched at
 * one instant to the SMs of one class retire together, as one event: a block holds its
 * slot for the kernel's block time plus its class's turnaround (docs/calibration.md says
 * why). Blocks of different kernels on one SM share its throughput: a block's time is its
 * kernel's block_ns while nothing else is on its SMs, longer by what the other kernels'
 * blocks there take of the SM while they run (each kernel at most the whole SM), and a group in flight is priced again
 * whenever that changes (docs/calibration.md, "Kernels that share SMs"). The kernel's CPU
 * body runs for each group's block range when the group retires. */
#ifndef STREAMLAB_SIM_COMPUTE_H
#define STREAMLAB_SIM_COMPUTE_H

#include "sim/core/engine.h"
#include "sim/core/eventq.h"
#include "sim/core/ops.h"
#include "sim/core/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

void sim_compute_init(const sim_profile *profile, const sim_engine_env *scheduler);
void sim_compute_reset(void);
/* A compute op reached the head of its stream at now; queued: it was visible to the device
 * before the kernel ahead of it in its stream ended, so it pays the profile's
 * kernel_queued_overhead_ns where that is less than its own overhead. */
void sim_compute_start(sim_op *op, uint64_t now, bool queued);
/* Its launch overhead is over (SIM_EV_KERNEL_READY). */
void sim_compute_ready(sim_op *op, uint64_t now);
/* A block group retired (SIM_EV_GROUP). */
void sim_compute_group_done(const sim_ev *ev);
/* Frees a block group whose SIM_EV_GROUP event is being discarded (reset). */
void sim_compute_discard_group(void *group);

#ifdef __cplusplus
}
#endif

#endif
