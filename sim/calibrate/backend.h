/* sim/calibrate/backend.h: what the calibrator needs beyond the CUDA runtime API, with one
 * implementation per backend: backend_gpu.c (a real GPU: the monotonic clock) and
 * backend_sim.c (the simulated runtime: its virtual clock and its profiles). */
#ifndef STREAMLAB_SIM_CALIBRATE_BACKEND_H
#define STREAMLAB_SIM_CALIBRATE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* True in the simulator build. */
bool cal_backend_simulated(void);
/* The host clock, in ns: virtual time on the simulator, CLOCK_MONOTONIC on a GPU. */
uint64_t cal_now_ns(void);
/* Keeps the host busy for ns (the simulator moves its virtual clock on). */
void cal_host_wait_ns(uint64_t ns);
/* Puts the host thread to sleep for ns, as a process waiting for its next command does
 * (the simulator moves its virtual clock on, as for cal_host_wait_ns). */
void cal_host_sleep_ns(uint64_t ns);
/* A host memcpy of n bytes (the simulator also charges its host clock what the profile says
 * one costs: sim_host_copy_ns, or sim_host_copy_cold_ns where cold says no CPU cache holds
 * the source). */
void cal_host_copy(void *dst, const void *src, size_t n, bool cold);
/* Empties the CPU's caches of what the host touched (GPU build: writes a buffer larger than
 * any last-level cache; the simulator, which models no cache, does nothing). Returns 0, or
 * -1 when out of memory. */
int cal_host_evict(void);
/* Simulator build: makes name_or_path (a built-in profile or a profile file) the
 * simulated device, after a reset. GPU build: refused. Returns 0, or -1 with err set. */
int cal_backend_use_profile(const char *name_or_path, char *err, size_t err_size);
/* Simulator build: the device back as at start (profile kept). GPU build: waits for the
 * device to be idle. */
void cal_backend_reset(void);

#ifdef __cplusplus
}
#endif

#endif
