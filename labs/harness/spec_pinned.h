/* labs/harness/spec_pinned.h: page-locked host buffers a spec stages batches in (lab 01's
 * bound copies from and to its own; lab 08's loader loads into them), made with
 * cudaMallocHost so that their copies are asynchronous and run at the link's rate. */
#ifndef STREAMLAB_LAB_SPEC_PINNED_H
#define STREAMLAB_LAB_SPEC_PINNED_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Makes n pinned buffers of bytes each, bufs[0] first. Returns 0, or 1 when one could not
 * be made (the ones made stay in bufs, the rest NULL, for lab_spec_pinned_free). */
int lab_spec_pinned_alloc(uint32_t **bufs, int n, size_t bytes);

/* Frees the n buffers of bufs that are not NULL and sets them to NULL. */
void lab_spec_pinned_free(uint32_t **bufs, int n);

#ifdef __cplusplus
}
#endif

#endif
