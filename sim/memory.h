/* sim/memory.h: what the simulator knows about memory. Device allocations (cudaMalloc)
 * are host memory that the program cannot touch: mapped twice, page-aligned, the
 * program's view inaccessible and the simulator's view where the bytes are moved
 * (device_map.h); page-locked host memory comes from cudaMallocHost / cudaHostAlloc or is
 * registered with cudaHostRegister; anything else is pageable. A sorted table answers
 * "which allocation holds this address" by binary search, so the checks on every copy and
 * launch, and the translation of device addresses to the simulator's view, stay cheap. */
#ifndef STREAMLAB_SIM_MEMORY_H
#define STREAMLAB_SIM_MEMORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
/* Frees every allocation and registration (sim_reset, cudaDeviceReset). */
void sim_mem_release_all(void);

#ifdef __cplusplus
}
#endif

#endif
