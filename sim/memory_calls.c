/* sim/memory_calls.c: cudaMalloc, cudaFree, cudaMallocHost, cudaHostAlloc, cudaFreeHost,
 * cudaHostRegister and cudaHostUnregister over the allocation table of sim/core/memory.h,
 * and the sim_device_view / sim_device_allocation_of entry points of streamlab_sim.h. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/call.h"
#include "sim/core/memory.h"
#include "sim/devices.h"
#include "sim/stream_capture.h"
#include "sim/core/scheduler.h"
#include "sim/errors.h"
#include "streamlab_sim.h"
#include "trace/record/recorder.h"

#define HOST_ALIGN 4096u
#define MIB (1024.0 * 1024.0)

static size_t round_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

void *sim_device_view(const void *ptr) { return sim_mem_view(ptr); }

bool sim_device_allocation_of(const void *addr, const void **base, size_t *bytes) {
    return sim_mem_device_allocation_of(addr, base, bytes);
}

/* ---- the runtime calls -------------------------------------------------------------- */

cudaError_t cudaMalloc(void **devPtr, size_t size) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, "cudaMalloc", 0);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    sim_host_charge(sim_profile_malloc_ns(sim_prof(), (double)size));
    if (!devPtr) return sim_call_end(&call, cudaErrorInvalidValue);
    /* The runtime's example of a potentially unsafe call during capture. */
    err = sim_capture_check_unsafe();
    if (err != cudaSuccess) return sim_call_end(&call, err);
    if (size == 0) {
        *devPtr = NULL;
        return sim_call_end(&call, cudaSuccess);
    }
    size_t total = (size_t)sim_prof()->total_global_mem;
    uint32_t device = sim_current_device(); /* each device has its own memory */
    if (size > total - sim_mem_device_bytes_on(device) || sim_device_map_span(size) == 0) {
        *devPtr = NULL;
        return sim_call_end(&call, cudaErrorMemoryAllocation);
    }
    /* Page-aligned (cudaMalloc promises 256 bytes), and fresh mappings read as zeros:
     * deterministic contents. The program's view faults on a host access. */
    sim_alloc a = {0};
    if (!sim_device_map_create(size, &a.map)) {
        *devPtr = NULL;
        return sim_call_end(&call, cudaErrorMemoryAllocation);
    }
    a.base = (uintptr_t)a.map.program;
    a.size = size;
    a.kind = SIM_MEM_DEVICE;
    a.device = device;
    if (!sim_mem_insert(&a)) {
        sim_device_map_release(&a.map);
        *devPtr = NULL;
        return sim_call_end(&call, cudaErrorMemoryAllocation);
    }
    *devPtr = a.map.program;
    return sim_call_end(&call, cudaSuccess);
}

/* The real runtime waits for the device before it frees memory. */
static void implicit_device_sync(const sim_call *call) {
    uint64_t start = sim_host_now();
    sim_sched_wait_device();
    trace_record_sync(TRACE_SYNC_DEVICE, NULL, call->name, start, sim_host_now());
}

cudaError_t cudaFree(void *devPtr) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, "cudaFree", 0);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    if (!devPtr) return sim_call_end(&call, cudaSuccess);
    long i = sim_mem_find(devPtr);
    if (i < 0 || sim_mem_at((size_t)i)->kind != SIM_MEM_DEVICE || sim_mem_at((size_t)i)->base != (uintptr_t)devPtr)
        return sim_call_end(&call, cudaErrorInvalidValue);
    size_t size = sim_mem_at((size_t)i)->size;
    implicit_device_sync(&call);
    /* Releasing the memory, once the device is done with it: on a busy device the host
     * pays the wait and then this. */
    sim_host_charge(sim_profile_free_ns(sim_prof(), (double)size));
    i = sim_mem_find(devPtr);
    sim_mem_remove((size_t)i);
    return sim_call_end(&call, sim_error_sticky_or(cudaSuccess));
}

static cudaError_t host_alloc(sim_call *call, void **ptr, size_t size, unsigned flags) {
    const sim_profile *p = sim_prof();
    sim_host_charge(p->malloc_host_ns + p->malloc_host_ns_per_mib * ((double)size / MIB));
    if (!ptr) return cudaErrorInvalidValue;
    if (flags & ~(unsigned)(cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined))
        return cudaErrorInvalidValue;
    (void)call;
    if (size == 0) {
        *ptr = NULL;
        return cudaSuccess;
    }
    if (size > SIZE_MAX - HOST_ALIGN) {
        *ptr = NULL;
        return cudaErrorMemoryAllocation;
    }
    size_t padded = round_up(size, HOST_ALIGN);
    void *mem = aligned_alloc(HOST_ALIGN, padded);
    if (!mem) {
        *ptr = NULL;
        return cudaErrorMemoryAllocation;
    }
    memset(mem, 0, padded);
    sim_alloc a = {(uintptr_t)mem, size, SIM_MEM_PINNED, mem, {0}, 0};
    if (!sim_mem_insert(&a)) {
        free(mem);
        *ptr = NULL;
        return cudaErrorMemoryAllocation;
    }
    *ptr = mem;
    return cudaSuccess;
}

cudaError_t cudaMallocHost(void **ptr, size_t size) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, "cudaMallocHost", 0);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    return sim_call_end(&call, host_alloc(&call, ptr, size, cudaHostAllocDefault));
}

cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, "cudaHostAlloc", 0);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    return sim_call_end(&call, host_alloc(&call, pHost, size, flags));
}

cudaError_t cudaFreeHost(void *ptr) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, "cudaFreeHost", 0);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    const sim_profile *p = sim_prof();
    if (!ptr) return sim_call_end(&call, cudaSuccess);
    long i = sim_mem_find(ptr);
    if (i < 0 || sim_mem_at((size_t)i)->kind != SIM_MEM_PINNED || sim_mem_at((size_t)i)->base != (uintptr_t)ptr)
        return sim_call_end(&call, cudaErrorInvalidValue);
    size_t size = sim_mem_at((size_t)i)->size;
    implicit_device_sync(&call);
    /* Unlocking and releasing the pages, once the device is done with them. */
    sim_host_charge(p->free_host_ns + p->free_host_ns_per_mib * ((double)size / MIB));
    i = sim_mem_find(ptr);
    sim_mem_remove((size_t)i);
    return sim_call_end(&call, sim_error_sticky_or(cudaSuccess));
}

cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, "cudaHostRegister", 0);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    const sim_profile *p = sim_prof();
    sim_host_charge(p->host_register_ns + p->host_register_ns_per_mib * ((double)size / MIB));
    unsigned valid = cudaHostRegisterPortable | cudaHostRegisterMapped | cudaHostRegisterIoMemory |
                     cudaHostRegisterReadOnly;
    if (!ptr || size == 0 || (flags & ~valid) || (uintptr_t)ptr > UINTPTR_MAX - size)
        return sim_call_end(&call, cudaErrorInvalidValue);
    /* No alignment is asked of ptr or size (NVIDIA's cuda-python tests register an
     * unaligned 160-byte range; the H200 answers the conformance cases "cudaHostRegister
     * of 100 bytes ..." / "... at an address not page-aligned" with cudaSuccess). The
     * simulator registers exactly the bytes asked for, so two ranges sharing a page
     * register independently (not checked on hardware). A range that overlaps a
     * registered one anywhere, equal to it or not, is "already registered"
     * (cudaErrorHostMemoryAlreadyRegistered: "the memory range passed to
     * cudaHostRegister() has already been registered"; the cuda-python test and the H200
     * agree); one that overlaps memory the runtime allocated itself (device or
     * cudaMallocHost) is not the program's to register: an invalid value, as the CUDA 13
     * runtime answers. */
    unsigned kinds = sim_mem_overlap_kinds(ptr, size);
    if (kinds != 0) {
        bool only_registered = kinds == (1u << SIM_MEM_REGISTERED);
        return sim_call_end(&call, only_registered ? cudaErrorHostMemoryAlreadyRegistered : cudaErrorInvalidValue);
    }
    sim_alloc a = {(uintptr_t)ptr, size, SIM_MEM_REGISTERED, NULL, {0}, 0};
    if (!sim_mem_insert(&a)) return sim_call_end(&call, cudaErrorMemoryAllocation);
    return sim_call_end(&call, cudaSuccess);
}

cudaError_t cudaHostUnregister(void *ptr) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, "cudaHostUnregister", 0);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    const sim_profile *p = sim_prof();
    sim_host_charge(p->host_unregister_ns);
    if (!ptr) return sim_call_end(&call, cudaErrorInvalidValue);
    long i = sim_mem_find(ptr);
    /* In no allocation: cudaErrorHostMemoryNotRegistered ("does not correspond to any
     * currently registered memory region"). cudaMallocHost memory and device memory were
     * never registered but are the runtime's own: an invalid value, as the CUDA 13 runtime
     * answers. A pointer inside a registered range but not at its start: "the base
     * address must be the same one specified to cudaHostRegister()" (CUDA 13's
     * cuda_runtime_api.h); the pointer does correspond to a registered region, so not
     * ...NotRegistered but an invalid value, as NVIDIA's cuda-python tests expect
     * (test_cudart_hostRegister unregisters an interior pointer). */
    if (i < 0) return sim_call_end(&call, cudaErrorHostMemoryNotRegistered);
    const sim_alloc *a = sim_mem_at((size_t)i);
    if (a->kind != SIM_MEM_REGISTERED || a->base != (uintptr_t)ptr) return sim_call_end(&call, cudaErrorInvalidValue);
    size_t size = a->size;
    /* Copies still in flight may read or write the range: let them finish first. */
    implicit_device_sync(&call);
    sim_host_charge(p->host_unregister_ns_per_mib * ((double)size / MIB));
    i = sim_mem_find(ptr);
    sim_mem_remove((size_t)i);
    return sim_call_end(&call, sim_error_sticky_or(cudaSuccess));
}
