/* sim/include/streamlab_sim.h: what the simulated GPU offers beyond the CUDA runtime API.
 *
 * Kernels: a simulated kernel is launched with its CPU body (run block range by block
 * range at the simulated time those blocks finish), its grid/block shape, a cost
 * description (how long a block holds its SM slot on the current profile) and the memory
 * ranges it reads and writes (for the race checker and for validation).
 *
 * Device memory: cudaMalloc'd memory is inaccessible to the program's host code, as on a
 * GPU (a host read or write through a device pointer faults with SIGSEGV); the simulator
 * moves its bytes through a view of its own, which kernel bodies may use too.
 *
 * The rest: the virtual host clock, device profiles, schedule perturbation (to make
 * latent races show) and a full reset. Programs built against the real CUDA runtime never
 * include this file; kernels/ and the lab harness use it in their simulator variants. */
#ifndef STREAMLAB_SIM_H
#define STREAMLAB_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime.h>

#include "trace/record/op.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- kernels ---------------------------------------------------------------------- */

/* Runs blocks [block_begin, block_end) of the grid (blocks numbered x-fastest, then y,
 * then z). args points at the launch's copy of the arguments. */
typedef void (*sim_kernel_body)(const void *args, uint32_t block_begin, uint32_t block_end);

/* How long one block of a kernel runs, described as work that the profile prices:
 *   block_ns = fixed_ns + max(share * throughput_ns, chain_ns)
 * where throughput_ns = max(int_ops / sm_int_ops_per_ns, fp32_ops / sm_fp32_ops_per_ns,
 * dram_bytes / (dram_bytes_per_ns / sm_count)), chain_ns = chain_ops * op_latency_ns,
 * and share is how many of this kernel's blocks share one SM (its residency limit, or
 * fewer when the grid is small). Blocks of other kernels on the same SM take their part
 * of its throughput, and a block runs longer while they do (docs/calibration.md, "Kernels
 * that share SMs"). All counts are per block. */
typedef struct sim_kernel_cost {
    double fixed_ns;   /* device-independent time (a clock-based spin kernel) */
    double int_ops;    /* 32-bit integer operations, summed over the block's threads */
    double fp32_ops;   /* fp32 operations (an FMA counts as one), summed over threads */
    double dram_bytes; /* device-memory bytes read plus written */
    double chain_ops;  /* longest dependent chain of operations in one thread */
    uint32_t regs_per_thread; /* limits residency; 0 means 32 */
} sim_kernel_cost;

typedef struct sim_kernel_launch {
    const char *name;          /* shown on the timeline and in race reports */
    dim3 grid;
    dim3 block;
    size_t shared_bytes;       /* dynamic shared memory per block */
    sim_kernel_body body;      /* NULL: the kernel does no work on data */
    /* false: the body reads and writes device memory at the program's addresses, and the
     * simulator makes device memory accessible to the host while it runs (two mprotect
     * calls per device allocation and block group: fine for tests, slow in bulk).
     * true: the body passes every device pointer through sim_device_view itself, and
     * device memory stays inaccessible to the host throughout (kernels/sim does this). */
    bool body_uses_device_view;
    const void *args;          /* copied (args_size bytes) when the kernel is enqueued */
    size_t args_size;
    sim_kernel_cost cost;
    uint32_t n_ranges;
    trace_range ranges[TRACE_MAX_RANGES]; /* device memory it reads and writes */
} sim_kernel_launch;

/* Enqueues a kernel on stream, as a <<<grid, block, shared, stream>>> launch would.
 * Returns what cudaLaunchKernel returns: for an empty grid or a block over the device's
 * limits that is cudaErrorInvalidValue in CUDA 13 (measured on an H200; older runtimes said
 * cudaErrorInvalidConfiguration), cudaErrorInvalidResourceHandle for a bad stream,
 * ... and records the error for cudaGetLastError. A range outside every device
 * allocation makes the kernel fail as a real one would (cudaErrorIllegalAddress, sticky,
 * reported by the next synchronising call); its body is not run. */
cudaError_t sim_launch_kernel(const sim_kernel_launch *launch, cudaStream_t stream);
/* The same launch for code compiled with CUDA_API_PER_THREAD_DEFAULT_STREAM, where
 * sim_launch_kernel names this, as the toolkit makes a <<<...>>> launch there reach
 * cudaLaunchKernel_ptsz: a NULL stream is cudaStreamPerThread. The mode is the launching
 * unit's: kernels.h's launchers are compiled without the macro, so kernels_process(..., 0)
 * is a legacy-stream launch whoever calls it, on the simulator as on a GPU. */
cudaError_t sim_launch_kernel_ptsz(const sim_kernel_launch *launch, cudaStream_t stream);
#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
#define sim_launch_kernel sim_launch_kernel_ptsz
#endif

/* ---- device memory ------------------------------------------------------------------- */

/* Each cudaMalloc allocation is mapped twice: at the address cudaMalloc returns (the
 * program's view, PROT_NONE: a host access faults, as on a GPU) and at a second address
 * (the simulator's view), where copies, memsets and kernel bodies read and write the same
 * bytes. sim_device_view(p) is where the byte at device address p lies in the simulator's
 * view; any other pointer (host memory, NULL) comes back as it is. For kernel bodies
 * (body_uses_device_view); host code must copy device memory with cudaMemcpy instead. */
void *sim_device_view(const void *ptr);
/* True when addr lies in the program's view of a live device allocation (its bytes, or
 * the rest of its last page), with where the allocation starts and the bytes cudaMalloc
 * was asked for. Async-signal-safe: a crash handler may ask what a faulting address was. */
bool sim_device_allocation_of(const void *addr, const void **base, size_t *bytes);

/* ---- stream capture ------------------------------------------------------------------ */

/* The capture sequence a stream belongs to (begun on it, or joined through an event),
 * active or invalidated: true with its id, which no other capture of this process has
 * had or will have; false when the stream captures nothing (or is no stream). The
 * question cudaStreamGetCaptureInfo answers on a GPU, asked without a call: it charges no
 * host time and records nothing, so that the lab's referee can ask it about every
 * command it serves during a capture without changing a figure (labs/harness/backend.h). */
bool sim_stream_capture_id(cudaStream_t stream, uint64_t *id);

/* ---- the virtual host clock --------------------------------------------------------- */

/* The host thread's virtual time in ns since the simulator started (or was reset). */
uint64_t sim_now_ns(void);
/* Charges ns of host-side CPU work (e.g. the harness filling a batch) to the host clock,
 * running the device forward meanwhile. */
void sim_host_work(uint64_t ns);
/* What copying bytes with memcpy on the host costs on this profile (its host_copy_curve,
 * measured on the GPU's host: sim/core/profile_curve.h), in ns; 0 with no profile. */
uint64_t sim_host_copy_ns(uint64_t bytes);
/* The same for bytes that no CPU cache holds (its host_copy_cold_curve), in ns. */
uint64_t sim_host_copy_cold_ns(uint64_t bytes);

/* ---- profiles ------------------------------------------------------------------------ */

/* Chooses the device profile: a name from sim/profiles ("h200", "h100", "a100", "l4") or
 * a path to a profile file. Call before any CUDA call (or after sim_reset). Without a
 * call, STREAMLAB_PROFILE or else "h200" is used. Returns 0, or -1 with a message in
 * sim_last_message() for an unknown name or an unreadable or invalid file. */
int sim_select_profile(const char *name_or_path);
/* The profile in use ("h200"), loading the default one if none is yet. */
const char *sim_profile_name(void);
/* The built-in profile names, NULL-terminated. */
const char *const *sim_profile_names(void);
/* A description of the last failure of a sim_* call. */
const char *sim_last_message(void);

/* ---- schedules ------------------------------------------------------------------------ */

/* amount 0: the calibrated timing (the default). amount > 0: every op's duration, every
 * host call's cost and the order of equal-priority block dispatch are perturbed by up to
 * that fraction, deterministically from seed, so that latent races show up as wrong data.
 * Takes effect for ops enqueued from now on. */
void sim_set_perturbation(uint64_t seed, double amount);

/* ---- reset ------------------------------------------------------------------------------ */

/* Frees every allocation, stream and event, zeroes the clock and forgets the sticky error:
 * the simulator is as it was at start, profile choice included. */
void sim_reset(void);

#ifdef __cplusplus
}
#endif

#endif
