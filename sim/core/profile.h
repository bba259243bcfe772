/* sim/core/profile.h: a device profile, the figures that describe one GPU and its host to the
 * simulator (SM resources, copy-engine bandwidths, host-side API costs, ...), loaded from
 * a JSON file of sim/profiles/ embedded in the library, or from a path.
 *
 * A profile file has "name", "device_name", "source" (where its figures come from, in
 * general) and four sections, "device", "copy", "compute" and "host", each mapping every
 * parameter below to {"value": number, "source": "where this figure comes from"}, and
 * optionally "measured": true or false (a calibrated profile, //sim:calibrate, marks which
 * values its probes measured and which it copied from its base profile). Every parameter
 * must be present, with a source; unknown keys are errors (they are typos). A calibrated
 * profile also has a top-level "base", the profile its unmeasured values come from. The
 * "copy" section may also hold the pageable copy curves, "h2d_pageable_curve" and
 * "d2h_pageable_curve" (both or neither: profile_curve.h); sim_profile_pageable_ns says
 * what a pageable copy costs with them or without. The "host" section may hold
 * "host_copy_curve", what a host memcpy costs the CPU (sim_profile_host_copy_ns), and
 * "host_copy_cold_curve" of data no cache holds (sim_profile_host_copy_cold_ns), and the
 * curves of cudaMalloc and cudaFree by size; the "device" section "wake_curve", what the
 * first work after the device idled costs (sim_profile_wake_ns). */
#ifndef STREAMLAB_SIM_CORE_PROFILE_H
#define STREAMLAB_SIM_CORE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "sim/core/profile_curve.h"
#include "sim/core/profile_link.h"

#ifdef __cplusplus
extern "C" {
#endif

/* X(section, key, integer, min, max): every parameter of a profile. Times are in ns,
 * bandwidths in GB/s (= bytes per ns), sizes in bytes. */
#define SIM_PROFILE_PARAMS(X)                                                                  \
    X(device, compute_major, true, 1, 20)                                                     \
    X(device, compute_minor, true, 0, 9)                                                      \
    X(device, sm_count, true, 1, 1024)                                                        \
    X(device, clock_khz, true, 1e4, 1e7)                                                      \
    X(device, memory_clock_khz, true, 1e4, 1e8)                                               \
    X(device, memory_bus_width, true, 32, 16384)                                              \
    X(device, total_global_mem, true, 1 << 20, 1e15)                                          \
    X(device, total_const_mem, true, 0, 1e9)                                                  \
    X(device, l2_cache_bytes, true, 0, 1e10)                                                  \
    X(device, async_engine_count, true, 1, 16)                                                \
    X(device, warp_size, true, 32, 32)                                                        \
    X(device, max_threads_per_block, true, 32, 4096)                                          \
    X(device, max_block_dim_x, true, 1, 4096)                                                 \
    X(device, max_block_dim_y, true, 1, 4096)                                                 \
    X(device, max_block_dim_z, true, 1, 4096)                                                 \
    X(device, max_grid_dim_x, true, 1, 2147483647)                                            \
    X(device, max_grid_dim_y, true, 1, 2147483647)                                            \
    X(device, max_grid_dim_z, true, 1, 2147483647)                                            \
    X(device, max_threads_per_sm, true, 32, 65536)                                            \
    X(device, max_blocks_per_sm, true, 1, 1024)                                               \
    X(device, regs_per_sm, true, 1024, 1 << 24)                                               \
    X(device, regs_per_block, true, 1024, 1 << 24)                                            \
    X(device, max_regs_per_thread, true, 16, 1024)                                            \
    X(device, shared_mem_per_sm, true, 0, 1 << 24)                                            \
    X(device, shared_mem_per_block, true, 0, 1 << 24)                                         \
    X(device, shared_mem_per_block_optin, true, 0, 1 << 24)                                   \
    X(device, reserved_shared_mem_per_block, true, 0, 1 << 20)                                \
    X(device, priority_least, true, -64, 64)                                                  \
    X(device, priority_greatest, true, -64, 64)                                               \
    X(device, max_connections, true, 1, 32)                                                   \
    X(copy, h2d_pinned_gbps, false, 1e-3, 1e5)                                                \
    X(copy, d2h_pinned_gbps, false, 1e-3, 1e5)                                                \
    X(copy, bidir_total_gbps, false, 1e-3, 2e5)                                               \
    X(copy, h2d_pageable_gbps, false, 1e-3, 1e5)                                              \
    X(copy, d2h_pageable_gbps, false, 1e-3, 1e5)                                              \
    X(copy, h2d_fixed_ns, false, 0, 1e9)                                                      \
    X(copy, d2h_fixed_ns, false, 0, 1e9)                                                      \
    X(copy, pageable_fixed_ns, false, 0, 1e9)                                                 \
    X(copy, pageable_staging_slots, true, 0, 64)                                              \
    X(copy, pageable_staging_chunk_bytes, true, 4096, 1 << 30)                                \
    X(copy, pageable_inline_bytes, true, 0, 1 << 30)                                          \
    X(compute, sm_fp32_ops_per_ns, false, 1e-3, 1e6)                                          \
    X(compute, sm_int_ops_per_ns, false, 1e-3, 1e6)                                           \
    X(compute, op_latency_ns, false, 0, 1e6)                                                  \
    X(compute, dram_gbps, false, 1e-3, 1e6)                                                   \
    X(compute, kernel_overhead_ns, false, 0, 1e9)                                             \
    X(compute, kernel_queued_overhead_ns, false, 0, 1e9)                                      \
    X(compute, graph_kernel_overhead_ns, false, 0, 1e9)                                       \
    X(compute, block_overhead_ns, false, 0, 1e9)                                              \
    X(compute, block_overhead_spread_ns, false, 0, 1e9)                                       \
    X(compute, sm_classes, true, 1, 1024)                                                     \
    X(compute, memset_block_bytes, true, 256, 1 << 30)                                        \
    X(host, submit_latency_ns, false, 0, 1e9)                                                 \
    X(host, launch_ns, false, 0, 1e9)                                                         \
    X(host, launch_blocking_extra_ns, false, 0, 1e9)                                          \
    X(host, capture_call_ns, false, 0, 1e9)                                                   \
    X(host, graph_instantiate_ns_per_node, false, 0, 1e9)                                     \
    X(host, graph_launch_ns, false, 0, 1e9)                                                   \
    X(host, graph_submit_latency_ns, false, 0, 1e9)                                           \
    X(host, memcpy_call_ns, false, 0, 1e9)                                                    \
    X(host, memcpy_call_ns_per_mib, false, 0, 1e9)                                            \
    X(host, memset_call_ns, false, 0, 1e9)                                                    \
    X(host, event_record_ns, false, 0, 1e9)                                                   \
    X(host, event_record_no_timing_ns, false, 0, 1e9)                                         \
    X(host, event_create_ns, false, 0, 1e9)                                                   \
    X(host, event_destroy_ns, false, 0, 1e9)                                                  \
    X(host, query_ns, false, 0, 1e9)                                                          \
    X(host, query_pending_ns, false, 0, 1e9)                                                  \
    X(host, stream_query_ns, false, 0, 1e9)                                                   \
    X(host, stream_create_ns, false, 0, 1e9)                                                  \
    X(host, stream_destroy_ns, false, 0, 1e9)                                                 \
    X(host, stream_wait_event_ns, false, 0, 1e9)                                              \
    X(host, host_func_call_ns, false, 0, 1e9)                                                 \
    X(host, host_fn_latency_ns, false, 0, 1e9)                                                \
    X(host, sync_call_ns, false, 0, 1e9)                                                      \
    X(host, sync_wake_ns, false, 0, 1e9)                                                      \
    X(host, malloc_ns, false, 0, 1e9)                                                         \
    X(host, free_ns, false, 0, 1e9)                                                           \
    X(host, malloc_host_ns, false, 0, 1e9)                                                    \
    X(host, malloc_host_ns_per_mib, false, 0, 1e9)                                            \
    X(host, host_register_ns, false, 0, 1e9)                                                  \
    X(host, host_register_ns_per_mib, false, 0, 1e9)                                          \
    X(host, host_unregister_ns, false, 0, 1e9)                                                \
    X(host, host_unregister_ns_per_mib, false, 0, 1e9)                                        \
    X(host, free_host_ns, false, 0, 1e9)                                                      \
    X(host, free_host_ns_per_mib, false, 0, 1e9)                                              \
    X(host, api_min_ns, false, 0, 1e9)                                                        \
    X(host, host_memcpy_gbps, false, 1e-3, 1e5)

typedef struct sim_profile {
    char name[64];         /* "h200", or the "name" of a profile read from a path */
    char device_name[256]; /* what cudaGetDeviceProperties reports as the name */
#define SIM_PROFILE_MEMBER(section, key, integer, min, max) double key;
    SIM_PROFILE_PARAMS(SIM_PROFILE_MEMBER)
#undef SIM_PROFILE_MEMBER
    sim_profile_link link; /* the optional "link" section; device_count 1 without it */
    /* The optional pageable copy curves of the "copy" section (n 0 without them). */
    sim_pageable_curve h2d_pageable_curve, d2h_pageable_curve;
    /* The optional host memcpy curves of the "host" section (n 0 without them): of data the
     * host wrote earlier, and of data no cache holds (sim_profile_host_copy_cold_ns). */
    sim_pageable_curve host_copy_curve, host_copy_cold_curve;
    /* The optional cudaMalloc and cudaFree curves of the "host" section (n 0 without them). */
    sim_pageable_curve malloc_curve, free_curve;
    /* The optional wake curve of the "device" section (n 0 without it): sim_profile_wake_ns. */
    sim_pageable_curve wake_curve;
} sim_profile;

/* The curves a profile may hold, each the entry `key` of its section: the profile's one list
 * of them (the parser and //sim:calibrate's writer both go by it). */
typedef struct sim_profile_curve_info {
    const char *section, *key;
    size_t offset;       /* of its sim_pageable_curve in sim_profile */
    sim_curve_axis axis; /* what its points measure, and whether their times may fall */
} sim_profile_curve_info;
#define SIM_PROFILE_CURVES 7
extern const sim_profile_curve_info sim_profile_curves[SIM_PROFILE_CURVES];
/* The curve named section.key, NULL when that entry is no curve. */
const sim_profile_curve_info *sim_profile_curve_named(const char *section, const char *key);
#define SIM_PROFILE_CURVE(p, info) ((sim_pageable_curve *)((char *)(p) + (info)->offset))
#define SIM_PROFILE_CURVE_CONST(p, info) ((const sim_pageable_curve *)((const char *)(p) + (info)->offset))

/* Parses a profile from JSON text; origin names it in messages. Returns 0, or -1 with a
 * message in err. */
int sim_profile_parse(const char *json, size_t size, const char *origin, sim_profile *out,
                      char *err, size_t err_size);

/* How long a pageable copy of bytes takes on its copy engine, from its start to its end
 * (set-up and staging included), in ns: the direction's curve where the profile has one,
 * else the line h2d_fixed_ns (or d2h_fixed_ns) + pageable_fixed_ns + bytes at the
 * direction's pageable rate. */
double sim_profile_pageable_ns(const sim_profile *p, bool h2d, double bytes);

/* What a memcpy of bytes costs the host's CPU, in ns: the profile's host_copy_curve where it
 * has one (below its smallest point, that point's time in proportion to the bytes), else the
 * bytes at host_memcpy_gbps. */
double sim_profile_host_copy_ns(const sim_profile *p, double bytes);

/* What a memcpy of bytes that no CPU cache holds costs the host, in ns (a lab's inputs,
 * which the harness wrote before the run and the run has not read): the profile's
 * host_copy_cold_curve (past its largest point, the rate between its two largest), but never
 * less than sim_profile_host_copy_ns, which it is without that curve. */
double sim_profile_host_copy_cold_ns(const sim_profile *p, double bytes);

/* What cudaMalloc of bytes costs the host, in ns: the profile's malloc_curve where it has one
 * (below its smallest point, that point's time: a call's fixed cost), else malloc_ns. The
 * same for cudaFree with free_curve and free_ns (paid once the device is idle). */
double sim_profile_malloc_ns(const sim_profile *p, double bytes);
double sim_profile_free_ns(const sim_profile *p, double bytes);

/* How much later the device starts its first copy or kernel after idling for idle_ns, in ns:
 * a GPU left idle lowers its clocks, and the host driver's thread goes to sleep, so that the
 * first work after a few milliseconds takes tens of microseconds longer (docs/calibration.md,
 * "The device's wake-up"). The profile's wake_curve, whose points are [idle_ns, ns]: below
 * its shortest idle, that point's cost in proportion (a short idle costs next to nothing);
 * past its longest, that point's cost. A profile without it: 0. */
double sim_profile_wake_ns(const sim_profile *p, double idle_ns);

#ifdef __cplusplus
}
#endif

#endif
