/* labs/referee/arena.h: the referee's allocator of the shared data memory: pinned host
 * memory the student asks for (cudaMallocHost, cudaHostAlloc), the lab's inputs and outputs,
 * staging for pageable copies. Its bookkeeping lives in the referee's own memory, never in
 * the shared memory, so the student's process can neither see nor bend it; a pointer the
 * student hands back (cudaFreeHost, a copy's source) is looked up, not trusted. */
#ifndef STREAMLAB_LAB_ARENA_H
#define STREAMLAB_LAB_ARENA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lab_arena lab_arena;

/* Who an allocation is for: what the referee may let the student do with it. */
typedef enum lab_arena_owner {
    LAB_ARENA_STUDENT = 0, /* the student's pinned memory: theirs to read, write and free */
    LAB_ARENA_INPUT = 1,   /* the lab's inputs: the student reads them */
    LAB_ARENA_OUTPUT = 2,  /* the lab's outputs: written by device-to-host copies */
    LAB_ARENA_STAGING = 3, /* pageable copies pass through here */
} lab_arena_owner;

/* Allocations are aligned to this many bytes (as cudaMallocHost's are, at least). */
#define LAB_ARENA_ALIGN 256u

/* An allocator over [base, base + bytes). NULL when out of memory. */
lab_arena *lab_arena_new(void *base, size_t bytes);
void lab_arena_free_all(lab_arena *a);
/* bytes of memory for owner, aligned to LAB_ARENA_ALIGN, zeroed; NULL when there is no room. */
void *lab_arena_alloc(lab_arena *a, size_t bytes, lab_arena_owner owner);
/* Frees the allocation that starts at p. false when p starts no allocation of owner. */
bool lab_arena_release(lab_arena *a, void *p, lab_arena_owner owner);
/* The allocation [p, p + n) lies in entirely: true with its start, size and owner. */
bool lab_arena_find(const lab_arena *a, const void *p, size_t n, void **start, size_t *bytes, lab_arena_owner *owner);
/* Bytes allocated now. */
size_t lab_arena_used(const lab_arena *a);
/* The end of the furthest allocation ever made: an allocation's bytes past it are memory
 * the arena touches (zeroes) for the first time, which costs the host its pages' faults. */
uintptr_t lab_arena_touched_end(const lab_arena *a);

#ifdef __cplusplus
}
#endif

#endif
