/* sim/core/streams.h: the stream table. Index 0 is the legacy default stream (NULL or
 * cudaStreamLegacy), index 1 the per-thread default stream (cudaStreamPerThread), and
 * created streams follow in creation order. Each stream is an in-order queue of ops;
 * entries outlive cudaStreamDestroy until their queued work is done, and indices are never
 * reused, so a destroyed stream's handle stays invalid. */
#ifndef STREAMLAB_SIM_CORE_STREAMS_H
#define STREAMLAB_SIM_CORE_STREAMS_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/core/ops.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SIM_STREAM_LEGACY 0u
#define SIM_STREAM_PER_THREAD 1u

typedef struct sim_stream {
    const void *handle;  /* what the program holds (opaque here; NULL for the legacy stream) */
    unsigned flags;      /* the creation flags, as the program gave them */
    int32_t priority;
    bool live;           /* not destroyed */
    bool legacy;
    bool blocking;       /* synchronises with the legacy stream */
    sim_op *head, *tail; /* queued ops not yet completed, oldest first */
    uint64_t enq_seq;    /* ops enqueued so far */
    uint64_t done_seq;   /* ops completed so far (they complete in order) */
    uint64_t last_end_ns; /* when its last completed op ended */
    bool last_was_kernel; /* its last completed op was a kernel (or a memset, a D2D copy) */
    uint64_t wake_at;    /* a wake-up is scheduled for this time (0: none) */
    bool active;         /* in the scheduler's list of streams with queued ops */
    uint32_t conn;       /* the hardware work queue its outstanding work goes through */
    uint32_t device;     /* the device it belongs to (current when it was made) */
    bool builtin;        /* a default stream of a device other than 0 (not the program's) */
} sim_stream;

/* Sets up the legacy stream and the per-thread stream, whose handle the program uses
 * (after a reset). */
void sim_streams_init(const void *per_thread_handle);
/* Forgets every stream (tells the recorder about those still live when notify) and sets
 * the two default streams up again. */
void sim_streams_reset(bool notify, const void *per_thread_handle);
/* Adds a created stream (blocking unless nonblocking); returns its index. */
uint32_t sim_streams_add(const void *handle, unsigned flags, bool nonblocking, int32_t priority);
/* A device's legacy (per_thread false) or per-thread default stream: device 0's are
 * SIM_STREAM_LEGACY and SIM_STREAM_PER_THREAD; another device's are added on first use,
 * with the handle given. SIM_STREAM_NONE from find when not made yet. */
#define SIM_STREAM_NONE 0xffffffffu
uint32_t sim_streams_find_default(uint32_t device, bool per_thread);
uint32_t sim_streams_add_default(uint32_t device, bool per_thread, const void *handle);
sim_stream *sim_stream_at(uint32_t index);
uint32_t sim_stream_count(void);
/* Bumped by every reset: handles made before one name nothing after it. */
uint32_t sim_streams_generation(void);
/* Created streams not yet destroyed. */
uint32_t sim_streams_live(void);

#ifdef __cplusplus
}
#endif

#endif
