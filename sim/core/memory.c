/* sim/core/memory.c: the allocation table (see memory.h) and the translation of device
 * addresses to the simulator's view. */
#define _POSIX_C_SOURCE 200809L
#include "sim/core/memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>



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

bool sim_mem_ranges_accessible(const trace_range *ranges, uint32_t n) {
    for (uint32_t i = 0; i < n && i < TRACE_MAX_RANGES; i++)
        if (ranges[i].bytes && !sim_mem_device_accessible((const void *)(uintptr_t)ranges[i].addr, ranges[i].bytes))
            return false;
    return true;
}

void *sim_mem_view(const void *addr) {
    long i = find((uintptr_t)addr);
    if (i < 0 || M.items[i].kind != SIM_MEM_DEVICE) return (void *)(uintptr_t)addr;
    const sim_alloc *a = &M.items[i];
    return a->map.view + ((uintptr_t)addr - a->base);
}

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
bool sim_mem_device_allocation_of(const void *addr, const void **base, size_t *bytes) {
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

long sim_mem_find(const void *addr) { return find((uintptr_t)addr); }

sim_alloc *sim_mem_at(size_t index) { return &M.items[index]; }

bool sim_mem_insert(const sim_alloc *a) {
    if (!insert(*a)) return false;
    if (a->kind == SIM_MEM_DEVICE) {
        M.device_bytes += a->size;
        /* Allocated from inside an opened program view (not done today): keep it open. */
        if (M.program_view_open) sim_device_map_protect(&a->map, true);
    }
    return true;
}

void sim_mem_remove(size_t index) {
    sim_alloc *a = &M.items[index];
    if (a->kind == SIM_MEM_DEVICE) M.device_bytes -= a->size;
    release(a);
    remove_at(index);
}

size_t sim_mem_device_bytes(void) { return M.device_bytes; }

size_t sim_mem_device_bytes_on(uint32_t device) {
    size_t n = 0;
    for (size_t i = 0; i < M.count; i++)
        if (M.items[i].kind == SIM_MEM_DEVICE && M.items[i].device == device) n += M.items[i].size;
    return n;
}

int sim_mem_device_of(const void *addr, size_t bytes) {
    if (!sim_mem_range_is(addr, bytes, SIM_MEM_DEVICE)) return -1;
    long i = sim_mem_find(addr);
    return i < 0 ? -1 : (int)M.items[i].device;
}

bool sim_mem_overlaps(const void *base, size_t size) { return overlaps((uintptr_t)base, size); }

unsigned sim_mem_overlap_kinds(const void *base, size_t size) {
    uintptr_t b = (uintptr_t)base;
    if (size == 0) return 0;
    uintptr_t end = size > UINTPTR_MAX - b ? UINTPTR_MAX : b + size;
    /* lo: the first allocation starting at or after the range's end. */
    size_t lo = 0, hi = M.count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (M.items[mid].base < end)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* Walk back over those starting before the end while they reach into the range (the
     * table is sorted and non-overlapping, so the first that ends before it stops us). */
    unsigned kinds = 0;
    for (size_t i = lo; i-- > 0;) {
        const sim_alloc *a = &M.items[i];
        if (a->base + a->size <= b) break;
        kinds |= 1u << a->kind;
    }
    return kinds;
}
