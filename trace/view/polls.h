/* trace/view/polls.h: host waits made by polling.
 *
 * A program can wait for the device without a synchronising call: it asks cudaEventQuery
 * or cudaStreamQuery about one event or stream, again and again, until the answer is
 * cudaSuccess. The host is held all that time, as by cudaEventSynchronize or
 * cudaStreamSynchronize, but no one call lasts long. In the records, each query that
 * answered cudaErrorNotReady is an API span naming the event or stream it asked about
 * (trace_record_query), and the one that answered cudaSuccess is a host wait, a
 * TRACE_OP_SYNC named for the call (trace_record_sync).
 *
 * A poll is such a success together with the queries that make its loop: the queries of
 * the same call from the same line (call site) that the program made one after another,
 * with no other call between them, and of those the ones about the same event or stream
 * since it last answered cudaSuccess. The poll held the host from the first of them to the
 * success. So:
 *   - a query that answers cudaSuccess the first time it is asked (the work was done) is
 *     no poll: it did not wait;
 *   - a loop over several events or streams that takes the first one found done (picking
 *     a free slot) is no poll either, when the one it takes answered cudaSuccess the first
 *     time: the not-ready answers were about the others;
 *   - a loop over several that goes round until one of them is done is a poll of that one,
 *     from the first time it was asked in the loop: the host waited for it.
 * Any other op of the program between two queries (a launch, a copy, another call, a
 * query from another line) ends the loop: the host was doing something else. Time the host
 * spends between two queries of the loop on its own (a sleep) is part of the poll. */
#ifndef STREAMLAB_TRACE_POLLS_H
#define STREAMLAB_TRACE_POLLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/view/timeline.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct trace_poll {
    uint64_t sync_id;   /* the query that answered cudaSuccess (its TRACE_OP_SYNC's id) */
    uint64_t start_ns;  /* when the loop's first query about that event or stream began */
    uint32_t not_ready; /* the loop's queries about it that answered not ready (at least 1) */
} trace_poll;

/* Whether op is a query's success: a TRACE_OP_SYNC made by cudaEventQuery or
 * cudaStreamQuery. */
bool trace_op_is_query(const trace_op *op);

/* The polls of run, in host order (so by sync_id), into an array at *out that the caller
 * frees (NULL when there are none). Returns how many, or -1 when out of memory. */
long trace_polls_find(trace_timeline *tl, int32_t run, trace_poll **out);

/* The poll whose success is op sync_id among n polls in host order, or NULL. */
const trace_poll *trace_poll_of(const trace_poll *polls, size_t n, uint64_t sync_id);

#ifdef __cplusplus
}
#endif

#endif
