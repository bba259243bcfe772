/* sim/memory.c: the allocation table (see memory.h), the translation of device addresses
 * to the simulator's view, and cudaMalloc, cudaFree, cudaMallocHost, cudaHostAlloc,
 * cudaFreeHost, cudaHostRegister and cudaHostUnregister. */
#define _POSIX_C_SOURCE 200809L
#include "sim/memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/device_map.h"
#include "sim/errors.h"
#include "sim/host_clock.h"
#include "sim/scheduler.h"
#include "trace/record/recorder.h"

#define HOST_ALIGN 4096u
#define MIB (1024.0 * 1024.0)

typedef struct sim_alloc {
    uintptr_t base;
    size_t size;
    sim_mem_kind kind;
    void *owned;        /* pinned: what free() releases; NULL otherwise */
    sim_device_map map; /* device: its two views (map.program == base) */
} sim_alloc;

static struct {
    sim_alloc *items; /* sorted by base, non-overlapping */
    size_t count, cap;
    size_t device_bytes;
    unsigned program_view_open; /* nesting depth of sim_mem_program_view_open */
} M;

/* Index of the allocation holding addr, or -1. */
static long find(uintptr_t addr) {
    size_t lo = 0, hi = M.count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (M.items[mid].base <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0) return -1;
    const sim_alloc *a = &M.items[lo - 1];
    return (addr - a->base < a->size) ? (long)(lo - 1) : -1;
}

/* True when [base, base + size) overlaps an allocation. */
static bool overlaps(uintptr_t base, size_t size) {
    size_t lo = 0, hi = M.count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (M.items[mid].base < base + size)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* items[lo - 1] is the last starting before the range's end. */
    if (lo == 0) return false;
    const sim_alloc *a = &M.items[lo - 1];
    return a->base + a->size > base;
}

static bool insert(sim_alloc a) {
    if (M.count == M.cap) {
        size_t ncap = M.cap ? M.cap * 2 : 64;
        sim_alloc *n = realloc(M.items, ncap * sizeof(sim_alloc));
        if (!n) return false;
        M.items = n;
        M.cap = ncap;
    }
    size_t lo = 0, hi = M.count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (M.items[mid].base < a.base)
            lo = mid + 1;
        else
            hi = mid;
    }
    memmove(&M.items[lo + 1], &M.items[lo], (M.count - lo) * sizeof(sim_alloc));
    M.items[lo] = a;
    M.count++;
    return true;
}

static void remove_at(size_t i) {
    memmove(&M.items[i], &M.items[i + 1], (M.count - i - 1) * sizeof(sim_alloc));
    M.count--;
}

sim_mem_kind sim_mem_kind_of(const void *addr, uintptr_t *base, size_t *size) {
    long i = find((uintptr_t)addr);
    if (i < 0) return SIM_MEM_PAGEABLE;
    if (base) *base = M.items[i].base;
    if (size) *size = M.items[i].size;
    return M.items[i].kind;
}

static bool within(long i, uintptr_t addr, size_t bytes) {
    const sim_alloc *a = &M.items[i];
    return bytes <= a->size && addr - a->base <= a->size - bytes;
}

bool sim_mem_range_is(const void *addr, size_t bytes, sim_mem_kind kind) {
    long i = find((uintptr_t)addr);
    if (i < 0) return kind == SIM_MEM_PAGEABLE;
    sim_mem_kind k = M.items[i].kind;
    bool match = k == kind || (kind == SIM_MEM_PINNED && k == SIM_MEM_REGISTERED);
    return match && within(i, (uintptr_t)addr, bytes);
}

bool sim_mem_device_accessible(const void *addr, size_t bytes) {
    long i = find((uintptr_t)addr);
    return i >= 0 && within(i, (uintptr_t)addr, bytes);
}

void *sim_mem_view(const void *addr) {
    long i = find((uintptr_t)addr);
    if (i < 0 || M.items[i].kind != SIM_MEM_DEVICE) return (void *)(uintptr_t)addr;
    const sim_alloc *a = &M.items[i];
    return a->map.view + ((uintptr_t)addr - a->base);
}

void *sim_device_view(const void *ptr) { return sim_mem_view(ptr); }

static void protect_all(bool open) {
    for (size_t i = 0; i < M.count; i++)
        if (M.items[i].kind == SIM_MEM_DEVICE) sim_device_map_protect(&M.items[i].map, open);
}

void sim_mem_program_view_open(void) {
    if (M.program_view_open++ == 0) protect_all(true);
}

void sim_mem_program_view_close(void) {
    if (M.program_view_open == 0) return;
    if (--M.program_view_open == 0) protect_all(false);
}

/* Async-signal-safe: reads the table only (the program faults outside the simulator, never
 * while the simulator changes the table). */
bool sim_device_allocation_of(const void *addr, const void **base, size_t *bytes) {
    uintptr_t p = (uintptr_t)addr;
    size_t lo = 0, hi = M.count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (M.items[mid].base <= p)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0) return false;
    const sim_alloc *a = &M.items[lo - 1];
    /* The rest of the last page belongs to the allocation's mapping too. */
    if (a->kind != SIM_MEM_DEVICE || p - a->base >= a->map.mapped) return false;
    if (base) *base = (const void *)a->base;
    if (bytes) *bytes = a->size;
    return true;
}

size_t sim_mem_count(void) { return M.count; }

static void release(sim_alloc *a) {
    if (a->kind == SIM_MEM_DEVICE) sim_device_map_release(&a->map);
    free(a->owned);
}

void sim_mem_release_all(void) {
    for (size_t i = 0; i < M.count; i++) release(&M.items[i]);
    free(M.items);
    memset(&M, 0, sizeof(M));
}

static size_t round_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

/* ---- the runtime calls -------------------------------------------------------------- */

cudaError_t cudaMalloc(void **devPtr, size_t size) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, "cudaMalloc", 0);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    sim_host_charge(sim_prof()->malloc_ns);
    if (!devPtr) return sim_call_end(&call, cudaErrorInvalidValue);
    if (size == 0) {
        *devPtr = NULL;
        return sim_call_end(&call, cudaSuccess);
    }
    size_t total = (size_t)sim_prof()->total_global_mem;
    if (size > total - M.device_bytes || sim_device_map_span(size) == 0) {
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
    if (!insert(a)) {
        sim_device_map_release(&a.map);
        *devPtr = NULL;
        return sim_call_end(&call, cudaErrorMemoryAllocation);
    }
    /* Allocated from inside an opened program view (not done today): keep it open too. */
    if (M.program_view_open) sim_device_map_protect(&a.map, true);
    M.device_bytes += size;
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
    sim_host_charge(sim_prof()->free_ns);
    if (!devPtr) return sim_call_end(&call, cudaSuccess);
    long i = find((uintptr_t)devPtr);
    if (i < 0 || M.items[i].kind != SIM_MEM_DEVICE || M.items[i].base != (uintptr_t)devPtr)
        return sim_call_end(&call, cudaErrorInvalidValue);
    implicit_device_sync(&call);
    i = find((uintptr_t)devPtr);
    M.device_bytes -= M.items[i].size;
    release(&M.items[i]);
    remove_at((size_t)i);
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
    sim_alloc a = {(uintptr_t)mem, size, SIM_MEM_PINNED, mem, {0}};
    if (!insert(a)) {
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
    sim_host_charge(sim_prof()->free_ns);
    if (!ptr) return sim_call_end(&call, cudaSuccess);
    long i = find((uintptr_t)ptr);
    if (i < 0 || M.items[i].kind != SIM_MEM_PINNED || M.items[i].base != (uintptr_t)ptr)
        return sim_call_end(&call, cudaErrorInvalidValue);
    implicit_device_sync(&call);
    i = find((uintptr_t)ptr);
    release(&M.items[i]);
    remove_at((size_t)i);
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
    if (overlaps((uintptr_t)ptr, size)) {
        /* Registered already: say so; memory the runtime allocated itself (device or
         * cudaMallocHost) is not the program's to register: an invalid value (as the
         * CUDA 13 runtime answers). */
        long i = find((uintptr_t)ptr);
        bool registered = i >= 0 && M.items[i].kind == SIM_MEM_REGISTERED;
        return sim_call_end(&call, registered ? cudaErrorHostMemoryAlreadyRegistered : cudaErrorInvalidValue);
    }
    sim_alloc a = {(uintptr_t)ptr, size, SIM_MEM_REGISTERED, NULL, {0}};
    if (!insert(a)) return sim_call_end(&call, cudaErrorMemoryAllocation);
    return sim_call_end(&call, cudaSuccess);
}

cudaError_t cudaHostUnregister(void *ptr) {
    sim_call call;
    cudaError_t err = sim_call_begin(&call, "cudaHostUnregister", 0);
    if (err != cudaSuccess) return sim_call_end(&call, err);
    sim_host_charge(sim_prof()->host_register_ns);
    if (!ptr) return sim_call_end(&call, cudaErrorInvalidValue);
    long i = find((uintptr_t)ptr);
    /* cudaMallocHost memory and device memory were never registered but are the
     * runtime's own: an invalid value, as the CUDA 13 runtime answers. */
    if (i >= 0 && M.items[i].kind != SIM_MEM_REGISTERED) return sim_call_end(&call, cudaErrorInvalidValue);
    if (i < 0 || M.items[i].base != (uintptr_t)ptr) return sim_call_end(&call, cudaErrorHostMemoryNotRegistered);
    /* Copies still in flight may read or write the range: let them finish first. */
    implicit_device_sync(&call);
    i = find((uintptr_t)ptr);
    remove_at((size_t)i);
    return sim_call_end(&call, sim_error_sticky_or(cudaSuccess));
}
