/* labs/00_default_stream/spec.c: lab 00's workload, baseline, oracle, bound and pass
 * threshold. Instructor-owned: students edit lab.c, never this file.
 *
 * Workload: 4 independent tasks. Each copies 2048 uint32 values (8 KiB) in, runs them
 * through the process kernel 4 times in place (8 blocks of 256 threads each, 250,000
 * iterations per element: 0.58 ms per kernel on an H200, 0.57 on the simulated one), and
 * copies them out. A kernel of 8 blocks leaves 124 of an H200's 132 SMs idle, so the four
 * tasks fit on the device at once: one task takes 2.3 ms, all four at once 2.4-2.5 ms,
 * and one after the other 9.3 ms (docs/measured.md). Between tasks the program clears
 * a small statistics block on the legacy default stream (a memset with stream 0, as real
 * code does); on streams made with cudaStreamCreate that one memset makes every task wait
 * for the one before.
 *
 * The bound is the time of all four tasks at once, each on its own non-blocking stream,
 * measured on this device: 3.7-3.9x the sequential baseline. The target, 60% of it,
 * fails streams that still synchronise with stream 0 (1.0x), and two streams shared by
 * the four tasks (2.0x, 51%); a stream per task that stream 0 does not hold back passes
 * (95-100%). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "labs/harness/lab.h"
#include "labs/harness/spec.h"
#include "lab_catalog/lab_identity.h"
#include "labs/harness/spec_baseline.h"
#include "labs/harness/spec_batch.h"
#include "labs/harness/spec_oracle.h"

#define MAX_TASKS 64
/* The statistics block the bookkeeping memset clears (bytes). */
#define STATS_BYTES 4096

/* ---- baseline: everything on the legacy default stream, as the skeleton is, with the
 * bookkeeping memset after each task; oracle: the process kernel applied steps times ------ */

LAB_SPEC_BASELINE(baseline, .in_place = true, .memset_bytes = STATS_BYTES);

/* ---- the bound: every task at once, each on its own non-blocking stream --------------- */

typedef struct bound_bufs {
    int tasks;
    cudaStream_t s[MAX_TASKS];
    cudaEvent_t done[MAX_TASKS];
    cudaEvent_t start, end;
    uint32_t *d[MAX_TASKS];
} bound_bufs;

static int enqueue_task(lab_ctx *ctx, uint32_t *d, int t, cudaStream_t s) {
    return lab_spec_batch_enqueue(ctx, lab_input(ctx, t), d, d, t, s);
}

/* One task alone (on the first stream), in ns; < 0 on error. */
static double time_one(lab_ctx *ctx, bound_bufs *b) {
    if (cudaEventRecord(b->start, b->s[0]) != cudaSuccess) return -1;
    if (enqueue_task(ctx, b->d[0], 0, b->s[0]) != 0) return -1;
    if (cudaEventRecord(b->end, b->s[0]) != cudaSuccess) return -1;
    return lab_spec_elapsed_ns(b->start, b->end);
}

/* Every task at once: each stream starts after the first stream's start marker, and the
 * first stream's end marker waits for every stream. */
static double time_all(lab_ctx *ctx, bound_bufs *b) {
    if (cudaEventRecord(b->start, b->s[0]) != cudaSuccess) return -1;
    for (int t = 1; t < b->tasks; t++)
        if (cudaStreamWaitEvent(b->s[t], b->start, 0) != cudaSuccess) return -1;
    for (int t = 0; t < b->tasks; t++) {
        if (enqueue_task(ctx, b->d[t], t, b->s[t]) != 0) return -1;
        if (cudaEventRecord(b->done[t], b->s[t]) != cudaSuccess) return -1;
    }
    for (int t = 1; t < b->tasks; t++)
        if (cudaStreamWaitEvent(b->s[0], b->done[t], 0) != cudaSuccess) return -1;
    if (cudaEventRecord(b->end, b->s[0]) != cudaSuccess) return -1;
    return lab_spec_elapsed_ns(b->start, b->end);
}

static int measure_bound(lab_ctx *ctx, lab_bound *out) {
    const lab_workload *w = lab_get_workload(ctx);
    enum { SAMPLES = 3 };
    bound_bufs b;
    memset(&b, 0, sizeof(b));
    b.tasks = w->batches < MAX_TASKS ? w->batches : MAX_TASKS;
    double one[SAMPLES], all[SAMPLES];
    int rc = 1;
    if (cudaEventCreate(&b.start) != cudaSuccess || cudaEventCreate(&b.end) != cudaSuccess) goto out;
    for (int t = 0; t < b.tasks; t++) {
        char name[32];
        if (cudaStreamCreateWithFlags(&b.s[t], cudaStreamNonBlocking) != cudaSuccess ||
            cudaEventCreateWithFlags(&b.done[t], cudaEventDisableTiming) != cudaSuccess ||
            cudaMalloc((void **)&b.d[t], w->batch_bytes) != cudaSuccess)
            goto out;
        snprintf(name, sizeof(name), "bound %d", t);
        lab_name_stream(ctx, b.s[t], name);
    }
    for (int k = 0; k < SAMPLES; k++) {
        one[k] = time_one(ctx, &b);
        all[k] = time_all(ctx, &b);
        if (one[k] <= 0 || all[k] <= 0) goto out;
    }
    double t_one = lab_spec_median(one, SAMPLES), t_all = lab_spec_median(all, SAMPLES);
    /* How many tasks the device ran at once, as the two times say. */
    double at_once = t_all > 0 ? (double)b.tasks * t_one / t_all : 0;
    out->ideal_ns = t_all;
    if (at_once >= 0.9 * b.tasks)
        snprintf(out->detail, sizeof(out->detail),
                 "all %d tasks at once take %.2f ms, one alone %.2f ms: the device has room for all %d at once",
                 b.tasks, t_all / 1e6, t_one / 1e6, b.tasks);
    else
        snprintf(out->detail, sizeof(out->detail),
                 "all %d tasks at once take %.2f ms, one alone %.2f ms: the device has room for about %.1f at once",
                 b.tasks, t_all / 1e6, t_one / 1e6, at_once);
    out->figures_key = "tasks_us";
    lab_bound_add(out, "one_task", t_one / 1e3);
    lab_bound_add(out, "all_tasks", t_all / 1e3);
    lab_bound_add(out, "tasks_at_once", at_once);
    rc = 0;
out:
    cudaDeviceSynchronize();
    for (int t = 0; t < b.tasks; t++) {
        cudaFree(b.d[t]);
        if (b.done[t]) cudaEventDestroy(b.done[t]);
        if (b.s[t]) cudaStreamDestroy(b.s[t]);
    }
    if (b.start) cudaEventDestroy(b.start);
    if (b.end) cudaEventDestroy(b.end);
    return rc;
}

/* ---- the student's path (the TODOs of lab.c; the lesson has the same hints) ----------- */

static bool own_streams(const lab_findings *f, const lab_workload *w) { return f->streams_used >= w->batches; }
/* No stream-0 operation held a stream back. One that only waited for a stream (the memset
 * after the last task on a blocking stream, or after a task on cudaStreamPerThread that no
 * later task uses) delayed none of the tasks. */
static bool not_held_back(const lab_findings *f, const lab_workload *w) {
    (void)w;
    return f->stalls_held == 0;
}
/* Nothing of a stream was still running when run() returned, and the host read no result
 * before a wait had ordered it after its stream's work (the race checker's host reads, in
 * every run: a wait that covers the streams only by luck of timing fails it). Wrong or
 * racy results for another reason, buffers the streams share, are not this step's. */
static bool waits_for_all(const lab_findings *f, const lab_workload *w) {
    (void)w;
    return f->busy_at_return == 0 && f->early_reads == 0;
}

/* Which streams the tasks' kernels went to: what TODO 1 finds. */
static int why_own_streams(const lab_findings *f, const lab_workload *w, char *buf, size_t len) {
    int with = 0, kernels = 0;
    const lab_stream_fact *first = NULL;
    for (int i = 0; i < f->n_streams; i++)
        if (f->streams[i].kernels > 0) {
            with++;
            kernels += f->streams[i].kernels;
            if (!first) first = &f->streams[i];
        }
    if (!first) return 0;
    /* 0 in a file compiled with CUDA_API_PER_THREAD_DEFAULT_STREAM (the lesson's "The same
     * pattern elsewhere"): the per-thread default stream, still one queue. */
    if (with == 1 && first->per_thread)
        return snprintf(buf, len,
                        "your %d tasks' %d kernels all go to the per-thread default stream (%s: "
                        "cudaStreamPerThread, which 0 names in a file compiled with "
                        "CUDA_API_PER_THREAD_DEFAULT_STREAM), not the legacy one; it too is one stream, and the "
                        "tasks queued on it run one after another",
                        w->batches, kernels, first->label);
    if (with == 1)
        return snprintf(buf, len, "your %d tasks' %d kernels all go to one stream, %s", w->batches, kernels,
                        first->label);
    return snprintf(buf, len, "your %d tasks' kernels go to %d streams, not one each", w->batches, with);
}

/* A stream's name as the report writes it: "\"task 0\"", or s3 when unnamed. */
static const char *stream_label(const lab_findings *f, int32_t id, char *buf, size_t len) {
    const lab_stream_fact *s = lab_fact_stream(f, id);
    if (s) return s->label;
    snprintf(buf, len, id == TRACE_STREAM_LEGACY ? "stream 0" : "s%d", (int)id);
    return buf;
}

/* The streams whose results the host read before anything had waited for them, in words:
 * "\"task 0\", \"task 1\" and \"task 2\"". Returns how many there are. */
static int early_streams(const lab_findings *f, char *buf, size_t len) {
    size_t at = 0;
    buf[0] = '\0';
    int n = f->n_early_read_streams;
    for (int i = 0; i < n && at < len; i++) {
        char own[32];
        const char *label = stream_label(f, f->early_read_streams[i], own, sizeof(own));
        at += (size_t)snprintf(buf + at, len - at, "%s%s", i == 0 ? "" : i == n - 1 ? " and " : ", ", label);
    }
    return n;
}

/* How run() ends: the waits it makes there, what the one it leans on waits for, and the
 * streams it left running or whose results were read before anything waited for them. */
static int why_waits_for_all(const lab_findings *f, const lab_workload *w, char *buf, size_t len) {
    (void)w;
    const lab_wait_fact *end = NULL;
    int final_waits = 0;
    for (int i = 0; i < f->n_waits; i++)
        if (f->waits[i].host && !f->waits[i].in_loop) {
            final_waits++;
            if (!end) end = &f->waits[i]; /* the waits are sorted: the one that held longest */
        }
    char whose[256];
    int early = early_streams(f, whose, sizeof(whose));
    /* What was left when run() returned. */
    char left[400] = "";
    if (f->busy_at_return > 0)
        snprintf(left, sizeof(left), "%d of your streams still had work when it returned", f->busy_at_return);
    else if (early > 0)
        snprintf(left, sizeof(left), "nothing had waited for the work of %s when %s results were read", whose,
                 early == 1 ? "its" : "their");
    if (!left[0]) return 0;
    if (!end) return snprintf(buf, len, "run() returns without waiting for the device: %s", left);
    char at[160];
    lab_fact_line_note(end->line, " at ", "", at, sizeof(at));
    char ends[320];
    if (final_waits > 1)
        snprintf(ends, sizeof(ends), "run() ends with %d waits, the longest %s%s", final_waits, end->call, at);
    else
        snprintf(ends, sizeof(ends), "run() ends with %s%s", end->call, at);
    if (end->sync == TRACE_SYNC_STREAM && end->stream == TRACE_STREAM_LEGACY)
        return snprintf(buf, len,
                        "%s, and %s. This is the expected state after TODO 2: streams that do not wait for stream 0 "
                        "are not waited for by cudaStreamSynchronize(0) either",
                        ends, left);
    if (end->sync == TRACE_SYNC_EVENT && end->record_stream >= 0) {
        char own[32];
        return snprintf(buf, len,
                        "%s, which waits only for what was queued on %s before its event's last record: %s",
                        ends, stream_label(f, end->record_stream, own, sizeof(own)), left);
    }
    return snprintf(buf, len, "%s, and %s", ends, left);
}

/* Every step done, and wrong or racy: tasks whose streams write one buffer (the skeleton
 * gives each task its own, d_data[t]). Copies or kernels, not the memset: the memset on
 * every task stream, clearing one block, is a mistake of its own (the lesson's "Mistakes
 * worth making once"), which the race report's fix answers. */
static int beyond(const lab_findings *f, const lab_workload *w, char *buf, size_t len) {
    (void)w;
    unsigned data = (1u << TRACE_OP_COPY) | (1u << TRACE_OP_KERNEL);
    if (f->race_free || f->shared_buffers == 0 || !(f->shared_writers & data)) return 0;
    return snprintf(buf, len,
                    "your streams share device buffers: %d buffer%s written by the copies or kernels of more than "
                    "one stream, and nothing orders those writes (the races above), so one task can overwrite "
                    "another's values. Give each task a buffer of its own, allocated in setup(), so that the "
                    "streams share nothing and still overlap.",
                    f->shared_buffers, f->shared_buffers == 1 ? " is" : "s are");
}

static const lab_step steps[] = {
    {
        .todo = "TODO 1 (a stream per task)",
        .next = "the tasks share a stream (the skeleton puts every one on stream 0, the legacy default stream: "
                "one queue), so each waits for the one before, although each leaves most of the GPU idle. Give task "
                "t its own stream, made in setup(), and queue all of its work on it.",
        .hints =
            {
                "The four tasks share no data. What keeps the GPU from running them at the same time, and what "
                "would a task need so that it does not queue behind the others?",
                "Work in one stream runs in order; work in different streams may overlap. Each task needs its own "
                "stream: made once in setup(), used for all of that task's copies and kernels. docs/concepts.md, "
                "\"Streams are in-order queues\".",
                "In setup(), for each task t: cudaStreamCreate(&streams[t]) and lab_name_stream(ctx, streams[t], "
                "\"task t\"). In run(), the stream s that task t's copies and kernels are queued on is streams[t], "
                "not 0.",
            },
        .done = own_streams,
        .why = why_own_streams,
    },
    {
        .todo = "TODO 2 (streams that stream 0 cannot hold back)",
        .next = "each task has its own stream now, and still tasks run one after another: the memset on stream 0 "
                "between two tasks waits for the one before and holds back the next (the report's \"stream 0\" "
                "lines). Make your streams independent of stream 0; leave the memset where it is.",
        .hints =
            {
                "Look at the stream 0 lane and at the report's \"stream 0\" line. What does the memset on stream "
                "0 wait for, and what waits for it?",
                "The legacy default stream synchronises with every blocking stream: it waits for their earlier work "
                "and their later work waits for it. Streams from cudaStreamCreate are blocking; streams created "
                "with the cudaStreamNonBlocking flag are not. docs/concepts.md, \"The legacy default stream\".",
                "Create each task's stream with cudaStreamCreateWithFlags, passing cudaStreamNonBlocking as the "
                "flags, instead of cudaStreamCreate.",
            },
        .done = not_held_back,
    },
    {
        .todo = "TODO 3 (wait for every stream)",
        .next = "the harness reads your results as soon as run() returns, and some of them came from streams "
                "that nothing in run() had waited for: they may not have been written yet (the \"host read "
                "before completion\" races). Wait for each of your streams before run() returns.",
        .hints =
            {
                "What does the wait at the end of run() wait for? cudaStreamSynchronize(0) waits for stream 0, "
                "an event's wait for the work before its last record. Which of your streams does it still wait "
                "for, now that they are non-blocking?",
                "A non-blocking stream does not synchronise with stream 0, in either direction: waiting for stream "
                "0 no longer waits for it. Nor does waiting on an event recorded on one stream wait for another. "
                "Wait for each stream that has work, before run() returns. docs/concepts.md, \"What makes the "
                "host wait\".",
                "At the end of run(), a loop over the tasks that calls cudaStreamSynchronize on each task's stream, "
                "instead of (or after) the wait that is there (the skeleton's cudaStreamSynchronize(0)).",
            },
        .done = waits_for_all,
        .why = why_waits_for_all,
    },
};

const lab_spec LAB_SPEC = {
    .id = LAB_ID, /* from labs/catalog.json (lab_catalog/lab_identity.h) */
    .title = LAB_TITLE,
    .lesson = LAB_LESSON,
    .item = "task",
    .workload =
        {
            .batches = 4,
            .batch_elems = 2048,
            .batch_bytes = 2048 * sizeof(uint32_t),
            .process = {.mul = 0, .add = 0, .iters = 250000},
            .steps = 4,
        },
    .baseline = &baseline,
    .oracle = lab_spec_oracle_steps,
    .measure_bound = measure_bound,
    .bound_name = "concurrency bound",
    .bound_label = "bound",
    .metric = LAB_METRIC_SPEEDUP,
    .target_bound_fraction = 0.60,
    .steps = steps,
    .n_steps = (int)(sizeof(steps) / sizeof(steps[0])),
    .beyond = beyond,
};
