/* trace/check/race.h: one race report: two operations that touch the same bytes, at least one
 * writing, with nothing (stream order, event, synchronisation, default-stream barrier)
 * ordering them.
 *
 * The race checker (racecheck.h) makes them; the live event stream carries them
 * (events_writer.h, events_reader.h); the lab report and the grader print them. */
#ifndef STREAMLAB_TRACE_RACE_H
#define STREAMLAB_TRACE_RACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/record/op.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum trace_race_kind {
    TRACE_RACE_RAW = 0,   /* read-after-write: reads bytes an unordered earlier op writes */
    TRACE_RACE_WAR,       /* write-after-read: overwrites bytes an unordered earlier op reads */
    TRACE_RACE_WAW,       /* write-after-write: both write, in no fixed order */
    TRACE_RACE_HOST_READ, /* host read before completion: the host reads bytes a stream op
                             writes, without waiting for it */
    TRACE_RACE_KIND_COUNT
} trace_race_kind;

/* One side of a race. */
typedef struct trace_race_op {
    uint64_t id;           /* the op's id (recorder.h) */
    trace_op_kind kind;
    trace_copy_dir dir;    /* COPY only */
    int32_t stream;        /* the op's stream, TRACE_STREAM_NONE for host-only ops */
    bool on_host;          /* the access was the host thread's: a host access, or a copy's
                              host-ordered (staged) source */
    int32_t batch;         /* harness batch, -1 when none */
    int32_t run;           /* harness run, -1 outside */
    char name[TRACE_NAME_MAX];
    char stream_name[32];  /* the stream's display name ("s1", "buf A"); "host" for host-only ops */
    uint64_t call_site;    /* the op's call site (trace_op.call_site), 0 when unknown */
    char line[96];         /* its source line ("labs/03_double_buffer/lab.c:41"), filled in by
                              whoever can look it up (the lab harness); "" when unknown */
    uint32_t device;       /* the device that ran it (trace_op.device; a peer copy: its source) */
    uint32_t dst_device;   /* a peer copy: its destination device */
    uint32_t stream_device; /* its stream's device (0 for host-only ops) */
    bool peer;             /* a peer copy, on the link between two devices */
    uint32_t graph_launch; /* a node of a graph whose nodes the trace sees (trace_op's): its
                              launch, 0 for every other op; then graph_stream is the stream
                              it was launched into and graph_origin the program's stream
                              whose captured call made it (stream is the graph's own) */
    int32_t graph_stream, graph_origin;
    char graph_stream_name[32], graph_origin_name[32];
} trace_race_op;

#define TRACE_RACE_FIX_MAX 512

/* What is wrong with the wait that should have ordered a race's two ops (first on stream A,
 * second on stream B, or a host access: then the host's waits stand for B's), when the
 * program has the right event but not the right wait: wait_blame.h says when the checker
 * finds each. */
typedef enum trace_race_wait_fault {
    TRACE_WAIT_FAULT_NONE = 0,
    /* B waits on an event whose record orders first, but only after second: the wait holds
     * back B's later work, not second. */
    TRACE_WAIT_FAULT_LATE,
    /* B waits (before second) on the event that is recorded after first, but the wait was
     * issued before that record: it took the event's previous record, or none. */
    TRACE_WAIT_FAULT_BEFORE_RECORD,
    /* B waits on an event of the same set as the one recorded after first (another index
     * of one array: the same name before '[', or recorded at the same call site), whose
     * last record came before first, or none: the record is right, the wait names the
     * wrong event. */
    TRACE_WAIT_FAULT_OTHER_EVENT,
    /* A itself waits on an event recorded on A after first (a wait that orders nothing), and
     * B, where second runs, does not. */
    TRACE_WAIT_FAULT_OTHER_STREAM,
    /* An event is recorded on A right after first (or A's later work), and nothing waits on
     * it: B (or the host) should, before second. */
    TRACE_WAIT_FAULT_MISSING,
    TRACE_WAIT_FAULT_COUNT
} trace_race_wait_fault;

typedef struct trace_race {
    uint64_t seq;           /* 1, 2, ... in the order races were found */
    trace_race_kind kind;
    trace_race_op first;    /* the earlier op in host program order */
    trace_race_op second;   /* the later op, whose access found the race */
    uint64_t addr;          /* the overlapping bytes: [addr, addr + bytes) spans every */
    uint64_t bytes;         /* byte the two ops both touch in conflicting ways */
    char fix[TRACE_RACE_FIX_MAX]; /* the edge that would order them, in words */
    /* A write-after-read of bytes that second's stream wrote before first read them: the
     * buffer goes from second's stream to first's and back (a pipeline's stages), so the
     * two must share it and the fix is the event; without it, two streams merely share
     * memory and a buffer each is the fix that keeps them overlapping. */
    bool handover;
    /* An event recorded too early: second's stream waits on an event that was last
     * recorded on first's stream before first, so the wait orders nothing between them
     * (racecheck.h says when the checker finds it). 0 / "" when there is none. */
    uint64_t early_event;         /* the event's id (trace_op.event) */
    char early_event_name[32];    /* the program's name for it (trace_event_set_name), "" none */
    uint64_t early_record_op;     /* the id of its EVENT_RECORD op */
    uint64_t early_record_site;   /* that op's call site (trace_op.call_site), 0 when unknown */
    char early_record_line[96];   /* the record's source line, filled in by whoever can look it
                                     up (the lab harness, as trace_race_op.line); "" when unknown */
    /* An event recorded on the wrong stream: second's stream waited (before second) on an
     * event recorded after first was enqueued, but on another stream than first's, so the
     * wait orders nothing between them (racecheck.h says when the checker finds it). Set
     * only when early_event is not. 0 / "" when there is none. */
    uint64_t wrong_event;             /* the event's id */
    char wrong_event_name[32];        /* the program's name for it, "" none */
    uint64_t wrong_record_op;         /* the id of its EVENT_RECORD op */
    uint64_t wrong_record_site;       /* that op's call site, 0 when unknown */
    int32_t wrong_record_stream;      /* the stream it was recorded on */
    char wrong_record_stream_name[32]; /* that stream's display name */
    char wrong_record_line[96];       /* the record's source line, filled in as early_record_line */
    uint64_t wrong_wait_op;           /* the id of second's stream's EVENT_WAIT op */
    uint64_t wrong_wait_site;         /* its call site, 0 when unknown */
    char wrong_wait_line[96];         /* the wait's source line, filled in as early_record_line */
    /* The wait that should have ordered the two, and what is wrong with it (wait_fault):
     * set only when early_event and wrong_event are not. TRACE_WAIT_FAULT_NONE / 0 / ""
     * when there is none. */
    trace_race_wait_fault wait_fault;
    uint64_t wait_event;              /* the event the blamed wait waits on */
    char wait_event_name[32];         /* the program's name for it, "" none */
    uint64_t wait_op;                 /* the blamed EVENT_WAIT op */
    uint64_t wait_site;               /* its call site, 0 when unknown */
    int32_t wait_stream;              /* the stream that waits (B, or A for OTHER_STREAM);
                                         TRACE_STREAM_NONE when the host waits */
    char wait_stream_name[32];        /* that stream's display name, "" for the host */
    bool wait_on_host;                /* the host waits (second is a host access) */
    char wait_call[32];               /* the host's call ("cudaEventSynchronize"), "" for a
                                         stream's cudaStreamWaitEvent */
    char wait_line[96];               /* the wait's source line, filled in as early_record_line */
    bool wait_took_record;            /* BEFORE_RECORD, OTHER_EVENT: the event had been recorded
                                         when the wait was issued (it took that record) */
    bool wait_took_first_stream;      /* OTHER_EVENT: that record was on first's stream (before
                                         first); else on another stream */
    uint64_t mark_event;              /* the event recorded on A after first: wait_event, or for
                                         OTHER_EVENT the one the wait should name */
    char mark_event_name[32];         /* the program's name for it, "" none */
    uint64_t mark_record_op;          /* that record's EVENT_RECORD op */
    uint64_t mark_record_site;        /* its call site, 0 when unknown */
    char mark_record_line[96];        /* its source line, filled in as early_record_line */
    /* The program used more than one device: the report names the device of the bytes and
     * of each op and its stream (the wording of a run on one device is unchanged). */
    bool multi_device;
    int32_t buffer_device;        /* with multi_device: the device whose memory the bytes are
                                     in (TRACE_RANGE_DEVICE of the range that found the race),
                                     -1 for host memory or memory not marked with its device */
} trace_race;

/* "RAW", "WAR", "WAW", "host_read" (the event stream's names); NULL for a bad kind. */
const char *trace_race_kind_name(trace_race_kind kind);
/* "read-after-write", ..., "host read before completion". */
const char *trace_race_kind_text(trace_race_kind kind);
/* The kind with this trace_race_kind_name, or -1. */
int trace_race_kind_from_name(const char *name);

/* "late", "before_record", "other_event", "other_stream", "missing" (the lab's --json names); NULL for
 * TRACE_WAIT_FAULT_NONE or a bad value. */
const char *trace_race_wait_fault_name(trace_race_wait_fault fault);

/* Describes one side for people: "H2D batch 3", "kernel process batch 3",
 * "host write lab_load_batch batch 2"; a peer copy "peer copy GPU 0 -> GPU 1 batch 3".
 * Returns what snprintf returns. */
int trace_race_op_describe(const trace_race_op *op, char *buf, size_t size);

/* Writes race->fix: which event to record where (after which op, on which stream) and
 * which stream should wait on it, or which synchronisation the host needs. When
 * race->wait_fault is set, the blamed wait comes first, with what is wrong with it and the
 * one change that fixes it ("the wait of \"compute\" on event \"downloaded[0]\" (lab.c:44)
 * comes after kernel process batch 2 (lab.c:43), which it should order: ... issue it
 * before the launch"; the lines where wait_line, mark_record_line and the sides' lines are
 * filled in: make the fix again after filling them). When
 * race->early_event is set (both sides on streams), the fix first names the event recorded
 * too early: "\"B\" waits on event 7, but it was recorded on \"A\" before kernel process
 * batch 0, so it orders nothing: record it after kernel process batch 0 (cudaEventRecord
 * after the launch), where the wait then orders them"; when race->wrong_event is set, the
 * event recorded on the wrong stream: "\"B\" waits on event 7, but it was recorded on
 * \"C\", not on \"A\" where kernel process batch 0 runs: record it on \"A\" after kernel
 * process batch 0 ...". A buffer handed over between two streams (race->handover) gets
 * the event, the hand-over itself; two streams that merely share a buffer (a
 * write-after-read or write-after-write without a hand-over) get a buffer each first,
 * which keeps them overlapping, and the event as the correct but slower alternative. Cut
 * to TRACE_RACE_FIX_MAX - 1 characters. */
void trace_race_make_fix(trace_race *race);

/* The report for a student, several lines ending in a newline: kind, both ops and their
 * streams, the bytes, the event recorded too early (when early_event is set: one line
 * before the fix) or on the wrong stream (when wrong_event is set: one line naming the
 * wait and the record with their lines, and the stream the record was on), the fix. Returns what snprintf returns. */
int trace_race_format(const trace_race *race, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
