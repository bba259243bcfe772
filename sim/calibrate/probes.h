/* sim/calibrate/probes.h: the calibrator's probes, plain CUDA runtime calls and kernels.h
 * launches, so that the same code measures a real GPU and the simulator.
 *
 * Each figure is the median of reps repetitions. Device times come from events on a
 * stream held back by a spin kernel while the events and the work are enqueued, so that
 * they time the device alone; host times come from the backend's clock (backend.h). */
#ifndef STREAMLAB_SIM_CALIBRATE_PROBES_H
#define STREAMLAB_SIM_CALIBRATE_PROBES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Sizes and shapes the probes use (the fit needs them too). */
#define CAL_MIB (1024.0 * 1024.0)
#define CAL_PINNED_SMALL_MIB 4
#define CAL_PAGEABLE_SMALL_MIB 8
/* The pageable copies' sizes besides 8 and 256 MiB, in KiB: what a ring of small buffers
 * copies (lab 08's batches are 256 KiB) up to a large batch. */
#define CAL_PAGEABLE_SWEEP_KIB {64, 256, 1024, 65536}
#define CAL_PAGEABLE_SWEEP 4
#define CAL_LARGE_MIB 256
#define CAL_CALL_SMALL_MIB 1
#define CAL_HOSTMEM_SMALL_MIB 1 /* the size a lab pins a batch at: a call's fixed cost shows */
#define CAL_HOSTMEM_LARGE_MIB 256
/* cudaMalloc and cudaFree: lab 00's task (8 KiB), lab 02's batch (256 KiB), lab 01's (8 MiB):
 * the driver serves small sizes from memory it keeps, so the cost is a curve. */
#define CAL_DEVMEM_KIB {8, 256, 1024, 8192, 65536}
#define CAL_DEVMEM_SIZES 5
/* The host memcpy's sizes, in KiB: what a lab's program copies on the host (a 256 KiB or
 * 1 MiB batch, an 8 MiB one, 64 MiB of inputs). */
#define CAL_HOST_COPY_KIB {64, 256, 1024, 8192, 65536}
#define CAL_HOST_COPY_SIZES 5
#define CAL_WAVE_NS 10000.0 /* the spin blocks of the wave probe */
#define CAL_WAVES_LONG 21
#define CAL_SPIN_THREADS 1024u
#define CAL_PRIORITY_THREADS 128u
#define CAL_PROCESS_WAVES 8
#define CAL_PROCESS_ITERS_LO 1000
#define CAL_PROCESS_ITERS_HI 4000
#define CAL_CHAIN_ITERS_LO 20000
#define CAL_CHAIN_ITERS_HI 80000
#define CAL_CONCURRENT_ITERS 8000 /* lab 02's producers */
#define CAL_CALLS 1000 /* host calls timed together (launches, event records, syncs) */

/* The host-device round trips: synchronisation, polling, host functions, graphs. */
#define CAL_ROUND_KERNEL_NS 5000.0 /* the one-block spin kernel each round launches */
#define CAL_ROUNDS 64              /* rounds of each round-trip loop */
#define CAL_POLL_PHASES 16         /* host delays before polling, spread over one query's time */
#define CAL_HOST_FN_SAMPLES 4      /* host functions timed one at a time and averaged */
#define CAL_HOST_FN_CALLS 100      /* cudaLaunchHostFunc calls timed together */
#define CAL_CHAIN_SM_MULTIPLE 2    /* kernels and graph nodes in a chain: this many per SM */
#define CAL_CHAIN_GATE_NS_PER_KERNEL 20000 /* the gate before a chain, per kernel or node */
#define CAL_QUERY_GATE_NS_PER_CALL 20000   /* the gate before the pending event, per query */

/* A device's wake-up after it idled: a small round (lab 06's request: CAL_WAKE_KIB up, a
 * one-block kernel, CAL_WAKE_KIB down, cudaStreamSynchronize) timed on the host after the
 * host slept for each of these idles, less the same round back to back, in us (a lab's runs
 * start after the harness prepared them: 2 ms in lab 06, over 100 ms in labs with 96 MiB of
 * inputs). */
#define CAL_WAKE_KIB 32
#define CAL_WAKE_IDLE_US {200, 1000, 5000, 20000, 100000}
#define CAL_WAKE_IDLES 5
#define CAL_WAKE_ROUNDS 5 /* cold rounds at each idle (the median is kept) */

/* X(id, unit, kind, what) of the round trips (see CAL_FIGURES). */
#define CAL_ROUND_TRIP_FIGURES(X)                                                                               \
    X(event_query_done, "us", "fit", "cudaEventQuery of a completed event, host time")                         \
    X(stream_query_idle, "us", "fit", "cudaStreamQuery of an idle stream, host time")                          \
    X(event_query_pending, "us", "fit", "cudaEventQuery of an event not yet reached, host time")               \
    X(poll_return, "us", "fit", "record, 5 us kernel, record, poll cudaEventQuery: host less device time, less a record") \
    X(sync_return, "us", "fit", "record, 5 us kernel, record, cudaStreamSynchronize: host less device time, less a record") \
    X(sync_gap, "us", "model", "the same: device idle from a round's end event to the next round's start event") \
    X(host_fn_call, "us", "fit", "cudaLaunchHostFunc of an empty function, host time")                         \
    X(host_fn_gap, "us", "fit", "kernel, event, empty host function, event, kernel: device time between the events") \
    X(kernel_chain, "us", "fit", "empty one-block kernels launched back to back, 2 per SM, device time per kernel") \
    X(graph_node, "us", "fit", "a graph of the same kernels, 2 per SM, device time per node")                  \
    X(graph_instantiate, "us", "fit", "that graph's instantiation, first launch's extra and destroys, host time") \
    X(graph_launch, "us", "fit", "cudaGraphLaunch of a one-node graph, host time per launch")                 \
    X(graph_sync_loop, "us", "fit", "cudaGraphLaunch of a one-node graph, cudaStreamSynchronize: host time per round") \
    X(wake_200us, "us", "fit", "32 KiB up, a one-block kernel, 32 KiB down, sync after the host slept 0.2 ms: host time beyond back to back") \
    X(wake_1ms, "us", "fit", "the same round after the host slept 1 ms: host time beyond back to back")        \
    X(wake_5ms, "us", "fit", "the same round after the host slept 5 ms: host time beyond back to back")        \
    X(wake_20ms, "us", "fit", "the same round after the host slept 20 ms: host time beyond back to back")      \
    X(wake_100ms, "us", "fit", "the same round after the host slept 100 ms: host time beyond back to back")

/* X(id, unit, kind, what): every figure. kind "fit" figures determine profile values;
 * "model" figures follow from the simulator's semantics with those values and are only
 * compared. */
#define CAL_FIGURES(X)                                                                                          \
    X(h2d_pinned_small, "us", "fit", "pinned H2D copy of 4 MiB, device time")                                  \
    X(h2d_pinned_large, "GB/s", "fit", "pinned H2D copy of 256 MiB, device rate")                              \
    X(d2h_pinned_small, "us", "fit", "pinned D2H copy of 4 MiB, device time")                                  \
    X(d2h_pinned_large, "GB/s", "fit", "pinned D2H copy of 256 MiB, device rate")                              \
    X(bidir, "GB/s", "fit", "pinned H2D + D2H of 256 MiB at once on two streams, total rate")                  \
    X(h2d_pageable_small, "us", "fit", "pageable H2D cudaMemcpy of 8 MiB, host time")                          \
    X(h2d_pageable_large, "GB/s", "fit", "pageable H2D cudaMemcpy of 256 MiB, host-timed rate")                \
    X(d2h_pageable_small, "us", "fit", "pageable D2H cudaMemcpy of 8 MiB, host time")                          \
    X(d2h_pageable_large, "GB/s", "fit", "pageable D2H cudaMemcpy of 256 MiB, host-timed rate")                \
    X(h2d_pageable_64k, "us", "fit", "pageable H2D cudaMemcpy of 64 KiB, host time")                           \
    X(h2d_pageable_256k, "us", "fit", "pageable H2D cudaMemcpy of 256 KiB, host time")                         \
    X(h2d_pageable_1m, "us", "fit", "pageable H2D cudaMemcpy of 1 MiB, host time")                             \
    X(h2d_pageable_64m, "us", "fit", "pageable H2D cudaMemcpy of 64 MiB, host time")                           \
    X(d2h_pageable_64k, "us", "fit", "pageable D2H cudaMemcpy of 64 KiB, host time")                           \
    X(d2h_pageable_256k, "us", "fit", "pageable D2H cudaMemcpy of 256 KiB, host time")                         \
    X(d2h_pageable_1m, "us", "fit", "pageable D2H cudaMemcpy of 1 MiB, host time")                             \
    X(d2h_pageable_64m, "us", "fit", "pageable D2H cudaMemcpy of 64 MiB, host time")                           \
    X(memcpy_return_small, "us", "fit", "pinned cudaMemcpyAsync of 1 MiB, host time to return")                \
    X(memcpy_return_large, "us", "fit", "pinned cudaMemcpyAsync of 256 MiB, host time to return")              \
    X(malloc_host_small, "ms", "fit", "cudaMallocHost of 1 MiB")                                             \
    X(malloc_host_large, "ms", "fit", "cudaMallocHost of 256 MiB")                                            \
    X(free_host_small, "ms", "fit", "cudaFreeHost of 1 MiB")                                                 \
    X(free_host_large, "ms", "fit", "cudaFreeHost of 256 MiB")                                                \
    X(host_register_small, "ms", "fit", "cudaHostRegister of 1 MiB (malloc'd, touched)")                     \
    X(host_register_large, "ms", "fit", "cudaHostRegister of 256 MiB")                                        \
    X(host_unregister_small, "ms", "fit", "cudaHostUnregister of 1 MiB")                                     \
    X(host_unregister_large, "ms", "fit", "cudaHostUnregister of 256 MiB")                                    \
    X(device_malloc_8k, "us", "fit", "cudaMalloc of 8 KiB on an idle device, host time (median of 9)")           \
    X(device_malloc_256k, "us", "fit", "cudaMalloc of 256 KiB on an idle device, host time (median of 9)")       \
    X(device_malloc_1m, "us", "fit", "cudaMalloc of 1 MiB on an idle device, host time (median of 9)")           \
    X(device_malloc_8m, "us", "fit", "cudaMalloc of 8 MiB on an idle device, host time (median of 9)")           \
    X(device_malloc_64m, "us", "fit", "cudaMalloc of 64 MiB on an idle device, host time (median of 9)")         \
    X(device_free_8k, "us", "fit", "cudaFree of 8 KiB on an idle device, host time (median of 9)")               \
    X(device_free_256k, "us", "fit", "cudaFree of 256 KiB on an idle device, host time (median of 9)")           \
    X(device_free_1m, "us", "fit", "cudaFree of 1 MiB on an idle device, host time (median of 9)")               \
    X(device_free_8m, "us", "fit", "cudaFree of 8 MiB on an idle device, host time (median of 9)")               \
    X(device_free_64m, "us", "fit", "cudaFree of 64 MiB on an idle device, host time (median of 9)")             \
    X(host_copy_64k, "us", "fit", "host memcpy of 64 KiB written earlier into pinned memory, host time")          \
    X(host_copy_256k, "us", "fit", "host memcpy of 256 KiB written earlier into pinned memory, host time")        \
    X(host_copy_1m, "us", "fit", "host memcpy of 1 MiB written earlier into pinned memory, host time")            \
    X(host_copy_8m, "us", "fit", "host memcpy of 8 MiB written earlier into pinned memory, host time")            \
    X(host_copy_64m, "us", "fit", "host memcpy of 64 MiB written earlier into pinned memory, host time")          \
    X(host_copy_cold_64k, "us", "fit", "host memcpy of 64 KiB no cache holds into pinned memory, host time")     \
    X(host_copy_cold_256k, "us", "fit", "host memcpy of 256 KiB no cache holds into pinned memory, host time")   \
    X(host_copy_cold_1m, "us", "fit", "host memcpy of 1 MiB no cache holds into pinned memory, host time")       \
    X(host_copy_cold_8m, "us", "fit", "host memcpy of 8 MiB no cache holds into pinned memory, host time")       \
    X(host_copy_cold_64m, "us", "fit", "host memcpy of 64 MiB no cache holds into pinned memory, host time")     \
    X(launch, "us", "fit", "kernel launch into a non-blocking stream, host time per launch")                   \
    X(launch_blocking, "us", "fit", "kernel launch into a blocking stream, host time per launch")              \
    X(event_record, "us", "fit", "cudaEventRecord, host time")                                                \
    X(event_record_no_timing, "us", "fit", "cudaEventRecord of a cudaEventDisableTiming event, host time")    \
    X(sync_idle, "us", "fit", "cudaStreamSynchronize of an idle stream, host time")                           \
    X(wave_one, "us", "fit", "spin kernel, one wave of 10 us blocks, device time")                             \
    X(wave_long, "us", "fit", "spin kernel, 21 waves of 10 us blocks, device time")                            \
    X(process_lo, "us", "fit", "process kernel, 8 full waves, 1000 iterations, device time")                  \
    X(process_hi, "us", "fit", "process kernel, 8 full waves, 4000 iterations, device time")                  \
    X(chain_lo, "us", "fit", "process kernel, one block per SM, 20000 iterations, device time")               \
    X(chain_hi, "us", "fit", "process kernel, one block per SM, 80000 iterations, device time")               \
    X(ds_none, "ms", "model", "two 2 ms kernels on blocking streams s1, s2, nothing on stream 0")             \
    X(ds_blocking, "ms", "model", "the same with an empty kernel on the legacy stream between them")          \
    X(ds_nonblocking, "ms", "model", "the same on cudaStreamNonBlocking streams")                             \
    X(prio_high, "us", "model", "8 urgent one-wave 20 us kernels behind a 100-wave one, high priority: mean latency")       \
    X(prio_equal, "us", "model", "the first urgent kernel behind a 100-wave one, equal priority: latency")      \
    X(concurrent_one, "us", "model", "process kernel, one block per SM, 8000 iterations, alone: device time")   \
    X(concurrent_pair, "us", "model", "two such kernels at once on two streams, one block of each per SM: device time") \
    CAL_ROUND_TRIP_FIGURES(X)

typedef enum cal_figure_id {
#define CAL_FIGURE_ENUM(id, unit, kind, what) CAL_##id,
    CAL_FIGURES(CAL_FIGURE_ENUM)
#undef CAL_FIGURE_ENUM
        CAL_FIGURE_COUNT
} cal_figure_id;

/* The figures of the probes taken at several sizes, in the order of their sizes (the probes
 * fill them, the fit reads them). */
#define CAL_HOST_COPY_IDS {CAL_host_copy_64k, CAL_host_copy_256k, CAL_host_copy_1m, CAL_host_copy_8m, CAL_host_copy_64m}
#define CAL_HOST_COPY_COLD_IDS                                                                                       \
    {CAL_host_copy_cold_64k, CAL_host_copy_cold_256k, CAL_host_copy_cold_1m, CAL_host_copy_cold_8m,                  \
     CAL_host_copy_cold_64m}
#define CAL_DEVICE_MALLOC_IDS                                                                                        \
    {CAL_device_malloc_8k, CAL_device_malloc_256k, CAL_device_malloc_1m, CAL_device_malloc_8m, CAL_device_malloc_64m}
#define CAL_DEVICE_FREE_IDS                                                                                          \
    {CAL_device_free_8k, CAL_device_free_256k, CAL_device_free_1m, CAL_device_free_8m, CAL_device_free_64m}

#define CAL_WAKE_IDS {CAL_wake_200us, CAL_wake_1ms, CAL_wake_5ms, CAL_wake_20ms, CAL_wake_100ms}

typedef struct cal_figure_info {
    const char *id, *unit, *kind, *what;
} cal_figure_info;

extern const cal_figure_info cal_figure_infos[CAL_FIGURE_COUNT];

/* What the device says of itself (cudaDeviceGetAttribute and friends); -1 where the
 * runtime did not answer. */
typedef struct cal_device {
    char name[256];
    int driver_version, runtime_version;
    double compute_major, compute_minor, sm_count, clock_khz, memory_clock_khz, memory_bus_width,
        total_global_mem, l2_cache_bytes, async_engine_count, max_threads_per_sm, max_blocks_per_sm,
        regs_per_sm, shared_mem_per_sm, shared_mem_per_block_optin, priority_least, priority_greatest;
} cal_device;

/* Reads the device's attributes. Returns 0, or -1 with err set (no device). */
int cal_read_device(cal_device *dev, char *err, size_t err_size);

/* Blocks of the spin and process kernels one SM holds at once (the probes fill whole
 * waves of them). */
unsigned cal_spin_residency(const cal_device *dev);
unsigned cal_process_residency(const cal_device *dev);

/* Runs every probe, reps times each, into figures[CAL_FIGURE_COUNT]. Progress goes to
 * log (may be NULL). Returns 0, or -1 with err set (a CUDA call failed). */
int cal_measure(const cal_device *dev, int reps, double *figures, FILE *log, char *err, size_t err_size);

#ifdef __cplusplus
}
#endif

#endif
