/* labs/02_events/spec.c: lab 02's workload, baseline, oracle, bound, stage and pass
 * threshold. Instructor-owned: students edit lab.c, never this file.
 *
 * Workload: 32 batches of 64 Ki uint32 values (256 KiB), each a small dependency graph:
 * the batch goes up on stream A; two producers process its halves, one on A and one on
 * stream B (B must wait for the upload); a combine kernel on A processes the whole batch
 * (it must wait for both producers); the result comes down on A. Every kernel is short
 * (tens of microseconds), so a host round trip between stages (a synchronisation, then
 * the next launch) is not small next to a stage: the skeleton, which orders the stages by
 * making the host wait four times a batch, leaves the device idle at each wait: 74% of the
 * bound on the simulated H200, 75-81% on a lent H200 (kernels of 5000 iterations).
 *
 * Two graded parts. Speed: the bound is the same graph ordered by events alone, measured
 * on this device (the host queues every batch and the device runs them back to back), with
 * the combine timed by events as the lab asks; the target, 88% of it, fails the
 * host-synchronised skeleton and passes the events (98% simulated, 94-96% on a lent H200:
 * the reference's run is timed on the host, from its first command to the return after its
 * 32 elapsed-time reads, the bound by events on the device), with at least 5 points either
 * side on both (docs/measured.md, "Lab 02's kernels cut to 5000 iterations"). The baseline
 * has the skeleton's order but runs in the lab's own process, where a host wait costs no
 * referee round trip: 76% of the bound simulated, 79-92% on a lent H200, too near the
 * target to be the grader's floor (grading/rubric.json gives lab 02 a floor of 0.75). Measurement: the student reports
 * the GPU time of the combine kernels of a run (lab_report_ms(ctx, "combine", ms)), which
 * the harness checks against the trace within 10% and 12 us per kernel. An event pair
 * includes what the trace's kernel time does not: the kernel's start-up, and, on a stream
 * the host has just let run dry, the launch's trip to the GPU (an event recorded on an idle
 * stream completes at once; the kernel arrives later): 5 us a kernel on the simulator, 8-10
 * on a real H200.
 * Each combine kernel runs about 21 us (simulated), a launch takes about 3 on the host: a
 * host clock around the launches reports a sixth of the GPU's time or less, and fails; one
 * that reads no event at all fails whatever it reports (labs/harness/measure.c). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "labs/harness/lab.h"
#include "labs/harness/spec.h"
#include "lab_catalog/lab_identity.h"
#include "labs/harness/spec_oracle.h"

/* ---- one batch's graph, as the baseline and the bound queue it ------------------------ */

typedef struct graph {
    cudaStream_t a, b;
    cudaEvent_t uploaded, produced; /* for the event-ordered version */
    cudaEvent_t start, stop;        /* ... which also times the combine, as the lab asks */
    uint32_t *d_in, *d_mid, *d_out;
} graph;

static int graph_setup(lab_ctx *ctx, graph *g, bool events) {
    const lab_workload *w = lab_get_workload(ctx);
    LAB_CHECK(cudaStreamCreateWithFlags(&g->a, cudaStreamNonBlocking));
    LAB_CHECK(cudaStreamCreateWithFlags(&g->b, cudaStreamNonBlocking));
    if (events) {
        LAB_CHECK(cudaEventCreateWithFlags(&g->uploaded, cudaEventDisableTiming));
        LAB_CHECK(cudaEventCreateWithFlags(&g->produced, cudaEventDisableTiming));
        LAB_CHECK(cudaEventCreate(&g->start));
        LAB_CHECK(cudaEventCreate(&g->stop));
    }
    LAB_CHECK(cudaMalloc((void **)&g->d_in, w->batch_bytes));
    LAB_CHECK(cudaMalloc((void **)&g->d_mid, w->batch_bytes));
    LAB_CHECK(cudaMalloc((void **)&g->d_out, w->batch_bytes));
    return 0;
}

static void graph_teardown(graph *g) {
    cudaFree(g->d_in);
    cudaFree(g->d_mid);
    cudaFree(g->d_out);
    if (g->uploaded) cudaEventDestroy(g->uploaded);
    if (g->produced) cudaEventDestroy(g->produced);
    if (g->start) cudaEventDestroy(g->start);
    if (g->stop) cudaEventDestroy(g->stop);
    if (g->a) cudaStreamDestroy(g->a);
    if (g->b) cudaStreamDestroy(g->b);
    memset(g, 0, sizeof(*g));
}

/* Batch b of the graph; the host waits between stages unless events order them. */
static int graph_batch(lab_ctx *ctx, graph *g, int b, bool events) {
    const lab_workload *w = lab_get_workload(ctx);
    size_t half = w->batch_elems / 2;
    LAB_CHECK(cudaMemcpyAsync(g->d_in, lab_input(ctx, b), w->batch_bytes, cudaMemcpyHostToDevice, g->a));
    if (events) {
        LAB_CHECK(cudaEventRecord(g->uploaded, g->a));
        LAB_CHECK(cudaStreamWaitEvent(g->b, g->uploaded, 0));
    } else {
        LAB_CHECK(cudaStreamSynchronize(g->a));
    }
    LAB_CHECK(kernels_process(g->d_mid, g->d_in, half, w->process, g->a));
    LAB_CHECK(kernels_process(g->d_mid + half, g->d_in + half, w->batch_elems - half, w->process, g->b));
    if (events) {
        LAB_CHECK(cudaEventRecord(g->produced, g->b));
        LAB_CHECK(cudaStreamWaitEvent(g->a, g->produced, 0));
    } else {
        LAB_CHECK(cudaStreamSynchronize(g->a));
        LAB_CHECK(cudaStreamSynchronize(g->b));
    }
    if (events) LAB_CHECK(cudaEventRecord(g->start, g->a));
    LAB_CHECK(kernels_process(g->d_out, g->d_mid, w->batch_elems, w->process, g->a));
    if (events) LAB_CHECK(cudaEventRecord(g->stop, g->a));
    if (!events) LAB_CHECK(cudaStreamSynchronize(g->a));
    LAB_CHECK(cudaMemcpyAsync(lab_output(ctx, b), g->d_out, w->batch_bytes, cudaMemcpyDeviceToHost, g->a));
    return 0;
}

/* ---- baseline: the skeleton's order, the host waiting between stages ------------------- */

static graph base;

static int base_setup(lab_ctx *ctx) {
    if (graph_setup(ctx, &base, false) != 0) return 1;
    lab_name_stream(ctx, base.a, "baseline A");
    lab_name_stream(ctx, base.b, "baseline B");
    return 0;
}

static int base_run(lab_ctx *ctx) {
    const lab_workload *w = lab_get_workload(ctx);
    for (int b = 0; b < w->batches; b++)
        if (graph_batch(ctx, &base, b, false) != 0) return 1;
    LAB_CHECK(cudaStreamSynchronize(base.a));
    return 0;
}

static void base_teardown(lab_ctx *ctx) {
    (void)ctx;
    graph_teardown(&base);
}

static const lab_impl baseline = {base_setup, base_run, base_teardown};

/* ---- oracle: the process kernel twice (a producer, then the combine) ------------------- */

static void oracle(const lab_workload *w, const uint32_t *in, uint32_t *expected) {
    lab_spec_oracle_passes(w, in, expected, 2);
}

/* ---- the bound: every batch ordered by events, the host never waiting, the combine timed
 * by a pair of events as the lab asks ------------------------------------------------------ */

static int measure_bound(lab_ctx *ctx, lab_bound *out) {
    const lab_workload *w = lab_get_workload(ctx);
    enum { SAMPLES = 3 };
    graph g;
    memset(&g, 0, sizeof(g));
    cudaEvent_t start = NULL, end = NULL;
    double t[SAMPLES];
    int rc = 1;
    if (graph_setup(ctx, &g, true) != 0 || cudaEventCreate(&start) != cudaSuccess ||
        cudaEventCreate(&end) != cudaSuccess)
        goto out;
    lab_name_stream(ctx, g.a, "bound A");
    lab_name_stream(ctx, g.b, "bound B");
    for (int k = 0; k < SAMPLES; k++) {
        if (cudaEventRecord(start, g.a) != cudaSuccess) goto out;
        for (int b = 0; b < w->batches; b++)
            if (graph_batch(ctx, &g, b, true) != 0) goto out;
        if (cudaEventRecord(end, g.a) != cudaSuccess) goto out;
        t[k] = lab_spec_elapsed_ns(start, end);
        if (t[k] <= 0) goto out;
    }
    out->ideal_ns = lab_spec_median(t, SAMPLES);
    snprintf(out->detail, sizeof(out->detail),
             "the same %d graphs ordered by events alone take %.3f ms (%.1f us a batch): the device never waits for "
             "the host",
             w->batches, out->ideal_ns / 1e6, out->ideal_ns / 1e3 / w->batches);
    out->figures_key = "graph_us";
    lab_bound_add(out, "all_batches", out->ideal_ns / 1e3);
    lab_bound_add(out, "per_batch", out->ideal_ns / 1e3 / w->batches);
    rc = 0;
out:
    cudaDeviceSynchronize();
    if (start) cudaEventDestroy(start);
    if (end) cudaEventDestroy(end);
    graph_teardown(&g);
    return rc;
}

/* ---- the stage the student times --------------------------------------------------------- */

/* The combine kernels: the only kernels that write a whole batch. */
static bool is_combine(const trace_op *op, const lab_workload *w) {
    if (op->kind != TRACE_OP_KERNEL) return false;
    for (uint32_t i = 0; i < op->n_ranges && i < TRACE_MAX_RANGES; i++)
        if ((op->ranges[i].flags & TRACE_RANGE_WRITE) && op->ranges[i].bytes == w->batch_bytes) return true;
    return false;
}

static const lab_stage stages[] = {
    {.name = "combine", .what = "combine kernels", .has_op = is_combine, .tolerance = 0.10, .slack_us_per_op = 12},
};

/* ---- the student's path (the TODOs of lab.c; the lesson has the same hints) ----------- */

static bool timed_on_gpu(const lab_findings *f, const lab_workload *w) {
    (void)w;
    return f->measured;
}
/* A host clock, or events that do not bracket the combine kernels alone: the facts say
 * which the program used (the "measured" line says what it reported and what ran). */
static int why_timed(const lab_findings *f, const lab_workload *w, char *buf, size_t len) {
    (void)w;
    if (f->elapsed_calls == 0)
        return snprintf(buf, len,
                        "your run reads no event (no cudaEventElapsedTime): the time you report comes from a host "
                        "clock, which times the host: how long the launches took to queue, and around a wait the "
                        "wait and the launch as well, not the kernels on the device");
    return snprintf(buf, len,
                    "your run reads events (cudaEventElapsedTime %d time%s), but what they span is not the combine "
                    "kernels alone: a pair recorded on another stream than the combine's, around more than the "
                    "combine, reused before it was read, or read before both had completed measures something else",
                    f->elapsed_calls, f->elapsed_calls == 1 ? "" : "s");
}
/* No host wait inside the loop but cudaFree's, which waits whatever orders the streams (the
 * harness names it when every step is done: allocate once). A poll of cudaEventQuery or
 * cudaStreamQuery is a host wait; a query that found the work done at once is not. */
static bool ordered_by_events(const lab_findings *f, const lab_workload *w) {
    (void)w;
    return f->host_syncs - f->free_syncs == 0;
}
/* How often the host waited, and the costliest of those waits, named as the program made
 * it (a cudaStreamSynchronize, an event's, a poll). */
static int why_host_orders(const lab_findings *f, const lab_workload *w, char *buf, size_t len) {
    int waits = f->host_syncs - f->free_syncs;
    int n = snprintf(buf, len, "the host waited for the device %d time%s before run() had queued all its work (%d batches)",
                     waits, waits == 1 ? "" : "s", w->batches);
    for (int i = 0; i < f->n_waits && i < LAB_FACT_WAITS && n > 0 && (size_t)n < len; i++) {
        const lab_wait_fact *x = &f->waits[i];
        if (!x->host || !x->in_loop || lab_fact_wait_frees(x)) continue;
        char said[400];
        lab_fact_wait_text(f, x, said, sizeof(said));
        n += snprintf(buf + n, len - (size_t)n, "; the costliest: %s", said);
        break;
    }
    return n;
}

static const lab_step steps[] = {
    {
        .todo = "TODO 1 (time the combine on the GPU)",
        .next = "the time you report for \"combine\" is not what the combine kernels took on the device (the "
                "\"measured\" line). Time each combine kernel with a pair of events recorded on its stream just "
                "before and just after its launch, and add up what cudaEventElapsedTime gives, once they have "
                "completed.",
        .hints =
            {
                "Where is the combine kernel when the call that launches it returns? What does the host clock "
                "around that call measure, then?",
                "A launch normally returns as soon as the kernel is queued. cudaEventRecord puts a marker in a "
                "stream that the GPU timestamps when it gets there; cudaEventElapsedTime(&ms, start, stop) gives "
                "the time between two markers, once both have completed. docs/concepts.md, \"Events: timing and "
                "ordering\".",
                "In setup(): an array of start and stop events (cudaEventCreate), one pair per batch. In run(): "
                "cudaEventRecord(start[b], stream A) just before the combine launch and cudaEventRecord(stop[b], "
                "stream A) just after it. After the final synchronisation, add up cudaEventElapsedTime over the "
                "batches and give that to lab_report_ms.",
            },
        .done = timed_on_gpu,
        .why = why_timed,
    },
    {
        .todo = "TODO 2 (order the streams with events, not the host)",
        .next = "the host waits for the device between stages (the host lane's waits), and each time the device "
                "runs dry until the host queues the next stage. This is the expected state after TODO 1. Order the "
                "streams with events instead, so that the host queues everything and waits once, at the end.",
        .hints =
            {
                "Look at the host lane and at the gaps between the kernels. Who is waiting for whom at each of the "
                "host's waits, and does the host need to wait at all for stream B to start after the upload?",
                "cudaStreamWaitEvent(s, e, 0) makes stream s wait, on the device, for the work before event e in "
                "another stream; the host goes on at once. An event used only for ordering is cheaper created "
                "with cudaEventDisableTiming. docs/concepts.md, \"Events: timing and ordering\".",
                "Two events made in setup() with cudaEventCreateWithFlags(&e, cudaEventDisableTiming). After the "
                "upload: cudaEventRecord(uploaded, A) and cudaStreamWaitEvent(B, uploaded, 0). After producer B: "
                "cudaEventRecord(produced, B) and cudaStreamWaitEvent(A, produced, 0). Keep only the "
                "synchronisation at the end of run().",
            },
        .done = ordered_by_events,
        .why = why_host_orders,
    },
};

const lab_spec LAB_SPEC = {
    .id = LAB_ID, /* from labs/catalog.json (lab_catalog/lab_identity.h) */
    .title = LAB_TITLE,
    .lesson = LAB_LESSON,
    .item = "batch",
    .workload =
        {
            .batches = 32,
            .batch_elems = 64u << 10,
            .batch_bytes = (64u << 10) * sizeof(uint32_t),
            .process = {.mul = 0, .add = 0, .iters = 5000},
            .steps = 1,
        },
    .baseline = &baseline,
    .oracle = oracle,
    .measure_bound = measure_bound,
    .bound_name = "event-ordered bound",
    .bound_label = "bound",
    .metric = LAB_METRIC_SPEEDUP,
    .target_bound_fraction = 0.88,
    .stages = stages,
    .n_stages = (int)(sizeof(stages) / sizeof(stages[0])),
    .steps = steps,
    .n_steps = (int)(sizeof(steps) / sizeof(steps[0])),
};
