/* labs/05_cross_stream_races/spec.c: lab 05's workload, baseline, oracle, bound, planted
 * races and pass threshold. Instructor-owned: students edit lab.c, never this file.
 *
 * Workload: 24 batches of 1 Mi uint32 values (4 MiB) through a three-stream pipeline: an
 * upload stream, a compute stream and a download stream, two buffer pairs used in turn
 * (lab 03's sizes: each phase takes 80-95 us). The skeleton is as fast as that pipeline
 * can be and wrong in five places, each a race of its own kind (the planted races below,
 * recognised in the race reports by their kind and the kinds of their two operations):
 * the report says how many are fixed, and the grader gives race-freedom's points in
 * proportion.
 *
 * The bound is the same pipeline with every race fixed by the least synchronisation (an
 * event per hand-over), measured on this device. The baseline is one stream, one batch
 * after another. The target, 65% of the bound, leaves at least 5 points on each side on
 * the simulator and on the GPUs (docs/measured.md): below it, every order that holds a
 * stream back a whole batch (the device synchronised every batch, about 40%; the compute
 * stream synchronised every kernel, one event re-recorded for every hand-over, the
 * downloads behind the kernels on one stream, 50-56%); above it, every pipeline that
 * keeps two batches in flight, whether each reuse waits for its last reader (the
 * reference, about 98%) or for the whole buffer pair's download, on the device or from
 * the host (72-76%): those order more than they must, which costs, and they are correct. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "labs/harness/lab.h"
#include "labs/harness/spec.h"
#include "lab_catalog/lab_identity.h"
#include "labs/harness/spec_baseline.h"
#include "labs/harness/spec_oracle.h"

#define NBUF 2

/* ---- baseline: one stream, one batch after another ---------------------------------------- */

LAB_SPEC_BASELINE(baseline, .stream = "baseline");

/* ---- the bound: the three-stream pipeline with an event per hand-over ------------------- */

typedef struct pipe {
    cudaStream_t up, compute, down;
    cudaEvent_t uploaded[NBUF], computed[NBUF], downloaded[NBUF], start, end;
    uint32_t *d_in[NBUF], *d_out[NBUF];
} pipe;

static int pipe_run(lab_ctx *ctx, pipe *p) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int b = 0; b < w->batches; b++) {
        int k = b % NBUF;
        if (b >= NBUF) LAB_CHECK(cudaStreamWaitEvent(p->up, p->computed[k], 0));
        LAB_CHECK(cudaMemcpyAsync(p->d_in[k], lab_input(ctx, b), w->batch_bytes, cudaMemcpyHostToDevice, p->up));
        LAB_CHECK(cudaEventRecord(p->uploaded[k], p->up));
        LAB_CHECK(cudaStreamWaitEvent(p->compute, p->uploaded[k], 0));
        if (b >= NBUF) LAB_CHECK(cudaStreamWaitEvent(p->compute, p->downloaded[k], 0));
        LAB_CHECK(kernels_process(p->d_out[k], p->d_in[k], w->batch_elems, w->process, p->compute));
        LAB_CHECK(cudaEventRecord(p->computed[k], p->compute));
        LAB_CHECK(cudaStreamWaitEvent(p->down, p->computed[k], 0));
        LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, b), p->d_out[k], w->batch_bytes, cudaMemcpyDeviceToHost, p->down));
        LAB_CHECK(cudaEventRecord(p->downloaded[k], p->down));
    }
    return 0;
}

static int measure_bound(lab_ctx *ctx, lab_bound *out) {
    const lab_workload *w = lab_get_workload(ctx);
    enum { SAMPLES = 3 };
    pipe p;
    memset(&p, 0, sizeof(p));
    double t[SAMPLES];
    int rc = 1;
    if (cudaStreamCreateWithFlags(&p.up, cudaStreamNonBlocking) != cudaSuccess ||
        cudaStreamCreateWithFlags(&p.compute, cudaStreamNonBlocking) != cudaSuccess ||
        cudaStreamCreateWithFlags(&p.down, cudaStreamNonBlocking) != cudaSuccess ||
        cudaEventCreate(&p.start) != cudaSuccess || cudaEventCreate(&p.end) != cudaSuccess)
        goto out;
    for (int k = 0; k < NBUF; k++)
        if (cudaEventCreateWithFlags(&p.uploaded[k], cudaEventDisableTiming) != cudaSuccess ||
            cudaEventCreateWithFlags(&p.computed[k], cudaEventDisableTiming) != cudaSuccess ||
            cudaEventCreateWithFlags(&p.downloaded[k], cudaEventDisableTiming) != cudaSuccess ||
            cudaMalloc((void **)&p.d_in[k], w->batch_bytes) != cudaSuccess ||
            cudaMalloc((void **)&p.d_out[k], w->batch_bytes) != cudaSuccess)
            goto out;
    lab_name_stream(ctx, p.up, "bound up");
    lab_name_stream(ctx, p.compute, "bound compute");
    lab_name_stream(ctx, p.down, "bound down");
    for (int s = 0; s < SAMPLES; s++) {
        if (cudaEventRecord(p.start, p.up) != cudaSuccess || cudaStreamWaitEvent(p.down, p.start, 0) != cudaSuccess ||
            cudaStreamWaitEvent(p.compute, p.start, 0) != cudaSuccess || pipe_run(ctx, &p) != 0 ||
            cudaEventRecord(p.end, p.down) != cudaSuccess)
            goto out;
        t[s] = lab_spec_elapsed_ns(p.start, p.end);
        if (t[s] <= 0) goto out;
        if (cudaDeviceSynchronize() != cudaSuccess) goto out;
    }
    out->ideal_ns = lab_spec_median(t, SAMPLES);
    snprintf(out->detail, sizeof(out->detail),
             "the same three-stream pipeline with an event at every hand-over takes %.3f ms (%.1f us a batch)",
             out->ideal_ns / 1e6, out->ideal_ns / 1e3 / w->batches);
    out->figures_key = "pipeline_us";
    lab_bound_add(out, "all_batches", out->ideal_ns / 1e3);
    rc = 0;
out:
    cudaDeviceSynchronize();
    for (int k = 0; k < NBUF; k++) {
        cudaFree(p.d_in[k]);
        cudaFree(p.d_out[k]);
        if (p.uploaded[k]) cudaEventDestroy(p.uploaded[k]);
        if (p.computed[k]) cudaEventDestroy(p.computed[k]);
        if (p.downloaded[k]) cudaEventDestroy(p.downloaded[k]);
    }
    if (p.start) cudaEventDestroy(p.start);
    if (p.end) cudaEventDestroy(p.end);
    if (p.up) cudaStreamDestroy(p.up);
    if (p.compute) cudaStreamDestroy(p.compute);
    if (p.down) cudaStreamDestroy(p.down);
    return rc;
}

/* ---- the planted races, and the student's path ------------------------------------------ */

static const lab_planted_race planted[] = {
    {"the kernel reads its input before the upload has finished (read-after-write)", LAB_RACE_RAW, TRACE_OP_COPY,
     TRACE_OP_KERNEL, TRACE_COPY_H2D, TRACE_COPY_NONE},
    {"the download reads a result before the kernel has written it (read-after-write: the event it waits on does "
     "not mark the kernel)",
     LAB_RACE_RAW, TRACE_OP_KERNEL, TRACE_OP_COPY, TRACE_COPY_NONE, TRACE_COPY_D2H},
    {"an upload overwrites an input buffer the kernel two batches back may still read (write-after-read)",
     LAB_RACE_WAR, TRACE_OP_KERNEL, TRACE_OP_COPY, TRACE_COPY_NONE, TRACE_COPY_H2D},
    {"a kernel overwrites a result buffer the download two batches back may still read (write-after-read)",
     LAB_RACE_WAR, TRACE_OP_COPY, TRACE_OP_KERNEL, TRACE_COPY_D2H, TRACE_COPY_NONE},
    {"run() returns, and the harness reads the results, before the downloads have finished (host read before "
     "completion)",
     LAB_RACE_HOST_READ, TRACE_OP_COPY, TRACE_OP_HOST_ACCESS, TRACE_COPY_D2H, TRACE_COPY_NONE},
};

/* A step is done when its race is gone and an event orders its two operations on the
 * device: the least synchronisation. A race made to go away by a host wait is not a step
 * done; the step's why names that wait, its line and its cost. */
#define FIXED(i) (!(f->planted_left >> (i) & 1u))

static bool ordered(const lab_findings *f, trace_op_kind marks, trace_copy_dir md, trace_op_kind then,
                    trace_copy_dir td) {
    return lab_fact_order(f, marks, md, then, td) != NULL;
}
static bool fixed0(const lab_findings *f, const lab_workload *w) {
    (void)w;
    return FIXED(0) && ordered(f, TRACE_OP_COPY, TRACE_COPY_H2D, TRACE_OP_KERNEL, TRACE_COPY_NONE);
}
static bool fixed1(const lab_findings *f, const lab_workload *w) {
    (void)w;
    return FIXED(1) && ordered(f, TRACE_OP_KERNEL, TRACE_COPY_NONE, TRACE_OP_COPY, TRACE_COPY_D2H);
}
static bool fixed2(const lab_findings *f, const lab_workload *w) {
    (void)w;
    return FIXED(2) && ordered(f, TRACE_OP_KERNEL, TRACE_COPY_NONE, TRACE_OP_COPY, TRACE_COPY_H2D);
}
static bool fixed3(const lab_findings *f, const lab_workload *w) {
    (void)w;
    return FIXED(3) && ordered(f, TRACE_OP_COPY, TRACE_COPY_D2H, TRACE_OP_KERNEL, TRACE_COPY_NONE);
}
static bool fixed4(const lab_findings *f, const lab_workload *w) {
    (void)w;
    return FIXED(4) && f->correct;
}

/* The stream the run's kernels (or uploads, downloads) went to, by its label; "" none. */
static const char *stream_of(const lab_findings *f, int what) {
    for (int i = 0; i < f->n_streams; i++) {
        const lab_stream_fact *s = &f->streams[i];
        if ((what == 0 && s->h2d) || (what == 1 && s->kernels) || (what == 2 && s->d2h)) return s->label;
    }
    return "";
}

static const char *label_of(const lab_findings *f, int32_t id) {
    const lab_stream_fact *s = lab_fact_stream(f, id);
    return s ? s->label : "a stream with no work in the run";
}

/* When race i is left and the event that should order it is waited on, but its record is
 * of another batch than the one it should mark (gap batches before `then`'s): the wait is
 * in the wrong place or names the wrong event. */
static int why_other_batch(const lab_findings *f, int i, trace_op_kind marks, trace_copy_dir md, trace_op_kind then,
                           trace_copy_dir td, int32_t gap, char *buf, size_t len) {
    if (FIXED(i)) return 0;
    const lab_order_fact *o = lab_fact_usual_order(f, marks, md, then, td);
    if (!o || !o->batch_known || o->batch_gap == gap) return 0;
    char at[160], want[48] = "its own batch's";
    lab_fact_line_note(o->record_line, " (", ")", at, sizeof(at));
    if (gap) snprintf(want, sizeof(want), "batch b - %d's", (int)gap);
    return snprintf(buf, len,
                    "%s on %s waits, batch after batch, on an event recorded after %s of another batch%s, not "
                    "%s: the race report says which wait to change",
                    lab_fact_op_words(then, td), label_of(f, o->wait_stream), lab_fact_op_words(marks, md), at, want);
}

/* A stream that carried both stages a hand-over joins (step 0: uploads and kernels, step 1:
 * kernels and downloads): its own order is what orders them. NULL when none did. */
static const lab_stream_fact *joined_stream(const lab_findings *f, int i) {
    for (int k = 0; k < f->n_streams && k < LAB_FACT_STREAMS; k++) {
        const lab_stream_fact *s = &f->streams[k];
        if (s->kernels && (i == 0 ? s->h2d : i == 1 ? s->d2h : 0)) return s;
    }
    return NULL;
}

/* When race i is gone but no event orders it: the stream that runs both stages, or the host
 * wait that orders them. */
static int why_host_ordered(const lab_findings *f, int i, const char *what, char *buf, size_t len) {
    if (!FIXED(i)) return 0;
    const lab_stream_fact *one = joined_stream(f, i);
    if (one)
        return snprintf(buf, len,
                        "%s no longer race because they run on one stream, %s, in its order: but then each %s "
                        "waits there behind the batch before's %s, and the two stages no longer overlap. Put "
                        "them on streams of their own again and order them with an event recorded after the %s",
                        what, one->label, i == 0 ? "upload" : "kernel", i == 0 ? "kernel" : "download",
                        i == 0 ? "upload" : "kernel");
    const lab_wait_fact *w = lab_fact_costly_wait(f);
    char said[400] = "a host wait";
    if (w) lab_fact_wait_text(f, w, said, sizeof(said));
    return snprintf(buf, len,
                    "%s no longer race, but what orders them is the host: %s. An event orders them on the "
                    "device and keeps the streams overlapping",
                    what, said);
}

static int why0(const lab_findings *f, const lab_workload *w, char *buf, size_t len) {
    (void)w;
    int n = why_host_ordered(f, 0, "the upload and the kernel that reads it", buf, len);
    if (n) return n;
    return why_other_batch(f, 0, TRACE_OP_COPY, TRACE_COPY_H2D, TRACE_OP_KERNEL, TRACE_COPY_NONE, 0, buf, len);
}

static int why1(const lab_findings *f, const lab_workload *w, char *buf, size_t len) {
    (void)w;
    int n = why_host_ordered(f, 1, "the kernel and the download of its result", buf, len);
    if (n) return n;
    const lab_order_fact *o = lab_fact_usual_order(f, TRACE_OP_KIND_COUNT, TRACE_COPY_NONE, TRACE_OP_COPY, TRACE_COPY_D2H);
    const char *kernel = stream_of(f, 1);
    if (!o) return snprintf(buf, len, "no event orders the download after the kernel on %s", kernel);
    char at[160];
    lab_fact_line_note(o->record_line, " (", ")", at, sizeof(at));
    if (o->record_stream < 0 && o->recorded_later)
        return snprintf(buf, len,
                        "the download on %s waits on an event before any record of it: a wait takes the record "
                        "made before it, and there is none yet",
                        label_of(f, o->wait_stream));
    if (o->record_stream < 0)
        return snprintf(buf, len, "the download on %s waits on an event that was not recorded in run()%s",
                        label_of(f, o->wait_stream), at);
    if (o->marks == TRACE_OP_KERNEL)
        return why_other_batch(f, 1, TRACE_OP_KERNEL, TRACE_COPY_NONE, TRACE_OP_COPY, TRACE_COPY_D2H, 0, buf, len);
    const char *rec = label_of(f, o->record_stream);
    if (!strcmp(rec, kernel))
        return snprintf(buf, len,
                        "the download on %s waits on an event recorded on %s before the kernel is launched%s: "
                        "it marks %s, not the kernel",
                        label_of(f, o->wait_stream), rec, at,
                        o->marks == TRACE_OP_KIND_COUNT ? "nothing" : lab_fact_op_words(o->marks, o->marks_dir));
    return snprintf(buf, len,
                    "the download on %s waits on an event recorded on %s, after %s%s, but the kernel runs on %s: "
                    "the event marks nothing of the kernel's",
                    label_of(f, o->wait_stream), rec, lab_fact_op_words(o->marks, o->marks_dir), at, kernel);
}

static int why2(const lab_findings *f, const lab_workload *w, char *buf, size_t len) {
    (void)w;
    return why_host_ordered(f, 2, "the upload into d_in[k] and the kernel two batches back that reads it", buf, len);
}

static int why3(const lab_findings *f, const lab_workload *w, char *buf, size_t len) {
    (void)w;
    int n = why_host_ordered(f, 3, "the kernel writing d_out[k] and the download two batches back that reads it",
                             buf, len);
    if (n) return n;
    if (FIXED(3)) return 0;
    /* The download's event waited on by the stream it was recorded on: that wait orders
     * nothing, and the kernel's stream does not wait. */
    for (int i = 0; i < f->n_orders && i < LAB_FACT_ORDERS; i++) {
        const lab_order_fact *o = &f->orders[i];
        if (o->marks != TRACE_OP_COPY || o->marks_dir != TRACE_COPY_D2H || o->record_stream != o->wait_stream) continue;
        char at[160];
        lab_fact_line_note(o->record_line, " (recorded at ", ")", at, sizeof(at));
        return snprintf(buf, len,
                        "the download's event%s is waited on by %s, the stream it was recorded on, which orders "
                        "nothing; the kernels on %s do not wait on it",
                        at, label_of(f, o->wait_stream), stream_of(f, 1));
    }
    return why_other_batch(f, 3, TRACE_OP_COPY, TRACE_COPY_D2H, TRACE_OP_KERNEL, TRACE_COPY_NONE, NBUF, buf, len);
}

static int why4(const lab_findings *f, const lab_workload *w, char *buf, size_t len) {
    (void)w;
    if (FIXED(4)) return 0;
    const char *down = stream_of(f, 2);
    for (int i = f->n_waits; i-- > 0;) {
        const lab_wait_fact *x = &f->waits[i];
        if (x->host && !x->in_loop)
            return snprintf(buf, len, "run() ends with %s%s%s, and the downloads are on %s", x->call,
                            x->line[0] ? " at " : "", x->line[0] ? lab_fact_short_line(x->line) : "", down);
    }
    return snprintf(buf, len, "run() returns without waiting for %s, where the downloads are", down);
}

/* Every step done and the target missed: a host wait inside the loop, on top of the
 * events, is what costs the time (the harness names it: lab_fact_costly_wait). */

/* When every TODO is done and the run is still slow: a reuse wait (an upload after the
 * kernel that read its buffer, a kernel after the download of its buffer) that holds the
 * stream for the batch just before, where the buffers let it wait for one further back. One
 * event re-recorded every batch does that: a wait names the latest record, so upload b
 * waits for kernel b - 1 although its buffer was last read by kernel b - 2. */
static int beyond(const lab_findings *f, const lab_workload *w, char *buf, size_t len) {
    (void)w;
    int buffers = f->h2d_buffers;
    if (buffers < 2) return 0;
    const lab_order_fact *reuse[2] = {
        lab_fact_usual_order(f, TRACE_OP_KERNEL, TRACE_COPY_NONE, TRACE_OP_COPY, TRACE_COPY_H2D),
        lab_fact_usual_order(f, TRACE_OP_COPY, TRACE_COPY_D2H, TRACE_OP_KERNEL, TRACE_COPY_NONE),
    };
    const char *what[2] = {"the upload of batch b waits for the kernel", "the kernel of batch b waits for the download"};
    const char *buffer[2] = {"input", "output"};
    for (int i = 0; i < 2; i++) {
        const lab_order_fact *o = reuse[i];
        if (!o || !o->batch_known || o->batch_gap < 1 || o->batch_gap >= buffers) continue;
        char at[160];
        lab_fact_line_note(o->record_line, " (the record at ", ")", at, sizeof(at));
        return snprintf(buf, len,
                        "%s of batch b - %d%s, but with %d %s buffers the one it overwrites was last used by batch "
                        "b - %d: the pipeline keeps %d batch%s in flight where it could keep %d. One event "
                        "re-recorded every batch does this, since a wait takes its latest record. Give each buffer "
                        "its own events (an array indexed like the buffers) and wait on the event of the buffer "
                        "about to be overwritten.",
                        what[i], (int)o->batch_gap, at, buffers, buffer[i], buffers, (int)o->batch_gap,
                        o->batch_gap == 1 ? "" : "es", buffers);
    }
    return 0;
}

static const lab_step steps[] = {
    {
        .todo = "TODO 1 (the kernel waits for its upload)",
        .next = "the kernel on \"compute\" must not read d_in before the upload on \"up\" has written it (the "
                "races of kind read-after-write between an H2D and a kernel). Make the compute stream wait for each "
                "upload with an event, without making the host wait.",
        .hints =
            {
                "Find the race whose first operation is an H2D on \"up\" and whose second is the kernel on "
                "\"compute\". What would order them?",
                "An event recorded on one stream after an operation, and waited on by another stream, orders the "
                "other stream's later work after that operation, on the device. docs/concepts.md, \"Events: "
                "timing and ordering\".",
                "An event per buffer, uploaded[k]: cudaEventRecord(uploaded[k], up) after the upload, and "
                "cudaStreamWaitEvent(compute, uploaded[k], 0) before the kernel.",
            },
        .done = fixed0,
        .why = why0,
    },
    {
        .todo = "TODO 2 (record the event after the kernel)",
        .next = "no event orders the download after its batch's kernel on the device (the Why line says what "
                "the run does instead: which event it waits on, or what else orders the two). The download must "
                "wait on an event recorded on the kernel's stream, after that batch's kernel.",
        .hints =
            {
                "The download does wait on an event. What had the compute stream been given when that event was "
                "recorded?",
                "cudaEventRecord marks the work queued on the stream so far; a wait is for the record as it was "
                "when cudaStreamWaitEvent was called. An event recorded before the work it should mark completes "
                "too early. docs/concepts.md, \"Events: timing and ordering\".",
                "Move cudaEventRecord(computed[k], compute) to just after the kernel launch, before "
                "cudaStreamWaitEvent(down, computed[k], 0).",
            },
        .done = fixed1,
        .why = why1,
    },
    {
        .todo = "TODO 3 (do not overwrite an input still being read)",
        .next = "batch b's upload into d_in[b % 2] must not start while the kernel of batch b - 2 still reads that "
                "buffer (write-after-read). Make the upload stream wait for that kernel with an event, on the "
                "device, not the host.",
        .hints =
            {
                "Two batches share d_in[k]. What must have finished before the second upload into it may start?",
                "Reusing a buffer needs the same ordering as filling it, the other way round: the writer waits "
                "for the last reader. The event that marks the kernel's end already exists. docs/concepts.md, "
                "\"Races\".",
                "Before the upload of batch b (for b >= 2): cudaStreamWaitEvent(up, computed[k], 0), the event "
                "recorded after the kernel of batch b - 2.",
            },
        .done = fixed2,
        .why = why2,
    },
    {
        .todo = "TODO 4 (do not overwrite a result still being downloaded)",
        .next = "batch b's kernel must not write d_out[b % 2] while the download of batch b - 2 may still read it "
                "(write-after-read). Make the compute stream wait for that download with an event, on the device, "
                "not the host.",
        .hints =
            {
                "The same question for d_out: who reads it last, and who writes it next?",
                "The writer waits for the last reader: an event recorded after the download, waited on by the "
                "compute stream before the kernel that reuses the buffer. docs/concepts.md, \"Races\".",
                "An event per buffer, downloaded[k]: cudaEventRecord(downloaded[k], down) after the download; "
                "before the kernel of batch b (for b >= 2): cudaStreamWaitEvent(compute, downloaded[k], 0).",
            },
        .done = fixed3,
        .why = why3,
    },
    {
        .todo = "TODO 5 (wait for the downloads before returning)",
        .next = "run() does not wait for the downloads on \"down\" (the skeleton waits for the compute stream "
                "only), so the results may be read before they are written (host read before completion). Wait "
                "for what writes the results.",
        .hints =
            {
                "Which stream writes lab_output()? Which stream does run() wait for?",
                "The host must wait for the stream whose work it reads: cudaStreamSynchronize on that stream (its "
                "last operation is ordered after everything it waited on). docs/concepts.md, \"What makes the "
                "host wait\".",
                "End run() with cudaStreamSynchronize(down) instead of (or after) cudaStreamSynchronize(compute).",
            },
        .done = fixed4,
        .why = why4,
    },
};

const lab_spec LAB_SPEC = {
    .id = LAB_ID, /* from labs/catalog.json (lab_catalog/lab_identity.h) */
    .title = LAB_TITLE,
    .lesson = LAB_LESSON,
    .item = "batch",
    .workload =
        {
            .batches = 24,
            .batch_elems = 1u << 20,
            .batch_bytes = (1u << 20) * sizeof(uint32_t),
            .process = {.mul = 0, .add = 0, .iters = 1400},
            .steps = 1,
        },
    .baseline = &baseline,
    .oracle = lab_spec_oracle_steps,
    .measure_bound = measure_bound,
    .bound_name = "pipeline bound",
    .bound_label = "pipeline",
    .metric = LAB_METRIC_SPEEDUP,
    .target_bound_fraction = 0.65,
    .planted = planted,
    .beyond = beyond,
    .n_planted = (int)(sizeof(planted) / sizeof(planted[0])),
    .steps = steps,
    .n_steps = (int)(sizeof(steps) / sizeof(steps[0])),
};
