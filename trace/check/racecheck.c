/* trace/check/racecheck.c: the happens-before race checker (see racecheck.h).
 *
 * Threads of execution: tid 0 is the host thread, tid s + 1 is stream s. Each has a
 * vector clock; every op a thread performs ticks its own entry, so an op's epoch is
 * (tid, clock). The shadow memory maps byte ranges to the epoch of the last write and of
 * the reads since (at most one per thread: a read that happens before a newer read by
 * any thread is implied by it and dropped).
 *
 * The wait a report blames (wait_blame.h): each event keeps where it was last recorded
 * (the stream, the record op, its call site, the stream's own clock at the record, the
 * work enqueued just before it) and which streams have waited on it since (a bitmask of
 * stream ids below EARLY_MAX_STREAMS); each stream keeps its last waits, with the record
 * each took. A report between two streams is held until the second op's stream is given
 * its next work (or the host waits for the second op, or the reports are read), so that a
 * wait issued right after the second op, which should have come before it, can be named. */
#define _POSIX_C_SOURCE 200809L
#include "trace/check/racecheck.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/check/racecheck_state.h"
#include "trace/check/vector_clock.h"
#include "trace/check/wait_blame.h"
#include "trace/record/interval_map.h"

static void *xrealloc(void *p, size_t size) {
    void *q = realloc(p, size ? size : 1);
    if (!q) {
        fprintf(stderr, "streamlab racecheck: out of memory\n");
        abort();
    }
    return q;
}

/* ---- shadow cells ------------------------------------------------------------------ */

static void cell_clone(void *dst, const void *src) {
    rc_cell *d = dst;
    const rc_cell *s = src;
    *d = *s;
    d->readers = NULL;
    d->cap_readers = 0;
    if (s->n_readers) {
        d->readers = xrealloc(NULL, s->n_readers * sizeof(rc_access));
        memcpy(d->readers, s->readers, s->n_readers * sizeof(rc_access));
        d->cap_readers = s->n_readers;
    }
}

static void cell_release(void *val) {
    rc_cell *c = val;
    free(c->readers);
    c->readers = NULL;
    c->n_readers = c->cap_readers = 0;
}

static bool same_access(const rc_access *a, const rc_access *b) {
    return a->tid == b->tid && a->clock == b->clock && a->who.id == b->who.id;
}

static bool cell_equal(const void *va, const void *vb) {
    const rc_cell *a = va, *b = vb;
    if (a->has_write != b->has_write || a->n_readers != b->n_readers) return false;
    if (a->has_write && !same_access(&a->write, &b->write)) return false;
    for (uint32_t i = 0; i < a->n_readers; i++)
        if (!same_access(&a->readers[i], &b->readers[i])) return false;
    return true;
}

/* ---- threads, streams, events ---------------------------------------------------------- */

static rc_stream *stream_of(trace_racecheck *rc, int32_t id) {
    if (id < 0) return NULL;
    if ((uint32_t)id >= rc->n_streams) {
        uint32_t n = (uint32_t)id + 1;
        rc->streams = xrealloc(rc->streams, n * sizeof(rc_stream));
        memset(rc->streams + rc->n_streams, 0, (n - rc->n_streams) * sizeof(rc_stream));
        rc->n_streams = n;
    }
    rc_stream *s = &rc->streams[id];
    if (!s->known) {
        s->known = true;
        const trace_stream *info = trace_stream_get(id);
        s->legacy = id == TRACE_STREAM_LEGACY;
        if (info) {
            s->legacy = s->legacy || info->legacy;
            s->flags = info->flags;
            s->device = info->device;
            if (info->device != 0) rc->multi_device = true;
            snprintf(s->name, sizeof(s->name), "%s", info->name);
        } else {
            snprintf(s->name, sizeof(s->name), id == TRACE_STREAM_LEGACY ? "default" : "s%d", (int)id);
        }
    }
    return s;
}

/* Whether a stream takes part in its device's legacy default stream's implicit barrier. */
static bool blocking(const rc_stream *s) { return !s->legacy && (s->flags & 0x1u) == 0; }

/* Joins into clock every blocking stream of legacy's device (the legacy stream waits for
 * their earlier work). */
static void join_blocking_of(trace_racecheck *rc, const rc_stream *legacy, trace_vc *clock) {
    for (uint32_t i = 0; i < rc->n_streams; i++) {
        const rc_stream *o = &rc->streams[i];
        if (o != legacy && o->known && blocking(o) && o->device == legacy->device) trace_vc_join(clock, &o->clock);
    }
}

/* The legacy stream of a device, or NULL when none is known (id 0 is device 0's). */
static rc_stream *legacy_of(trace_racecheck *rc, uint32_t device) {
    if (device == 0) return stream_of(rc, TRACE_STREAM_LEGACY);
    for (uint32_t i = 1; i < rc->n_streams; i++)
        if (rc->streams[i].known && rc->streams[i].legacy && rc->streams[i].device == device) return &rc->streams[i];
    return NULL;
}

static rc_event *event_of(trace_racecheck *rc, uint64_t id) {
    if (id == 0 || id > (1u << 24)) return NULL; /* ids count up from 1 */
    if (id >= rc->n_events) {
        uint64_t n = id + 1;
        if (n < rc->n_events * 2) n = rc->n_events * 2;
        rc->events = xrealloc(rc->events, (size_t)n * sizeof(rc_event));
        memset(rc->events + rc->n_events, 0, (size_t)(n - rc->n_events) * sizeof(rc_event));
        rc->n_events = n;
    }
    return &rc->events[id];
}

/* ---- reports ------------------------------------------------------------------------------ */

static void fill_side(trace_racecheck *rc, trace_race_op *side, const rc_who *who) {
    memset(side, 0, sizeof(*side));
    side->id = who->id;
    side->kind = (trace_op_kind)who->kind;
    side->dir = (trace_copy_dir)who->dir;
    side->stream = who->stream;
    side->on_host = who->on_host;
    side->batch = who->batch;
    side->run = who->run;
    side->call_site = who->call_site;
    memcpy(side->name, who->name, sizeof(side->name));
    side->name[sizeof(side->name) - 1] = '\0';
    rc_stream *s = who->stream >= 0 ? stream_of(rc, who->stream) : NULL;
    snprintf(side->stream_name, sizeof(side->stream_name), "%s", s ? s->name : "host");
    side->device = who->device;
    side->dst_device = who->dst_device;
    side->peer = who->peer;
    side->stream_device = s ? s->device : 0;
    side->graph_launch = who->graph_launch;
    if (who->graph_launch) {
        side->graph_stream = who->graph_stream;
        side->graph_origin = who->graph_origin;
        /* One at a time: stream_of may move the table. */
        rc_stream *ls = stream_of(rc, who->graph_stream);
        snprintf(side->graph_stream_name, sizeof(side->graph_stream_name), "%s", ls ? ls->name : "");
        rc_stream *os = stream_of(rc, who->graph_origin);
        snprintf(side->graph_origin_name, sizeof(side->graph_origin_name), "%s", os ? os->name : "");
    }
}

static int kind_rank(trace_race_kind k) {
    switch (k) {
    case TRACE_RACE_HOST_READ: return 0;
    case TRACE_RACE_RAW: return 1;
    case TRACE_RACE_WAR: return 2;
    default: return 3;
    }
}

static void note_race(trace_racecheck *rc, const rc_access *first, bool second_on_host, trace_race_kind kind,
                      uint64_t lo, uint64_t hi, bool handover) {
    for (size_t i = 0; i < rc->n_pending; i++) {
        rc_pending *p = &rc->pending[i];
        if (p->first.id != first->who.id) continue;
        p->handover |= handover;
        if (lo < p->lo) p->lo = lo;
        if (hi > p->hi) p->hi = hi;
        if (kind_rank(kind) < kind_rank(p->kind)) {
            p->kind = kind;
            p->second_on_host = second_on_host;
        }
        return;
    }
    if (rc->n_pending == rc->cap_pending) {
        rc->cap_pending = rc->cap_pending ? rc->cap_pending * 2 : 8;
        rc->pending = xrealloc(rc->pending, rc->cap_pending * sizeof(rc_pending));
    }
    rc_pending *p = &rc->pending[rc->n_pending++];
    p->first = first->who;
    p->first_tid = first->tid;
    p->first_clock = first->clock;
    p->second_on_host = second_on_host;
    p->kind = kind;
    p->lo = lo;
    p->hi = hi;
    p->buffer_device = rc->range_device;
    p->handover = handover;
}

/* Hands a report out: kept (up to the cap), printed, and given to the other sinks. */
static void hand_out(trace_racecheck *rc, const trace_race *race) {
    if (rc->n_reports < rc->max_kept) {
        if (rc->n_reports % 64 == 0) rc->reports = xrealloc(rc->reports, (rc->n_reports + 64) * sizeof(trace_race));
        rc->reports[rc->n_reports++] = *race;
    }
    if (rc->print) {
        char text[2048];
        trace_race_format(race, text, sizeof(text));
        fputs(text, rc->print);
        fflush(rc->print);
    }
    trace_report_race(race);
}

/* Hands out the held reports in the order found, up to the first still open. */
static void hand_out_closed(trace_racecheck *rc) {
    size_t done = 0;
    while (done < rc->n_held && !rc->held[done].open) hand_out(rc, &rc->held[done++].race);
    if (!done) return;
    memmove(rc->held, rc->held + done, (rc->n_held - done) * sizeof(rc_held));
    rc->n_held -= done;
}

/* Closes every held report and hands them out. */
static void settle(trace_racecheck *rc) {
    for (size_t i = 0; i < rc->n_held; i++) rc->held[i].open = false;
    hand_out_closed(rc);
}

/* Stream b was given work: its waits from now on come after it, and blame nothing held;
 * nor do the host's, which has done something since (host too: it touched memory). */
static void close_for_work(trace_racecheck *rc, int32_t b, bool host) {
    for (size_t i = 0; i < rc->n_held; i++) {
        rc_held *h = &rc->held[i];
        if (h->host || (!host && h->second_stream == b)) h->open = false;
    }
}

/* What the host did, for the windows of the waits (rc_wait.work_seq): work enqueued or a
 * host access. */
static void host_step(trace_racecheck *rc, const trace_op *op) {
    rc->host_steps++;
    rc->last_access_op = op->id;
}

/* A wait (op: a stream's EVENT_WAIT on event e, or the host's SYNC, e NULL unless on an
 * event; joined: the waiter's clock after it): a held report of that waiter whose first op
 * it orders blames this wait, which came too late; the wait is marked so (w, when kept). */
static void late_wait(trace_racecheck *rc, const trace_op *op, const rc_event *e, rc_wait *w,
                      const trace_vc *joined) {
    bool host = op->kind == TRACE_OP_SYNC;
    for (size_t i = 0; i < rc->n_held; i++) {
        rc_held *h = &rc->held[i];
        if (!h->open || h->host != host || (!host && h->second_stream != op->stream)) continue;
        if (trace_racecheck_blame_late_wait(rc, h, e, op, joined)) {
            trace_race_make_fix(&h->race);
            if (w) w->late = true;
        }
    }
}

static void flush_pending(trace_racecheck *rc, const rc_who *second) {
    for (size_t i = 0; i < rc->n_pending; i++) {
        const rc_pending *p = &rc->pending[i];
        trace_race race;
        memset(&race, 0, sizeof(race));
        race.seq = ++rc->count;
        race.kind = p->kind;
        fill_side(rc, &race.first, &p->first);
        rc_who s = *second;
        s.on_host = p->second_on_host;
        fill_side(rc, &race.second, &s);
        race.addr = p->lo;
        race.bytes = p->hi - p->lo;
        race.multi_device = rc->multi_device;
        race.handover = p->handover;
        race.buffer_device = rc->multi_device ? p->buffer_device : -1;
        trace_racecheck_blame_wait(rc, p, &s, &race);
        trace_race_make_fix(&race);
        if (rc->n_held == rc->cap_held) {
            rc->cap_held = rc->cap_held ? rc->cap_held * 2 : 16;
            rc->held = xrealloc(rc->held, rc->cap_held * sizeof(rc_held));
        }
        rc_held *h = &rc->held[rc->n_held++];
        memset(h, 0, sizeof(*h));
        h->race = race;
        /* A race between two streams can be ordered by a wait on the second's stream, and a
         * stream op and a host access by the host's. */
        bool stream_first =
            !p->first.on_host && p->first.stream >= 0 && p->first_tid == rc_tid_of_stream(p->first.stream);
        h->host = stream_first && s.on_host && s.kind == TRACE_OP_HOST_ACCESS;
        h->open = h->host || (stream_first && !s.on_host && s.stream >= 0 && p->first.stream != s.stream);
        h->second_stream = s.stream;
        h->second_clock =
            s.stream >= 0 ? trace_vc_get(&stream_of(rc, s.stream)->clock, rc_tid_of_stream(s.stream)) : 0;
        h->first_tid = p->first_tid;
        h->first_clock = p->first_clock;
    }
    rc->n_pending = 0;
    /* A program that never gives a stream more work must not hold its reports forever. */
    for (size_t i = 0; i + HELD_MAX < rc->n_held; i++) rc->held[i].open = false;
    hand_out_closed(rc);
}

/* ---- accesses --------------------------------------------------------------------------- */

static bool ordered(const trace_vc *now, uint32_t tid, const rc_access *a) {
    return a->tid == tid || trace_vc_covers(now, a->tid, a->clock);
}

static void check_read(trace_racecheck *rc, rc_cell *c, uint64_t lo, uint64_t hi, const rc_access *me,
                       const trace_vc *now) {
    if (c->has_write && !ordered(now, me->tid, &c->write))
        note_race(rc, &c->write, me->who.on_host, me->tid == HOST_TID ? TRACE_RACE_HOST_READ : TRACE_RACE_RAW, lo,
                  hi, false);
    /* Keep only the reads this one does not imply, then add it (sorted by tid). */
    uint32_t w = 0;
    for (uint32_t r = 0; r < c->n_readers; r++)
        if (!ordered(now, me->tid, &c->readers[r])) c->readers[w++] = c->readers[r];
    c->n_readers = w;
    if (c->n_readers == c->cap_readers) {
        c->cap_readers = c->cap_readers ? c->cap_readers * 2 : 2;
        c->readers = xrealloc(c->readers, c->cap_readers * sizeof(rc_access));
    }
    uint32_t at = 0;
    while (at < c->n_readers && c->readers[at].tid < me->tid) at++;
    memmove(&c->readers[at + 1], &c->readers[at], (c->n_readers - at) * sizeof(rc_access));
    c->readers[at] = *me;
    c->n_readers++;
}

static void check_write(trace_racecheck *rc, const rc_cell *c, uint64_t lo, uint64_t hi, const rc_access *me,
                        const trace_vc *now) {
    if (c->has_write && !ordered(now, me->tid, &c->write))
        note_race(rc, &c->write, me->who.on_host, TRACE_RACE_WAW, lo, hi, false);
    /* The bytes a reader read were written by this thread before: they went from this
     * thread to the reader's, and this write reuses them (a hand-over, not two streams
     * that merely share memory). */
    bool handed = c->has_write && c->write.tid == me->tid && me->tid != HOST_TID;
    for (uint32_t r = 0; r < c->n_readers; r++)
        if (!ordered(now, me->tid, &c->readers[r]))
            note_race(rc, &c->readers[r], me->who.on_host, TRACE_RACE_WAR, lo, hi, handed);
}

static void access_range(trace_racecheck *rc, const trace_range *rg, const rc_access *me, const trace_vc *now) {
    uint64_t lo = rg->addr, hi = trace_imap_end(rg->addr, rg->bytes);
    if (lo >= hi) return;
    rc->range_device = trace_range_device(rg);
    rc_cell empty;
    memset(&empty, 0, sizeof(empty));
    size_t first, last;
    trace_imap_cover(&rc->shadow, lo, hi, &empty, &first, &last);
    if (rg->flags & TRACE_RANGE_WRITE) {
        for (size_t i = first; i < last; i++)
            check_write(rc, trace_imap_val(&rc->shadow, i), trace_imap_lo(&rc->shadow, i),
                        trace_imap_hi(&rc->shadow, i), me, now);
        rc_cell fresh;
        memset(&fresh, 0, sizeof(fresh));
        fresh.has_write = true;
        fresh.write = *me;
        trace_imap_assign(&rc->shadow, lo, hi, &fresh);
    } else {
        for (size_t i = first; i < last; i++)
            check_read(rc, trace_imap_val(&rc->shadow, i), trace_imap_lo(&rc->shadow, i),
                       trace_imap_hi(&rc->shadow, i), me, now);
        trace_imap_coalesce(&rc->shadow, first, last);
    }
}

/* Checks op's ranges that match `host_ordered`, reads before writes. */
static void access_ranges(trace_racecheck *rc, const trace_op *op, bool host_ordered, const rc_access *me,
                          const trace_vc *now) {
    uint32_t n = op->n_ranges < TRACE_MAX_RANGES ? op->n_ranges : TRACE_MAX_RANGES;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t r = 0; r < n; r++) {
            const trace_range *rg = &op->ranges[r];
            if (((rg->flags & TRACE_RANGE_HOST_ORDERED) != 0) != host_ordered) continue;
            if (((rg->flags & TRACE_RANGE_WRITE) != 0) != (pass == 1)) continue;
            access_range(rc, rg, me, now);
        }
    }
}

static rc_who who_of(const trace_op *op, bool on_host) {
    rc_who w;
    memset(&w, 0, sizeof(w));
    w.id = op->id;
    w.stream = op->stream;
    w.batch = op->batch;
    w.run = op->run;
    w.kind = (uint8_t)op->kind;
    w.dir = (uint8_t)op->dir;
    w.on_host = on_host;
    w.call_site = op->call_site;
    memcpy(w.name, op->name, sizeof(w.name));
    w.name[sizeof(w.name) - 1] = '\0';
    w.device = op->device;
    w.dst_device = op->dst_device;
    w.peer = op->engine == TRACE_ENGINE_LINK;
    w.graph_launch = op->graph_launch;
    w.graph_stream = op->graph_stream;
    w.graph_origin = op->graph_origin;
    return w;
}

static bool has_ranges(const trace_op *op, bool host_ordered) {
    uint32_t n = op->n_ranges < TRACE_MAX_RANGES ? op->n_ranges : TRACE_MAX_RANGES;
    for (uint32_t r = 0; r < n; r++)
        if (((op->ranges[r].flags & TRACE_RANGE_HOST_ORDERED) != 0) == host_ordered) return true;
    return false;
}

/* A host access (or a host-ordered part of a stream op) at this point of the program. */
static void host_access(trace_racecheck *rc, const trace_op *op, bool host_ordered_only) {
    rc_access me;
    me.tid = HOST_TID;
    me.clock = trace_vc_tick(&rc->host, HOST_TID);
    me.who = who_of(op, true);
    if (host_ordered_only) {
        access_ranges(rc, op, true, &me, &rc->host);
    } else {
        access_ranges(rc, op, true, &me, &rc->host);
        access_ranges(rc, op, false, &me, &rc->host);
    }
}

/* ---- ops -------------------------------------------------------------------------------- */

static void forget_program(trace_racecheck *rc);

/* Work a stream is given (what a record marks and a wait holds back), not its events. */
static bool is_work(trace_op_kind kind) {
    return kind == TRACE_OP_COPY || kind == TRACE_OP_MEMSET || kind == TRACE_OP_KERNEL || kind == TRACE_OP_HOST_FN;
}

/* A wait kept for the race reports' blame (a stream's cudaStreamWaitEvent, the host's
 * cudaEventSynchronize): the op, and the record of e it took (none: it waited for nothing);
 * work_seq, the waiter's work so far. */
static void keep_wait(rc_wait *w, const trace_op *op, const rc_event *e, uint64_t work_seq) {
    memset(w, 0, sizeof(*w));
    w->event = op->event;
    w->op = op->id;
    w->site = op->call_site;
    w->rec_stream = w->rec_after_stream = -1;
    w->work_seq = work_seq;
    if (!e->recorded) return;
    w->rec_stream = e->rec_stream;
    w->rec_op = e->rec_op;
    w->rec_site = e->rec_site;
    w->rec_clock = e->rec_clock;
    w->rec_after_op = e->rec_after_op;
    w->rec_after_stream = e->rec_after_stream;
    w->rec_after_site = e->rec_after_site;
    w->in_graph = rc_graph_own_wait(op, e);
}

static void stream_op(trace_racecheck *rc, const trace_op *op) {
    if (op->stream < 0) return; /* an unknown stream handle: the runtime rejects the call */
    if (has_ranges(op, true)) host_access(rc, op, true);
    rc_stream *s = stream_of(rc, op->stream);
    uint32_t tid = rc_tid_of_stream(op->stream);
    trace_vc_join(&s->clock, &rc->host);
    /* The legacy stream is its device's (one context per device): it and the blocking
     * streams of that device wait for each other, those of another device do not. */
    if (s->legacy) {
        join_blocking_of(rc, s, &s->clock);
    } else if (blocking(s)) {
        uint32_t device = s->device;
        rc_stream *legacy = legacy_of(rc, device);
        s = &rc->streams[op->stream]; /* stream_of may have moved the table */
        if (legacy && legacy->device == device) trace_vc_join(&s->clock, &legacy->clock);
    }
    bool work = is_work(op->kind);
    if (work) {
        close_for_work(rc, op->stream, false); /* its waits from now on come after this op */
        host_step(rc, op);
    }
    if (op->kind == TRACE_OP_EVENT_WAIT) {
        rc_event *e = event_of(rc, op->event);
        if (e && op->name[0]) snprintf(e->name, sizeof(e->name), "%.31s", op->name);
        rc_wait *w = NULL;
        if (e) {
            /* Every wait is remembered, on a recorded event or not (one not recorded yet
             * waits for nothing: a race report may blame it). */
            w = &s->waits[s->n_waits++ % WAITS_KEPT];
            keep_wait(w, op, e, s->work_ops);
        }
        if (e && e->recorded) {
            late_wait(rc, op, e, w, &e->snapshot);
            trace_vc_join(&s->clock, &e->snapshot);
            if (op->stream < EARLY_MAX_STREAMS) e->waited |= 1ull << op->stream;
        }
    }
    if (work) s->work_ops++;
    rc_access me;
    me.tid = tid;
    me.clock = trace_vc_tick(&s->clock, tid);
    me.who = who_of(op, false);
    if (has_ranges(op, false)) access_ranges(rc, op, false, &me, &s->clock);
    if (op->kind == TRACE_OP_EVENT_RECORD) {
        rc_event *e = event_of(rc, op->event);
        if (e) {
            trace_vc_copy(&e->snapshot, &s->clock);
            e->recorded = true;
            e->rec_stream = op->stream;
            e->rec_op = op->id;
            e->rec_site = op->call_site;
            e->rec_clock = me.clock;
            e->rec_after_op = rc->last_work_op;
            e->rec_after_stream = rc->last_work_stream;
            e->rec_after_site = rc->last_work_site;
            e->rec_graph = op->graph_launch;
            e->waited = 0;
            e->synced = false;
            if (op->name[0]) snprintf(e->name, sizeof(e->name), "%.31s", op->name);
        }
    }
    s->last_op = op->id;
    if (work) {
        rc->last_work_op = op->id;
        rc->last_work_stream = op->stream;
        rc->last_work_site = op->call_site;
    }
    rc_recent *slot = &rc->recent[op->id % RECENT_SLOTS];
    slot->op = op->id;
    slot->stream = op->stream;
    slot->clock = me.clock;
}

static void sync_op(trace_racecheck *rc, const trace_op *op) {
    const rc_event *waited = NULL; /* the event the host waited for, if any */
    rc_wait *kept = NULL;          /* that wait, as the host's waits keep it */
    switch (op->sync) {
    case TRACE_SYNC_STREAM: {
        if (op->stream < 0) break;
        rc_stream *st = stream_of(rc, op->stream);
        trace_vc_join(&rc->host, &st->clock);
        /* The legacy default stream waits for the blocking streams of its device before any
         * work of its own, so the host that waited for it (cudaStreamSynchronize(0), or a
         * cudaStreamQuery(0) that succeeded) waited for their earlier work too. */
        if (st->legacy) join_blocking_of(rc, st, &rc->host);
        break;
    }
    case TRACE_SYNC_EVENT: {
        rc_event *e = event_of(rc, op->event);
        if (!e) break;
        /* Kept as a stream's waits are, with the record it took (none: it waited for
         * nothing), for the race reports' blame. */
        kept = &rc->host_waits[rc->n_host_waits++ % WAITS_KEPT];
        keep_wait(kept, op, e, rc->host_steps);
        if (e->recorded) {
            trace_vc_join(&rc->host, &e->snapshot);
            e->synced = true;
            waited = e;
        }
        break;
    }
    case TRACE_SYNC_DEVICE:
        for (uint32_t i = 0; i < rc->n_streams; i++)
            if (rc->streams[i].known) trace_vc_join(&rc->host, &rc->streams[i].clock);
        break;
    case TRACE_SYNC_OP: {
        const rc_recent *slot = &rc->recent[op->waited_op % RECENT_SLOTS];
        if (op->waited_op == 0 || slot->op != op->waited_op) break;
        rc_stream *s = stream_of(rc, slot->stream);
        if (s->last_op == op->waited_op) {
            trace_vc_join(&rc->host, &s->clock); /* exactly the op's vector clock */
        } else {
            /* Later ops followed on its stream: order the op and those before it in the
             * stream (what the op itself waited for on other streams is not known). */
            uint32_t tid = rc_tid_of_stream(slot->stream);
            if (trace_vc_get(&rc->host, tid) < slot->clock) trace_vc_set(&rc->host, tid, slot->clock);
        }
        break;
    }
    case TRACE_SYNC_NONE:
        break;
    }
    /* A host access the host waited for the first op of only after making it. */
    if ((op->sync == TRACE_SYNC_EVENT && waited) || op->sync == TRACE_SYNC_STREAM || op->sync == TRACE_SYNC_DEVICE)
        late_wait(rc, op, waited, kept, &rc->host);
    /* The host waited for the second op of a held report: what its stream does next is a new
     * phase of the program, and the report goes out. */
    for (size_t i = 0; i < rc->n_held; i++) {
        rc_held *h = &rc->held[i];
        if (h->open && !h->host && trace_vc_covers(&rc->host, rc_tid_of_stream(h->second_stream), h->second_clock))
            h->open = false;
    }
    hand_out_closed(rc);
}

static void on_op(void *ctx, const trace_op *op) {
    trace_racecheck *rc = ctx;
    /* Ids start over after trace_reset: the streams, events and buffers of before are
     * gone (the simulator resets with them), so their history must not meet the new
     * program's. */
    if (op->id <= rc->last_id) {
        settle(rc);
        forget_program(rc);
    }
    rc->last_id = op->id;
    rc->ops_seen++;
    if (op->device != 0 || op->engine == TRACE_ENGINE_LINK) rc->multi_device = true;
    rc_who second;
    switch (op->kind) {
    case TRACE_OP_COPY:
    case TRACE_OP_MEMSET:
    case TRACE_OP_KERNEL:
    case TRACE_OP_HOST_FN:
    case TRACE_OP_EVENT_RECORD:
    case TRACE_OP_EVENT_WAIT:
        stream_op(rc, op);
        break;
    case TRACE_OP_HOST_ACCESS:
        close_for_work(rc, TRACE_STREAM_NONE, true);
        host_step(rc, op);
        host_access(rc, op, false);
        break;
    case TRACE_OP_SYNC:
        sync_op(rc, op);
        break;
    default:
        break;
    }
    if (rc->n_pending) {
        second = who_of(op, false);
        flush_pending(rc, &second);
    }
    if (rc->n_held) hand_out_closed(rc); /* those this op closed (work on their stream) */
}

static void on_stream(void *ctx, const trace_stream *info) {
    trace_racecheck *rc = ctx;
    rc_stream *s = stream_of(rc, info->id);
    if (!s) return;
    s->legacy = info->id == TRACE_STREAM_LEGACY || info->legacy;
    s->flags = info->flags;
    s->device = info->device;
    if (info->device != 0) rc->multi_device = true;
    snprintf(s->name, sizeof(s->name), "%s", info->name);
}

/* ---- public --------------------------------------------------------------------------------- */

trace_racecheck *trace_racecheck_create(size_t max_kept) {
    trace_racecheck *rc = calloc(1, sizeof(*rc));
    if (!rc) return NULL;
    rc->max_kept = max_kept ? max_kept : TRACE_RACECHECK_DEFAULT_KEEP;
    rc->last_work_stream = -1;
    rc->recent = calloc(RECENT_SLOTS, sizeof(rc_recent));
    if (!rc->recent) {
        free(rc);
        return NULL;
    }
    trace_imap_ops ops = {sizeof(rc_cell), cell_clone, cell_release, cell_equal};
    trace_imap_init(&rc->shadow, &ops);
    return rc;
}

/* Forgets clocks, events and shadow memory (a new program), keeping the reports. */
static void forget_program(trace_racecheck *rc) {
    trace_vc_free(&rc->host);
    for (uint32_t i = 0; i < rc->n_streams; i++) trace_vc_free(&rc->streams[i].clock);
    free(rc->streams);
    rc->streams = NULL;
    rc->n_streams = 0;
    for (uint64_t i = 0; i < rc->n_events; i++) trace_vc_free(&rc->events[i].snapshot);
    free(rc->events);
    rc->events = NULL;
    rc->n_events = 0;
    memset(rc->recent, 0, RECENT_SLOTS * sizeof(rc_recent));
    trace_imap_clear(&rc->shadow);
    rc->last_id = 0;
    rc->last_work_op = 0;
    rc->last_work_stream = -1;
    rc->last_work_site = 0;
    rc->last_access_op = 0;
    rc->host_steps = 0;
    rc->n_host_waits = 0;
}

void trace_racecheck_clear(trace_racecheck *rc) {
    forget_program(rc);
    free(rc->pending);
    rc->pending = NULL;
    rc->n_pending = rc->cap_pending = 0;
    free(rc->held);
    rc->held = NULL;
    rc->n_held = rc->cap_held = 0;
    free(rc->reports);
    rc->reports = NULL;
    rc->n_reports = 0;
    rc->count = 0;
    rc->ops_seen = 0;
}

void trace_racecheck_destroy(trace_racecheck *rc) {
    if (!rc) return;
    trace_racecheck_uninstall(rc);
    trace_racecheck_clear(rc);
    free(rc->recent);
    free(rc);
}

trace_sink trace_racecheck_sink(trace_racecheck *rc) {
    trace_sink s;
    memset(&s, 0, sizeof(s));
    s.ctx = rc;
    s.on_stream = on_stream;
    s.on_op = on_op;
    return s;
}

int trace_racecheck_install(trace_racecheck *rc) {
    if (trace_has_sink(rc)) return 0;
    trace_sink s = trace_racecheck_sink(rc);
    return trace_add_sink(&s);
}

void trace_racecheck_uninstall(trace_racecheck *rc) { trace_remove_sink(rc); }

void trace_racecheck_print_to(trace_racecheck *rc, FILE *out) { rc->print = out; }

uint64_t trace_racecheck_count(const trace_racecheck *rc) { return rc->count; }
uint64_t trace_racecheck_ops_seen(const trace_racecheck *rc) { return rc->ops_seen; }

size_t trace_racecheck_kept(trace_racecheck *rc) {
    settle(rc);
    return rc->n_reports;
}

const trace_race *trace_racecheck_report(trace_racecheck *rc, size_t i) {
    settle(rc);
    return i < rc->n_reports ? &rc->reports[i] : NULL;
}

void trace_racecheck_settle(trace_racecheck *rc) { settle(rc); }

/* ---- standalone mode ------------------------------------------------------------------------ */

static trace_racecheck *global_rc;

static void at_exit_summary(void) {
    if (!global_rc) return;
    settle(global_rc); /* the reports still held are printed before the summary */
    uint64_t n = trace_racecheck_count(global_rc);
    if (n == 0) {
        fprintf(stderr, "streamlab racecheck: no races in %" PRIu64 " operations\n",
                trace_racecheck_ops_seen(global_rc));
        return;
    }
    fprintf(stderr,
            "streamlab racecheck: %" PRIu64 " race%s in %" PRIu64 " operations (reported above); "
            "exit status %d\n",
            n, n == 1 ? "" : "s", trace_racecheck_ops_seen(global_rc), TRACE_RACECHECK_EXIT_STATUS);
    fflush(NULL);
    _exit(TRACE_RACECHECK_EXIT_STATUS);
}

bool trace_racecheck_install_from_env(void) {
    const char *v = getenv("STREAMLAB_RACECHECK");
    if (!v || !v[0] || strcmp(v, "0") == 0) return false;
    if (!global_rc) {
        global_rc = trace_racecheck_create(0);
        if (!global_rc) {
            fprintf(stderr, "streamlab racecheck: out of memory; race checking is off\n");
            return false;
        }
        trace_racecheck_print_to(global_rc, stderr);
        atexit(at_exit_summary);
    }
    if (trace_racecheck_install(global_rc) != 0) {
        fprintf(stderr, "streamlab racecheck: the recorder has no free sink slot; race checking is off\n");
        return false;
    }
    return true;
}

trace_racecheck *trace_racecheck_global(void) { return global_rc; }
