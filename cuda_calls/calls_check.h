/* cuda_calls/calls_check.h: the entry points of the list's calls as one unit sees them,
 * for calls_check_test.cc. calls_check.cc is compiled twice against the same runtime
 * header: as a plain unit (cuda_calls_plain) and with CUDA_API_PER_THREAD_DEFAULT_STREAM
 * (cuda_calls_per_thread), where the header renames the calls that have a per-thread
 * entry point. */
#ifndef STREAMLAB_CUDA_CALLS_CALLS_CHECK_H
#define STREAMLAB_CUDA_CALLS_CALLS_CHECK_H

#include <stddef.h>

typedef struct cuda_calls_seen {
    const char *name;      /* the call as the list names it */
    const char *spelled;   /* the name it became in the unit: cudaMemcpy_ptds */
    void (*address)(void); /* the function the linker bound it to */
} cuda_calls_seen;

/* One entry per call of the list, in its order. */
extern const cuda_calls_seen cuda_calls_plain[];
extern const cuda_calls_seen cuda_calls_per_thread[];
extern const size_t cuda_calls_plain_count;
extern const size_t cuda_calls_per_thread_count;

#endif
