/* trace/record/recorder.h: where every source reports what the program did, and where every
 * consumer subscribes.
 *
 * Sources: the simulated runtime (sim/) calls these from its API functions; on a real GPU
 * the API interposer does (trace/gpu/), and the CUPTI collector supplies device times.
 * Consumers are sinks: the race checker, the timeline store, the live event stream.
 *
 * One recorder per process (the CUDA runtime is per process too). Program-order calls
 * (trace_record and the trace_record_* helpers) come from the host thread that drives
 * the runtime; trace_op_timed may come from another thread (CUPTI's buffer callback). All
 * entry points take the recorder's lock, and sinks are called under it, one at a time.
 *
 * With no sink installed the recorder only numbers ops and returns: sources may call it
 * unconditionally without slowing the simulator down. */
#ifndef STREAMLAB_TRACE_RECORDER_H
#define STREAMLAB_TRACE_RECORDER_H

#include <stdbool.h>
#include <stdint.h>

#include "trace/record/op.h"

#ifdef __cplusplus
extern "C" {
#endif

struct trace_race; /* trace/check/racecheck.h */

typedef struct trace_sink {
    void *ctx;
    /* A stream was created, named or destroyed. May be NULL. */
    void (*on_stream)(void *ctx, const trace_stream *stream);
    /* An op, in host program order, as enqueued (start/end not yet known unless
     * op->timed). May be NULL. */
    void (*on_op)(void *ctx, const trace_op *op);
    /* An op's start/end became known (the whole op, with times). Ops that arrive already
     * timed get on_op then on_timed at once. May be NULL. */
    void (*on_timed)(void *ctx, const trace_op *op);
    /* A race was found (by the race checker sink). May be NULL. */
    void (*on_race)(void *ctx, const struct trace_race *race);
} trace_sink;

#define TRACE_MAX_SINKS 8

/* Forgets every stream, event, pending op and sink, and numbers from 1 again; ops kept by
 * trace_defer are handed over first, and recording is no longer deferred. */
void trace_reset(void);

/* Installs a sink (copied). Returns 0, or -1 when TRACE_MAX_SINKS are installed. */
int trace_add_sink(const trace_sink *sink);
/* Removes the sink installed with this ctx. */
void trace_remove_sink(void *ctx);
/* True when a sink with this ctx is installed. */
bool trace_has_sink(const void *ctx);
/* True when at least one sink is installed. */
bool trace_active(void);

/* ---- streams and events: handles are the runtime's cudaStream_t / cudaEvent_t ---- */

/* Registers a created stream (of device 0); returns its id (1, 2, ... in creation order). */
int32_t trace_stream_created(const void *handle, unsigned flags, int32_t priority);
/* The same for a stream of `device` (the device current when it was made). A device's
 * default stream other than device 0's legacy one (id 0) is registered with this too, with
 * a handle of its own, on its first use. */
int32_t trace_stream_created_on(const void *handle, unsigned flags, int32_t priority, uint32_t device);
void trace_stream_destroyed(const void *handle);
/* Marks a stream registered with trace_stream_created_on as its device's legacy default
 * stream (trace_stream.legacy): what NULL names while a device other than 0 is current. The
 * race checker orders it with that device's blocking streams, as id 0 with device 0's. */
void trace_stream_set_legacy(const void *handle);
/* Gives a stream a display name ("buf A"); NULL or 0x1 names the legacy stream. */
void trace_stream_set_name(const void *handle, const char *name);
/* Marks a stream as the simulator's own for branch `branch` (>= 1) of a launched graph
 * (trace_stream.graph_branch). */
void trace_stream_set_graph_branch(const void *handle, uint32_t branch);
/* The id of a stream handle: NULL and cudaStreamLegacy (0x1) are 0, cudaStreamPerThread
 * (0x2) is registered on first use; an unknown handle is -1. */
int32_t trace_stream_id(const void *handle);
/* The stream with this id, or NULL. The pointer stays valid until trace_reset. */
const trace_stream *trace_stream_get(int32_t id);
/* How many stream ids exist (ids are 0 .. count-1). */
int32_t trace_stream_count(void);

/* Registers a created event; returns its id (1, 2, ...). */
uint64_t trace_event_created(const void *handle, unsigned flags);
void trace_event_destroyed(const void *handle);
/* Gives an event a name ("ready"): the event records and waits recorded from then on carry
 * it in trace_op.name, and reports say `event "ready"` where they said `event 3`
 * (trace_event_label). */
void trace_event_set_name(const void *handle, const char *name);
/* The id of an event handle, or 0 when unknown. */
uint64_t trace_event_id(const void *handle);

/* ---- harness runs ----------------------------------------------------------------- */

/* Ops recorded from now on carry this run number (-1: outside any run). */
void trace_set_run(int32_t run);
int32_t trace_current_run(void);

/* ---- deferred recording ------------------------------------------------------------ */

/* While on, and a sink is installed, trace_record and the trace_record_* helpers only number
 * an op, stamp its run and call site (op->id, op->run, op->call_site), take its event's id
 * and name, and keep a copy of it, in a buffer kept from one use to the next; its stream,
 * device and batch are filled in, and the sinks see it, when it is handed over: at
 * trace_defer(false), and first thing in any entry point that tells the sinks something or
 * reads what a hand-over may change (a stream made, named or destroyed, a stream read or
 * first used, a sink added or removed, an op's times, trace_pending_count, trace_reset), so
 * that every sink sees the same ops, in the same order, with the same fields, as when they
 * were recorded at once. A lab's timed runs on a GPU defer (labs/harness/runner.c): what
 * the sinks do for each op then costs the runs no time. The owner of a sink reads it only
 * after trace_defer(false) (a race checker's reports, say). Ops of a run that dies while
 * deferred never reach the sinks. */
void trace_defer(bool on);
/* Whether trace_defer is on. */
bool trace_deferring(void);

/* ---- program order ---------------------------------------------------------------- */

/* Records one op. The recorder fills op->id and op->run; for ops on a stream (COPY,
 * MEMSET, KERNEL, HOST_FN, EVENT_RECORD, EVENT_WAIT, SYNC on a stream) it sets op->stream
 * and op->priority from stream_handle, and op->device (and dst_device) from the stream's
 * device unless op->device_set; host-only ops get TRACE_STREAM_NONE (and device 0 unless
 * set). Returns the id. Ops that will be timed later keep op->timed false and get trace_op_timed.
 * While a sink is installed, an op with batch -1 and memory ranges gets the batch of the
 * bytes it reads, and the bytes it writes take its batch (trace/record/batch_tags.h). */
uint64_t trace_record(trace_op *op, const void *stream_handle);

/* Helpers for the common host-side records. Each returns the op id. */
uint64_t trace_record_event_record(const void *event, const void *stream, uint64_t host_ns);
uint64_t trace_record_stream_wait(const void *stream, const void *event, uint64_t host_ns);
/* The host blocked from start_ns to end_ns in `api` until target finished. handle is the
 * stream (TRACE_SYNC_STREAM) or event (TRACE_SYNC_EVENT); NULL for the device. */
uint64_t trace_record_sync(trace_sync_target target, const void *handle, const char *api,
                           uint64_t start_ns, uint64_t end_ns);
/* A query (cudaEventQuery, cudaStreamQuery) that answered cudaErrorNotReady: an API span
 * that names what it asked about (op.sync, with op.event or op.stream as for a sync), so
 * that a loop of queries on one event or stream can be told from queries of several
 * (trace/view/polls.h). A query that answered cudaSuccess is a host wait: trace_record_sync. */
uint64_t trace_record_query(trace_sync_target target, const void *handle, const char *api,
                            uint64_t start_ns, uint64_t end_ns);
/* The host waited for one op (a blocking copy, say). */
uint64_t trace_record_sync_op(uint64_t op_id, const char *api, uint64_t start_ns, uint64_t end_ns);
/* The host read (write false) or wrote a buffer; batch is the harness batch or -1. */
uint64_t trace_record_host_access(const void *addr, uint64_t bytes, bool write, const char *what,
                                  int32_t batch, uint64_t host_ns);
/* A runtime call's host-side span (the host lane), with no ordering meaning. */
uint64_t trace_record_api(const char *api, uint64_t start_ns, uint64_t end_ns);
/* Names the host-side spans (trace_record_api, trace_record_sync) recorded on this thread
 * from now on `as`, until trace_record_as(NULL): the calls one makes for another (the
 * referee's cudaHostRegister and cudaDeviceSynchronize that perform a program's
 * cudaMallocHost or cudaFreeHost) carry the name of the call the program made. Every op
 * recorded on this thread until then carries one number (trace_op.as_call), a new one for
 * each trace_record_as(name), so that readers count the program's call once, however many
 * runtime calls made it. */
void trace_record_as(const char *as);
/* A harness phase ("setup", "run 3", ...). */
uint64_t trace_record_phase(const char *name, uint64_t start_ns, uint64_t end_ns);

/* ---- call sites ------------------------------------------------------------------------ */

/* Where in the program an op was asked for, so that a report can give the line. The
 * first entry into the runtime or a kernel launcher on a thread marks the site (the
 * return address of that entry point); calls nested inside it (a launcher that calls the
 * runtime, cudaMemcpy that calls the copy code) leave it as it is, and trace_record
 * stamps it on every op recorded until the entry point returns. An entry point marks
 * itself with TRACE_CALL_SITE() as its first statement, or enters and exits by hand. */
void trace_call_site_enter(const void *return_address);
void trace_call_site_exit(void);
/* The site marked on this thread now, 0 outside any entry point. */
uint64_t trace_call_site(void);

static inline void trace_call_site_exit_at_scope_end(const int *guard) {
    (void)guard;
    trace_call_site_exit();
}
#define TRACE_CALL_SITE()                                                                       \
    __attribute__((cleanup(trace_call_site_exit_at_scope_end))) const int trace_call_site_guard_ = \
        (trace_call_site_enter(__builtin_return_address(0)), 1)

/* ---- timing and races --------------------------------------------------------------- */

/* The device (or host) times of an op recorded earlier. Unknown or already-timed ids are
 * ignored. */
void trace_op_timed(uint64_t id, uint64_t start_ns, uint64_t end_ns);
/* How many recorded ops still wait for their times. */
uint64_t trace_pending_count(void);

/* Hands a race to every sink's on_race (the race checker calls this). */
void trace_report_race(const struct trace_race *race);

#ifdef __cplusplus
}
#endif

#endif
