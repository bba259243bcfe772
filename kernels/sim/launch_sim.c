/* kernels/sim/launch_sim.c: kernels.h on the simulated GPU.
 *
 * Each launcher checks its arguments exactly as the GPU launchers do (validate.h), then
 * hands the simulator a sim_kernel_launch: the kernel's name and shape, its cost per block
 * (cost.h, copied into the simulator's struct), the memory it reads and writes (access.h)
 * and a CPU body (cpu/cpu.h) that the simulator runs for each range of blocks at the
 * virtual time those blocks finish. The program cannot touch device memory from the host,
 * so each body hands the CPU code the simulator's view of its pointers (sim_device_view).
 * The simulator records the launch for the timeline and the race checker itself. */
#include <string.h>

#include <streamlab_sim.h>

#include "kernels/access.h"
#include "kernels/cost.h"
#include "kernels/cpu/cpu.h"
#include "kernels/kernels.h"
#include "kernels/validate.h"
#include "trace/record/recorder.h"

static cudaError_t refused(kernels_args why) {
    return why == KERNELS_ARGS_INVALID_CONFIGURATION ? cudaErrorInvalidConfiguration : cudaErrorInvalidValue;
}

static sim_kernel_cost sim_cost(kernels_cost c) {
    sim_kernel_cost s = {
        .fixed_ns = c.fixed_ns,
        .int_ops = c.int_ops,
        .fp32_ops = c.fp32_ops,
        .dram_bytes = c.dram_bytes,
        .chain_ops = c.chain_ops,
        .regs_per_thread = c.regs_per_thread,
    };
    return s;
}

static sim_kernel_launch launch_of(kernels_id id, uint32_t blocks, uint32_t threads, kernels_cost cost) {
    sim_kernel_launch l;
    memset(&l, 0, sizeof(l));
    l.name = kernels_name(id);
    l.grid.x = blocks;
    l.grid.y = l.grid.z = 1;
    l.block.x = threads;
    l.block.y = l.block.z = 1;
    l.cost = sim_cost(cost);
    l.body_uses_device_view = true;
    return l;
}

/* ---- process ------------------------------------------------------------------------ */

typedef struct process_args {
    uint32_t *out;
    const uint32_t *in;
    size_t n;
    kernels_affine map; /* f^iters, composed once at launch */
} process_args;

static void process_body(const void *args, uint32_t block_begin, uint32_t block_end) {
    const process_args *a = args;
    kernels_cpu_process_affine(sim_device_view(a->out), sim_device_view(a->in), a->n, a->map, block_begin,
                               block_end);
}

cudaError_t kernels_process(uint32_t *out, const uint32_t *in, size_t n, kernels_process_params params,
                            cudaStream_t stream) {
    TRACE_CALL_SITE();
    kernels_args why = kernels_check_process(out, in, n);
    if (why != KERNELS_ARGS_OK) return refused(why);
    process_args args = {out, in, n, kernels_affine_power(params)};
    sim_kernel_launch l = launch_of(KERNELS_PROCESS, (uint32_t)kernels_process_blocks(n), KERNELS_PROCESS_THREADS,
                                    kernels_process_cost(params));
    l.body = process_body;
    l.args = &args;
    l.args_size = sizeof(args);
    l.n_ranges = kernels_process_access(l.ranges, out, in, n);
    return sim_launch_kernel(&l, stream);
}

/* ---- widen and narrow (lab 09's stages) ------------------------------------------------ */

typedef struct wide_args {
    void *out;
    const void *in;
    size_t n;
    kernels_affine map; /* f^iters, composed once at launch */
} wide_args;

static void widen_body(const void *args, uint32_t block_begin, uint32_t block_end) {
    const wide_args *a = args;
    kernels_cpu_widen_affine(sim_device_view(a->out), sim_device_view(a->in), a->n, a->map, block_begin, block_end);
}

static void narrow_body(const void *args, uint32_t block_begin, uint32_t block_end) {
    const wide_args *a = args;
    kernels_cpu_narrow_affine(sim_device_view(a->out), sim_device_view(a->in), a->n, a->map, block_begin, block_end);
}

cudaError_t kernels_widen(uint64_t *out, const uint32_t *in, size_t n, kernels_process_params params,
                          cudaStream_t stream) {
    TRACE_CALL_SITE();
    kernels_args why = kernels_check_wide("kernels_widen", out, in, n);
    if (why != KERNELS_ARGS_OK) return refused(why);
    wide_args args = {out, in, n, kernels_affine_power(params)};
    sim_kernel_launch l = launch_of(KERNELS_WIDEN, (uint32_t)kernels_process_blocks(n), KERNELS_PROCESS_THREADS,
                                    kernels_widen_cost(params));
    l.body = widen_body;
    l.args = &args;
    l.args_size = sizeof(args);
    l.n_ranges = kernels_widen_access(l.ranges, out, in, n);
    return sim_launch_kernel(&l, stream);
}

cudaError_t kernels_narrow(uint32_t *out, const uint64_t *in, size_t n, kernels_process_params params,
                           cudaStream_t stream) {
    TRACE_CALL_SITE();
    kernels_args why = kernels_check_wide("kernels_narrow", out, in, n);
    if (why != KERNELS_ARGS_OK) return refused(why);
    wide_args args = {out, in, n, kernels_affine_power(params)};
    sim_kernel_launch l = launch_of(KERNELS_NARROW, (uint32_t)kernels_process_blocks(n), KERNELS_PROCESS_THREADS,
                                    kernels_narrow_cost(params));
    l.body = narrow_body;
    l.args = &args;
    l.args_size = sizeof(args);
    l.n_ranges = kernels_narrow_access(l.ranges, out, in, n);
    return sim_launch_kernel(&l, stream);
}

/* ---- spin ----------------------------------------------------------------------------- */

typedef struct spin_args {
    uint32_t *marks;
    uint32_t mark;
} spin_args;

static void spin_body(const void *args, uint32_t block_begin, uint32_t block_end) {
    const spin_args *a = args;
    kernels_cpu_spin(sim_device_view(a->marks), a->mark, block_begin, block_end);
}

cudaError_t kernels_spin(uint32_t *marks, uint32_t blocks, uint32_t threads, uint64_t duration_ns, uint32_t mark,
                         cudaStream_t stream) {
    TRACE_CALL_SITE();
    kernels_args why = kernels_check_spin(marks, blocks, threads);
    if (why != KERNELS_ARGS_OK) return refused(why);
    spin_args args = {marks, mark};
    sim_kernel_launch l = launch_of(KERNELS_SPIN, blocks, threads, kernels_spin_cost(threads, duration_ns));
    l.body = spin_body;
    l.args = &args;
    l.args_size = sizeof(args);
    l.n_ranges = kernels_spin_access(l.ranges, marks, blocks);
    return sim_launch_kernel(&l, stream);
}

/* ---- checksum --------------------------------------------------------------------------- */

typedef struct checksum_args {
    uint64_t *sum;
    const uint32_t *in;
    size_t n;
} checksum_args;

static void checksum_body(const void *args, uint32_t block_begin, uint32_t block_end) {
    const checksum_args *a = args;
    kernels_cpu_checksum(sim_device_view(a->sum), sim_device_view(a->in), a->n, block_begin, block_end);
}

cudaError_t kernels_checksum(uint64_t *sum, const uint32_t *in, size_t n, cudaStream_t stream) {
    TRACE_CALL_SITE();
    kernels_args why = kernels_check_checksum(sum, in, n);
    if (why != KERNELS_ARGS_OK) return refused(why);
    checksum_args args = {sum, in, n};
    sim_kernel_launch l = launch_of(KERNELS_CHECKSUM, (uint32_t)kernels_checksum_blocks(n),
                                    KERNELS_CHECKSUM_THREADS, kernels_checksum_cost());
    l.body = checksum_body;
    l.args = &args;
    l.args_size = sizeof(args);
    l.n_ranges = kernels_checksum_access(l.ranges, sum, in, n);
    return sim_launch_kernel(&l, stream);
}
