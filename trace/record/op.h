/* trace/record/op.h: the one record of "what happened" that every face of streamlab shares.
 *
 * A trace_op is one thing the program did, in the order the host thread did it: a copy,
 * memset, kernel or host function enqueued on a stream; an event recorded or waited on; a
 * host-side wait (a synchronising call) or a host access to a buffer the harness declared;
 * a runtime call's host-side span; a harness phase. Sources (the simulator, the GPU
 * interposer and CUPTI collector) hand ops to the recorder (recorder.h); its sinks (the
 * race checker, the timeline store, the live event stream) read them.
 *
 * Times are nanoseconds on one clock per run: virtual time on the simulator, CUPTI's
 * timestamp on a real GPU. */
#ifndef STREAMLAB_TRACE_OP_H
#define STREAMLAB_TRACE_OP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum trace_op_kind {
    TRACE_OP_COPY = 0,     /* cudaMemcpy / cudaMemcpyAsync; see trace_copy_dir */
    TRACE_OP_MEMSET,       /* cudaMemset / cudaMemsetAsync */
    TRACE_OP_KERNEL,       /* a kernel launch (name, grid, block) */
    TRACE_OP_HOST_FN,      /* cudaLaunchHostFunc: a host function ordered in a stream */
    TRACE_OP_EVENT_RECORD, /* cudaEventRecord(event, stream) */
    TRACE_OP_EVENT_WAIT,   /* cudaStreamWaitEvent(stream, event) */
    TRACE_OP_SYNC,         /* the host blocked until a stream, event, op or the device finished */
    TRACE_OP_HOST_ACCESS,  /* the host read or wrote a buffer (declared by the harness) */
    TRACE_OP_API,          /* a runtime call's host-side span (the host lane) */
    TRACE_OP_PHASE,        /* a harness phase: setup, warm-up, baseline, run, verify, ... */
    TRACE_OP_KIND_COUNT
} trace_op_kind;

typedef enum trace_copy_dir {
    TRACE_COPY_NONE = 0,
    TRACE_COPY_H2D,
    TRACE_COPY_D2H,
    TRACE_COPY_D2D,
    TRACE_COPY_H2H
} trace_copy_dir;

/* Which hardware lane did the work. */
typedef enum trace_engine {
    TRACE_ENGINE_NONE = 0, /* markers with no duration on an engine (event record/wait) */
    TRACE_ENGINE_H2D,      /* the host-to-device copy engine */
    TRACE_ENGINE_D2H,      /* the device-to-host copy engine (the same one as H2D when
                              the device has a single copy engine; see trace_stream) */
    TRACE_ENGINE_COMPUTE,  /* the SMs: kernels, memsets, device-to-device copies */
    TRACE_ENGINE_HOST,     /* the host thread: API spans, syncs, host functions, phases */
    TRACE_ENGINE_LINK      /* the link between two devices: peer copies (after HOST, so
                              that views of one device's lanes are unchanged) */
} trace_engine;

/* What a TRACE_OP_SYNC waited for. */
typedef enum trace_sync_target {
    TRACE_SYNC_NONE = 0,
    TRACE_SYNC_STREAM, /* op.stream finished everything enqueued so far */
    TRACE_SYNC_EVENT,  /* op.event's last record completed */
    TRACE_SYNC_DEVICE, /* every stream finished everything enqueued so far */
    TRACE_SYNC_OP      /* op.waited_op (and so everything before it in its stream) finished */
} trace_sync_target;

/* Range flags. */
#define TRACE_RANGE_READ 0x0u
#define TRACE_RANGE_WRITE 0x1u
/* The access was complete, on the host thread, before the call returned: a pageable
 * source staged by cudaMemcpyAsync, say. The race checker orders it with the host. */
#define TRACE_RANGE_HOST_ORDERED 0x2u

typedef struct trace_range {
    uint64_t addr;
    uint64_t bytes;
    uint32_t flags; /* TRACE_RANGE_* */
} trace_range;

#define TRACE_MAX_RANGES 4
#define TRACE_NAME_MAX 48

/* Devices: a run on one device has every stream and op on device 0, and every view of it
 * looks as it did before devices were recorded. With more, views group lanes by device
 * (trace/view/timeline.h). */
#define TRACE_MAX_DEVICES 4

/* The device whose memory a range lies in, kept in its flags (bits 8..15, with
 * TRACE_RANGE_ON_DEVICE set): a range without it is host memory or not known. The race
 * checker names the buffer's device with it. */
#define TRACE_RANGE_ON_DEVICE 0x4u
#define TRACE_RANGE_DEVICE(d) (TRACE_RANGE_ON_DEVICE | (((uint32_t)(d) & 0xffu) << 8))

/* Stream ids: 0 is the legacy default stream; created streams count up from 1 in
 * creation order; cudaStreamPerThread gets the next free id when first used. */
#define TRACE_STREAM_LEGACY 0
#define TRACE_STREAM_NONE (-1) /* host-only ops: API spans, syncs, host accesses, phases */

typedef struct trace_op {
    uint64_t id;              /* set by the recorder: 1, 2, ... in host program order */
    trace_op_kind kind;
    trace_copy_dir dir;       /* COPY only */
    trace_engine engine;
    trace_sync_target sync;   /* SYNC; and an API span of a query that answered not ready
                                 (trace_record_query): what it asked about */
    int32_t stream;           /* stream id, or TRACE_STREAM_NONE (a sync or a query on a
                                 stream: that stream) */
    int32_t priority;         /* the stream's priority (lower number = higher priority) */
    int32_t batch;            /* the harness batch this op carries, -1 when none */
    int32_t run;              /* the harness run it belongs to (see recorder.h), -1 outside */
    char name[TRACE_NAME_MAX]; /* kernel / API / phase name; an event record's or wait's
                                  event's name (trace_event_set_name), "" when unnamed;
                                  empty for plain copies */
    uint64_t enqueue_ns;      /* host time the call was made */
    uint64_t start_ns;        /* when it started on its engine; 0 until timed */
    uint64_t end_ns;          /* when it finished; 0 until timed */
    uint64_t bytes;           /* COPY, MEMSET, HOST_ACCESS */
    bool pinned;              /* COPY: the host side is page-locked (pinned) memory */
    bool timed;               /* start_ns/end_ns are known */
    uint32_t grid[3];         /* KERNEL */
    uint32_t block[3];        /* KERNEL */
    uint64_t event;           /* EVENT_RECORD / EVENT_WAIT / SYNC or query on an event: event id */
    uint64_t waited_op;       /* SYNC with TRACE_SYNC_OP: the op waited for */
    uint32_t correlation;     /* real GPU: the CUPTI correlation id; 0 otherwise */
    uint64_t call_site;       /* the return address of the program's call that made the op
                                 (its first call into the runtime or a kernel launcher,
                                 recorder.h), 0 when unknown; a report turns it into the
                                 program's source line */
    uint32_t n_ranges;
    trace_range ranges[TRACE_MAX_RANGES]; /* memory it reads and writes */
    uint32_t device;          /* the device that ran it: whose copy engine or SMs, or, for
                                 its other stream work (event records and waits, host
                                 functions), its stream's device; a peer copy
                                 (TRACE_ENGINE_LINK): its source device. 0 for host-only
                                 ops. Left to the recorder (its stream's device) unless
                                 device_set (trace_op_set_device, trace_op_set_peer). */
    uint32_t dst_device;      /* a peer copy (TRACE_ENGINE_LINK): its destination device;
                                 equal to device otherwise */
    bool device_set;          /* the source chose device (and dst_device) itself */
    uint32_t graph_launch;    /* a node of a launched graph whose nodes the trace sees (the
                                 simulator's): which cudaGraphLaunch ran it, 1, 2, ... in
                                 the process; 0 for every other op */
    int32_t graph_stream;     /* with graph_launch: the stream the graph was launched into */
    int32_t graph_origin;     /* with graph_launch: the stream whose captured call made the
                                 node (the program's; a branch runs on a stream of the
                                 graph's own, graph_branch) */
    uint64_t as_call;         /* an op recorded while one call was made for another
                                 (trace_record_as: the referee's cudaDeviceSynchronize and
                                 cudaHostUnregister that perform a program's cudaFreeHost):
                                 that call's number, 1, 2, ... in the process, the same on
                                 every op it recorded; 0 for every other op. A reader that
                                 counts the program's calls or waits counts such ops once */
} trace_op;

/* A stream as the recorder knows it. */
typedef struct trace_stream {
    int32_t id;
    int32_t priority;
    unsigned flags;           /* cudaStreamNonBlocking = 0x1 */
    bool legacy;              /* the legacy default stream (id 0) */
    bool per_thread;          /* cudaStreamPerThread */
    bool destroyed;
    char name[32];            /* "s1" unless named (lab_name_stream, NVTX) */
    uint32_t device;          /* the device current when it was made (each device's default
                                 stream is a stream of its own; the legacy one, id 0, is
                                 device 0's) */
    uint32_t graph_branch;    /* N >= 1: the simulator's stream for branch N of a launched
                                 graph, beside the launch stream's branch 0 (a program cannot
                                 make or name one: its name alone does not say it); 0 for
                                 every other stream */
} trace_stream;

/* "H2D", "kernel", ... for messages and the event stream. */
const char *trace_op_kind_name(trace_op_kind kind);
const char *trace_copy_dir_name(trace_copy_dir dir);
const char *trace_engine_name(trace_engine engine);

/* Whether ops of this kind are work enqueued on a stream (copies, memsets, kernels, host
 * functions, event records and waits): what a stream's lane shows. */
bool trace_op_kind_is_stream_work(trace_op_kind kind);

/* How reports name a stream for a student: as the program named it ("\"buf A\"", with
 * lab_name_stream or NVTX), else by creation order ("s2"); the legacy default stream is
 * "stream 0". name may be NULL or empty, or the default "sN". The timeline's lanes show
 * both the id and the name. */
void trace_stream_label(int32_t id, const char *name, char *buf, size_t len);

/* How reports name an event: as the program named it (`event "ready"`, with
 * lab_name_event or NVTX), else by its id (`event 3`). name may be NULL or empty. */
void trace_event_label(uint64_t id, const char *name, char *buf, size_t len);

/* A whole CUDA graph's launch as one KERNEL op (a GPU's trace, whose graph nodes are not
 * seen) is named "graph (N nodes, K branches)": K kernels of the graph that no other of
 * its kernels precedes, the chains that may run side by side. trace_graph_op_name writes
 * that name (K 0: not known, "graph (N nodes)"); trace_graph_op_branches reads K back from
 * an op, 0 for any other op. */
void trace_graph_op_name(char *buf, size_t len, long nodes, long branches);
int trace_graph_op_branches(const trace_op *op);

/* The op ran on `device`'s engine (a copy to or from that device's memory, say), whatever
 * its stream's device. Sets device_set. */
void trace_op_set_device(trace_op *op, uint32_t device);
/* The op is a peer copy from src_device's memory to dst_device's, on the link between
 * them: engine TRACE_ENGINE_LINK, device src_device, dst_device. Sets device_set. */
void trace_op_set_peer(trace_op *op, uint32_t src_device, uint32_t dst_device);
/* The device of a range's memory (TRACE_RANGE_DEVICE in its flags), or -1 when it is
 * host memory or not known. */
int trace_range_device(const trace_range *range);
/* "GPU 1" for people, the views' and reports' name of a device. */
void trace_device_label(uint32_t device, char *buf, size_t len);

/* Adds a memory range to op (ignored past TRACE_MAX_RANGES or when bytes is 0). */
void trace_op_add_range(trace_op *op, const void *addr, uint64_t bytes, uint32_t flags);

#ifdef __cplusplus
}
#endif

#endif
