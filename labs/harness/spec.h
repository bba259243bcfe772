/* labs/harness/spec.h: the lab contract, as the instructor writes it (labs/NN_topic/spec.c).
 *
 * A spec declares everything that makes one lab different from another; the harness
 * (labs/harness/runner.c) does the rest the same way for every lab:
 *
 *   who it is     id, title, lesson, and the word for one unit of the workload ("batch",
 *                 "task") that reports use;
 *   the workload  batches of uint32 values, the process kernel's parameters and how many
 *                 times each batch goes through it; where inputs and outputs live;
 *   the oracle    a batch's expected output from its input (checked bit for bit);
 *   the baseline  the implementation the student's is timed against;
 *   the bound     measure_bound: the shortest time a run of this workload can take on
 *                 this device, measured there (a perfect pipeline, every task at once...);
 *   the metric    what is graded, computed from run times: the speedup over the baseline,
 *                 or the bandwidth the run reaches;
 *   the threshold the fraction of the bound the metric must reach to pass;
 *   the work      the device work a run must do for its speed to count (by default, as much
 *                 of each kind as the baseline does).
 *
 * Every metric is a rate (higher is better) computed from a run's time, so "fraction of
 * the bound" is always the ideal time over the student's, on any GPU or the simulator.
 * docs/labs.md explains the contract and has the recipe for adding a lab. */
#ifndef STREAMLAB_LAB_SPEC_H
#define STREAMLAB_LAB_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime.h>

#include "labs/harness/lab_types.h"
#include "trace/record/op.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where the harness puts a batch's input (lab_input) or output (lab_output). */
typedef enum lab_memory {
    LAB_MEMORY_PINNED = 0, /* page-locked (cudaMallocHost): copies can be asynchronous */
    LAB_MEMORY_PAGEABLE    /* plain malloc: the driver stages copies from it */
} lab_memory;

/* What the lab grades. Each is a rate computed from a run's time t:
 *   LAB_METRIC_SPEEDUP    baseline time / t, shown as "2.50x";
 *   LAB_METRIC_BANDWIDTH  the bytes a run moves (inputs and outputs) / t, as "52.1 GB/s";
 *   LAB_METRIC_LATENCY    for labs of requests (lab 04): t is not the run's time but the
 *                         99th percentile of its requests' latencies (arrival to the end of
 *                         the request's last op), shown as "p99 0.041 ms"; lower is better,
 *                         and the fraction of the bound is still ideal / t. */
typedef enum lab_metric_kind {
    LAB_METRIC_SPEEDUP = 0,
    LAB_METRIC_BANDWIDTH,
    LAB_METRIC_LATENCY
} lab_metric_kind;

/* One measurement behind the bound, for --json and the report. */
typedef struct lab_figure {
    const char *key;  /* "h2d", "one_task" (a JSON key) */
    double value;
} lab_figure;

#define LAB_BOUND_FIGURES 8

/* What measure_bound found. */
typedef struct lab_bound {
    double ideal_ns;    /* the shortest time a run of the workload can take */
    char detail[256];   /* how that time comes about, for the report: "a perfect pipeline
                           takes 2.433 ms (per batch on its own: H2D 90 us, ...)" */
    const char *figures_key; /* the JSON object the figures go in ("phases_us") */
    size_t n_figures;
    lab_figure figures[LAB_BOUND_FIGURES];
} lab_bound;

/* Adds a figure to a bound (ignored past LAB_BOUND_FIGURES). */
void lab_bound_add(lab_bound *b, const char *key, double value);

/* The facts of the student's last timed run that its advice is made of, read from the
 * run's trace (labs/harness/steps.c; docs/labs.md, "The student's path"). */

/* A wait of the run (trace/view/blame.h): a host wait, or a stream's wait on an event. */
#define LAB_FACT_WAITS 8
typedef struct lab_wait_fact {
    bool host;          /* a host wait; else a stream's wait on an event */
    char call[80];      /* "cudaStreamSynchronize(\"compute\")", "cudaStreamWaitEvent(\"down\")" */
    char line[128];     /* the program's line ("labs/05_cross_stream_races/lab.c:52"), "" unknown */
    uint64_t call_site;
    trace_sync_target sync;      /* host waits: what it waited for */
    int32_t stream;              /* the stream waited for, or the stream that waited; -1 none */
    int32_t record_stream;       /* the stream of the event's record; -1 unknown */
    int streams;                 /* how many streams it concerned (a line in a loop over a pool) */
    int times;          /* times it ran in the run */
    int on_path;        /* of them, on the run's critical path */
    double held_ms;     /* how long it held the host (or its stream), in all */
    double cost_ms;     /* how long it held the critical path */
    bool in_loop;       /* it ran before the run's last work was queued (not the final wait) */
    int not_ready;      /* a poll (cudaEventQuery or cudaStreamQuery asked until it answered
                           cudaSuccess, trace/view/polls.h): its queries that answered not
                           ready, in all; 0 for every other wait */
} lab_wait_fact;

/* An order an event gives: recorded on one stream after `marks`, waited on by another
 * stream before `then` (the ops' kinds; TRACE_OP_KIND_COUNT when there is none). */
#define LAB_FACT_ORDERS 12
typedef struct lab_order_fact {
    int32_t record_stream, wait_stream; /* record_stream -1: not recorded before the wait in the run */
    bool recorded_later;                /* record_stream -1, and the event is recorded later in the run */
    trace_op_kind marks, then;
    trace_copy_dir marks_dir, then_dir;
    bool batch_known;                   /* marks and then both carry a batch */
    int32_t batch_gap;                  /* then's batch less marks' (batch_known) */
    int times;
    uint64_t record_site;
    char record_line[128]; /* the record's line, "" unknown */
} lab_order_fact;

/* A stream that carried the student's work in the run, and what it carried. */
#define LAB_FACT_STREAMS 16
typedef struct lab_stream_fact {
    int32_t id;
    char label[48];     /* "\"compute\"", "s2", "stream 0" (trace_stream_label) */
    bool per_thread;    /* the per-thread default stream (cudaStreamPerThread, or 0 in a file
                           compiled with CUDA_API_PER_THREAD_DEFAULT_STREAM) */
    int priority;       /* lower is greater (cudaDeviceGetStreamPriorityRange) */
    uint32_t device;    /* the device it was made on */
    int kernels, h2d, d2h, peer; /* its copies and kernels */
    int background;     /* ops of the lab's background (spec->is_background) */
    int requests;       /* copies and kernels that carry a request or batch */
    int request_kernels; /* of them, kernels */
} lab_stream_fact;

/* What the harness saw of the student's code in their last timed run: the facts a lab's
 * steps are judged by (steps.h). */
typedef struct lab_findings {
    bool correct;         /* every output right, in every run */
    bool race_free;       /* no unordered pair of accesses */
    bool reached;         /* correct, race-free and at or above the target */
    double bound_fraction;
    int streams_used;     /* streams other than stream 0 that carried the student's work */
    bool stream0_work;    /* the student put work on the legacy default stream */
    int stalls;           /* stream-0 operations that waited for or held back other streams */
    int stalls_held;      /* of them, those that held back another stream (the rest only waited) */
    int legacy_handovers; /* stream-0 operations that touch bytes work of another stream touched
                             before them in the run, one of the two writing: the legacy stream's
                             wait is what orders them (without it, non-blocking streams, a race) */
    trace_op_kind handover_kind; /* the first one's kind, and the stream of the work it follows */
    int32_t handover_stream;
    int busy_at_return;   /* streams other than stream 0 that still had work when run() returned */
    int early_reads;      /* host reads of results that nothing had ordered after the stream work
                             writing them: the host_read races of your runs (run() had not waited) */
    int n_early_read_streams; /* the streams of that work, by id (at most LAB_FACT_STREAMS kept) */
    int32_t early_read_streams[LAB_FACT_STREAMS];
    int shared_buffers;   /* buffers (by address) that work on more than one stream wrote */
    unsigned shared_writers; /* bit (1u << kind) for each kind of op (trace_op_kind) that wrote one */
    bool measured;        /* every stage the lab asks for was reported, and right */
    int elapsed_calls;    /* cudaEventElapsedTime calls in the run: the program timed with events
                             (counted by the measurement check, measure.h, for labs with stages) */
    int host_syncs;       /* times the host waited for the device before run() had queued all its work
                             (a poll of cudaEventQuery or cudaStreamQuery counts once; a query that
                             found the work done at its first ask did not wait) */
    unsigned planted_left; /* a bit per planted race (spec order) still found in your runs */
    int pageable_copies;  /* copies from or to pageable host memory */
    int pins_in_run;      /* calls that pin or unpin host memory inside run() */
    int left_registered;  /* the harness's buffers teardown() left registered */
    int stream_syncs;     /* waits for a whole stream or the device (not an event) before run() had queued all its work */
    int free_syncs;       /* of host_syncs, cudaFree's: it waits for the device before it frees */
    int peer_copies;      /* copies between two devices (on the link lane) */
    double peer_gbps;     /* their bytes over their time on the link, in GB/s (0: none) */
    int peer_access;      /* two-device labs: bit d set when GPU d may access the other GPU's memory
                             (cudaDeviceEnablePeerAccess) after your runs; -1 when not known */
    /* From the run's trace: */
    double run_ms;        /* the run's length on its timeline (first start to last end) */
    int n_waits;          /* every wait of the run, the costliest on the critical path first */
    lab_wait_fact waits[LAB_FACT_WAITS];
    int n_orders;         /* every order an event gave in the run */
    lab_order_fact orders[LAB_FACT_ORDERS];
    int n_streams;        /* the streams that carried work, by id */
    lab_stream_fact streams[LAB_FACT_STREAMS];
    int priority_least, priority_greatest; /* the device's range (both 0 when unknown) */
    int h2d_buffers;      /* distinct device buffers (by address) the run's uploads wrote */
    int h2d_sources;      /* distinct host buffers (by address) they read */
    int peer_buffers;     /* distinct buffers the run's peer copies wrote */
    int kernel_streams;   /* streams the run's kernels ran on (a graph's branches count; a graph
                             launched as one op, on a GPU: its branches, trace_graph_op_branches) */
    int graph_width;      /* the most chains one graph launch ran its kernels on: a GPU's graph
                             op, its branches (trace_graph_op_branches); the simulator's, its
                             launch stream and its "graph branch N" streams (0: no graph ran) */
    int graphs_made;      /* cudaGraphInstantiate calls inside the run */
    int graphs_captured;  /* cudaStreamEndCapture calls inside the run: graphs captured there (the
                             kit makes a graph only by stream capture) */
    int graph_launches;   /* cudaGraphLaunch calls inside the run */
    uint64_t graph_made_site; /* the first of those cudaGraphInstantiate calls, and its line */
    char graph_made_line[128];
    uint64_t graph_captured_site; /* the first of those cudaStreamEndCapture calls, and its line */
    char graph_captured_line[128];
    /* The races shown (at most LAB_MAX_RACES_SHOWN) whose wait took an event recorded before
     * the op it should follow (trace_race.early_event), and the first one's event and record
     * line; those blamed on a wait the host or a stream made only after the access it should
     * order (TRACE_WAIT_FAULT_LATE), and the first one's wait line. "" when unknown. */
    int early_records;
    char early_event[32];
    char early_record_line[128];
    int late_waits;
    char late_wait_line[128];
    double batch_us;      /* a batch's time on the device, from its first upload's start to its
                             last download's end, on average over the run's batches that had
                             both (0: none had) */
    int copy_calls;       /* cudaMemcpy* calls the program made inside the run (a graph's
                             replayed copies are not calls) */
    int device_allocs;    /* cudaMalloc calls inside the run: device buffers made in run()
                             (a buffer freed and made again may get the same address, so
                             shared_buffers counts it as shared between the streams that
                             used it in turn) */
    int host_copies;      /* the program's host copies in the run (memcpy or memmove of
                             LAB_HOST_COPY_MIN bytes or more: "memcpy" spans of the host lane) */
    double host_copy_ms;  /* their time on the host lane */
    uint64_t host_copy_site; /* the costliest one's call site, and its line ("" when unknown) */
    char host_copy_line[128];
} lab_findings;

/* A stage of the workload that the student times on the GPU and reports with
 * lab_report_ms (lab 02). The harness adds up the device time of the stage's ops in the
 * student's last timed run and accepts a reported time from
 *     device time - (tolerance * device time + LAB_EVENT_RESOLUTION_US * ops)  to
 *     device time + tolerance * device time + slack_us_per_op * ops:
 * events on the op's stream just before and just after it span its set-up too, so they may
 * give more than the op ran, but never less by more than their resolution. Events that
 * give less span something else (recorded on another stream: on an H200 such a pair read
 * 0.07 to 0.36 ms of 0.72 ms of combine kernels, docs/measured.md). */
#define LAB_EVENT_RESOLUTION_US 0.5 /* cudaEventElapsedTime's, as the Runtime API documents it */
typedef struct lab_stage {
    const char *name;  /* "combine": the name lab_report_ms is given */
    const char *what;  /* its ops, for messages: "combine kernels" */
    /* Whether an op of the student's run belongs to the stage. */
    bool (*has_op)(const trace_op *op, const lab_workload *w);
    double tolerance;       /* relative */
    double slack_us_per_op; /* absolute, per op, above the device time: the ops' set-up */
} lab_stage;

#define LAB_MAX_STAGES 4

/* A race the skeleton has on purpose (lab 05), recognised in a race report by its kind and
 * the kinds of its two operations, so that the report and the grader can say how many of
 * them the student has fixed. */
typedef enum lab_race_kind { /* trace/check/race.h's trace_race_kind, for specs */
    LAB_RACE_RAW = 0,
    LAB_RACE_WAR,
    LAB_RACE_WAW,
    LAB_RACE_HOST_READ
} lab_race_kind;

typedef struct lab_planted_race {
    const char *name;         /* "the kernel reads its input before the upload finished" */
    lab_race_kind kind;
    trace_op_kind first, second;
    trace_copy_dir first_dir, second_dir; /* for copies; TRACE_COPY_NONE otherwise */
} lab_planted_race;

#define LAB_MAX_PLANTED 8

/* The device work a run must do for its speed to count (labs/harness/work.h): each kind
 * at least as much as the baseline's timed runs do in the same lab run, so that a result
 * computed on the host and routed through the device, or kernels run on a sliver of the
 * data, earn no speed. */
typedef enum lab_work_kind {
    LAB_WORK_H2D = 0,          /* bytes copied host to device */
    LAB_WORK_D2H,              /* bytes copied device to host */
    LAB_WORK_PROCESS,          /* elements the process kernels went over */
    LAB_WORK_PROCESS_LAUNCHES, /* process kernels run (a CUDA graph's, at each replay) */
    LAB_WORK_CHECKSUM,         /* elements the checksum kernels read */
    LAB_WORK_RESULTS,          /* bytes of the outputs that came from memory a kernel of the
                                  run wrote (through any copies), when run() returned */
    LAB_WORK_KINDS
} lab_work_kind;

#define LAB_WORK_BIT(kind) (1u << (kind))
/* What every lab requires: every kind but the number of launches, which a good solution may
 * change (one kernel over two batches at once) where the lesson is not about launches. */
#define LAB_WORK_DEFAULT                                                                                   \
    (LAB_WORK_BIT(LAB_WORK_H2D) | LAB_WORK_BIT(LAB_WORK_D2H) | LAB_WORK_BIT(LAB_WORK_PROCESS) |             \
     LAB_WORK_BIT(LAB_WORK_CHECKSUM) | LAB_WORK_BIT(LAB_WORK_RESULTS))

/* What a lab requires beyond LAB_WORK_DEFAULT (0 for most labs): kinds as LAB_WORK_BIT()s. */
typedef struct lab_work_need {
    unsigned also;
} lab_work_need;

#define LAB_HINT_TIERS 3

/* One TODO of the skeleton, as a step on the student's path (docs/labs.md, "The
 * student's path"). */
typedef struct lab_step {
    const char *todo;     /* "TODO 1: a stream per task" */
    /* What the student sees while this is the step they stand at, and what to do. */
    const char *next;
    /* A question; the idea, with where to read more; the shape of the code, never the
     * exact line. The lesson carries the same texts. */
    const char *hints[LAB_HINT_TIERS];
    /* Whether the student's code has done this step. */
    bool (*done)(const lab_findings *f, const lab_workload *w);
    /* (optional) What the findings say holds the student at this step, with its figure
     * ("peer copies at 38 GB/s: peer access is not enabled"): written into buf, the
     * report shows it before the step's text. Returns 0 when there is nothing to say. */
    int (*why)(const lab_findings *f, const lab_workload *w, char *buf, size_t len);
    /* The step goes beyond the pass target (the report offers it after a pass). */
    bool beyond_target;
} lab_step;

/* (optional) When every step is done and the target is still missed: what the findings
 * say costs the time, in the student's terms, written into buf (0: nothing to say; the
 * harness then names the costliest wait, if one costs time). */
typedef int (*lab_beyond_fn)(const lab_findings *f, const lab_workload *w, char *buf, size_t len);

typedef struct lab_spec {
    const char *id;     /* "03_double_buffer" */
    const char *title;  /* "Double buffering: overlap copies and compute" */
    const char *lesson; /* path of the lesson, for the report */
    const char *item;   /* what one batch is called in reports: "batch", "task" (NULL: "batch") */

    lab_workload workload; /* the default workload */
    lab_memory inputs;     /* where lab_input() data lives (default pinned) */
    lab_memory outputs;    /* where lab_output() data lives (default pinned) */

    const lab_impl *baseline; /* what the student is timed against */
    /* Optional: the device state the baseline needs, set before each of its runs and undone
     * after, outside its timing (called with the device idle; 0 on success). For state of
     * the device context that the student's setup() may change and the baseline, which
     * shares the context, must not see: lab 09's peer access. NULL: none. */
    int (*baseline_enter)(lab_ctx *ctx);
    void (*baseline_leave)(lab_ctx *ctx);
    /* Writes the expected output of one batch (batch_elems values) from its input. */
    void (*oracle)(const lab_workload *w, const uint32_t *in, uint32_t *expected);

    /* Measures the bound on the current backend (before any timed run, with the baseline's
     * context). Returns 0 on success. */
    int (*measure_bound)(lab_ctx *ctx, lab_bound *out);
    const char *bound_name;  /* "pipeline bound", "concurrency bound" */
    const char *bound_label; /* the report row it is shown in: "pipeline", "bound" */

    lab_metric_kind metric;
    /* The pass threshold: the metric must reach this fraction of its value at the bound. */
    double target_bound_fraction;

    /* Requests (LAB_METRIC_LATENCY): batch i arrives request_first_us + i * request_every_us
     * after run() starts; lab_wait_request waits for it. */
    double request_first_us, request_every_us;
    /* Background work (may be NULL): what lab_background queues, with a device buffer of
     * background_bytes the harness allocates; which ops are the background's; how much
     * longer than the baseline's it may take (a fraction) before a run fails for it. */
    int (*background)(lab_ctx *ctx, cudaStream_t stream, void *buffer);
    size_t background_bytes;
    bool (*is_background)(const trace_op *op);
    double background_tolerance;

    /* The races the skeleton has on purpose (may be NULL): the report says how many are
     * fixed, and the grader gives race-freedom's points in proportion. */
    const lab_planted_race *planted;
    int n_planted;

    /* The stages the student times on the GPU and reports (may be NULL): a second graded
     * part, "measurement", besides the metric. */
    const lab_stage *stages;
    int n_stages;

    /* Labs with a loader (lab 08): the host time lab_load_batch costs per batch, in us;
     * the inputs are then reachable only through it. 0: no loader, lab_input as usual. */
    double load_us;
    /* Or, for a loader whose batches do not all cost the same (lab 08: some load several
     * times slower than others), batch i's own cost in us, drawn from the run's seed; it
     * stands for load_us, and the inputs are then reachable only through the loader too.
     * It may depend on what measure_bound measured, which runs before any timed run. */
    double (*batch_load_us)(uint64_t seed, int batch);

    /* The GPUs the lab needs: 0 or 1 for one, 2 for two (lab 09). On the simulator such a
     * lab runs on the h200x2 profile unless a profile with two devices is named; on a real
     * machine with fewer GPUs it stops and offers --backend=sim. */
    int devices;

    /* The skeleton's TODOs, in order (may be NULL). */
    const lab_step *steps;
    int n_steps;
    lab_beyond_fn beyond; /* (may be NULL) see lab_beyond_fn */

    /* The device work a run must do for its speed to count: LAB_WORK_DEFAULT, each kind at
     * least as much as the baseline's runs do, and `work.also` (lab 07: the launches, since
     * its lesson is their cost). */
    lab_work_need work;
} lab_spec;

/* The lab's spec (defined in labs/NN_topic/spec.c). */
extern const lab_spec LAB_SPEC;

/* ---- helpers specs share ------------------------------------------------------------- */

/* (b - a) in ns between two recorded events, after waiting for b; < 0 on error. */
double lab_spec_elapsed_ns(cudaEvent_t a, cudaEvent_t b);
/* The median of n values (sorts v). */
double lab_spec_median(double *v, int n);

/* ---- facts specs read (labs/harness/facts.c) ------------------------------------------- */

/* The host lane's span of one of the program's host copies (the referee's, remote.c), and
 * the part of a run they must take for the advice to name them (steps.c). */
#define LAB_HOST_COPY_SPAN "memcpy"
#define LAB_HOST_COPY_SHARE 0.1

/* A wait that over-synchronises: the costliest host wait inside the loop that held the
 * run's critical path for at least LAB_FACT_COSTLY of the run; NULL when none did. */
#define LAB_FACT_COSTLY 0.05
const lab_wait_fact *lab_fact_costly_wait(const lab_findings *f);
/* One sentence, no full stop: "cudaStreamSynchronize(\"compute\") at lab.c:52 held the host
 * 23 times, 2.1 ms of the run's 6.4 ms" (the file's name only; "held \"down\"" for a
 * stream's wait; a poll says so: "cudaEventQuery() at lab.c:15, polled in a loop (4096
 * calls), held the host 128 times, ..."). Returns what snprintf returns. */
int lab_fact_wait_text(const lab_findings *f, const lab_wait_fact *w, char *buf, size_t len);
/* For a host wait that is a call allocating or freeing memory (cudaFree, cudaFreeHost and
 * cudaHostUnregister wait for all the device's work; cudaMalloc, cudaMallocHost,
 * cudaHostAlloc and cudaHostRegister may): what to do instead, one clause, no full stop
 * ("allocate each device buffer once, in setup() (cudaMalloc), and free it in teardown()
 * (cudaFree), not in run()"). No event or choice of stream takes such a wait away. NULL for
 * any other wait. */
const char *lab_fact_allocation_fix(const lab_wait_fact *w);
/* Whether w is cudaFree's wait: the device must finish all the work queued before the call
 * frees (a buffer freed and allocated again in every run() pays it each time). */
bool lab_fact_wait_frees(const lab_wait_fact *w);
/* The stream fact of id, or NULL. */
const lab_stream_fact *lab_fact_stream(const lab_findings *f, int32_t id);
/* The first order whose record marks an op of kind marks (and direction marks_dir, for a
 * copy) and whose wait comes before one of kind then (then_dir); TRACE_OP_KIND_COUNT for
 * either matches any. NULL when the run has none. */
const lab_order_fact *lab_fact_order(const lab_findings *f, trace_op_kind marks, trace_copy_dir marks_dir,
                                     trace_op_kind then, trace_copy_dir then_dir);
/* The same, the order of those the run gave most often (the first of them on a tie): what
 * the program does batch after batch (a first batch's wait on an event not recorded yet says
 * nothing of the others). */
const lab_order_fact *lab_fact_usual_order(const lab_findings *f, trace_op_kind marks, trace_copy_dir marks_dir,
                                           trace_op_kind then, trace_copy_dir then_dir);
/* What an op kind is called in advice: "the kernel", "the upload" (H2D), "the download"
 * (D2H), "the peer copy", "nothing" (TRACE_OP_KIND_COUNT). */
const char *lab_fact_op_words(trace_op_kind kind, trace_copy_dir dir);
/* The base name of a line ("lab.c:52" of "labs/05_cross_stream_races/lab.c:52"). */
const char *lab_fact_short_line(const char *line);
/* A line as advice names it, its base name between pre and post (" at lab.c:52", " (lab.c:52)"),
 * into buf; "" when the line is unknown (line ""). */
void lab_fact_line_note(const char *line, const char *pre, const char *post, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
