/* trace/check/racecheck.h: the happens-before race checker, a recorder sink.
 *
 * Vector clocks over the host thread and every stream. Edges, taken from ops in host
 * program order (recorder.h on_op):
 *   - an op enqueued on stream S happens after everything the host did before the
 *     enqueue, and after the earlier ops in S;
 *   - EVENT_RECORD snapshots S's clock into the event; EVENT_WAIT joins the event's last
 *     snapshot into S (a wait on a never-recorded event orders nothing, as in CUDA);
 *   - SYNC on a stream, an event, an op or the device joins what it waited for into the
 *     host;
 *   - the legacy default stream (id 0, device 0's): an op on it waits for every blocking
 *     stream of its device (one created without cudaStreamNonBlocking), and later ops on
 *     those streams wait for it; a SYNC on it (cudaStreamSynchronize(0), a successful
 *     cudaStreamQuery(0)) joins those streams into the host too;
 *   - SYNC records only what a call waited for: the runtimes record a cudaEventQuery or
 *     cudaStreamQuery only when it returned cudaSuccess;
 *   - HOST_FN runs in its stream's order (its accesses are the stream's); HOST_ACCESS is a
 *     host access; ranges flagged TRACE_RANGE_HOST_ORDERED are host accesses made at the
 *     enqueue point.
 * Accesses are checked when ops are enqueued, not when they ran: a race is a missing
 * order, found even when the hardware happened to run the ops in a safe order. Shadow
 * memory is an interval map over byte ranges holding, FastTrack-style, the last writer's
 * epoch and the readers since.
 *
 * Each race is reported once per pair of ops, handed to trace_report_race (so the event
 * stream sees it), kept (up to a cap) and counted.
 *
 * The wait a report blames: when a race between ops on two streams A (first) and B
 * (second) is reported and the program has the event that would order them, the report
 * names what keeps it from doing so (wait_blame.h has the rules, in the order tried):
 *   - a wait on it that B issued after the second op (trace_race.wait_fault
 *     TRACE_WAIT_FAULT_LATE): the fix says to issue it before;
 *   - a wait of the second op's issued before the event's record after the first op
 *     (TRACE_WAIT_FAULT_BEFORE_RECORD): it took the previous record, or none;
 *   - a wait of the second op's on another event of the same set (another index of one
 *     array) than the one recorded after the first op (TRACE_WAIT_FAULT_OTHER_EVENT);
 *   - an event recorded too early: B has waited on an event whose last record was on A
 *     before the first op (in A's order) (trace_race.early_event, early_record_op,
 *     early_record_site): the fix says to move the record. Only B's own waits count (not a
 *     wait that reached B through another stream), and only streams with ids below 64 are
 *     remembered as waiters;
 *   - an event recorded on the wrong stream: B waited (one of its last 8 waits) on an event
 *     recorded after the first op, right after work of A, but on a stream other than A
 *     (trace_race.wrong_event, the stream it was recorded on, the record's and the wait's
 *     ops and call sites): the fix says on which stream to record it;
 *   - a wait on the event recorded on A after the first op, issued on another stream than
 *     B (TRACE_WAIT_FAULT_OTHER_STREAM): the fix says to make B wait on it.
 * A report between two streams is held until B is given its next work, the host waits for
 * the second op, the recorder is reset or the reports are read (trace_racecheck_kept,
 * trace_racecheck_report, trace_racecheck_settle), so that a late wait can be named; then
 * it is kept, printed and handed to the other sinks, in the order found.
 *
 * When the recorder is reset (trace_reset: op ids start over), the checker forgets its
 * clocks and shadow memory, since the streams, events and buffers they describe are gone,
 * and keeps its reports and count. */
#ifndef STREAMLAB_TRACE_RACECHECK_H
#define STREAMLAB_TRACE_RACECHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "trace/record/op.h"
#include "trace/check/race.h"
#include "trace/record/recorder.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct trace_racecheck trace_racecheck;

#define TRACE_RACECHECK_DEFAULT_KEEP 1000

/* A checker that keeps at most max_kept reports (0: TRACE_RACECHECK_DEFAULT_KEEP); all
 * are counted. */
trace_racecheck *trace_racecheck_create(size_t max_kept);
/* Uninstalls (if installed) and frees. */
void trace_racecheck_destroy(trace_racecheck *rc);

/* The checker as a sink (on_stream, on_op). */
trace_sink trace_racecheck_sink(trace_racecheck *rc);
/* Installs the sink in the recorder; 0, or -1 when the recorder has no free slot. A
 * checker already installed is not installed twice. */
int trace_racecheck_install(trace_racecheck *rc);
void trace_racecheck_uninstall(trace_racecheck *rc);

/* Prints each race to out (NULL: silent, the default) as it is found. */
void trace_racecheck_print_to(trace_racecheck *rc, FILE *out);

/* Forgets every clock, shadow byte and report: a fresh program. */
void trace_racecheck_clear(trace_racecheck *rc);

/* Races found (distinct op pairs), including those past the cap. */
uint64_t trace_racecheck_count(const trace_racecheck *rc);
/* Reports kept, in the order found; trace_racecheck_report(rc, i) for i < kept. Both hand
 * out the reports still held first (trace_racecheck_settle). */
size_t trace_racecheck_kept(trace_racecheck *rc);
const trace_race *trace_racecheck_report(trace_racecheck *rc, size_t i);
/* Hands out the reports still held (kept, printed, given to the other sinks), as if the
 * program had ended here. */
void trace_racecheck_settle(trace_racecheck *rc);
/* Ops the checker has seen. */
uint64_t trace_racecheck_ops_seen(const trace_racecheck *rc);

/* Standalone mode. When the environment has STREAMLAB_RACECHECK=1: installs a
 * process-wide checker (once; again after trace_reset removed it), prints each race on
 * stderr as it is found and a summary at exit, and makes the exit status 66 when any race
 * was found. Returns whether the checker is on. The simulated runtime calls this at
 * start-up; any program may. */
bool trace_racecheck_install_from_env(void);
/* The process-wide checker of the standalone mode, or NULL when it is off. */
trace_racecheck *trace_racecheck_global(void);

/* The exit status standalone mode gives a program in which races were found. */
#define TRACE_RACECHECK_EXIT_STATUS 66

#ifdef __cplusplus
}
#endif

#endif
