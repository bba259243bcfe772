/* trace/check/racecheck_state.h: the race checker's own state, shared by the files of the
 * checker and by nothing else: the checker proper (racecheck.c) and the search for the wait
 * a race report blames (wait_blame.c). Not part of the checker's interface (racecheck.h).
 *
 * Threads of execution: tid 0 is the host thread, tid s + 1 is stream s. */
#ifndef STREAMLAB_TRACE_CHECK_RACECHECK_STATE_H
#define STREAMLAB_TRACE_CHECK_RACECHECK_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "trace/check/race.h"
#include "trace/check/vector_clock.h"
#include "trace/record/interval_map.h"
#include "trace/record/op.h"

#define HOST_TID 0u

static inline uint32_t rc_tid_of_stream(int32_t id) { return (uint32_t)id + 1u; }

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
    uint32_t graph_launch;       /* trace_op.graph_launch, graph_stream, graph_origin */
    int32_t graph_stream, graph_origin;
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
 * the time (nothing, for an event not recorded yet): for naming the wait a race blames. */
typedef struct rc_wait {
    uint64_t event;      /* the event's id */
    uint64_t op, site;   /* the EVENT_WAIT op and its call site */
    int32_t rec_stream;  /* the stream the event was last recorded on when it was waited on; -1 none */
    uint64_t rec_op;     /* that EVENT_RECORD op's id; 0: the event had not been recorded */
    uint64_t rec_site;   /* and its call site */
    uint64_t rec_clock;  /* the recording stream's own clock entry at that record */
    uint64_t rec_after_op;     /* the last work op the host enqueued before that record (any stream) */
    int32_t rec_after_stream;  /* its stream */
    uint64_t rec_after_site;   /* its call site */
    uint64_t work_seq;   /* the waiting stream's work ops enqueued before the wait (rc_stream.work_ops) */
    bool late;           /* blamed for coming after the op it should order (TRACE_WAIT_FAULT_LATE): it
                            belongs to that op, not to the stream's next work */
    bool in_graph;       /* the wait and the record it took are nodes of one graph launch: the
                            capture's own fork or join, which the program placed in the capture,
                            not among the calls around the launch; no blame names them */
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
    uint64_t last_op;  /* the last op enqueued on it: clock is that op's vector clock */
    uint64_t work_ops; /* copies, kernels, memsets and host functions enqueued on it */
    rc_wait waits[WAITS_KEPT]; /* its last waits, a ring */
    uint32_t n_waits;          /* waits made in all (the ring holds the last WAITS_KEPT) */
} rc_stream;

/* Streams whose waits an event remembers: ids 0 .. EARLY_MAX_STREAMS - 1 (one bit each). */
#define EARLY_MAX_STREAMS 64

typedef struct rc_event {
    bool recorded;
    trace_vc snapshot;
    /* The last record, for naming the event in a race report: */
    int32_t rec_stream;  /* the stream it was recorded on */
    uint64_t rec_op;     /* the EVENT_RECORD op's id */
    uint64_t rec_site;   /* its call site */
    uint64_t rec_clock;  /* the recording stream's own clock entry at the record (the record op's tick) */
    uint64_t rec_after_op;     /* the last work op the host enqueued before the record (any stream) */
    int32_t rec_after_stream;  /* its stream */
    uint64_t rec_after_site;   /* its call site */
    uint32_t rec_graph;  /* the record's graph launch (trace_op.graph_launch), 0: not a graph's node */
    uint64_t waited;     /* bit s: stream s waited on it since that record (s < EARLY_MAX_STREAMS) */
    bool synced;         /* the host waited for it (cudaEventSynchronize, a query) since that record */
    char name[32];       /* the program's name for it (its records and waits carry it), "" none */
} rc_event;

/* Whether a wait (op) on e is a graph's own fork or join: both nodes of one launch, which
 * only the capture orders (no race report blames it). */
static inline bool rc_graph_own_wait(const trace_op *op, const rc_event *e) {
    return op->graph_launch != 0 && e && op->graph_launch == e->rec_graph;
}

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

/* A report made and not yet handed out: while open, a wait its second side's stream (or the
 * host, for a host access) issues before its next work may be the one that should have come
 * before the second side (TRACE_WAIT_FAULT_LATE). Reports are handed out in the order found. */
typedef struct rc_held {
    trace_race race;
    bool open;
    bool host;              /* the second side is a host access: the host's waits are read */
    int32_t second_stream;  /* B */
    uint64_t second_clock;  /* the second op's tick on B */
    uint32_t first_tid;     /* the first access's epoch */
    uint64_t first_clock;
} rc_held;

/* Held reports past this many are handed out, open or not. */
#define HELD_MAX 256u

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
    rc_held *held;
    size_t n_held, cap_held;
    trace_race *reports;
    size_t n_reports, max_kept;
    uint64_t count;
    uint64_t ops_seen;
    uint64_t last_id; /* the last op id seen: ids only grow until the recorder is reset */
    uint64_t last_work_op;     /* the last copy, kernel, memset or host function enqueued */
    int32_t last_work_stream;  /* its stream */
    uint64_t last_work_site;   /* its call site */
    uint64_t last_access_op;   /* the last such op or host access: what the host last did */
    uint64_t host_steps;       /* such ops and host accesses so far: the host's work */
    rc_wait host_waits[WAITS_KEPT]; /* the host's last waits on events (cudaEventSynchronize), a ring;
                                       work_seq counts host_steps */
    uint32_t n_host_waits;
    FILE *print;
    bool multi_device;     /* a stream or op of a device other than 0, or a peer copy, was seen */
    int32_t range_device;  /* the device of the range being checked, -1 host or unknown */
};

#endif
