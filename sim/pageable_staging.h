/* sim/pageable_staging.h: the driver's pinned staging slots behind cudaMemcpyAsync from
 * pageable memory (docs/calibration.md, "Pageable copies behind a busy stream").
 *
 * An upload from pageable memory is copied into one of the driver's own pinned staging
 * buffers at the call, and the copy engine reads it from there in stream order; the slot
 * is free again once that copy has ended. A device has few slots (the profile's
 * pageable_staging_slots, each of pageable_staging_chunk_bytes): a call that finds them all
 * held waits, on the host, for the oldest staged copy to end, and that copy may be queued
 * behind a long kernel. So a loader that uploads from malloc'd buffers can run at most that
 * many uploads ahead of its device. An upload of at most pageable_inline_bytes goes with
 * the command itself and holds no slot; one of more chunks than there are slots waits
 * until every slot is free and its stream has reached it, and is staged as it is copied. */
#ifndef STREAMLAB_SIM_PAGEABLE_STAGING_H
#define STREAMLAB_SIM_PAGEABLE_STAGING_H

#include <stddef.h>
#include <stdint.h>

#include "sim/core/profile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Forgets every held slot (a reset of the device's streams). */
void sim_staging_reset(void);

/* Before staging an upload of bytes into stream on device: waits on the host until the
 * slots it needs are free (and, for one larger than every slot together, until its stream
 * has finished its earlier work); returns the number of slots the copy will hold (0: it
 * holds none and waited for nothing). */
uint32_t sim_staging_acquire(const sim_profile *p, uint32_t device, uint32_t stream, size_t bytes);

/* The copy now queued as stream's op seq holds `slots` slots until it ends. */
void sim_staging_hold(uint32_t device, uint32_t stream, uint64_t seq, uint32_t slots);

#ifdef __cplusplus
}
#endif

#endif
