/* trace/view/blame.h: what each wait cost a run: the waits on the run's critical path.
 *
 * A run ends when its last piece of stream work ends. Walking back from that op, each op
 * started when the latest of three things let it: the op before it on its stream ended
 * (stream order), the host queued it (its enqueue time), or its engine became free (an
 * op on the same engine ended; for a kernel, also the SMs of a kernel of another stream
 * that was still running its last blocks). The walk follows whichever bound the start, and so finds
 * the chain of ops, waits and host time that the run's length is made of: its critical
 * path. Two kinds of wait can lie on it, and each is charged the time it held the path:
 *
 *   a host wait     a TRACE_OP_SYNC (cudaStreamSynchronize, cudaEventSynchronize,
 *                   cudaDeviceSynchronize, a synchronous cudaMemcpy, cudaFree), or a poll
 *                   (trace/view/polls.h: cudaEventQuery or cudaStreamQuery asked about one
 *                   event or stream until it answered cudaSuccess), which held the host
 *                   from its loop's first query to that success (a query that found the
 *                   work done at its first ask is no wait, and is not listed): the path reaches the
 *                   host at an op's enqueue time, and the latest host wait that ended
 *                   before it held the host from its start to its end; the walk goes on
 *                   from the work it waited for. When the host was waiting for a request
 *                   to arrive instead (a host access named "request arrives" later than
 *                   the wait), the path starts there and the wait is not charged;
 *   a stream's wait a TRACE_OP_EVENT_WAIT (cudaStreamWaitEvent) that held its stream from
 *                   when the stream reached it to when the event completed; the walk goes
 *                   on from the event's record (the latest record of that event before the
 *                   wait, in host order).
 *
 * A wait is charged all the time it held the host or its stream; the work a host wait
 * waited for may itself have waited on the path (an upload the kernel waited for), so
 * the charges of two waits may overlap in time and need not add up to the run.
 *
 * The wait that ends a run (run() waiting for its streams before it returns) comes after
 * the last stream work, so it is never on the path: what is charged is time a wait kept
 * the device from getting on. Every wait of the run is listed, on the path or not, with
 * how often it ran and how long it held the host or its stream in all: the facts a lab's
 * advice is made of (labs/harness/steps.h).
 *
 * Waits are told apart by their call site (trace_op.call_site: one line of the program)
 * and their call: one line that waits for each stream of a pool in turn is one wait, of
 * several streams. Without a call site, each stream's wait is a wait of its own. The waits
 * one call of the program was performed with (trace_op.as_call: a cudaFreeHost the referee
 * performs as a device synchronisation and an unregistration) are that call's one wait, run
 * once, holding the host for the time they held it together. Times follow
 * trace/view/stalls.h: TRACE_STALL_TOLERANCE_NS either way is "the same moment", and a
 * wait shorter than that held nothing. */
#ifndef STREAMLAB_TRACE_BLAME_H
#define STREAMLAB_TRACE_BLAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/view/timeline.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TRACE_BLAME_MAX 16
#define TRACE_BLAME_STREAMS 16

typedef struct trace_blame_wait {
    bool host;               /* a host wait (TRACE_OP_SYNC); else a stream's (EVENT_WAIT) */
    char call[TRACE_NAME_MAX]; /* "cudaStreamSynchronize", "cudaStreamWaitEvent", ... */
    trace_sync_target sync;  /* host waits: what it waited for */
    int32_t stream;          /* the stream waited for (host waits on a stream) or the stream
                                that waited (stream waits), the first when several;
                                TRACE_STREAM_NONE otherwise */
    uint32_t streams;        /* how many streams the call concerned (one line in a loop over
                                a pool's streams: several) */
    int32_t stream_ids[TRACE_BLAME_STREAMS]; /* the first of them */
    int32_t record_stream;   /* stream waits and event syncs: the stream of the event's
                                record (the last one seen); TRACE_STREAM_NONE when unknown */
    uint64_t call_site;      /* the program's call (trace_op.call_site), 0 when unknown */
    uint32_t times;          /* times it ran in the run */
    uint32_t on_path;        /* of them, on the critical path */
    uint64_t held_ns;        /* how long it held the host or its stream, in all */
    uint64_t cost_ns;        /* how long it held the critical path */
    bool before_last_work;   /* it ran, at least once, before the run's last stream work was
                                queued (a wait inside the loop, not the final one) */
    uint32_t not_ready;      /* a poll's: the queries of its loops that answered not ready, in
                                all (0 for every other wait) */
} trace_blame_wait;

typedef struct trace_blame {
    uint64_t t0_ns, t1_ns;   /* the run's first start and last end (trace_timeline_span) */
    uint64_t path_ns;        /* from the path's first op's start to the run's last end */
    size_t n;                /* waits listed (at most TRACE_BLAME_MAX) */
    size_t more;             /* waits left out past TRACE_BLAME_MAX */
    trace_blame_wait wait[TRACE_BLAME_MAX]; /* by cost on the path, the costliest first;
                                               then by time held */
} trace_blame;

/* The waits of run and what each cost it. Returns 0, or -1 when the run has no stream
 * work (out is then zeroed). */
int trace_blame_compute(trace_timeline *tl, int32_t run, trace_blame *out);

/* How a report names a wait's call, with its stream where it has one:
 *   cudaStreamSynchronize("compute")   cudaDeviceSynchronize()   cudaEventSynchronize()
 *   cudaStreamWaitEvent("down")        cudaMemcpy()
 *   cudaStreamSynchronize(one of 4 streams)   cudaEventQuery()   cudaStreamQuery("A")
 * tl gives the stream names and may be NULL. Returns what snprintf returns. */
int trace_blame_call(const trace_blame_wait *w, const trace_timeline *tl, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
