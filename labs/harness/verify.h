/* labs/harness/verify.h: checks a run's outputs against the oracle, bit for bit, and
 * explains the first difference in words a student can act on. */
#ifndef STREAMLAB_LAB_VERIFY_H
#define STREAMLAB_LAB_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "labs/harness/ctx.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lab_mismatch {
    bool correct;
    int wrong_batches;       /* batches with at least one wrong value */
    int first_batch;         /* first wrong batch, -1 when correct */
    size_t first_index;      /* first wrong element in it */
    size_t wrong_in_first;   /* how many values of that batch are wrong */
    uint32_t got, expected;
    char why[512];           /* what the wrong value looks like (never written, input, ...) */
} lab_mismatch;

/* Compares every output with the expected values. item and items are what the lab calls
 * a batch ("batch"/"batches", "task"/"tasks"), for the diagnosis. */
lab_mismatch lab_verify(const lab_buffers *b, const char *item, const char *items);

#ifdef __cplusplus
}
#endif

#endif
