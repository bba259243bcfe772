/* trace/check/wait_blame.h: which wait a race report blames, and for what.
 *
 * A race between first (on stream A) and second (on stream B, or a host access) is a
 * missing edge from A to B (or to the host). When the program has the event that would be
 * that edge, the report names what keeps it from being one, so that the fix changes the
 * wrong call and leaves the right ones alone. The waiter is B (its cudaStreamWaitEvent
 * calls) or, for a host access, the host (its cudaEventSynchronize calls). Second's own
 * waits are the waiter's waits since its last work before second (for the host: since it
 * last enqueued work or touched memory), bar a wait already blamed as a late one of that
 * work's. In the order tried (the first that applies wins):
 *   - TRACE_WAIT_FAULT_LATE: the waiter waits on an event (the host, also on a stream or
 *     the device) whose record orders first, but right after second (nothing enqueued
 *     and no host access in between), and the record marks first, later work of first's
 *     own stream (one event recorded after a buffer's last use orders every earlier use),
 *     or an op that races with second too (the last work enqueued before it); found after
 *     the report is made
 *     (trace_racecheck_blame_late_wait), and only when nothing below but OTHER_STREAM and
 *     MISSING was blamed;
 * A record "marks first" when it is on A right after first, or after a later op of A's made
 * by first's call (the last work enqueued before it): records placed before their work (an
 * event recorded too early) follow other work, and mark nothing.
 *   - TRACE_WAIT_FAULT_BEFORE_RECORD: one of second's own waits is on the event whose record
 *     is the first on A after first, and marks first, but was issued before that record;
 *   - TRACE_WAIT_FAULT_OTHER_EVENT: one of second's own waits (not on the waiter's own
 *     record, which is another stream's wait misplaced) is on an event that did not order
 *     first, and an event of the same set (the same name before '[', or recorded at the
 *     same call site), whose record marks first, was recorded before second, and the waiter
 *     did not wait on it;
 *   - an event recorded too early (trace_race.early_event): one of second's own waits took a
 *     record of the event on A before first;
 *   - an event recorded on the wrong stream (trace_race.wrong_event; B only): one of
 *     second's own waits is on an event recorded after first on another stream C, right
 *     after work of A (the last work the host enqueued before that record was A's, at or
 *     after first): the record meant to mark first. A record that follows C's own work
 *     marks that work, and is not blamed;
 *   - TRACE_WAIT_FAULT_OTHER_STREAM (B only): A itself waited, before second, on an event
 *     recorded on A after first: a wait that orders nothing, meant for B;
 *   - TRACE_WAIT_FAULT_MISSING (B only; the host's generic fix says as much): an event
 *     recorded on A right after first, before second, that no stream and not the host has
 *     waited on since.
 * Nothing applies: the report blames no wait, and its fix is the event to add. */
#ifndef STREAMLAB_TRACE_CHECK_WAIT_BLAME_H
#define STREAMLAB_TRACE_CHECK_WAIT_BLAME_H

#include "trace/check/racecheck_state.h"

/* Fills race's early_*, wrong_* or wait_* fields (at most one of them) for the race p with
 * second, when second has just been enqueued or made; leaves them zero when nothing
 * applies. */
void trace_racecheck_blame_wait(const struct trace_racecheck *rc, const rc_pending *p, const rc_who *second,
                                trace_race *race);

/* A wait (an EVENT_WAIT on the held report's second stream, or for a report whose second
 * side is a host access, the host's SYNC op) issued before the waiter's next work: when
 * nothing was enqueued and no host access made since the second op, what it waited for
 * orders the report's first op (joined is the waiter's clock after the wait), the record it
 * took marks the first op, later work of the first op's stream, or another op of a held
 * report with the same second op, and
 * nothing but OTHER_STREAM or MISSING was blamed, blames this wait (TRACE_WAIT_FAULT_LATE)
 * and returns true. e is the event waited for (NULL for a host wait on a stream or the
 * device, whose record cannot be checked: then the wait orders the first op and that is
 * enough). */
bool trace_racecheck_blame_late_wait(const struct trace_racecheck *rc, rc_held *h, const rc_event *e,
                                     const trace_op *wait, const trace_vc *joined);

#endif
