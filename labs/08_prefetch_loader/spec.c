/* labs/08_prefetch_loader/spec.c: lab 08's workload, loader, baseline, oracle, bound,
 * steps and pass threshold. Instructor-owned: students edit lab.c, never this file.
 *
 * Workload: 48 batches of 256 Ki uint32 values (1 MiB). The host makes each batch with
 * the harness's loader, lab_load_batch, which costs the batch's load time of host time (a
 * busy wait on a GPU, virtual time on the simulator: it stands for decoding or reading
 * files) and writes the batch into a buffer of the student's; the device uploads it, runs
 * the process kernel over it (about 0.4 ms on an H100 or H200: one wave, every SM full)
 * and downloads the result.
 *
 * The loader's cost varies, as a real one's does (some images decode slowly): batches come
 * in pairs, one quick and one slow, which one drawn from the seed. The costs are set from
 * this device's own time for a batch on one stream (measured first): 0.3 and 1.95 times
 * it, so on every GPU the loader is faster than the device on a quick batch, much slower
 * on a slow one, and 1.125 times slower on average. That is the case prefetching is for:
 * a loader that can be only one batch ahead (one buffer) makes the device wait through
 * every slow load and waits for the device after every quick one; a ring lets the quick
 * loads build up batches that carry the device through the slow ones.
 *
 * The batch size is what makes pinned buffers matter. From a pageable buffer each upload's
 * cudaMemcpyAsync stages the batch through the driver's own pinned memory before it
 * returns, and the loader pays that on every batch: a 1 MiB pageable upload took 104-168
 * us of host time on lent H100s (docs/calibration.md, "Pageable copies"), a fifth to a
 * third of an average load, where a 256 KiB one (this lab's batches before) took 36-49 us,
 * and a ring of pageable buffers reached 87-90% of the bound on an H100 and an H200,
 * within a hair of the target. The loader's own write of a batch (about 115 us for 1 MiB
 * at the 9 GB/s a host memcpy ran at on an H100 machine) stays inside a quick load's
 * 140 us, so its speed cannot change the verdict (with 2 MiB batches and a fixed 300 us
 * load it did); a host that copies 1 MiB slower than that (under 7.5 GB/s) would stretch
 * the quick loads. A program that copies a batch on the host itself pays for it on top of
 * the load, on both backends (the simulator charges a host copy what a lent H200's host
 * spent on it, about 108 us a MiB: docs/calibration.md, "Host copies"): loading into a
 * pageable buffer and then memcpy()ing it into a pinned slot reads 68% here and 69-77% on
 * H200s, below target.
 *
 * The bound: the slower of the loader alone (every batch loaded, nothing else) and the
 * device alone (every batch's upload, kernel and download, the inputs already loaded,
 * pipelined over three streams), both measured on the device in use. No run can be faster
 * than either. On the simulated H200 (seed 7): the device takes 462 us a batch on one
 * stream, so the loads take 139 and 901 us; the loader alone 25.0 ms, the device alone
 * 19.1 ms (its kernels fill the GPU, so three streams overlap only the copies), so the
 * bound is 25.0 ms, 1.90x the baseline's 47.4 ms. The skeleton reaches 53% of it; one
 * buffer waited for with an event (TODO 1) 74%; a ring of two 91-92%, of three 96-97%; a
 * ring of three pageable buffers 61%. The h100 profile gives the same within a point.
 *
 * The target, 80%, sits between a loader that waits for the device after each batch or
 * each upload (at most 74% here, 70-73% on H200s) and every ring of pinned buffers (at
 * least 90% here, 87-94% on H200s, whose host pays more for each call than the
 * simulator charges, about 30 us a batch), and above a ring of pageable buffers (61% here,
 * 61-68% on H200s: each upload stages its batch on the loader's time and waits for one
 * of the driver's two staging slots, sim/pageable_staging.h, and the student's process
 * copies each batch out of the loader's memory and back into memory the referee can read,
 * about 164 us a MiB, docs/referee.md). The quicker a quick load against the device's batch, the longer one
 * buffer keeps the loader waiting after it; with quick loads of 0.45 and slow ones of 1.8
 * (until 2026-11-28) one buffer sat 4.6 points below an 82% target here and the rings of
 * an H100 2-4 points above it. lab08_test checks the verdicts on the simulator. It passes a loader that runs ahead of the device from
 * pinned buffers, and fails one that cannot run ahead or pays for its uploads. The GPU
 * figures are in docs/measured.md ("Lab 08"). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "labs/harness/lab.h"
#include "labs/harness/spec.h"
#include "lab_catalog/lab_identity.h"
#include "labs/harness/spec_baseline.h"
#include "labs/harness/spec_batch.h"
#include "labs/harness/spec_oracle.h"
#include "labs/harness/spec_pinned.h"

/* The loader: batches come in pairs, one of each pair quick to load and the other slow
 * (which one is drawn from the seed), so every seed loads the same total. The costs are
 * multiples of this device's time for one batch on one stream (its upload, kernel and
 * download, measured first by measure_bound), so that on any GPU the loader is faster
 * than the device on a quick batch and much slower on a slow one, and slower on average:
 * 0.3 and 1.95 times, 1.125 on average. */
#define LOAD_QUICK 0.3
#define LOAD_SLOW 1.95

/* This device's time for one batch on one stream, in us: set by measure_bound before any
 * timed run; until then (a load in setup()), the simulated H200's. */
static double device_batch_us = 460.0;

/* splitmix64's finaliser (the harness's generator, lab_mix64): one draw per pair. */
static uint64_t mix64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static double batch_load_us(uint64_t seed, int batch) {
    int slow = (int)(mix64(seed ^ 0x6C6F6164ull ^ ((uint64_t)(batch / 2) << 20)) & 1u); /* "load" */
    return (batch % 2 == slow ? LOAD_SLOW : LOAD_QUICK) * device_batch_us;
}

/* ---- baseline: the skeleton's shape, load, copy, compute, copy back, wait -------------- */

LAB_SPEC_BASELINE(baseline, .stream = "baseline", .loader = true, .sync_each = true);

/* ---- the bound: the loader alone, the device alone, the slower of the two ---------------- */

#define BOUND_STREAMS 3

typedef struct bound_bufs {
    cudaStream_t s[BOUND_STREAMS];
    uint32_t *staging[BOUND_STREAMS];
    uint32_t *d_in[BOUND_STREAMS], *d_out[BOUND_STREAMS];
} bound_bufs;

/* Every batch loaded, one after the other, into the staging buffers: what the loader
 * alone takes, on the host's clock. */
static double loader_alone_ns(lab_ctx *ctx, bound_bufs *p) {
    const lab_workload *w = lab_get_workload(ctx);
    double t0 = lab_host_ms();
    for (int i = 0; i < w->batches; i++)
        if (lab_load_batch(ctx, i, p->staging[i % BOUND_STREAMS]) != 0) return -1;
    return (lab_host_ms() - t0) * 1e6;
}

/* Every batch's upload, kernel and download, from inputs already loaded, over `streams`
 * streams: with three, pipelined (lab 03's reference), what the device alone takes; with
 * one, what it takes on one stream as the skeleton and the reference use it. Timed as a
 * run is, from the host's first call to the return of the last synchronisation. */
static double device_alone_ns(lab_ctx *ctx, bound_bufs *p, int streams) {
    const lab_workload *w = lab_get_workload(ctx);
    double t0 = lab_host_ms();
    for (int i = 0; i < w->batches; i++) {
        int s = i % streams;
        if (lab_spec_batch_enqueue(ctx, p->staging[s], p->d_in[s], p->d_out[s], i, p->s[s]) != 0) return -1;
    }
    for (int s = 0; s < streams; s++)
        if (cudaStreamSynchronize(p->s[s]) != cudaSuccess) return -1;
    return (lab_host_ms() - t0) * 1e6;
}

static int measure_bound(lab_ctx *ctx, lab_bound *out) {
    const lab_workload *w = lab_get_workload(ctx);
    enum { SAMPLES = 3 };
    bound_bufs p;
    memset(&p, 0, sizeof(p));
    double load[SAMPLES], dev[SAMPLES], one[SAMPLES];
    int rc = 1;
    if (lab_spec_pinned_alloc(p.staging, BOUND_STREAMS, w->batch_bytes) != 0) goto out;
    for (int s = 0; s < BOUND_STREAMS; s++) {
        if (cudaStreamCreateWithFlags(&p.s[s], cudaStreamNonBlocking) != cudaSuccess ||
            cudaMalloc((void **)&p.d_in[s], w->batch_bytes) != cudaSuccess ||
            cudaMalloc((void **)&p.d_out[s], w->batch_bytes) != cudaSuccess)
            goto out;
        char name[16];
        snprintf(name, sizeof(name), "bound %c", 'A' + s);
        lab_name_stream(ctx, p.s[s], name);
    }
    /* First the device's time for a batch on one stream, which sets the loader's costs;
     * (the first pass also warms the device up). */
    for (int k = 0; k < SAMPLES; k++)
        if ((one[k] = device_alone_ns(ctx, &p, 1)) <= 0) goto out;
    device_batch_us = lab_spec_median(one, SAMPLES) / 1e3 / w->batches;
    for (int k = 0; k < SAMPLES; k++) {
        load[k] = loader_alone_ns(ctx, &p);
        dev[k] = device_alone_ns(ctx, &p, BOUND_STREAMS);
        if (load[k] <= 0 || dev[k] <= 0) goto out;
    }
    double loader = lab_spec_median(load, SAMPLES), device = lab_spec_median(dev, SAMPLES);
    out->ideal_ns = loader > device ? loader : device;
    snprintf(out->detail, sizeof(out->detail),
             "the %s is the slower side: the loader alone takes %.3f ms (%.0f us a batch on average: quick batches "
             "%.0f us, slow ones %.0f), the device alone %.3f ms (%.0f us a batch; %.0f on one stream)",
             loader >= device ? "loader" : "device", loader / 1e6, loader / 1e3 / w->batches,
             LOAD_QUICK * device_batch_us, LOAD_SLOW * device_batch_us, device / 1e6, device / 1e3 / w->batches,
             device_batch_us);
    out->figures_key = "loader_us";
    lab_bound_add(out, "loader_all", loader / 1e3);
    lab_bound_add(out, "device_all", device / 1e3);
    lab_bound_add(out, "loader_per_batch", loader / 1e3 / w->batches);
    lab_bound_add(out, "device_per_batch", device / 1e3 / w->batches);
    lab_bound_add(out, "device_one_stream_per_batch", device_batch_us);
    lab_bound_add(out, "load_quick_us", LOAD_QUICK * device_batch_us);
    lab_bound_add(out, "load_slow_us", LOAD_SLOW * device_batch_us);
    rc = 0;
out:
    cudaDeviceSynchronize();
    lab_spec_pinned_free(p.staging, BOUND_STREAMS);
    for (int s = 0; s < BOUND_STREAMS; s++) {
        cudaFree(p.d_in[s]);
        cudaFree(p.d_out[s]);
        if (p.s[s]) cudaStreamDestroy(p.s[s]);
    }
    return rc;
}

/* ---- the student's path (the TODOs of lab.c; the lesson has the same hints) ----------- */

/* TODO 1: the host no longer waits for whole batches (no stream or device synchronisation
 * before the last work is queued), and its writes are ordered after the uploads. */
static bool waits_for_uploads_only(const lab_findings *f, const lab_workload *w) {
    (void)w;
    return f->stream_syncs == 0 && f->race_free && f->correct;
}
/* A host wait for the whole stream or the device inside the loop, or NULL. */
static const lab_wait_fact *whole_batch_wait(const lab_findings *f) {
    for (int i = 0; i < f->n_waits; i++) {
        const lab_wait_fact *x = &f->waits[i];
        if (x->host && x->in_loop && (x->sync == TRACE_SYNC_STREAM || x->sync == TRACE_SYNC_DEVICE)) return x;
    }
    return NULL;
}
/* The host's first wait on an event inside the loop, or NULL. */
static const lab_wait_fact *event_wait(const lab_findings *f) {
    for (int i = 0; i < f->n_waits; i++)
        if (f->waits[i].host && f->waits[i].in_loop && f->waits[i].sync == TRACE_SYNC_EVENT) return &f->waits[i];
    return NULL;
}
static int why_uploads_only(const lab_findings *f, const lab_workload *w, char *buf, size_t len) {
    (void)w;
    const lab_wait_fact *x = whole_batch_wait(f);
    if (!x) {
        if (f->race_free && f->correct) return 0;
        const lab_wait_fact *e = event_wait(f);
        if (!e)
            return snprintf(buf, len,
                            "nothing in your loop makes the loader wait before it writes a pinned buffer again: an "
                            "upload that still reads it may get the next batch's data (see the races)");
        /* It waits on events, and they do not order the loads after the uploads: say why,
         * from the races. */
        char at[160];
        lab_fact_line_note(e->line, " at ", "", at, sizeof(at));
        if (f->early_records > 0) {
            char ev[48] = "that event", rec[160];
            if (f->early_event[0]) snprintf(ev, sizeof(ev), "event \"%s\"", f->early_event);
            lab_fact_line_note(f->early_record_line, " at ", "", rec, sizeof(rec));
            return snprintf(buf, len,
                            "your loader waits on an event before it loads (%s%s), but %s is recorded%s before the "
                            "upload it should mark: the wait is over before that upload has read the buffer, and "
                            "the next load into it may overwrite what the upload still reads (see the races)",
                            e->call, at, ev, rec);
        }
        if (f->late_waits > 0) {
            char late[160];
            lab_fact_line_note(f->late_wait_line, " at ", "", late, sizeof(late));
            return snprintf(buf, len,
                            "your loader waits on the upload's event (%s%s) only after the load it should come "
                            "before: the load may overwrite a buffer an upload still reads (see the races)",
                            e->call, late);
        }
        return snprintf(buf, len,
                        "your loader waits on events (%s%s), and still it writes a pinned buffer an upload may "
                        "read: each race says which wait or record does not order it",
                        e->call, at);
    }
    char at[160];
    lab_fact_line_note(x->line, " at ", "", at, sizeof(at));
    return snprintf(buf, len,
                    "%s%s waits for the whole batch %d time%s before the next load (%.1f ms in all): while it "
                    "waits, the loader loads nothing (the host lane's waits)",
                    x->call, at, x->times, x->times == 1 ? "" : "s", x->held_ms);
}

/* The ring: how many pinned buffers the uploads read. No upload seen: the speed. */
static bool runs_ahead(const lab_findings *f, const lab_workload *w) {
    (void)w;
    if (f->h2d_sources == 0) return f->reached;
    return f->h2d_sources >= 2;
}
static int why_ring(const lab_findings *f, const lab_workload *w, char *buf, size_t len) {
    (void)w;
    /* Uploads from pageable memory all read the driver's staging (and, refereed, the
     * referee's), so their sources say nothing of the student's buffers. */
    if (f->pageable_copies > 0)
        return snprintf(buf, len,
                        "%d of your copies came from pageable memory (malloc): each upload stages its batch through "
                        "the driver's own pinned buffers on the loader's time, and with two staged uploads still "
                        "queued the next waits for the first to be copied, so the loader cannot run ahead: a ring "
                        "of pinned buffers (cudaMallocHost) can",
                        f->pageable_copies);
    if (f->h2d_sources != 1) return 0;
    return snprintf(buf, len, "your uploads read one pinned buffer: the loader writes every batch into it, so it can "
                              "be only one batch ahead of the device. After a quick load it waits for the device "
                              "to take the buffer (the waits in the host lane), and during a slow load the device, "
                              "with nothing loaded, sits idle (the gaps in the device lane)");
}

/* Both steps done and the target missed: a wait that keeps the loader from getting ahead. */
static int beyond(const lab_findings *f, const lab_workload *w, char *buf, size_t len) {
    (void)w;
    const lab_wait_fact *x = lab_fact_costly_wait(f);
    if (!x) return 0;
    char said[400];
    lab_fact_wait_text(f, x, said, sizeof(said));
    if (x->sync == TRACE_SYNC_EVENT)
        return snprintf(buf, len,
                        "%s. Your ring has %d buffers, and still the loader waits for an upload it has only just "
                        "queued, so it never gets ahead of the device. Wait on buffer k's event just before loading "
                        "into buffer k again, a lap of the ring later.",
                        said, f->h2d_sources);
    return snprintf(buf, len, "%s: while the loader waits, nothing is loaded ahead. Wait only for the buffer you are "
                              "about to load into.",
                    said);
}

static const lab_step steps[] = {
    {
        .todo = "TODO 1 (wait for the upload, not for the whole batch)",
        .next = "the loader needs only a buffer's upload to be over before it writes that buffer again. Record "
                "an event right after each upload and wait on it (cudaEventSynchronize) just before the next "
                "lab_load_batch into that buffer: that wait orders the load after the upload, and it is the only "
                "wait the loop needs (no cudaStreamSynchronize or cudaDeviceSynchronize inside it).",
        .hints =
            {
                "Look at the host lane and the stream's lane: while the host loads batch 5, what is the device "
                "doing, and while the device works on batch 5, what is the host doing? Which of the device's work "
                "does the loader really have to wait for before it writes the buffer again?",
                "The copy engine reads a pinned buffer while the upload runs, so the host must not write it until "
                "the upload has finished, and that is all it must wait for: the kernel and the download use device "
                "memory and the output buffer. An event recorded after the upload completes exactly then; "
                "cudaEventSynchronize waits for it and no more. docs/concepts.md, \"Events: timing and ordering\".",
                "An event for the buffer, made in setup() (cudaEventCreateWithFlags, cudaEventDisableTiming). In "
                "run(): cudaEventSynchronize on it just before lab_load_batch, cudaEventRecord on the stream right "
                "after the upload, and the cudaStreamSynchronize inside the loop gone (the one after the loop "
                "stays).",
            },
        .done = waits_for_uploads_only,
        .why = why_uploads_only,
    },
    {
        .todo = "TODO 2 (a ring of pinned buffers)",
        .next = "the loader gets ahead of the device only as far as it has pinned buffers to load into (one "
                "pinned buffer, freed by its event, is the expected state after TODO 1). Give the loader a ring of "
                "pinned buffers (cudaMallocHost), each with its own event, and load batch i into buffer i % RING: "
                "the batches it loads ahead during the quick loads keep the device busy through the slow ones.",
        .hints =
            {
                "After TODO 1, find a quick load followed by a slow one: what does the host do once the quick "
                "load is over, and what does the device do during the slow one? Where could the loader have put "
                "the next batch while the device still had the last one?",
                "With a ring of buffers the loader writes buffer i % RING while the uploads of the batches before "
                "it read the others; it waits only when it has lapped the ring, that is when it is RING batches "
                "ahead of the uploads. The batches it loads ahead while loads are quick are what the device works "
                "on while a load is slow. This is prefetching: tf.data's prefetch(n) and PyTorch's DataLoader with "
                "pin_memory keep a few batches ready in the same way. The lesson's \"A ring of pinned buffers\".",
                "RING set to 2 or 3, with the buffers and the events as arrays of RING (each buffer cudaMallocHost'd "
                "and each event made in setup(), and freed in teardown()); batch i uses buffer and event i % RING.",
            },
        .done = runs_ahead,
        .why = why_ring,
    },
};

const lab_spec LAB_SPEC = {
    .id = LAB_ID, /* from labs/catalog.json (lab_catalog/lab_identity.h) */
    .title = LAB_TITLE,
    .lesson = LAB_LESSON,
    .item = "batch",
    .workload =
        {
            .batches = 48,
            .batch_elems = 256u << 10,
            .batch_bytes = (256u << 10) * sizeof(uint32_t),
            .process = {.mul = 0, .add = 0, .iters = 25000},
        },
    .baseline = &baseline,
    .oracle = lab_spec_oracle_steps,
    .measure_bound = measure_bound,
    .bound_name = "loader bound",
    .bound_label = "bound",
    .metric = LAB_METRIC_SPEEDUP,
    .target_bound_fraction = 0.80,
    .steps = steps,
    .n_steps = (int)(sizeof(steps) / sizeof(steps[0])),
    .beyond = beyond,
    .batch_load_us = batch_load_us,
};
