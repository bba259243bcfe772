/* labs/harness/freed.h: the memory the student's program freed, and the line that freed it,
 * so that the referee's refusal of a command on memory that is no longer the program's can
 * say which buffer it was and where it was freed (remote.c: a graph launched after a buffer
 * it was captured with was freed, or a kernel given a stale pointer). The latest
 * LAB_FREED_KEPT frees are kept. */
#ifndef STREAMLAB_LAB_FREED_H
#define STREAMLAB_LAB_FREED_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LAB_FREED_KEPT 64u

typedef struct lab_freed {
    uint64_t start, bytes; /* the buffer as it was allocated */
    uint64_t site;         /* the call site that freed it (trace_call_site: the student's) */
    const char *call;      /* "cudaFree", "cudaFreeHost": a literal */
} lab_freed;

/* The program freed [start, start + bytes) with call at site. */
void lab_freed_note(uint64_t start, uint64_t bytes, uint64_t site, const char *call);
/* The latest free whose buffer holds addr: true with it in *f. */
bool lab_freed_find(uint64_t addr, lab_freed *f);
/* Forgets every free (a new student's process, or its cudaDeviceReset). */
void lab_freed_clear(void);

#ifdef __cplusplus
}
#endif

#endif
