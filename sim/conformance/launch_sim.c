/* sim/conformance/launch_sim.c: the conformance kernels on the simulated runtime (see
 * launch.h). */
#include "sim/conformance/launch.h"

#include <stdint.h>
#include <string.h>

#include "streamlab_sim.h"

cudaError_t conformance_launch_empty(dim3 grid, dim3 block, size_t shared_bytes, cudaStream_t stream) {
    sim_kernel_launch l;
    memset(&l, 0, sizeof(l));
    l.name = "empty";
    l.grid = grid;
    l.block = block;
    l.shared_bytes = shared_bytes;
    return sim_launch_kernel(&l, stream);
}

cudaError_t conformance_launch_spin(double ms, cudaStream_t stream) {
    sim_kernel_launch l;
    memset(&l, 0, sizeof(l));
    l.name = "spin";
    l.grid = (dim3){1, 1, 1};
    l.block = (dim3){32, 1, 1};
    l.cost.fixed_ns = ms * 1e6;
    return sim_launch_kernel(&l, stream);
}

static void poke_body(const void *args, uint32_t b0, uint32_t b1) {
    (void)b0;
    (void)b1;
    int *addr;
    memcpy(&addr, args, sizeof(addr));
    *addr = 1;
}

cudaError_t conformance_launch_poke(int *addr, cudaStream_t stream) {
    sim_kernel_launch l;
    memset(&l, 0, sizeof(l));
    l.name = "poke";
    l.grid = (dim3){1, 1, 1};
    l.block = (dim3){1, 1, 1};
    l.body = poke_body;
    l.args = &addr;
    l.args_size = sizeof(addr);
    l.n_ranges = 1;
    l.ranges[0].addr = (uint64_t)(uintptr_t)addr;
    l.ranges[0].bytes = sizeof(int);
    l.ranges[0].flags = TRACE_RANGE_WRITE;
    return sim_launch_kernel(&l, stream);
}
