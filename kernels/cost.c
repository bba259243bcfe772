/* kernels/cost.c: per-block cost of each kernel, counted from its device code (see cost.h). */
#include "kernels/cost.h"

kernels_cost kernels_process_cost(kernels_process_params params) {
    const double threads = KERNELS_PROCESS_THREADS;
    kernels_cost c = {0};
    c.int_ops = threads * (double)params.iters;
    c.chain_ops = (double)params.iters;
    c.dram_bytes = threads * 2.0 * sizeof(uint32_t);
    c.regs_per_thread = KERNELS_PROCESS_REGS_SM90;
    return c;
}

/* widen and narrow: one IMAD an iteration, one more op, 4 + 8 bytes a thread. */
static kernels_cost wide_cost(kernels_process_params params, uint32_t regs) {
    const double threads = KERNELS_PROCESS_THREADS;
    kernels_cost c = {0};
    c.int_ops = threads * ((double)params.iters + 1.0);
    c.chain_ops = (double)params.iters + 1.0;
    c.dram_bytes = threads * (double)(sizeof(uint32_t) + sizeof(uint64_t));
    c.regs_per_thread = regs;
    return c;
}

kernels_cost kernels_widen_cost(kernels_process_params params) { return wide_cost(params, KERNELS_WIDEN_REGS_SM90); }

kernels_cost kernels_narrow_cost(kernels_process_params params) { return wide_cost(params, KERNELS_NARROW_REGS_SM90); }

kernels_cost kernels_spin_cost(uint32_t threads, uint64_t duration_ns) {
    (void)threads; /* every thread waits the same duration_ns at once */
    kernels_cost c = {0};
    c.fixed_ns = (double)duration_ns;
    c.dram_bytes = sizeof(uint32_t);
    c.regs_per_thread = KERNELS_SPIN_REGS_SM90;
    return c;
}

kernels_cost kernels_checksum_cost(void) {
    const double threads = KERNELS_CHECKSUM_THREADS;
    const double items = KERNELS_CHECKSUM_ITEMS;
    const double warps = KERNELS_CHECKSUM_THREADS / 32u;
    const double shuffle_steps = 5.0; /* log2(32) */
    const double per_thread = 2.0 * items + 4.0 * shuffle_steps;
    const double tail = 2.0 * warps + 2.0; /* thread 0: warp sums, then the atomic */
    kernels_cost c = {0};
    c.int_ops = threads * per_thread + tail;
    c.chain_ops = per_thread + tail;
    c.dram_bytes = threads * items * sizeof(uint32_t) + sizeof(uint64_t);
    c.regs_per_thread = KERNELS_CHECKSUM_REGS_SM90;
    return c;
}

kernels_cost kernels_cost_of(kernels_id id, kernels_process_params params, uint32_t threads,
                             uint64_t duration_ns) {
    switch (id) {
    case KERNELS_PROCESS: return kernels_process_cost(params);
    case KERNELS_SPIN: return kernels_spin_cost(threads, duration_ns);
    case KERNELS_CHECKSUM: return kernels_checksum_cost();
    case KERNELS_WIDEN: return kernels_widen_cost(params);
    case KERNELS_NARROW: return kernels_narrow_cost(params);
    case KERNELS_COUNT: break;
    }
    kernels_cost none = {0};
    return none;
}
