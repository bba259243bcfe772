/* sim/runtime_api.c: the device-wide calls of the runtime API (properties, attributes,
 * priority range, cudaDeviceSynchronize, cudaDeviceReset). Bringing the device up is
 * sim/runtime.c's, tearing it down sim/reset.c's. A profile may describe two devices,
 * alike (sim/devices.c: the current device, peer access). */
#include <stdio.h>
#include <string.h>

#include "sim/devices.h"
#include "sim/errors.h"
#include "sim/call.h"
#include "sim/stream_capture.h"
#include "sim/profile_choice.h"
#include "sim/reset.h"
#include "sim/runtime.h"
#include "sim/core/scheduler.h"
#include "sim/stream_handles.h"

/* ---- devices ------------------------------------------------------------------------ */

#define BEGIN(name, flags)                                                  \
    sim_call call;                                                          \
    do {                                                                    \
        cudaError_t begin_err_ = sim_call_begin(&call, name, flags);        \
        if (begin_err_ != cudaSuccess) return sim_call_end(&call, begin_err_); \
        sim_host_charge(sim_prof()->api_min_ns);                            \
    } while (0)

static bool valid_device(int device) { return device >= 0 && device < sim_device_count(); }

static int iv(double v) { return (int)v; }

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device) {
    BEGIN("cudaGetDeviceProperties", SIM_CALL_NO_STICKY);
    if (!prop) return sim_call_end(&call, cudaErrorInvalidValue);
    if (!valid_device(device)) return sim_call_end(&call, cudaErrorInvalidDevice);
    const sim_profile *p = sim_prof();
    memset(prop, 0, sizeof(*prop));
    snprintf(prop->name, sizeof(prop->name), "%s", p->device_name);
    /* A recognisable UUID: "streamlab sim" and the profile, never a real GPU's. */
    memcpy(prop->uuid.bytes, "streamlab-sim-\0\0", 16);
    snprintf(prop->uuid.bytes + 14, 2, "%c", p->name[0]);
    prop->uuid.bytes[15] = (char)device; /* devices of one profile differ */
    prop->pciBusID = device;
    prop->totalGlobalMem = (size_t)p->total_global_mem;
    prop->sharedMemPerBlock = (size_t)p->shared_mem_per_block;
    prop->regsPerBlock = iv(p->regs_per_block);
    prop->warpSize = iv(p->warp_size);
    prop->memPitch = 2147483647;
    prop->maxThreadsPerBlock = iv(p->max_threads_per_block);
    prop->maxThreadsDim[0] = iv(p->max_block_dim_x);
    prop->maxThreadsDim[1] = iv(p->max_block_dim_y);
    prop->maxThreadsDim[2] = iv(p->max_block_dim_z);
    prop->maxGridSize[0] = iv(p->max_grid_dim_x);
    prop->maxGridSize[1] = iv(p->max_grid_dim_y);
    prop->maxGridSize[2] = iv(p->max_grid_dim_z);
    prop->totalConstMem = (size_t)p->total_const_mem;
    prop->major = iv(p->compute_major);
    prop->minor = iv(p->compute_minor);
    prop->textureAlignment = 512;
    prop->texturePitchAlignment = 32;
    prop->multiProcessorCount = iv(p->sm_count);
    prop->canMapHostMemory = 1;
    prop->concurrentKernels = 1;
    prop->asyncEngineCount = iv(p->async_engine_count);
    prop->unifiedAddressing = 1;
    prop->memoryBusWidth = iv(p->memory_bus_width);
    prop->l2CacheSize = iv(p->l2_cache_bytes);
    prop->maxThreadsPerMultiProcessor = iv(p->max_threads_per_sm);
    prop->streamPrioritiesSupported = p->priority_least != p->priority_greatest;
    prop->globalL1CacheSupported = 1;
    prop->localL1CacheSupported = 1;
    prop->sharedMemPerMultiprocessor = (size_t)p->shared_mem_per_sm;
    prop->regsPerMultiprocessor = iv(p->regs_per_sm);
    prop->computePreemptionSupported = 1;
    prop->canUseHostPointerForRegisteredMem = 1;
    prop->cooperativeLaunch = 1;
    prop->sharedMemPerBlockOptin = (size_t)p->shared_mem_per_block_optin;
    prop->maxBlocksPerMultiProcessor = iv(p->max_blocks_per_sm);
    prop->reservedSharedMemPerBlock = (size_t)p->reserved_shared_mem_per_block;
    prop->hostRegisterSupported = 1;
    prop->clusterLaunch = p->compute_major >= 9;
    prop->hostNumaId = -1;
    prop->deviceNumaId = -1;
    return sim_call_end(&call, cudaSuccess);
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device) {
    BEGIN("cudaDeviceGetAttribute", SIM_CALL_NO_STICKY);
    if (!value) return sim_call_end(&call, cudaErrorInvalidValue);
    if (!valid_device(device)) return sim_call_end(&call, cudaErrorInvalidDevice);
    const sim_profile *p = sim_prof();
    int v;
    switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: v = iv(p->max_threads_per_block); break;
    case cudaDevAttrMaxBlockDimX: v = iv(p->max_block_dim_x); break;
    case cudaDevAttrMaxBlockDimY: v = iv(p->max_block_dim_y); break;
    case cudaDevAttrMaxBlockDimZ: v = iv(p->max_block_dim_z); break;
    case cudaDevAttrMaxGridDimX: v = iv(p->max_grid_dim_x); break;
    case cudaDevAttrMaxGridDimY: v = iv(p->max_grid_dim_y); break;
    case cudaDevAttrMaxGridDimZ: v = iv(p->max_grid_dim_z); break;
    case cudaDevAttrMaxSharedMemoryPerBlock: v = iv(p->shared_mem_per_block); break;
    case cudaDevAttrTotalConstantMemory: v = iv(p->total_const_mem); break;
    case cudaDevAttrWarpSize: v = iv(p->warp_size); break;
    case cudaDevAttrMaxPitch: v = 2147483647; break;
    case cudaDevAttrMaxRegistersPerBlock: v = iv(p->regs_per_block); break;
    case cudaDevAttrClockRate: v = iv(p->clock_khz); break;
    case cudaDevAttrTextureAlignment: v = 512; break;
    case cudaDevAttrGpuOverlap: v = p->async_engine_count > 0; break;
    case cudaDevAttrMultiProcessorCount: v = iv(p->sm_count); break;
    case cudaDevAttrKernelExecTimeout: v = 0; break;
    case cudaDevAttrIntegrated: v = 0; break;
    case cudaDevAttrCanMapHostMemory: v = 1; break;
    case cudaDevAttrComputeMode: v = 0; break;
    case cudaDevAttrConcurrentKernels: v = 1; break;
    case cudaDevAttrEccEnabled: v = 0; break;
    case cudaDevAttrPciBusId: v = 0; break;
    case cudaDevAttrPciDeviceId: v = 0; break;
    case cudaDevAttrTccDriver: v = 0; break;
    case cudaDevAttrMemoryClockRate: v = iv(p->memory_clock_khz); break;
    case cudaDevAttrGlobalMemoryBusWidth: v = iv(p->memory_bus_width); break;
    case cudaDevAttrL2CacheSize: v = iv(p->l2_cache_bytes); break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: v = iv(p->max_threads_per_sm); break;
    case cudaDevAttrAsyncEngineCount: v = iv(p->async_engine_count); break;
    case cudaDevAttrUnifiedAddressing: v = 1; break;
    case cudaDevAttrPciDomainId: v = 0; break;
    case cudaDevAttrComputeCapabilityMajor: v = iv(p->compute_major); break;
    case cudaDevAttrComputeCapabilityMinor: v = iv(p->compute_minor); break;
    case cudaDevAttrStreamPrioritiesSupported: v = p->priority_least != p->priority_greatest; break;
    case cudaDevAttrGlobalL1CacheSupported: v = 1; break;
    case cudaDevAttrLocalL1CacheSupported: v = 1; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: v = iv(p->shared_mem_per_sm); break;
    case cudaDevAttrMaxRegistersPerMultiprocessor: v = iv(p->regs_per_sm); break;
    case cudaDevAttrManagedMemory: v = 0; break;
    case cudaDevAttrIsMultiGpuBoard: v = 0; break;
    case cudaDevAttrMultiGpuBoardGroupID: v = 0; break;
    case cudaDevAttrHostNativeAtomicSupported: v = 0; break;
    case cudaDevAttrSingleToDoublePrecisionPerfRatio: v = 2; break;
    case cudaDevAttrPageableMemoryAccess: v = 0; break;
    case cudaDevAttrConcurrentManagedAccess: v = 0; break;
    case cudaDevAttrComputePreemptionSupported: v = 1; break;
    case cudaDevAttrCanUseHostPointerForRegisteredMem: v = 1; break;
    case cudaDevAttrCooperativeLaunch: v = 1; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: v = iv(p->shared_mem_per_block_optin); break;
    case cudaDevAttrHostRegisterSupported: v = 1; break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: v = iv(p->max_blocks_per_sm); break;
    case cudaDevAttrReservedSharedMemoryPerBlock: v = iv(p->reserved_shared_mem_per_block); break;
    case cudaDevAttrMemoryPoolsSupported: v = 0; break;
    case cudaDevAttrClusterLaunch: v = p->compute_major >= 9; break;
    default: return sim_call_end(&call, cudaErrorInvalidValue);
    }
    *value = v;
    return sim_call_end(&call, cudaSuccess);
}

cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority) {
    BEGIN("cudaDeviceGetStreamPriorityRange", SIM_CALL_NO_STICKY);
    const sim_profile *p = sim_prof();
    if (leastPriority) *leastPriority = iv(p->priority_least);
    if (greatestPriority) *greatestPriority = iv(p->priority_greatest);
    return sim_call_end(&call, cudaSuccess);
}

cudaError_t cudaDeviceSynchronize(void) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, "cudaDeviceSynchronize", 0);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    sim_host_charge(sim_prof()->sync_call_ns);
    err = sim_capture_check_device_sync();
    if (err != cudaSuccess) return sim_call_end(&call, err);
    sim_sched_wait_device_of(sim_current_device()); /* the current device's work only */
    sim_streams_record_device_sync(sim_current_device(), "cudaDeviceSynchronize", call.start_ns, sim_host_now());
    return sim_call_end(&call, sim_error_sticky_or(cudaSuccess));
}

cudaError_t cudaDeviceReset(void) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, "cudaDeviceReset", SIM_CALL_NO_STICKY);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    sim_host_charge(sim_prof()->sync_call_ns);
    /* Work already queued finishes first (it is deterministic, and no copy is left
     * writing into memory about to be freed). */
    sim_sched_wait_device();
    sim_runtime_teardown();
    sim_runtime_restart(sim_prof());
    return sim_call_end(&call, cudaSuccess);
}
