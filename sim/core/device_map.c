/* sim/core/device_map.c: device memory mapped twice, the program's view inaccessible (see
 * device_map.h). */
#define _GNU_SOURCE
#include "sim/core/device_map.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static size_t page_size(void) {
    static size_t page;
    if (!page) {
        long p = sysconf(_SC_PAGESIZE);
        page = p > 0 ? (size_t)p : 4096u;
    }
    return page;
}

size_t sim_device_map_span(size_t size) {
    size_t page = page_size();
    if (size > SIZE_MAX - (page - 1)) return 0;
    return (size + page - 1) / page * page;
}

bool sim_device_map_create(size_t size, sim_device_map *out) {
    size_t mapped = sim_device_map_span(size);
    if (size == 0 || mapped == 0) return false;
    /* MAP_NORESERVE: like cudaMalloc, a large allocation costs nothing until written. */
    void *program = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (program == MAP_FAILED) return false;
    /* old_size 0 on a shared mapping: a second mapping of the same pages. */
    void *view = mremap(program, 0, mapped, MREMAP_MAYMOVE);
    if (view == MAP_FAILED) {
        munmap(program, mapped);
        return false;
    }
    if (mprotect(program, mapped, PROT_NONE) != 0) {
        munmap(view, mapped);
        munmap(program, mapped);
        return false;
    }
    out->program = program;
    out->view = view;
    out->mapped = mapped;
    return true;
}

void sim_device_map_release(sim_device_map *m) {
    if (m->program) munmap(m->program, m->mapped);
    if (m->view) munmap(m->view, m->mapped);
    m->program = m->view = NULL;
    m->mapped = 0;
}

void sim_device_map_protect(const sim_device_map *m, bool open) {
    if (mprotect(m->program, m->mapped, open ? PROT_READ | PROT_WRITE : PROT_NONE) != 0) {
        /* Only a corrupted table gets here: say so rather than fault later for no reason. */
        fprintf(stderr, "streamlab simulated GPU: internal error: cannot change the protection of device memory\n");
        abort();
    }
}
