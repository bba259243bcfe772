/* labs/harness/lab_types.h: the types of the lab contract (lab.h): the context a lab's
 * callbacks get, the three callbacks, and the workload of a run. Apart from lab.h's
 * functions (the harness defines them, labs/harness/ctx.c) so that spec.h, the contract
 * as the instructor writes it, names them without including the student's calls. */
#ifndef STREAMLAB_LAB_TYPES_H
#define STREAMLAB_LAB_TYPES_H

#include <stddef.h>

#include "kernels/kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lab_ctx lab_ctx;

typedef struct lab_impl {
    int (*setup)(lab_ctx *ctx);
    int (*run)(lab_ctx *ctx);
    void (*teardown)(lab_ctx *ctx);
} lab_impl;

/* The workload of this lab run, fixed for the whole process. */
typedef struct lab_workload {
    int batches;                    /* how many batches (or tasks) run() must process */
    size_t batch_elems;             /* uint32 elements per batch */
    size_t batch_bytes;             /* batch_elems * sizeof(uint32_t) */
    kernels_process_params process; /* the parameters to give kernels_process */
    int steps;                      /* how many times each batch goes through kernels_process
                                       (one after the other, in place or not); 0 means 1 */
} lab_workload;

#ifdef __cplusplus
}
#endif

#endif
