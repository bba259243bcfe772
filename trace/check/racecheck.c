/* trace/check/racecheck.c: the happens-before race checker (see racecheck.h).
 *
 * Threads of execution: tid 0 is the host thread, tid s + 1 is stream s. Each has a
 * vector clock; every op a thread performs ticks its own entry, so an op's epoch is
 * (tid, clock). The shadow memory maps byte ranges to the epoch of the last write and of
 * the reads since (at most one per thread: a read that happens before a newer read by
 * any thread is implied by it and dropped).
 *
 * Events recorded too early: each event keeps where it was last recorded (the stream, the
 * record op, its call site and the stream's own clock at the record) and which streams
 * have waited on it since (a bitmask of stream ids below EARLY_MAX_STREAMS). When a race
 * between two stream ops is reported, the events are searched (once per report, never per
 * access) for one recorded on the first op's stream before it and waited on by the second
 * op's stream: the program meant that wait to order them, and the report names it. */
#define _POSIX_C_SOURCE 200809L
#include "trace/check/racecheck.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/record/interval_map.h"
#include "trace/check/vector_clock.h"

#define HOST_TID 0u

/* Who made an access: enough of the op to report it. */
typedef struct rc_who {
    uint64_t id;
    int32_t stream;
    int32_t batch;
    int32_t run;
    uint8_t kind;
    uint8_t dir;
    bool on_host;
    uint64_t call_site;
    char name[TRACE_NAME_MAX];
    uint32_t device, dst_device;
    bool peer;
} rc_who;

typedef struct rc_access {
    uint64_t clock;
    uint32_t tid;
    rc_who who;
} rc_access;

/* A shadow cell: the state of a byte range. */
typedef struct rc_cell {
    bool has_write;
    rc_access write;
    uint32_t n_readers, cap_readers;
    rc_access *readers; /* sorted by tid, at most one per tid */
} rc_cell;

/* A wait a stream made (cudaStreamWaitEvent), with where its event was last recorded at
 * the time: for naming an event recorded on the wrong stream. */
/* A range of the work an event's record follows on its stream: what the record marks. */
typedef struct rc_mark {
    uint64_t lo, hi;
    bool write;
} rc_mark;

typedef struct rc_marks {
    rc_mark m[TRACE_MAX_RANGES];
    uint32_t n;
} rc_marks;

typedef struct rc_wait {
    uint64_t event;      /* the event's id */
    uint64_t op, site;   /* the EVENT_WAIT op and its call site */
    int32_t rec_stream;  /* the stream the event was last recorded on when it was waited on */
    uint64_t rec_op;     /* that EVENT_RECORD op's id */
    uint64_t rec_site;   /* and its call site */
    rc_marks marks;      /* what that record marked (the ranges of the work before it) */
} rc_wait;

/* The waits each stream remembers: its last WAITS_KEPT. */
#define WAITS_KEPT 8u

typedef struct rc_stream {
    bool known;
    bool legacy; /* a device's legacy default stream: id 0 (device 0's), or one marked so */
    unsigned flags;
    uint32_t device;
    char name[32];
    trace_vc clock;
    uint64_t last_op; /* the last op enqueued on it: clock is that op's vector clock */
    rc_marks last_work; /* the ranges of its last op that had any (a copy, kernel, memset) */
    rc_wait waits[WAITS_KEPT]; /* its last waits on recorded events, a ring */
    uint32_t n_waits;          /* waits made in all (the ring holds the last WAITS_KEPT) */
} rc_stream;

/* Streams whose waits an event remembers: ids 0 .. EARLY_MAX_STREAMS - 1 (one bit each). */
#define EARLY_MAX_STREAMS 64

typedef struct rc_event {
    bool recorded;
    trace_vc snapshot;
    /* The last record, for naming an event recorded too early: */
    int32_t rec_stream;  /* the stream it was recorded on */
    uint64_t rec_op;     /* the EVENT_RECORD op's id */
    uint64_t rec_site;   /* its call site */
    uint64_t rec_clock;  /* the recording stream's own clock entry at the record (the record op's tick) */
    uint64_t waited;     /* bit s: stream s waited on it since that record (s < EARLY_MAX_STREAMS) */
    rc_marks marks;      /* the ranges of the work the last record followed on its stream */
    char name[32];       /* the program's name for it (its records and waits carry it), "" none */
} rc_event;

/* Recently enqueued stream ops, direct-mapped by id, for SYNC on one op. */
#define RECENT_SLOTS 4096u
typedef struct rc_recent {
    uint64_t op;
    int32_t stream;
    uint64_t clock;
} rc_recent;

/* A race found while checking the current op, merged over its ranges. */
typedef struct rc_pending {
    rc_who first;
    uint32_t first_tid;   /* the first access's epoch (thread, clock) */
    uint64_t first_clock;
    bool second_on_host;
    trace_race_kind kind;
    uint64_t lo, hi;
    int32_t buffer_device; /* the device of the range that found it, -1 host or unknown */
    bool handover;         /* a write-after-read of bytes the second side's thread wrote before
                              the first read them: a buffer handed over between the two */
} rc_pending;

struct trace_racecheck {
    trace_vc host;
    rc_stream *streams;
    uint32_t n_streams;
    rc_event *events;
    uint64_t n_events;
    rc_recent *recent;
    trace_imap shadow;
    rc_pending *pending;
    size_t n_pending, cap_pending;
    trace_race *reports;
    size_t n_reports, max_kept;
    uint64_t count;
    uint64_t ops_seen;
    uint64_t last_id; /* the last op id seen: ids only grow until the recorder is reset */
    FILE *print;
    bool multi_device;     /* a stream or op of a device other than 0, or a peer copy, was seen */
    int32_t range_device;  /* the device of the range being checked, -1 host or unknown */
};

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

static uint32_t tid_of_stream(int32_t id) { return (uint32_t)id + 1u; }

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

/* The event recorded too early for this race, or NULL: both sides are stream ops on two
 * streams, the event was last recorded on first's stream before first (in that stream's
 * order) and second's stream has waited on it since. The latest such record wins. Sets
 * *id to the event's id. O(events), and only for a race being reported. When another
 * event was recorded on first's stream after first, the program does mark first, and the
 * wait named the wrong event (another buffer's, say): no record is early, and NULL. */
static const rc_event *early_record(const trace_racecheck *rc, const rc_pending *p, const rc_who *second,
                                    uint64_t *id) {
    const rc_who *f = &p->first;
    if (f->on_host || p->second_on_host || f->stream < 0 || second->stream < 0) return NULL;
    if (f->stream == second->stream || second->stream >= EARLY_MAX_STREAMS) return NULL;
    if (p->first_tid != tid_of_stream(f->stream)) return NULL;
    uint64_t bit = 1ull << second->stream;
    const rc_event *best = NULL;
    for (uint64_t i = 1; i < rc->n_events; i++) {
        const rc_event *e = &rc->events[i];
        if (e->recorded && e->rec_stream == f->stream && e->rec_clock >= p->first_clock) return NULL;
    }
    for (uint64_t i = 1; i < rc->n_events; i++) {
        const rc_event *e = &rc->events[i];
        if (!e->recorded || e->rec_stream != f->stream || !(e->waited & bit)) continue;
        if (!best || e->rec_clock > best->rec_clock) {
            best = e;
            *id = i;
        }
    }
    return best;
}

/* Whether the work a wait's event marks conflicts with one of op's ranges (one of the two
 * writes the bytes): the wait orders something op needs, so it is doing a job of its own and
 * is not a wait meant for another race. */
static bool wait_serves(const rc_wait *w, const trace_op *op) {
    uint32_t n = op && op->n_ranges < TRACE_MAX_RANGES ? op->n_ranges : op ? TRACE_MAX_RANGES : 0;
    for (uint32_t r = 0; r < n; r++) {
        const trace_range *rg = &op->ranges[r];
        uint64_t hi = trace_imap_end(rg->addr, rg->bytes);
        bool write = (rg->flags & TRACE_RANGE_WRITE) != 0;
        for (uint32_t k = 0; k < w->marks.n; k++) {
            const rc_mark *m = &w->marks.m[k];
            if (m->lo < hi && rg->addr < m->hi && (m->write || write)) return true;
        }
    }
    return false;
}

/* The wait on an event recorded on the wrong stream for this race, or NULL: both sides are
 * stream ops on two streams, and second's stream waited (before second) on an event that
 * was recorded after first was enqueued but on another stream than first's: the program
 * meant that record to mark first, and the wait orders nothing between them. The latest
 * such wait of those second's stream remembers is the one. When its event marks work that
 * second itself depends on (an upload second reads), that wait is doing its own job: no
 * wait is blamed, and the report gives the plain fix rather than send the student to move
 * a record that is right. */
static const rc_wait *wrong_stream_wait(const trace_racecheck *rc, const rc_pending *p, const rc_who *second,
                                        const trace_op *second_op) {
    const rc_who *f = &p->first;
    if (f->on_host || p->second_on_host || f->stream < 0 || second->stream < 0) return NULL;
    if (f->stream == second->stream || (uint32_t)second->stream >= rc->n_streams) return NULL;
    if (p->first_tid != tid_of_stream(f->stream)) return NULL;
    const rc_stream *b = &rc->streams[second->stream];
    uint32_t kept = b->n_waits < WAITS_KEPT ? b->n_waits : WAITS_KEPT;
    for (uint32_t k = 0; k < kept; k++) {
        const rc_wait *w = &b->waits[(b->n_waits - 1 - k) % WAITS_KEPT];
        if (w->rec_stream != f->stream && w->rec_op > f->id) return wait_serves(w, second_op) ? NULL : w;
    }
    return NULL;
}

static void flush_pending(trace_racecheck *rc, const rc_who *second, const trace_op *second_op) {
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
        uint64_t event_id = 0;
        const rc_event *early = early_record(rc, p, &s, &event_id);
        if (early) {
            race.early_event = event_id;
            race.early_record_op = early->rec_op;
            race.early_record_site = early->rec_site;
            snprintf(race.early_event_name, sizeof(race.early_event_name), "%.31s", early->name);
        } else {
            const rc_wait *wrong = wrong_stream_wait(rc, p, &s, second_op);
            if (wrong) {
                const rc_stream *c = stream_of(rc, wrong->rec_stream);
                race.wrong_event = wrong->event;
                race.wrong_record_op = wrong->rec_op;
                race.wrong_record_site = wrong->rec_site;
                race.wrong_record_stream = wrong->rec_stream;
                snprintf(race.wrong_record_stream_name, sizeof(race.wrong_record_stream_name), "%s",
                         c ? c->name : "");
                race.wrong_wait_op = wrong->op;
                race.wrong_wait_site = wrong->site;
                const rc_event *e = wrong->event < rc->n_events ? &rc->events[wrong->event] : NULL;
                snprintf(race.wrong_event_name, sizeof(race.wrong_event_name), "%.31s", e ? e->name : "");
            }
        }
        trace_race_make_fix(&race);
        if (rc->n_reports < rc->max_kept) {
            if (rc->n_reports % 64 == 0)
                rc->reports = xrealloc(rc->reports, (rc->n_reports + 64) * sizeof(trace_race));
            rc->reports[rc->n_reports++] = race;
        }
        if (rc->print) {
            char text[2048];
            trace_race_format(&race, text, sizeof(text));
            fputs(text, rc->print);
            fflush(rc->print);
        }
        trace_report_race(&race);
    }
    rc->n_pending = 0;
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

static void stream_op(trace_racecheck *rc, const trace_op *op) {
    if (op->stream < 0) return; /* an unknown stream handle: the runtime rejects the call */
    if (has_ranges(op, true)) host_access(rc, op, true);
    rc_stream *s = stream_of(rc, op->stream);
    uint32_t tid = tid_of_stream(op->stream);
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
    if (op->kind == TRACE_OP_EVENT_WAIT) {
        rc_event *e = event_of(rc, op->event);
        if (e && op->name[0]) snprintf(e->name, sizeof(e->name), "%.31s", op->name);
        if (e && e->recorded) {
            trace_vc_join(&s->clock, &e->snapshot);
            if (op->stream < EARLY_MAX_STREAMS) e->waited |= 1ull << op->stream;
            rc_wait *w = &s->waits[s->n_waits++ % WAITS_KEPT];
            w->event = op->event;
            w->op = op->id;
            w->site = op->call_site;
            w->rec_stream = e->rec_stream;
            w->rec_op = e->rec_op;
            w->rec_site = e->rec_site;
            w->marks = e->marks;
        }
    }
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
            e->waited = 0;
            e->marks = s->last_work;
            if (op->name[0]) snprintf(e->name, sizeof(e->name), "%.31s", op->name);
        }
    }
    s->last_op = op->id;
    if (op->kind != TRACE_OP_EVENT_RECORD && op->kind != TRACE_OP_EVENT_WAIT && op->n_ranges > 0) {
        uint32_t n = op->n_ranges < TRACE_MAX_RANGES ? op->n_ranges : TRACE_MAX_RANGES;
        s->last_work.n = 0;
        for (uint32_t r = 0; r < n; r++) {
            const trace_range *rg = &op->ranges[r];
            uint64_t hi = trace_imap_end(rg->addr, rg->bytes);
            if (rg->addr >= hi) continue;
            s->last_work.m[s->last_work.n++] = (rc_mark){rg->addr, hi, (rg->flags & TRACE_RANGE_WRITE) != 0};
        }
    }
    rc_recent *slot = &rc->recent[op->id % RECENT_SLOTS];
    slot->op = op->id;
    slot->stream = op->stream;
    slot->clock = me.clock;
}

static void sync_op(trace_racecheck *rc, const trace_op *op) {
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
        if (e && e->recorded) trace_vc_join(&rc->host, &e->snapshot);
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
            uint32_t tid = tid_of_stream(slot->stream);
            if (trace_vc_get(&rc->host, tid) < slot->clock) trace_vc_set(&rc->host, tid, slot->clock);
        }
        break;
    }
    case TRACE_SYNC_NONE:
        break;
    }
}

static void on_op(void *ctx, const trace_op *op) {
    trace_racecheck *rc = ctx;
    /* Ids start over after trace_reset: the streams, events and buffers of before are
     * gone (the simulator resets with them), so their history must not meet the new
     * program's. */
    if (op->id <= rc->last_id) forget_program(rc);
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
        flush_pending(rc, &second, op);
    }
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
}

void trace_racecheck_clear(trace_racecheck *rc) {
    forget_program(rc);
    free(rc->pending);
    rc->pending = NULL;
    rc->n_pending = rc->cap_pending = 0;
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
size_t trace_racecheck_kept(const trace_racecheck *rc) { return rc->n_reports; }
uint64_t trace_racecheck_ops_seen(const trace_racecheck *rc) { return rc->ops_seen; }

const trace_race *trace_racecheck_report(const trace_racecheck *rc, size_t i) {
    return i < rc->n_reports ? &rc->reports[i] : NULL;
}

/* ---- standalone mode ------------------------------------------------------------------------ */

static trace_racecheck *global_rc;

static void at_exit_summary(void) {
    if (!global_rc) return;
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
