/* labs/referee/arena.c: the referee's allocator of the shared data memory (see arena.h). The
 * allocations are kept sorted by address in an array; a new one goes into the first gap that
 * fits. A lab makes tens of allocations, so a linear look is plenty. */
#include "labs/referee/arena.h"

#include <stdlib.h>
#include <string.h>

typedef struct block {
    uintptr_t start;
    size_t bytes; /* as asked */
    size_t span;  /* as placed: rounded up to the alignment */
    lab_arena_owner owner;
} block;

struct lab_arena {
    uintptr_t base;
    size_t bytes;
    block *blocks;
    size_t n, cap;
    size_t used;
    uintptr_t touched_end; /* the end of the furthest allocation made: memory below it was zeroed once */
};

static size_t round_up(size_t n) { return (n + LAB_ARENA_ALIGN - 1) & ~(size_t)(LAB_ARENA_ALIGN - 1); }

lab_arena *lab_arena_new(void *base, size_t bytes) {
    lab_arena *a = calloc(1, sizeof(*a));
    if (!a) return NULL;
    uintptr_t b = (uintptr_t)base, aligned = (b + LAB_ARENA_ALIGN - 1) & ~(uintptr_t)(LAB_ARENA_ALIGN - 1);
    a->base = aligned;
    a->touched_end = aligned;
    a->bytes = aligned - b < bytes ? bytes - (aligned - b) : 0;
    return a;
}

void lab_arena_free_all(lab_arena *a) {
    if (!a) return;
    free(a->blocks);
    free(a);
}

void *lab_arena_alloc(lab_arena *a, size_t bytes, lab_arena_owner owner) {
    if (bytes == 0 || bytes > a->bytes) return NULL;
    size_t span = round_up(bytes);
    if (a->n == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 32;
        block *nb = realloc(a->blocks, cap * sizeof(block));
        if (!nb) return NULL;
        a->blocks = nb;
        a->cap = cap;
    }
    /* The first gap that fits: before block i, or after the last. */
    uintptr_t at = a->base;
    size_t i = 0;
    for (; i < a->n; i++) {
        if (a->blocks[i].start - at >= span) break;
        at = a->blocks[i].start + a->blocks[i].span;
    }
    if (i == a->n && a->base + a->bytes - at < span) return NULL;
    memmove(&a->blocks[i + 1], &a->blocks[i], (a->n - i) * sizeof(block));
    a->blocks[i] = (block){.start = at, .bytes = bytes, .span = span, .owner = owner};
    a->n++;
    a->used += span;
    memset((void *)at, 0, bytes);
    if (at + bytes > a->touched_end) a->touched_end = at + bytes;
    return (void *)at;
}

/* The index of the block that [p, p + n) lies in, or -1. */
static long find(const lab_arena *a, uintptr_t p, size_t n) {
    size_t lo = 0, hi = a->n;
    while (lo < hi) { /* the last block that starts at or before p */
        size_t mid = (lo + hi) / 2;
        if (a->blocks[mid].start <= p)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0) return -1;
    const block *b = &a->blocks[lo - 1];
    if (p - b->start >= b->bytes && !(n == 0 && p == b->start)) return -1;
    if (n > b->bytes - (p - b->start)) return -1;
    return (long)(lo - 1);
}

bool lab_arena_release(lab_arena *a, void *p, lab_arena_owner owner) {
    long i = find(a, (uintptr_t)p, 0);
    if (i < 0 || a->blocks[i].start != (uintptr_t)p || a->blocks[i].owner != owner) return false;
    a->used -= a->blocks[i].span;
    memmove(&a->blocks[i], &a->blocks[i + 1], (a->n - (size_t)i - 1) * sizeof(block));
    a->n--;
    return true;
}

bool lab_arena_find(const lab_arena *a, const void *p, size_t n, void **start, size_t *bytes, lab_arena_owner *owner) {
    long i = find(a, (uintptr_t)p, n);
    if (i < 0) return false;
    if (start) *start = (void *)a->blocks[i].start;
    if (bytes) *bytes = a->blocks[i].bytes;
    if (owner) *owner = a->blocks[i].owner;
    return true;
}

size_t lab_arena_used(const lab_arena *a) { return a->used; }

uintptr_t lab_arena_touched_end(const lab_arena *a) { return a->touched_end; }
