/* sim/core/device_map.h: how simulated device memory is backed, so that the program cannot
 * touch it from the host, as on a GPU.
 *
 * Each cudaMalloc allocation is one piece of shared memory mapped twice:
 *   - the program's view, at the address cudaMalloc returns, is PROT_NONE: a host read or
 *     write through a device pointer faults (SIGSEGV), as it does on real hardware;
 *   - the simulator's view, at another address, is readable and writable: copies,
 *     memsets and kernel bodies move the bytes there (memory.h translates).
 * Both views are mapped from the same pages (mremap of a shared mapping), so a byte
 * written in one is seen in the other, and no file descriptor stays open. Fresh mappings
 * read as zeros. A kernel body written against the program's addresses can still run:
 * sim_device_map_protect opens the program's view around it (memory.h). */
#ifndef STREAMLAB_SIM_DEVICE_MAP_H
#define STREAMLAB_SIM_DEVICE_MAP_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sim_device_map {
    unsigned char *program; /* what cudaMalloc returns: inaccessible to the program */
    unsigned char *view;    /* the simulator's view of the same bytes */
    size_t mapped;          /* bytes mapped in each view: a whole number of pages */
} sim_device_map;

/* The bytes a request of size bytes maps: size rounded up to whole pages. */
size_t sim_device_map_span(size_t size);
/* Maps size bytes (size > 0) in two views, the program's inaccessible. Returns false
 * when the system refuses (out of memory or address space). */
bool sim_device_map_create(size_t size, sim_device_map *out);
/* Unmaps both views. */
void sim_device_map_release(sim_device_map *m);
/* Makes the program's view readable and writable (open) or inaccessible again. */
void sim_device_map_protect(const sim_device_map *m, bool open);

#ifdef __cplusplus
}
#endif

#endif
