/* trace/gpu/mem_cache.c: the interposer's allocation cache (see mem_cache.h). */
#include "trace/gpu/mem_cache.h"

#include <stdlib.h>

#include "trace/record/interval_map.h"

/* Each allocation is one segment; its base keeps neighbouring allocations of the same kind
 * from merging, so that freeing one never forgets the other. */
typedef struct alloc_val {
    uint64_t base;
    uint32_t kind; /* trace_gpu_mem */
    uint32_t pad;  /* zero, so that values compare bytewise */
} alloc_val;

struct trace_gpu_mem_cache {
    trace_imap map;
};

trace_gpu_mem_cache *trace_gpu_mem_cache_create(void) {
    trace_gpu_mem_cache *c = calloc(1, sizeof(*c));
    if (!c) return NULL;
    trace_imap_ops ops = {sizeof(alloc_val), NULL, NULL, NULL};
    trace_imap_init(&c->map, &ops);
    return c;
}

void trace_gpu_mem_cache_destroy(trace_gpu_mem_cache *c) {
    if (!c) return;
    trace_imap_clear(&c->map);
    free(c);
}

void trace_gpu_mem_cache_add(trace_gpu_mem_cache *c, const void *base, uint64_t bytes, trace_gpu_mem kind) {
    if (!base || bytes == 0) return;
    uint64_t lo = (uint64_t)(uintptr_t)base;
    alloc_val v = {lo, (uint32_t)kind, 0};
    trace_imap_assign(&c->map, lo, trace_imap_end(lo, bytes), &v);
}

/* Index of the segment holding addr, or the count when none does. */
static size_t segment_of(const trace_imap *m, uint64_t addr) {
    size_t i = trace_imap_lower(m, addr);
    if (i < trace_imap_count(m) && trace_imap_lo(m, i) <= addr) return i;
    return trace_imap_count(m);
}

void trace_gpu_mem_cache_remove(trace_gpu_mem_cache *c, const void *base) {
    uint64_t addr = (uint64_t)(uintptr_t)base;
    size_t i = segment_of(&c->map, addr);
    if (i == trace_imap_count(&c->map)) return;
    const alloc_val *v = trace_imap_val(&c->map, i);
    if (v->base != addr) return; /* a pointer into an allocation frees nothing */
    trace_imap_erase(&c->map, trace_imap_lo(&c->map, i), trace_imap_hi(&c->map, i));
}

void trace_gpu_mem_cache_clear(trace_gpu_mem_cache *c) { trace_imap_clear(&c->map); }

bool trace_gpu_mem_cache_find(const trace_gpu_mem_cache *c, const void *ptr, trace_gpu_mem *kind, const void **base,
                              uint64_t *bytes) {
    size_t i = segment_of(&c->map, (uint64_t)(uintptr_t)ptr);
    if (i == trace_imap_count(&c->map)) return false;
    const alloc_val *v = trace_imap_val(&c->map, i);
    if (kind) *kind = (trace_gpu_mem)v->kind;
    if (base) *base = (const void *)(uintptr_t)v->base;
    if (bytes) *bytes = trace_imap_hi(&c->map, i) - v->base;
    return true;
}

bool trace_gpu_mem_cache_lookup(const trace_gpu_mem_cache *c, const void *ptr, trace_gpu_mem *kind) {
    return trace_gpu_mem_cache_find(c, ptr, kind, NULL, NULL);
}

uint64_t trace_gpu_mem_cache_count(const trace_gpu_mem_cache *c) { return trace_imap_count(&c->map); }
