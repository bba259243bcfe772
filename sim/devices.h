/* sim/devices.h: the simulated devices as the runtime sees them: how many the profile has
 * (a profile's "link" section, sim/core/profile_link.h), the current device of each host
 * thread (cudaSetDevice), and peer access between devices (cudaDeviceEnablePeerAccess).
 * Streams, events and allocations belong to the device current when they are made. */
#ifndef STREAMLAB_SIM_DEVICES_H
#define STREAMLAB_SIM_DEVICES_H

#include <stdbool.h>
#include <stdint.h>

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

struct trace_op; /* trace/record/op.h */

/* Devices of the current profile (1 when none could be loaded). */
int sim_device_count(void);
/* The calling thread's current device (0 until cudaSetDevice; within the count). */
uint32_t sim_current_device(void);
/* Whether device `from` may access `to`'s memory (enabled from `from`; a device always
 * may access its own). */
bool sim_peer_enabled(uint32_t from, uint32_t to);
/* Peer access off everywhere (a reset); the thread back on device 0 too unless
 * keep_current (cudaDeviceReset keeps the current device). */
void sim_devices_reset(bool keep_current);
/* Whether the ranges of a launch on `device` touch another device's memory without peer
 * access from `device`: cudaErrorPeerAccessNotEnabled, else cudaSuccess. */
cudaError_t sim_devices_check_ranges(uint32_t device, const void *ranges, uint32_t n_ranges);

/* Marks each of op's memory ranges that lies in a device's memory with that device
 * (TRACE_RANGE_DEVICE, trace/record/op.h), for the race checker's reports. */
void sim_devices_mark_ranges(struct trace_op *op);

#ifdef __cplusplus
}
#endif

#endif
