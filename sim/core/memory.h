/* sim/core/memory.h: what the simulator knows about memory. Device allocations (cudaMalloc)
 * are host memory that the program cannot touch: mapped twice, page-aligned, the
 * program's view inaccessible and the simulator's view where the bytes are moved
 * (sim/core/device_map.h); page-locked host memory comes from cudaMallocHost / cudaHostAlloc or is
 * registered with cudaHostRegister; anything else is pageable. A sorted table answers
 * "which allocation holds this address" by binary search, so the checks on every copy and
 * launch, and the translation of device addresses to the simulator's view, stay cheap. */
#ifndef STREAMLAB_SIM_CORE_MEMORY_H
#define STREAMLAB_SIM_CORE_MEMORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/core/device_map.h"
#include "trace/record/op.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sim_mem_kind {
    SIM_MEM_PAGEABLE = 0, /* not in the table */
    SIM_MEM_DEVICE,       /* cudaMalloc */
    SIM_MEM_PINNED,       /* cudaMallocHost / cudaHostAlloc */
    SIM_MEM_REGISTERED    /* cudaHostRegister */
} sim_mem_kind;

/* The kind of memory at addr (SIM_MEM_PAGEABLE when no allocation holds it). When
 * base/size are given they receive the holding allocation's range. */
sim_mem_kind sim_mem_kind_of(const void *addr, uintptr_t *base, size_t *size);
/* True when [addr, addr + bytes) lies inside one allocation of the given kind; for
 * SIM_MEM_PINNED a registered range counts too. */
bool sim_mem_range_is(const void *addr, size_t bytes, sim_mem_kind kind);
/* True when the device can access [addr, addr + bytes): inside one device allocation,
 * or inside one page-locked (mapped) host range. */
bool sim_mem_device_accessible(const void *addr, size_t bytes);
/* True when the device can access every one of n ranges (a kernel's, as trace_op records
 * them; empty ones pass): false is a kernel that would fault on an illegal address. */
bool sim_mem_ranges_accessible(const trace_range *ranges, uint32_t n);
/* Where the simulator reads and writes the byte at addr: in the simulator's view when
 * addr lies in a device allocation, else addr itself (host memory). The same as
 * sim_device_view (streamlab_sim.h). */
void *sim_mem_view(const void *addr);
/* Opens the program's view of every device allocation (readable and writable) until the
 * matching sim_mem_program_view_close: around a kernel body that uses the program's
 * device addresses. Calls nest. */
void sim_mem_program_view_open(void);
void sim_mem_program_view_close(void);
/* Allocations live now. */
size_t sim_mem_count(void);

/* ---- the table, for the runtime's allocation calls (sim/memory_calls.c) ---- */

typedef struct sim_alloc {
    uintptr_t base;
    size_t size;
    sim_mem_kind kind;
    void *owned;        /* pinned: what free() releases; NULL otherwise */
    sim_device_map map; /* device: its two views (map.program == base) */
    uint32_t device;    /* device: the device it lives on (current at cudaMalloc) */
} sim_alloc;

/* The index of the allocation holding addr, or -1. */
long sim_mem_find(const void *addr);
sim_alloc *sim_mem_at(size_t index);
/* Adds an allocation (kept sorted; device bytes counted; a device allocation made while
 * the program's view is open is opened too). False when out of memory. */
bool sim_mem_insert(const sim_alloc *a);
/* Removes the allocation at index and releases what it owns (its mappings, its bytes). */
void sim_mem_remove(size_t index);
/* True when [base, base + size) overlaps an allocation. */
bool sim_mem_overlaps(const void *base, size_t size);
/* The kinds of the allocations that [base, base + size) overlaps, as a mask of
 * (1u << sim_mem_kind) bits (0 when it overlaps none). */
unsigned sim_mem_overlap_kinds(const void *base, size_t size);
/* Bytes of device memory allocated now (on every device; on one). */
size_t sim_mem_device_bytes(void);
size_t sim_mem_device_bytes_on(uint32_t device);
/* The device whose memory holds [addr, addr + bytes), or -1 when that is not inside one
 * device allocation. */
int sim_mem_device_of(const void *addr, size_t bytes);
/* Which device allocation addr is in (anywhere in its mapping): true with its start and
 * size. Async-signal-safe: it only reads the table. */
bool sim_mem_device_allocation_of(const void *addr, const void **base, size_t *bytes);
/* Frees every allocation and registration (sim_reset, cudaDeviceReset). */
void sim_mem_release_all(void);

#ifdef __cplusplus
}
#endif

#endif
