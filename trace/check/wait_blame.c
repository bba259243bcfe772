/* trace/check/wait_blame.c: which wait a race report blames, and for what (see
 * wait_blame.h). Each search reads the waiter's last waits and the events' last records; it
 * runs once per race reported, never per access. */
#include "trace/check/wait_blame.h"

#include <string.h>

/* Whose waits a report reads: stream B's (cudaStreamWaitEvent) or the host's
 * (cudaEventSynchronize). */
typedef struct waiter {
    const rc_wait *ring; /* WAITS_KEPT entries, the latest at (n - 1) % WAITS_KEPT */
    uint32_t n;          /* waits made in all */
    uint64_t steps;      /* the waiter's work so far, second included (rc_wait.work_seq counts it) */
    int32_t stream;      /* B; TRACE_STREAM_NONE for the host */
} waiter;

static const rc_event *event_at(const struct trace_racecheck *rc, uint64_t id) {
    return id > 0 && id < rc->n_events ? &rc->events[id] : NULL;
}

static const char *stream_name(const struct trace_racecheck *rc, int32_t id) {
    return id >= 0 && (uint32_t)id < rc->n_streams && rc->streams[id].known ? rc->streams[id].name : "";
}

static uint32_t kept(const waiter *w) { return w->n < WAITS_KEPT ? w->n : WAITS_KEPT; }

/* The k-th latest wait of second's own (k < kept), or NULL past them: the waits issued
 * since the waiter's last work before second, bar one blamed as late for that work. */
static const rc_wait *own_wait(const waiter *w, uint32_t k) {
    const rc_wait *x = &w->ring[(w->n - 1 - k) % WAITS_KEPT];
    return x->work_seq + 1 == w->steps ? x : NULL;
}

/* A wait a blame may name: one the program placed among its calls, not a graph's fork or
 * join between two of its own nodes (rc_wait.in_graph), which only the capture orders. */
static bool blamable(const rc_wait *w) { return !w->in_graph; }

/* Whether the waiter has waited on event e since its last record. */
static bool waited_since(const waiter *w, const rc_event *e) {
    if (w->stream == TRACE_STREAM_NONE) return e->synced;
    return w->stream < EARLY_MAX_STREAMS && (e->waited >> w->stream & 1u);
}

/* An event's record on A that orders first: recorded on A after first, in A's order. */
static bool marks_first(const rc_event *e, const rc_pending *p) {
    return e && e->recorded && e->rec_stream == p->first.stream && e->rec_clock > p->first_clock;
}

/* And it was recorded right after first, or after a later op of A's made by the same call
 * (the last work the host enqueued before the record): a record that marks first's kind of
 * work, as the program placed it. A record placed before such work (an event recorded too
 * early, for a later op) follows other work, or work of another stream, and is not. */
static bool marks_work_of_first(const rc_event *e, const rc_pending *p) {
    return marks_first(e, p) && e->rec_after_stream == p->first.stream && e->rec_after_op >= p->first.id &&
           e->rec_after_site == p->first.call_site;
}

/* e's record is the first on A after first, of the events' last records: the one a wait
 * meant for this edge takes (a later record marks later work of A's too). */
static bool first_mark(const struct trace_racecheck *rc, const rc_pending *p, const rc_event *e) {
    for (uint64_t i = 1; i < rc->n_events; i++)
        if (marks_first(&rc->events[i], p) && rc->events[i].rec_clock < e->rec_clock) return false;
    return true;
}

/* The length of an array element's name before its index ("computed" of "computed[1]"), 0
 * when the name has no index. */
static size_t stem_length(const char *name) {
    const char *bracket = strchr(name, '[');
    return bracket && bracket != name ? (size_t)(bracket - name) : 0;
}

/* Two events of one set: the same name before their indices, or recorded at the same call
 * site (a record in a loop over an array of events). site_a is a's record's call site. */
static bool same_set(const rc_event *a, uint64_t site_a, const rc_event *b) {
    size_t n = stem_length(a->name);
    if (n && n == stem_length(b->name) && strncmp(a->name, b->name, n) == 0 && strcmp(a->name, b->name) != 0)
        return true;
    return site_a != 0 && site_a == b->rec_site;
}

static void blame(const struct trace_racecheck *rc, trace_race *race, trace_race_wait_fault fault, const rc_wait *w,
                  int32_t wait_stream, uint64_t mark_id) {
    const rc_event *we = event_at(rc, w->event), *me = event_at(rc, mark_id);
    race->wait_fault = fault;
    race->wait_event = w->event;
    snprintf(race->wait_event_name, sizeof(race->wait_event_name), "%.31s", we ? we->name : "");
    race->wait_op = w->op;
    race->wait_site = w->site;
    race->wait_stream = wait_stream;
    race->wait_on_host = wait_stream == TRACE_STREAM_NONE;
    snprintf(race->wait_stream_name, sizeof(race->wait_stream_name), "%s", stream_name(rc, wait_stream));
    if (race->wait_on_host && w->op) snprintf(race->wait_call, sizeof(race->wait_call), "cudaEventSynchronize");
    race->wait_took_record = w->rec_op != 0;
    race->mark_event = mark_id;
    snprintf(race->mark_event_name, sizeof(race->mark_event_name), "%.31s", me ? me->name : "");
    race->mark_record_op = me ? me->rec_op : 0;
    race->mark_record_site = me ? me->rec_site : 0;
}

/* One of second's own waits on the event whose record is the first on A after first,
 * issued before that record. */
static bool before_record(const struct trace_racecheck *rc, const rc_pending *p, const waiter *wt, trace_race *race) {
    for (uint32_t k = 0; k < kept(wt); k++) {
        const rc_wait *w = own_wait(wt, k);
        if (!w) break;
        const rc_event *e = event_at(rc, w->event);
        if (w->late || !blamable(w) || !marks_work_of_first(e, p) || e->rec_op <= w->op || !first_mark(rc, p, e))
            continue;
        if (waited_since(wt, e)) continue;
        blame(rc, race, TRACE_WAIT_FAULT_BEFORE_RECORD, w, wt->stream, w->event);
        return true;
    }
    return false;
}

/* One of second's own waits on an event that did not order first, where another event of
 * its set, recorded on A after first (the earliest such record), would have. */
static bool other_event(const struct trace_racecheck *rc, const rc_pending *p, const waiter *wt, trace_race *race) {
    for (uint32_t k = 0; k < kept(wt); k++) {
        const rc_wait *w = own_wait(wt, k);
        if (!w) break;
        const rc_event *e = event_at(rc, w->event);
        /* A wait on the waiter's own record orders nothing for it: it is another stream's,
         * misplaced (OTHER_STREAM names it for that stream's race). */
        if (w->late || !blamable(w) || !e || (w->rec_op != 0 && w->rec_stream == wt->stream)) continue;
        /* A record on A at or after first, taken before second: it ordered first. */
        if (w->rec_op != 0 && w->rec_stream == p->first.stream && w->rec_clock > p->first_clock) continue;
        uint64_t site = w->rec_op ? w->rec_site : e->recorded ? e->rec_site : 0;
        uint64_t best = 0;
        for (uint64_t i = 1; i < rc->n_events; i++) {
            const rc_event *m = &rc->events[i];
            if (i == w->event || !marks_work_of_first(m, p) || !same_set(e, site, m) || waited_since(wt, m)) continue;
            if (!best || m->rec_clock < rc->events[best].rec_clock) best = i;
        }
        if (best) {
            blame(rc, race, TRACE_WAIT_FAULT_OTHER_EVENT, w, wt->stream, best);
            race->wait_took_first_stream = w->rec_op != 0 && w->rec_stream == p->first.stream;
            return true;
        }
    }
    return false;
}

/* One of second's own waits that took a record of its event on A before first: the event
 * recorded too early. The latest such record wins. None when another event's record marks
 * first's work: the program does mark first, the wait named another event than that one
 * (of no set other_event can name), and moving the record it took would move a right one. */
static const rc_wait *early_record(const struct trace_racecheck *rc, const rc_pending *p, const waiter *wt) {
    for (uint64_t i = 1; i < rc->n_events; i++)
        if (marks_work_of_first(&rc->events[i], p)) return NULL;
    const rc_wait *best = NULL;
    for (uint32_t k = 0; k < kept(wt); k++) {
        const rc_wait *w = own_wait(wt, k);
        if (!w) break;
        if (w->late || !blamable(w) || w->rec_op == 0 || w->rec_stream != p->first.stream ||
            w->rec_clock >= p->first_clock)
            continue;
        if (!best || w->rec_clock > best->rec_clock) best = w;
    }
    return best;
}

/* One of second's own waits on an event recorded after first was enqueued, on another
 * stream than first's, right after work of first's stream (at or after first): the program
 * meant that record to mark first, and the wait orders nothing between them. */
static const rc_wait *wrong_stream_wait(const rc_pending *p, const waiter *wt) {
    const rc_who *f = &p->first;
    for (uint32_t k = 0; k < kept(wt); k++) {
        const rc_wait *w = own_wait(wt, k);
        if (!w) break;
        if (w->late || !blamable(w) || w->rec_op == 0 || w->rec_stream == f->stream || w->rec_op <= f->id) continue;
        if (w->rec_after_stream == f->stream && w->rec_after_op >= f->id) return w;
    }
    return NULL;
}

/* A's own wait, before second, on an event recorded on A after first (it orders nothing:
 * a stream is ordered after its own work anyway); the latest. */
static const rc_wait *own_event_wait(const struct trace_racecheck *rc, const rc_pending *p, uint64_t second_id) {
    const rc_stream *a = &rc->streams[p->first.stream];
    const waiter wa = {a->waits, a->n_waits, a->work_ops, p->first.stream};
    for (uint32_t k = 0; k < kept(&wa); k++) {
        const rc_wait *w = &wa.ring[(wa.n - 1 - k) % WAITS_KEPT];
        if (!blamable(w) || w->rec_op == 0 || w->rec_stream != p->first.stream || w->rec_clock <= p->first_clock)
            continue;
        if (w->op < second_id) return w;
    }
    return NULL;
}

/* A record on A right after first (nothing enqueued in between) that nothing has waited on
 * since: a wait is missing, not an event. */
static uint64_t unwaited_record(const struct trace_racecheck *rc, const rc_pending *p) {
    uint64_t best = 0;
    for (uint64_t i = 1; i < rc->n_events; i++) {
        const rc_event *e = &rc->events[i];
        if (!marks_first(e, p) || e->rec_after_op != p->first.id || e->waited || e->synced) continue;
        if (!best || e->rec_clock < rc->events[best].rec_clock) best = i;
    }
    return best;
}

void trace_racecheck_blame_wait(const struct trace_racecheck *rc, const rc_pending *p, const rc_who *second,
                                trace_race *race) {
    const rc_who *f = &p->first;
    if (f->on_host || f->stream < 0 || (uint32_t)f->stream >= rc->n_streams) return;
    if (p->first_tid != rc_tid_of_stream(f->stream)) return; /* a host-ordered part of a stream op */
    waiter wt;
    if (p->second_on_host) {
        if (second->kind != TRACE_OP_HOST_ACCESS) return;
        wt = (waiter){rc->host_waits, rc->n_host_waits, rc->host_steps, TRACE_STREAM_NONE};
    } else {
        if (second->stream < 0 || second->stream == f->stream || (uint32_t)second->stream >= rc->n_streams) return;
        const rc_stream *b = &rc->streams[second->stream];
        wt = (waiter){b->waits, b->n_waits, b->work_ops, second->stream};
    }
    if (before_record(rc, p, &wt, race) || other_event(rc, p, &wt, race)) return;
    const rc_wait *early = early_record(rc, p, &wt);
    if (early) {
        const rc_event *e = event_at(rc, early->event);
        race->early_event = early->event;
        race->early_record_op = early->rec_op;
        race->early_record_site = early->rec_site;
        snprintf(race->early_event_name, sizeof(race->early_event_name), "%.31s", e ? e->name : "");
        return;
    }
    const rc_wait *wrong = wt.stream == TRACE_STREAM_NONE ? NULL : wrong_stream_wait(p, &wt);
    if (wrong) {
        const rc_event *e = event_at(rc, wrong->event);
        race->wrong_event = wrong->event;
        race->wrong_record_op = wrong->rec_op;
        race->wrong_record_site = wrong->rec_site;
        race->wrong_record_stream = wrong->rec_stream;
        snprintf(race->wrong_record_stream_name, sizeof(race->wrong_record_stream_name), "%s",
                 stream_name(rc, wrong->rec_stream));
        race->wrong_wait_op = wrong->op;
        race->wrong_wait_site = wrong->site;
        snprintf(race->wrong_event_name, sizeof(race->wrong_event_name), "%.31s", e ? e->name : "");
        return;
    }
    const rc_wait *own = wt.stream == TRACE_STREAM_NONE ? NULL : own_event_wait(rc, p, second->id);
    if (own) {
        blame(rc, race, TRACE_WAIT_FAULT_OTHER_STREAM, own, f->stream, own->event);
        /* The record the wait took, which orders first (the event may have been recorded
         * again since). */
        race->mark_record_op = own->rec_op;
        race->mark_record_site = own->rec_site;
        return;
    }
    /* The host's generic fix (cudaStreamSynchronize, or cudaEventSynchronize on an event
     * recorded after first) says as much. */
    uint64_t unwaited = wt.stream == TRACE_STREAM_NONE ? 0 : unwaited_record(rc, p);
    if (unwaited) {
        rc_wait none;
        memset(&none, 0, sizeof(none));
        none.event = unwaited;
        blame(rc, race, TRACE_WAIT_FAULT_MISSING, &none, wt.stream, unwaited);
    }
}

/* The op the record e took marks (the last work enqueued before it) is h's first op, or
 * later work of first's own stream (the record then orders first too: one event recorded
 * after a buffer set's last use, the download, orders every earlier use of the set), or the
 * first op of another held report with the same second op. */
static bool marks_a_race_of_second(const struct trace_racecheck *rc, const rc_held *h, const rc_event *e) {
    if (e->rec_after_op == h->race.first.id) return true;
    if (!h->race.first.on_host && e->rec_stream == h->race.first.stream && e->rec_after_stream == e->rec_stream &&
        e->rec_after_op > h->race.first.id)
        return true;
    for (size_t i = 0; i < rc->n_held; i++) {
        const rc_held *o = &rc->held[i];
        if (o->race.second.id == h->race.second.id && o->race.first.id == e->rec_after_op) return true;
    }
    return false;
}

bool trace_racecheck_blame_late_wait(const struct trace_racecheck *rc, rc_held *h, const rc_event *e,
                                     const trace_op *wait, const trace_vc *joined) {
    trace_race *race = &h->race;
    /* A wait of second's own meant for this edge is the one to blame (a later wait is for
     * later work); so is the first late wait found. */
    if (race->early_event || race->wrong_event ||
        (race->wait_fault != TRACE_WAIT_FAULT_NONE && race->wait_fault != TRACE_WAIT_FAULT_OTHER_STREAM &&
         race->wait_fault != TRACE_WAIT_FAULT_MISSING))
        return false;
    /* Right after second: nothing enqueued and no host access since (a wait issued after
     * more work, the next batch's say, may be meant for that work). */
    if (rc->last_access_op != race->second.id) return false;
    if (rc_graph_own_wait(wait, e)) return false;
    if (!trace_vc_covers(joined, h->first_tid, h->first_clock)) return false;
    if (e && (!e->recorded || !marks_a_race_of_second(rc, h, e))) return false;
    race->wrong_event = 0;
    race->wrong_event_name[0] = race->wrong_record_stream_name[0] = '\0';
    race->wrong_record_op = race->wrong_record_site = race->wrong_wait_op = race->wrong_wait_site = 0;
    race->wrong_record_stream = 0;
    rc_wait w;
    memset(&w, 0, sizeof(w));
    w.event = e ? wait->event : 0;
    w.op = wait->id;
    w.site = wait->call_site;
    w.rec_op = e ? e->rec_op : 0;
    bool host = h->host;
    blame(rc, race, TRACE_WAIT_FAULT_LATE, &w, host ? TRACE_STREAM_NONE : wait->stream, w.event);
    if (host) {
        /* The host's call, and for a stream's synchronisation, the stream. */
        snprintf(race->wait_call, sizeof(race->wait_call), "%.31s", wait->name);
        if (!e && wait->stream >= 0) {
            race->wait_stream = wait->stream;
            snprintf(race->wait_stream_name, sizeof(race->wait_stream_name), "%s", stream_name(rc, wait->stream));
        }
    }
    return true;
}
