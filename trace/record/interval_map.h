/* trace/record/interval_map.h: a map from byte ranges [lo, hi) of one 64-bit address space to
 * values, kept as sorted, non-overlapping segments.
 *
 * Host and device addresses share one address space on both backends (unified virtual
 * addressing), so one map covers every buffer a program touches. Two users: the
 * recorder's batch tags (which harness batch the bytes of a buffer hold) and the race
 * checker's shadow memory (who last wrote and read each byte range).
 *
 * Values are stored inline, val_size bytes each. Values that own memory give clone and
 * release; equal lets neighbouring segments with equal values merge, which keeps the map
 * as small as the program's distinct access boundaries. Segments are a sorted array:
 * lookups are binary searches, and a split or insert moves the tail (programs touch tens
 * to thousands of distinct ranges, where this beats a tree). */
#ifndef STREAMLAB_TRACE_INTERVAL_MAP_H
#define STREAMLAB_TRACE_INTERVAL_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct trace_imap_ops {
    size_t val_size;
    /* Copies src into dst (dst is uninitialised). NULL: a plain byte copy. */
    void (*clone)(void *dst, const void *src);
    /* Frees what a value owns. NULL: nothing to free. */
    void (*release)(void *val);
    /* Whether two values are the same (neighbours merge). NULL: byte comparison. */
    bool (*equal)(const void *a, const void *b);
} trace_imap_ops;

typedef struct trace_imap {
    trace_imap_ops ops;
    size_t stride; /* bytes per segment: lo, hi, then the value */
    unsigned char *segs;
    size_t n, cap;
} trace_imap;

void trace_imap_init(trace_imap *m, const trace_imap_ops *ops);
/* Releases every value and the storage; the map is empty and usable again. */
void trace_imap_clear(trace_imap *m);

static inline size_t trace_imap_count(const trace_imap *m) { return m->n; }
uint64_t trace_imap_lo(const trace_imap *m, size_t i);
uint64_t trace_imap_hi(const trace_imap *m, size_t i);
void *trace_imap_val(const trace_imap *m, size_t i);

/* The end of [addr, addr + bytes), saturated at UINT64_MAX. */
uint64_t trace_imap_end(uint64_t addr, uint64_t bytes);

/* Index of the first segment that ends after addr (count when none). The segments that
 * overlap [lo, hi) are those from trace_imap_lower(lo) while their lo < hi. */
size_t trace_imap_lower(const trace_imap *m, uint64_t addr);

/* Makes [lo, hi) exactly covered by segments: splits the ones that cross lo or hi, and
 * fills the gaps with copies of fill. Sets [*first, *last) to the covering segments.
 * Nothing happens when lo >= hi (*first == *last). */
void trace_imap_cover(trace_imap *m, uint64_t lo, uint64_t hi, const void *fill, size_t *first,
                      size_t *last);

/* Gives every byte of [lo, hi) the value val (copied), as one segment, merged with equal
 * neighbours. */
void trace_imap_assign(trace_imap *m, uint64_t lo, uint64_t hi, const void *val);

/* Removes [lo, hi) from the map. */
void trace_imap_erase(trace_imap *m, uint64_t lo, uint64_t hi);

/* Merges equal neighbours among segments [first, last) and the one on each side. */
void trace_imap_coalesce(trace_imap *m, size_t first, size_t last);

#ifdef __cplusplus
}
#endif

#endif
