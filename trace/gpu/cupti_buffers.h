/* trace/gpu/cupti_buffers.h: the buffers CUPTI writes activity records into.
 *
 * CUPTI asks for a buffer whenever it has records to write and none to write them in,
 * which can happen in the middle of a timed run (after each flush, the next record needs a
 * new buffer). Buffers therefore come from a pool, filled and touched page by page when
 * the collector starts, and go back to it once their records are read: no allocation, no
 * fresh page faults and no return of memory to the system on the timed path. The pool
 * grows when CUPTI holds every buffer. Thread-safe (CUPTI calls from its own thread too).
 * Internal to trace/gpu/. */
#ifndef STREAMLAB_TRACE_GPU_CUPTI_BUFFERS_H
#define STREAMLAB_TRACE_GPU_CUPTI_BUFFERS_H

#include <stddef.h>
#include <stdint.h>

/* Bytes per buffer: about 5000 kernel records, well over what a lab run makes between two
 * flushes. */
#define TRACE_GPU_CUPTI_BUFFER_BYTES ((size_t)1 << 20)
/* Buffers made ready when the collector starts. */
#define TRACE_GPU_CUPTI_BUFFERS_RESERVED 4

/* Makes sure `count` free buffers are ready. Returns how many are. */
size_t trace_gpu_cupti_buffers_reserve(size_t count);
/* A buffer of TRACE_GPU_CUPTI_BUFFER_BYTES, 8-byte aligned, or NULL when out of memory. */
uint8_t *trace_gpu_cupti_buffer_get(void);
/* Gives a buffer back to the pool. */
void trace_gpu_cupti_buffer_put(uint8_t *buffer);
/* Buffers made so far (in the pool or handed out). */
size_t trace_gpu_cupti_buffers_made(void);

#endif
