/* sim/devices.c: current device, peer access and the calls that use them (see devices.h):
 * cudaGetDeviceCount, cudaGetDevice, cudaSetDevice, cudaDeviceCanAccessPeer,
 * cudaDeviceEnablePeerAccess, cudaDeviceDisablePeerAccess. */
#include "sim/devices.h"

#include "sim/call.h"
#include "sim/core/memory.h"
#include "sim/core/profile_link.h"
#include "sim/profile_choice.h"
#include "trace/record/op.h"
#include "trace/record/recorder.h"

/* Each host thread has its own current device, as with the runtime. */
static _Thread_local uint32_t current;
static bool peer[SIM_MAX_DEVICES][SIM_MAX_DEVICES];

int sim_device_count(void) {
    const sim_profile *p = sim_profile_current();
    int n = p ? p->link.device_count : 1;
    return n < 1 ? 1 : (n > SIM_MAX_DEVICES ? SIM_MAX_DEVICES : n);
}

uint32_t sim_current_device(void) {
    /* A profile with fewer devices chosen since: back to device 0. */
    if (current >= (uint32_t)sim_device_count()) current = 0;
    return current;
}

bool sim_peer_enabled(uint32_t from, uint32_t to) {
    if (from == to) return true;
    if (from >= SIM_MAX_DEVICES || to >= SIM_MAX_DEVICES) return false;
    return peer[from][to];
}

void sim_devices_reset(bool keep_current) {
    for (uint32_t i = 0; i < SIM_MAX_DEVICES; i++)
        for (uint32_t j = 0; j < SIM_MAX_DEVICES; j++) peer[i][j] = false;
    if (!keep_current) current = 0;
}

cudaError_t sim_devices_check_ranges(uint32_t device, const void *ranges, uint32_t n_ranges) {
    const trace_range *r = ranges;
    for (uint32_t i = 0; i < n_ranges; i++) {
        if (!r[i].bytes) continue;
        int owner = sim_mem_device_of((const void *)(uintptr_t)r[i].addr, r[i].bytes);
        if (owner >= 0 && !sim_peer_enabled(device, (uint32_t)owner)) return cudaErrorPeerAccessNotEnabled;
    }
    return cudaSuccess;
}

void sim_devices_mark_ranges(struct trace_op *op) {
    uint32_t n = op->n_ranges < TRACE_MAX_RANGES ? op->n_ranges : TRACE_MAX_RANGES;
    for (uint32_t i = 0; i < n; i++) {
        trace_range *r = &op->ranges[i];
        if (!r->bytes) continue;
        int dev = sim_mem_device_of((const void *)(uintptr_t)r->addr, r->bytes);
        if (dev >= 0) r->flags |= TRACE_RANGE_DEVICE(dev);
    }
}

#define BEGIN(name, flags)                                                     \
    sim_call call;                                                             \
    do {                                                                       \
        cudaError_t begin_err_ = sim_call_begin(&call, name, flags);           \
        if (begin_err_ != cudaSuccess) return sim_call_end(&call, begin_err_); \
        sim_host_charge(sim_prof()->api_min_ns);                               \
    } while (0)

static bool valid(int device) { return device >= 0 && device < sim_device_count(); }

cudaError_t cudaGetDeviceCount(int *count) {
    BEGIN("cudaGetDeviceCount", SIM_CALL_NO_STICKY);
    if (!count) return sim_call_end(&call, cudaErrorInvalidValue);
    *count = sim_device_count();
    return sim_call_end(&call, cudaSuccess);
}

cudaError_t cudaGetDevice(int *device) {
    BEGIN("cudaGetDevice", SIM_CALL_NO_STICKY);
    if (!device) return sim_call_end(&call, cudaErrorInvalidValue);
    *device = (int)sim_current_device();
    return sim_call_end(&call, cudaSuccess);
}

cudaError_t cudaSetDevice(int device) {
    BEGIN("cudaSetDevice", SIM_CALL_NO_STICKY);
    if (!valid(device)) return sim_call_end(&call, cudaErrorInvalidDevice);
    current = (uint32_t)device;
    return sim_call_end(&call, cudaSuccess);
}

cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice) {
    BEGIN("cudaDeviceCanAccessPeer", SIM_CALL_NO_STICKY);
    if (!canAccessPeer) return sim_call_end(&call, cudaErrorInvalidValue);
    if (!valid(device) || !valid(peerDevice)) return sim_call_end(&call, cudaErrorInvalidDevice);
    /* A device is not its own peer (the runtime answers 0). */
    *canAccessPeer = device != peerDevice && sim_prof()->link.peer_access_supported;
    return sim_call_end(&call, cudaSuccess);
}

cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags) {
    BEGIN("cudaDeviceEnablePeerAccess", 0);
    uint32_t self = sim_current_device();
    if (!valid(peerDevice) || (uint32_t)peerDevice == self) return sim_call_end(&call, cudaErrorInvalidDevice);
    if (flags != 0) return sim_call_end(&call, cudaErrorInvalidValue);
    if (!sim_prof()->link.peer_access_supported) return sim_call_end(&call, cudaErrorPeerAccessUnsupported);
    if (peer[self][peerDevice]) return sim_call_end(&call, cudaErrorPeerAccessAlreadyEnabled);
    peer[self][peerDevice] = true;
    return sim_call_end(&call, cudaSuccess);
}

cudaError_t cudaDeviceDisablePeerAccess(int peerDevice) {
    BEGIN("cudaDeviceDisablePeerAccess", 0);
    uint32_t self = sim_current_device();
    if (!valid(peerDevice) || (uint32_t)peerDevice == self) return sim_call_end(&call, cudaErrorInvalidDevice);
    if (!peer[self][peerDevice]) return sim_call_end(&call, cudaErrorPeerAccessNotEnabled);
    peer[self][peerDevice] = false;
    return sim_call_end(&call, cudaSuccess);
}
