/* kernels/access.h: the device memory each kernel launch reads and writes, as trace ranges
 * (trace/record/op.h), for the race checker and for the simulator's address validation.
 *
 * Each function fills ranges[0..n) and returns n (at most TRACE_MAX_RANGES). A range of 0
 * bytes is left out, as trace_op_add_range does. */
#ifndef STREAMLAB_KERNELS_ACCESS_H
#define STREAMLAB_KERNELS_ACCESS_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/params.h"
#include "trace/record/op.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reads in[0..n), writes out[0..n) (the same range when in place). */
uint32_t kernels_process_access(trace_range ranges[TRACE_MAX_RANGES], const uint32_t *out, const uint32_t *in,
                                size_t n);
/* widen: reads in[0..n) (uint32), writes out[0..n) (uint64). */
uint32_t kernels_widen_access(trace_range ranges[TRACE_MAX_RANGES], const uint64_t *out, const uint32_t *in,
                              size_t n);
/* narrow: reads in[0..n) (uint64), writes out[0..n) (uint32). */
uint32_t kernels_narrow_access(trace_range ranges[TRACE_MAX_RANGES], const uint32_t *out, const uint64_t *in,
                               size_t n);
/* Writes marks[0..blocks). */
uint32_t kernels_spin_access(trace_range ranges[TRACE_MAX_RANGES], const uint32_t *marks, uint32_t blocks);
/* Reads in[0..n), writes (read-modify-write) the uint64 at sum. */
uint32_t kernels_checksum_access(trace_range ranges[TRACE_MAX_RANGES], const uint64_t *sum, const uint32_t *in,
                                 size_t n);

#ifdef __cplusplus
}
#endif

#endif
