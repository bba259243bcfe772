/* labs/06_stream_pool/spec.c: lab 06's requests, baseline, oracle, bound, steps and pass
 * threshold. Instructor-owned: students edit lab.c, never this file.
 *
 * Workload: 32 independent inference-like requests. The first arrives 0.1 ms after run()
 * starts, then one every 50 us (the harness decides; a request's input exists only from
 * its arrival). Each is 32 KiB up, two process kernels over it (32 blocks of 256 threads,
 * 22,500 iterations each: about 60 us a kernel, three quarters of the device's SMs left
 * idle, as a small-batch inference kernel leaves them), and 32 KiB down: about 0.13 ms
 * alone. The metric is the 99th percentile of the requests' latencies, from arrival to the
 * end of the download; the report and --json also give the throughput (requests a
 * millisecond, from the first arrival to the last download's end).
 *
 * Served one at a time on one stream (the skeleton and the baseline), a request takes
 * about 130 us and one arrives every 50 us: the queue grows by 80 us a request, and the
 * last of 32 waits 2.5 ms. A pool of streams with a buffer set each serves several at
 * once: their kernels share the SMs that one request leaves idle, and their copies go
 * between the kernels, so the device keeps up and each request takes about as long as
 * alone.
 *
 * Why so few, long kernels: the host must queue a request (four calls, and in a timed run
 * on a GPU the CUDA event that times each) before the next arrives. With three 30 us
 * kernels and a request every 40 us it could not on a lent H100: its requests waited
 * 0.2-0.6 ms on the host and the reference's figure swung from 14% to 74% of the bound
 * between runs (docs/measured.md, "Lab 06"). The same device time in two kernels, with a
 * request every 50 us, leaves the host a third of each gap to spare.
 *
 * The bound is one request alone on an idle device, measured here (as lab 04's). Figures
 * on the simulated H200 (seed 7, the tests' figures): the bound 0.129 ms; the skeleton's
 * p99 2.52 ms (5% of the bound), serving 7.9 requests a ms while 20 arrive; a pool of two
 * streams 0.54 ms (24%: two at once serve about one request every 65 us, slower than they
 * arrive, so the queue still grows); a pool of four that waits for the device after each
 * request 2.68 ms (5%); the reference, four streams with a buffer set each, 0.130 ms (99%,
 * 19 requests a ms); eight streams sharing four buffer sets through events 99%.
 *
 * On real GPUs (docs/measured.md, "Lab 06"; seeds 21-23, medians of 9 runs) every binary
 * gives the simulator's verdict: the reference 74-89% of the bound on a lent H100 and
 * 65-79% on a lent H200, eight streams with events 71-85% and 58-71%, a pool of two
 * 21-23% on both, the skeleton and a device sync per request about 5%. The target, 35% (a
 * p99 within about three times a request alone), sits between the pools that keep up and
 * those that fall behind, with a wide margin on each side. The threshold is the same
 * fraction on every device; the bound is measured on the one in use.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "labs/harness/lab.h"
#include "labs/harness/spec.h"
#include "lab_catalog/lab_identity.h"
#include "labs/harness/spec_baseline.h"
#include "labs/harness/spec_oracle.h"
#include "labs/harness/spec_request.h"

/* ---- baseline: the skeleton, one request at a time on one stream, each up, `steps`
 * kernels (the first from d_in to d_out, the others in place), down ----------------------- */

LAB_SPEC_BASELINE(baseline, .stream = "baseline server", .requests = true);

/* ---- the bound: one request alone on an idle device ------------------------------------- */

static int measure_bound(lab_ctx *ctx, lab_bound *out) {
    const lab_workload *w = lab_get_workload(ctx);
    if (lab_spec_request_bound(ctx, out) != 0) return 1;
    double every_us = LAB_SPEC.request_every_us;
    snprintf(out->detail, sizeof(out->detail),
             "one request alone on an idle device takes %.3f ms (up, %d kernels, down); one arrives every %.3f ms, so "
             "about %.1f are in flight at once when each is served as fast as alone",
             out->ideal_ns / 1e6, w->steps, every_us / 1e3, out->ideal_ns / 1e3 / every_us);
    lab_bound_add(out, "arrival_every", every_us);
    lab_bound_add(out, "in_flight", out->ideal_ns / 1e3 / every_us);
    return 0;
}

/* ---- the student's path (the TODOs of lab.c; the lesson has the same hints) ----------- */

static bool uses_a_pool(const lab_findings *f, const lab_workload *w) {
    (void)w;
    return f->streams_used >= 2;
}
/* The facts of TODO 2: buffers the pool's streams share, and what orders their reuse. */
static int request_streams(const lab_findings *f) {
    int n = 0;
    for (int i = 0; i < f->n_streams; i++) n += f->streams[i].requests > 0;
    return n;
}

/* An event that orders a buffer set's next user after its last: recorded after the
 * download (what reads d_out last), waited on before the next upload or kernel. */
static bool reuse_ordered(const lab_findings *f) {
    return lab_fact_order(f, TRACE_OP_COPY, TRACE_COPY_D2H, TRACE_OP_KIND_COUNT, TRACE_COPY_NONE) != NULL;
}

/* run()'s final host waits: how many of the streams that carried requests they cover
 * (all of them for a wait on the device), and the first wait's fact. */
static int streams_waited_for(const lab_findings *f, const lab_wait_fact **first) {
    *first = NULL;
    int covered = 0;
    for (int i = 0; i < f->n_waits; i++) {
        const lab_wait_fact *x = &f->waits[i];
        if (!x->host || x->in_loop) continue;
        if (!*first) *first = x;
        if (x->sync == TRACE_SYNC_DEVICE) return request_streams(f);
        const lab_stream_fact *s = lab_fact_stream(f, x->stream);
        if (s && s->requests > 0) covered += x->times; /* one line over the pool: once a stream */
    }
    return covered;
}

static bool keeps_up(const lab_findings *f, const lab_workload *w) {
    (void)w;
    if (!f->correct || !f->race_free) return false;
    return f->shared_buffers == 0 || reuse_ordered(f);
}

static int why_pool(const lab_findings *f, const lab_workload *w, char *buf, size_t len) {
    (void)w;
    for (int i = 0; i < f->n_streams; i++)
        if (f->streams[i].requests > 0)
            return snprintf(buf, len, "all %d of your requests' copies and kernels go to one stream, %s",
                            f->streams[i].requests, f->streams[i].label);
    return 0;
}

static int why_sets(const lab_findings *f, const lab_workload *w, char *buf, size_t len) {
    (void)w;
    const lab_stream_fact *legacy = lab_fact_stream(f, 0);
    if (legacy && legacy->requests > 0) {
        const lab_wait_fact *copy = NULL;
        for (int i = 0; i < f->n_waits && !copy; i++)
            if (f->waits[i].host && !strncmp(f->waits[i].call, "cudaMemcpy", 10)) copy = &f->waits[i];
        char at[160] = "";
        if (copy && copy->line[0]) snprintf(at, sizeof(at), " (%s at %s)", copy->call, lab_fact_short_line(copy->line));
        return snprintf(buf, len,
                        "%d of your requests' copies%s go to stream 0, the legacy default stream: it does not wait "
                        "for your non-blocking pool streams, so a download there may read d_out before the kernel "
                        "has written it, and each such copy holds the host until it is done. Use cudaMemcpyAsync on "
                        "the request's stream",
                        legacy->requests, at);
    }
    const lab_order_fact *kernel = lab_fact_order(f, TRACE_OP_KERNEL, TRACE_COPY_NONE, TRACE_OP_KIND_COUNT,
                                                  TRACE_COPY_NONE);
    if (!f->race_free && f->shared_buffers > 0 && kernel && !reuse_ordered(f)) {
        char at[160];
        lab_fact_line_note(kernel->record_line, " (", ")", at, sizeof(at));
        return snprintf(buf, len,
                        "the event a buffer set's next user waits on is recorded after the kernel%s, not after "
                        "the download: the download may still read d_out when the next request's kernel writes it",
                        at);
    }
    if (!f->race_free && f->shared_buffers > 0 && f->late_waits > 0) {
        char at[160];
        lab_fact_line_note(f->late_wait_line, " (", ")", at, sizeof(at));
        return snprintf(buf, len,
                        "your pool hands its buffer sets from stream to stream with an event, but the wait on it%s "
                        "comes after work on the set it should hold back (the races say which): a wait holds back "
                        "only what is queued on its stream after it, so the upload may overwrite d_in while the "
                        "set's last user still reads it. Issue the wait before the set's first use, the upload",
                        at);
    }
    if (!f->race_free && f->shared_buffers > 0)
        return snprintf(buf, len,
                        "the %d streams of your pool share %d device buffers, and nothing orders one request's use "
                        "of a buffer after another's on another stream (with one set for the whole pool, this is "
                        "the expected state after TODO 1)",
                        request_streams(f), f->shared_buffers);
    const lab_wait_fact *last;
    int covered = streams_waited_for(f, &last);
    if ((!f->correct || !f->race_free) && covered < request_streams(f)) {
        if (!last) return snprintf(buf, len, "run() returns without waiting for the streams of your pool");
        char at[160];
        lab_fact_line_note(last->line, " at ", "", at, sizeof(at));
        return snprintf(buf, len,
                        "run() ends waiting for %d of the %d streams your requests went to (%s%s): the others may "
                        "still be downloading when the harness reads the results",
                        covered, request_streams(f), last->call, at);
    }
    return 0;
}

/* Both steps done and the target missed: a wait that serialises the requests, or a pool
 * too small for the requests in flight. */
static int beyond(const lab_findings *f, const lab_workload *w, char *buf, size_t len) {
    (void)w;
    const lab_wait_fact *x = lab_fact_costly_wait(f);
    if (x && !strncmp(x->call, "cudaMemcpy(", 11)) {
        char said[400];
        lab_fact_wait_text(f, x, said, sizeof(said));
        return snprintf(buf, len,
                        "%s: cudaMemcpy returns only when its copy is done, and goes on the legacy default stream, "
                        "so the host serves one request at a time. Use cudaMemcpyAsync on the request's stream.",
                        said);
    }
    if (x) {
        char said[400];
        lab_fact_wait_text(f, x, said, sizeof(said));
        return snprintf(buf, len,
                        "%s: the host waits for each request before it takes the next, so your pool serves one at "
                        "a time. Wait once, for every stream of the pool, before run() returns.",
                        said);
    }
    /* Work on the legacy stream that waited for the pool or held it back (a pool stream that
     * is stream 0, or blocking streams beside it): the harness's stream-0 advice says so; a
     * larger pool would be held back the same way. */
    if (f->stalls > 0) return 0;
    if (request_streams(f) > 0)
        return snprintf(buf, len,
                        "your requests go to %d streams, and the queue still grows: more requests are in flight at "
                        "once than the pool serves (the bound line says how long one takes; one arrives every "
                        "%.0f us). Make the pool larger.",
                        request_streams(f), LAB_SPEC.request_every_us);
    return 0;
}

static const lab_step steps[] = {
    {
        .todo = "TODO 1 (a pool of streams, each request on the next one)",
        .next = "every request waits for the one before it: one stream serves them one at a time, a request takes "
                "longer than the gap between arrivals, so the queue grows and the last requests wait longest (the "
                "\"requests\" line: p99 in milliseconds). Make a pool of streams in setup() and queue request i on "
                "stream i % POOL, with enough streams for the requests in flight at once (the bound line says how "
                "many).",
        .hints =
            {
                "Look at the stream lane and the compute lane: how long does one request take, how often does one "
                "arrive, and how much of the GPU does one request's kernel use?",
                "Operations in one stream run in order, so a single stream is a queue of one server. Independent "
                "requests on different streams may run at once: their kernels share the SMs and their copies go "
                "between the kernels. A serving framework keeps a pool of streams and hands each request the next "
                "one. docs/concepts.md, \"Streams are in-order queues\" and \"Concurrent kernels and SM residency\".",
                "In setup(): an array of POOL non-blocking streams (cudaStreamCreateWithFlags), each named with "
                "lab_name_stream. In run(): request i goes on streams[i % POOL]; before returning, wait for every "
                "stream of the pool.",
            },
        .done = uses_a_pool,
        .why = why_pool,
    },
    {
        .todo = "TODO 2 (a set of buffers for each stream of the pool)",
        .next = "give each stream of the pool its own d_in and d_out, and queue request i on stream i % POOL with "
                "buffer set i % POOL (fewer buffer sets than streams need an event per set, recorded after the "
                "set's last use, the download, and waited on with cudaStreamWaitEvent before its next); and wait "
                "for every stream of the pool before run() returns.",
        .hints =
            {
                "Which bytes does request i's upload write, and which stream is still reading those bytes? Who "
                "orders the two?",
                "Stream order protects a buffer only from work on the same stream. A buffer set per stream is "
                "safe with no event at all: request i + POOL reuses request i's set on request i's stream, after "
                "it. A set used from several streams needs an event: record it on the stream after the set's last "
                "use and make the next user wait on it (PyTorch's record_stream asks the allocator for the same "
                "thing). docs/concepts.md, \"Events: timing and ordering\".",
                "In setup(): d_in[POOL] and d_out[POOL], one cudaMalloc pair per stream; in run(): int s = i % POOL, "
                "and every call of request i uses streams[s], d_in[s], d_out[s]; in teardown(): free them all.",
            },
        .done = keeps_up,
        .why = why_sets,
    },
};

const lab_spec LAB_SPEC = {
    .id = LAB_ID, /* from labs/catalog.json (lab_catalog/lab_identity.h) */
    .title = LAB_TITLE,
    .lesson = LAB_LESSON,
    .item = "request",
    .workload =
        {
            .batches = 32,
            .batch_elems = 32u * 256u,
            .batch_bytes = 32u * 256u * sizeof(uint32_t),
            .process = {.mul = 0, .add = 0, .iters = 22500},
            .steps = 2,
        },
    .baseline = &baseline,
    .oracle = lab_spec_oracle_steps,
    .measure_bound = measure_bound,
    .bound_name = "idle-device bound",
    .bound_label = "bound",
    .metric = LAB_METRIC_LATENCY,
    .target_bound_fraction = 0.35,
    .request_first_us = 100,
    .request_every_us = 50,
    .steps = steps,
    .n_steps = (int)(sizeof(steps) / sizeof(steps[0])),
    .beyond = beyond,
};
