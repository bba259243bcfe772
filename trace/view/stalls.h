/* trace/view/stalls.h: what the legacy default stream did to the other streams in one run, and
 * which streams still had work at a moment.
 *
 * The legacy default stream (stream 0, NULL) synchronises with every blocking stream (one
 * created without cudaStreamNonBlocking; cudaStreamPerThread is blocking too): an op
 * enqueued on it first waits for all work enqueued earlier in every blocking stream, and
 * all work enqueued later in blocking streams waits for it. A student who puts one memset
 * on stream 0 between the batches of a multi-stream pipeline serialises the pipeline; this
 * module finds each such stream-0 op in a run's timeline and says, in one line, what it
 * cost: which streams it waited for, which it held back, and for how long. The lab
 * harness also asks which streams were still busy when run() returned.
 *
 * The analysis reads only a timeline (timeline.h), so it works on both backends. On the
 * simulator times are exact virtual nanoseconds; on a real GPU enqueue_ns is the host's
 * clock and start/end come from CUPTI on the same clock, a few microseconds of launch
 * latency apart. Deciding that op B started "when" op A ended therefore allows
 * TRACE_STALL_TOLERANCE_NS either way, and no wait or hold shorter than that is reported.
 *
 * Definitions. Only stream work counts (trace_op_kind_is_stream_work: copies, memsets,
 * kernels, host functions, event records and waits) of the chosen run; "before" and
 * "after" in host order mean by op id; an op's end is max(end_ns, start_ns). A stream is
 * blocking unless its flags have cudaStreamNonBlocking (0x1); a per-thread stream is
 * blocking whatever its flags; a stream the timeline has no record of is blocking (the
 * default of cudaStreamCreate). For a stream-0 op L, with tol = TRACE_STALL_TOLERANCE_NS:
 *
 *   prev0, next0  the stream-0 ops just before and just after L in host order.
 *   ready(L)      max(L.enqueue_ns, prev0's end): when L could have started had no other
 *                 stream held it up.
 *   waited for S  S is blocking, not stream 0, and P, S's last op before L, was enqueued
 *                 after prev0 (earlier work of S was prev0's to wait for), L started no
 *                 earlier than P's end minus tol, and min(L.start, P.end) - ready(L) >= tol.
 *   waited_ns     min(L.start, the latest end of those P) - ready(L): how long L sat ready
 *                 behind the streams it waited for (time it then spent waiting for a busy
 *                 engine is not counted).
 *   held back S   S is blocking, not stream 0, X is S's first op after L and before next0
 *                 (later ops of S wait for next0 instead), X started no earlier than
 *                 L's end minus tol, and the delay, min(X.start, L.end) - ready(X), is
 *                 >= tol, where ready(X) = max(X.enqueue_ns, the end of X's predecessor in
 *                 S, prev0's end) is when X could have started had L not been there. So X
 *                 was enqueued, and nothing but L kept it waiting, at least tol before L
 *                 ended. The delay includes the time L itself spent waiting: that is the
 *                 serialisation a stream-0 op between two streams' work causes.
 *   held_ns       the longest of those delays.
 *
 * A stream-0 op that waited for no stream and held back none is not a stall. */
#ifndef STREAMLAB_TRACE_STALLS_H
#define STREAMLAB_TRACE_STALLS_H

#include <stddef.h>
#include <stdint.h>

#include "trace/view/timeline.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How far apart two times may be and still be "the same moment" on a real GPU (host
 * clock against CUPTI, launch latency), and the shortest wait or hold reported. */
#define TRACE_STALL_TOLERANCE_NS 20000u

/* Streams listed per stall; more are counted (n_waited, n_held) but not listed. */
#define TRACE_STALL_MAX_STREAMS 16

typedef struct trace_stall {
    trace_op op;          /* the stream-0 op */
    int32_t after_batch;  /* the batch of the last op on another stream, before it in host
                             order, that carries a batch; -1 when none does */
    int32_t waited[TRACE_STALL_MAX_STREAMS]; /* the streams it waited for, by id */
    uint32_t n_waited;    /* how many (may exceed TRACE_STALL_MAX_STREAMS) */
    uint64_t waited_ns;   /* how long it waited for them; 0 when n_waited is 0 */
    int32_t held[TRACE_STALL_MAX_STREAMS]; /* the streams it held back, by id */
    uint32_t n_held;      /* how many (may exceed TRACE_STALL_MAX_STREAMS) */
    uint64_t held_ns;     /* the longest delay it caused one of them; 0 when n_held is 0 */
} trace_stall;

/* The stream-0 ops of run (TRACE_RUN_ANY: of everything kept) that waited for, or held
 * back, work in blocking streams, in host order. At most max are written; returns how many
 * there are. */
size_t trace_stalls_find(trace_timeline *tl, int32_t run, trace_stall *out, size_t max);
/* The same, and into *held how many of them all (kept or not) held back another stream (the
 * rest only waited). */
size_t trace_stalls_find_held(trace_timeline *tl, int32_t run, trace_stall *out, size_t max, size_t *held);

/* One line, no newline, for a student:
 *   stream 0 memset after task 1 waited 2.0 ms for "task 1", and held back "task 2"
 *   and "task 3" for 2.1 ms
 * The op is "memset", "kernel NAME", "H2D", "host function", "event record", ... (with its
 * name when it has one); "after ITEM N" is left out when after_batch is -1. Streams are
 * named as race reports name them: "task 1" when named, s2 otherwise. Times are "1.9 ms"
 * from a millisecond up, "450 us" below. `item` is the lab's word for a batch ("task");
 * NULL means "batch". tl gives the stream names and may be NULL. Returns what snprintf
 * returns. */
int trace_stall_format(const trace_stall *s, const trace_timeline *tl, const char *item, char *buf, size_t len);

/* The streams of run (TRACE_RUN_ANY: of everything kept) with stream work that was enqueued
 * before t_ns (enqueue_ns < t_ns) and had not finished by then (end > t_ns), sorted by id,
 * stream 0 included. At most max are written; returns how many there are. */
size_t trace_streams_busy_at(trace_timeline *tl, int32_t run, uint64_t t_ns, int32_t *streams, size_t max);

#ifdef __cplusplus
}
#endif

#endif
