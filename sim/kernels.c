/* sim/kernels.c: launch validation, residency and block cost (see kernels.h), and
 * sim_launch_kernel. */
#include "sim/kernels.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/call.h"
#include "sim/stream_capture.h"
#include "sim/devices.h"
#include "sim/core/memory.h"
#include "sim/core/scheduler.h"
#include "sim/stream_handles.h"
#include "trace/record/recorder.h"

/* The largest parameter block a launch may pass (CUDA 12.1 and later). */
#define MAX_ARGS_BYTES 32764u

static uint32_t warps_of(uint32_t threads) { return (threads + 31) / 32; }

/* Registers are allocated per warp in units of 256. */
static uint32_t regs_per_block(uint32_t threads, uint32_t regs_per_thread) {
    uint32_t per_warp = (regs_per_thread * 32 + 255) / 256 * 256;
    return warps_of(threads) * per_warp;
}

uint32_t sim_kernel_residency(const sim_profile *p, uint32_t threads, uint32_t regs_per_thread,
                              size_t shared_bytes) {
    uint32_t n = (uint32_t)p->max_blocks_per_sm;
    uint32_t by_threads = (uint32_t)p->max_threads_per_sm / (warps_of(threads) * 32);
    if (by_threads < n) n = by_threads;
    uint32_t regs = regs_per_block(threads, regs_per_thread);
    uint32_t by_regs = (uint32_t)p->regs_per_sm / regs;
    if (by_regs < n) n = by_regs;
    size_t smem = shared_bytes + (size_t)p->reserved_shared_mem_per_block;
    if (smem > 0) {
        size_t by_smem = (size_t)p->shared_mem_per_sm / smem;
        if (by_smem < n) n = (uint32_t)by_smem;
    }
    return n;
}

/* The parts of a block's time: its share of the SM's blocks, the SM time it needs
 * (throughput_ns) and its dependent chain (chain_ns). */
static uint32_t block_share(const sim_profile *p, uint32_t nblocks, uint32_t residency) {
    uint32_t sms = (uint32_t)p->sm_count;
    uint32_t share = (nblocks + sms - 1) / sms;
    if (share > residency) share = residency;
    if (share < 1) share = 1;
    return share;
}

static double throughput_ns(const sim_profile *p, const sim_kernel_cost *c) {
    double thr = c->int_ops / p->sm_int_ops_per_ns;
    double fp = c->fp32_ops / p->sm_fp32_ops_per_ns;
    double mem = c->dram_bytes / (p->dram_gbps / p->sm_count);
    if (fp > thr) thr = fp;
    if (mem > thr) thr = mem;
    return thr;
}

double sim_kernel_block_ns(const sim_profile *p, const sim_kernel_cost *c, uint32_t nblocks,
                           uint32_t residency) {
    uint32_t share = block_share(p, nblocks, residency);
    double thr = throughput_ns(p, c);
    double chain = c->chain_ops * p->op_latency_ns;
    double busy = share * thr;
    return c->fixed_ns + (busy > chain ? busy : chain);
}

static bool cost_ok(const sim_kernel_cost *c) {
    const double v[] = {c->fixed_ns, c->int_ops, c->fp32_ops, c->dram_bytes, c->chain_ops};
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
        if (!isfinite(v[i]) || v[i] < 0 || v[i] > 1e18) return false;
    return true;
}

cudaError_t sim_kernel_prepare(const sim_profile *p, dim3 grid, dim3 block, size_t shared_bytes,
                               const sim_kernel_cost *cost, sim_kernel_state *k) {
    /* Shapes the device can never run: the CUDA 13 runtime answers cudaErrorInvalidValue
     * (measured on an H200; older runtimes said cudaErrorInvalidConfiguration). */
    if (grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x == 0 || block.y == 0 || block.z == 0)
        return cudaErrorInvalidValue;
    if (block.x > p->max_block_dim_x || block.y > p->max_block_dim_y || block.z > p->max_block_dim_z)
        return cudaErrorInvalidValue;
    uint64_t threads = (uint64_t)block.x * block.y * block.z;
    if (threads > (uint64_t)p->max_threads_per_block) return cudaErrorInvalidValue;
    if (grid.x > p->max_grid_dim_x || grid.y > p->max_grid_dim_y || grid.z > p->max_grid_dim_z)
        return cudaErrorInvalidValue;
    uint64_t nblocks = (uint64_t)grid.x * grid.y * grid.z;
    /* More blocks than a 32-bit count would take days to simulate; refuse them. */
    if (nblocks > UINT32_MAX) return cudaErrorInvalidValue;
    if (shared_bytes > (size_t)p->shared_mem_per_block) return cudaErrorInvalidValue;
    if (!cost_ok(cost)) return cudaErrorInvalidValue;
    uint32_t regs = cost->regs_per_thread ? cost->regs_per_thread : 32;
    if (regs > p->max_regs_per_thread || regs_per_block((uint32_t)threads, regs) > p->regs_per_block)
        return cudaErrorLaunchOutOfResources;
    uint32_t residency = sim_kernel_residency(p, (uint32_t)threads, regs, shared_bytes);
    if (residency == 0) return cudaErrorLaunchOutOfResources;
    k->nblocks = (uint32_t)nblocks;
    k->threads = warps_of((uint32_t)threads) * 32;
    k->regs = regs_per_block((uint32_t)threads, regs);
    k->smem = (uint32_t)(shared_bytes + (size_t)p->reserved_shared_mem_per_block);
    k->block_ns = sim_kernel_block_ns(p, cost, (uint32_t)nblocks, residency);
    /* The parts of block_ns, for pricing a block beside other kernels' (compute.h). */
    k->fixed_ns = cost->fixed_ns;
    k->throughput_ns = throughput_ns(p, cost);
    k->chain_ns = cost->chain_ops * p->op_latency_ns;
    k->share = block_share(p, (uint32_t)nblocks, residency);
    k->overhead_ns = p->kernel_overhead_ns;
    return cudaSuccess;
}

cudaError_t sim_launch_kernel(const sim_kernel_launch *launch, cudaStream_t stream) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, "cudaLaunchKernel", 0);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    const sim_profile *p = sim_prof();
    uint32_t si;
    bool stream_ok = sim_stream_resolve(stream, &si);
    bool blocking = stream_ok && (sim_stream_at(si)->legacy || sim_stream_at(si)->blocking);
    bool captured = false;
    cudaError_t cap_err = stream_ok ? sim_capture_enqueue_check(si, &captured) : cudaSuccess;
    /* A capturing stream records the launch as a node: host work only, nothing submitted. */
    sim_host_charge(captured ? p->capture_call_ns : p->launch_ns + (blocking ? p->launch_blocking_extra_ns : 0));
    if (!launch) return sim_call_end(&call, cudaErrorInvalidValue);
    if (!stream_ok) return sim_call_end(&call, cudaErrorInvalidResourceHandle);
    /* A launch runs on its stream's device, whichever device is current: what the CUDA 13
     * runtime does, measured on two H200s (a launch into GPU 1's stream with GPU 0 current
     * ran on GPU 1), although the Programming Guide's "Stream and Event Behavior" says such
     * a launch fails (docs/simulator.md, "Several devices"). The stream of the legacy
     * handle (NULL) is the current device's, so it is this device there. */
    uint32_t device = sim_stream_at(si)->device;
    if (cap_err != cudaSuccess) return sim_call_end(&call, cap_err);
    if (launch->n_ranges <= TRACE_MAX_RANGES) {
        /* Another device's memory needs peer access from the one it runs on. */
        err = sim_devices_check_ranges(device, launch->ranges, launch->n_ranges);
        if (err != cudaSuccess) return sim_call_end(&call, err);
    }
    if ((launch->args_size > 0 && !launch->args) || launch->args_size > MAX_ARGS_BYTES ||
        launch->n_ranges > TRACE_MAX_RANGES)
        return sim_call_end(&call, cudaErrorInvalidValue);
    sim_op *op = sim_op_new(SIM_OP_COMPUTE);
    sim_kernel_state *k = &op->u.kernel;
    err = sim_kernel_prepare(p, launch->grid, launch->block, launch->shared_bytes, &launch->cost, k);
    if (err != cudaSuccess) {
        sim_op_free(op);
        return sim_call_end(&call, err);
    }
    k->body = launch->body;
    k->body_views = launch->body_uses_device_view;
    k->priority = sim_stream_at(si)->priority;
    /* The arguments are copied now, as a launch copies its parameter block. */
    if (launch->args_size <= sizeof(k->inline_args)) {
        k->args = k->inline_args;
    } else {
        k->args = malloc(launch->args_size);
        if (!k->args) {
            sim_op_free(op);
            return sim_call_end(&call, cudaErrorMemoryAllocation);
        }
    }
    if (launch->args_size) memcpy(k->args, launch->args, launch->args_size);
    k->args_size = (uint32_t)launch->args_size;
    k->illegal = !sim_mem_ranges_accessible(launch->ranges, launch->n_ranges);

    trace_op t;
    memset(&t, 0, sizeof(t));
    t.kind = TRACE_OP_KERNEL;
    t.engine = TRACE_ENGINE_COMPUTE;
    t.batch = -1;
    snprintf(t.name, sizeof(t.name), "%s", launch->name && *launch->name ? launch->name : "kernel");
    t.grid[0] = launch->grid.x;
    t.grid[1] = launch->grid.y;
    t.grid[2] = launch->grid.z;
    t.block[0] = launch->block.x;
    t.block[1] = launch->block.y;
    t.block[2] = launch->block.z;
    t.enqueue_ns = call.start_ns;
    for (uint32_t i = 0; i < launch->n_ranges; i++)
        trace_op_add_range(&t, (const void *)(uintptr_t)launch->ranges[i].addr, launch->ranges[i].bytes,
                           launch->ranges[i].flags);
    sim_devices_mark_ranges(&t);
    if (captured) {
        sim_capture_add_op(si, op, &t);
        return sim_call_end(&call, cudaSuccess);
    }
    op->trace_id = trace_record(&t, sim_stream_trace_handle(si));
    op->visible_ns = sim_host_now() + (uint64_t)p->submit_latency_ns;
    sim_sched_enqueue(op, si);
    return sim_call_end(&call, cudaSuccess);
}
