/* labs/harness/runner.c: main() of every lab binary. It drives the lab contract:
 *
 *   start the backend, the race checker and the timeline store;
 *   set up the baseline and give it its warm-up run, which also times the harness's own
 *   work on this machine before any code of yours has run (the harness's budget: budget.h);
 *   set up yours (untimed);
 *   measure the bound (the spec's measure_bound: the shortest time the workload can take);
 *   your warm-up run, then --runs timed runs of each, interleaved, on fresh inputs
 *   every time, every output checked bit for bit as soon as run() returns;
 *   on a GPU, where recording device times costs time, the bound and those runs go
 *   untraced (operations recorded, not timed; a run's operations reach the race checker
 *   and the work count once run() has returned, trace_defer) and one traced run of each
 *   follows them, not timed: the timeline and what it shows come from that one (see
 *   traced_runs);
 *   on the simulator, --schedules more runs of yours under perturbed timing;
 *   tear both down, compute the metrics of your last run, report, and exit with the
 *   verdict (0 pass, 1 below target, 2 wrong, racy, crashed or timed out, 3 the machine was
 *   too slow for the harness's own work, 64 bad usage).
 *
 * --timeout is your code's budget: the crash guard (guard.h) charges it only for your
 * setup(), run() (with the wait for the work it left on the device) and teardown(); every
 * other phase is the harness's, on a budget of its own. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "labs/harness/backend.h"
#include "labs/harness/bound_recheck.h"
#include "labs/harness/budget.h"
#include "labs/harness/ctx.h"
#include "labs/harness/events.h"
#include "labs/harness/guard.h"
#include "labs/harness/source_line.h"
#include "labs/harness/options.h"
#include "labs/harness/remote.h"
#include "labs/harness/requests.h"
#include "labs/harness/result.h"
#include "labs/harness/spec.h"
#include "labs/harness/steps.h"
#include "labs/harness/verify.h"
#include "labs/harness/work.h"
#include "labs/harness/workload.h"
#include "labs/harness/wrap.h"
#include "trace/view/export_chrome.h"
#include "trace/view/export_text.h"
#include "trace/view/metrics.h"
#include "trace/check/race.h"
#include "trace/check/racecheck.h"
#include "trace/record/recorder.h"
#include "trace/view/stalls.h"
#include "trace/view/timeline.h"

#define MAX_RUNS 4096
/* How far the simulator may stretch or shrink op times in a perturbed schedule. */
#define SCHEDULE_AMOUNT 0.3

typedef enum who { WHO_BASELINE, WHO_YOURS } who;

typedef struct harness {
    lab_options opt;
    lab_result *res;
    lab_buffers buf;           /* yours (and the baseline's, unless it has its own) */
    lab_buffers baseline_buf;  /* the baseline's own, when the lab's buffers are pageable */
    lab_ctx ctx[2];
    const lab_impl *impl[2];
    trace_racecheck *racecheck;
    trace_timeline *timeline;
    lab_events *events;
    lab_work *work;    /* what each run did on the device (work.h) */
    bool results_only; /* the timed runs time only copies to the host (LAB_TIMES_RESULTS) */
    int32_t *timed[2]; /* the recorder runs of the timed runs, the baseline's and yours */
    int n_timed[2];
    FILE *out;         /* the human report: stdout, or stderr with --json */
    int32_t next_run;  /* recorder run numbers, from 1 */
    bool yours_run[MAX_RUNS];
    int32_t last_yours_run;  /* your last timed run: its timeline and metrics are reported */
    int32_t yours_warmup_run; /* your warm-up run (its pinning is reported) */
    uint64_t last_yours_returned_ns; /* when run() returned in it */
    lab_findings findings;   /* what that run shows of your code (steps.h) */
    uint64_t setup_t0, setup_t1; /* when your setup() began and returned */
    lab_reported last_reported[LAB_MAX_STAGES]; /* what your last timed run reported (lab_report_ms) */
    void *background;          /* the background's device buffer (labs of requests) */
    int total_runs;    /* warm-ups, timed runs and schedules, for progress */
    bool apart;        /* timed runs untraced, the timeline from traced runs after them */
    bool defer;        /* runs record deferred: their ops reach the sinks once run() returns */
    double last_yours_ms; /* how long run() took in the run the timeline shows */
    int peer_access;      /* after your runs (two-device labs): lab_findings.peer_access */
    /* The bound measured again during and after the timed runs (bound_recheck.h), the
     * median of all measurements standing. */
    lab_bound bound_again[LAB_BOUND_MEASUREMENTS - 1];
    int n_bound_again;
} harness;

_Static_assert(LAB_BOUND_MEASUREMENTS <= LAB_BOUND_MEASURED_MAX, "lab_result keeps every measurement of the bound");

static const char *const who_name[2] = {"baseline", "yours"};

/* A lab binary that links the student's file runs it in this process; a referee's links
 * remote_student.c, whose definition wins. */
__attribute__((weak)) bool lab_student_runs_apart(void) { return false; }

static int compare_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *v, int n) {
    double *c = malloc((size_t)n * sizeof(double));
    if (!c) return 0;
    memcpy(c, v, (size_t)n * sizeof(double));
    qsort(c, (size_t)n, sizeof(double), compare_double);
    double m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
    free(c);
    return m;
}

static double minimum(const double *v, int n) {
    double m = v[0];
    for (int i = 1; i < n; i++)
        if (v[i] < m) m = v[i];
    return m;
}

/* Fresh inputs and expected outputs for one run, outputs poisoned, all declared to the
 * recorder as host writes (batch-tagged, so the timeline can follow each batch). */
static void prepare_run(harness *h, lab_buffers *buf, int32_t run) {
    const lab_workload *w = &buf->workload;
    uint64_t now = lab_backend_now_ns();
    for (int b = 0; b < w->batches; b++) {
        lab_fill_batch(buf->inputs[b], w->batch_elems, h->res->seed, run, b);
        h->res->spec->oracle(w, buf->inputs[b], buf->expected[b]);
        for (size_t i = 0; i < w->batch_elems; i++) buf->outputs[b][i] = LAB_POISON;
        trace_record_host_access(buf->inputs[b], w->batch_bytes, true, "input", b, now);
        trace_record_host_access(buf->outputs[b], w->batch_bytes, true, "poison", -1, now);
    }
    if (buf->pending) lab_requests_hold(buf);
}

typedef struct run_outcome {
    int rc;              /* what run() returned */
    int missing_request; /* labs of requests: the first one run() did not wait for, or -1 */
    lab_run_latency latency; /* labs of requests: the run's latencies and background */
    cudaError_t cuda;    /* the first CUDA error seen when it had returned */
    double ms;
    uint64_t returned_ns; /* when run() returned */
    lab_mismatch check;
} run_outcome;

/* Waits for the device, or for every device of a lab that uses several (cudaDeviceSynchronize
 * waits for the current one only), and leaves device 0 current. */
static cudaError_t sync_devices(void) {
    if (LAB_SPEC.devices < 2) return cudaDeviceSynchronize();
    cudaError_t first = cudaSuccess;
    for (int d = LAB_SPEC.devices - 1; d >= 0; d--) {
        cudaError_t e = cudaSetDevice(d);
        if (e == cudaSuccess) e = cudaDeviceSynchronize();
        if (first == cudaSuccess) first = e;
    }
    return first;
}

/* Which peer access your code left on, asked of the runtime after your runs and before your
 * teardown (lab_findings.peer_access): enabling access that is on fails with
 * cudaErrorPeerAccessAlreadyEnabled; access this probe turns on it turns off again. -1 when
 * the lab uses one device or the runtime answers otherwise. Leaves device 0 current. */
static int probe_peer_access(void) {
    if (LAB_SPEC.devices != 2) return -1;
    int bits = 0;
    bool known = true;
    for (int d = 0; d < 2 && known; d++) {
        if (cudaSetDevice(d) != cudaSuccess) {
            known = false;
            break;
        }
        cudaError_t e = cudaDeviceEnablePeerAccess(1 - d, 0);
        if (e == cudaErrorPeerAccessAlreadyEnabled)
            bits |= 1 << d;
        else if (e == cudaSuccess)
            known = cudaDeviceDisablePeerAccess(1 - d) == cudaSuccess;
        else
            known = false;
        (void)cudaGetLastError();
    }
    (void)cudaSetDevice(0);
    (void)cudaGetLastError();
    return known ? bits : -1;
}

/* The test hook STREAMLAB_TEST_SLOW_BASELINE_MS (budget.h): a host on which the kit's own
 * code is slow. It sleeps in the baseline's phase, after the run was timed. */
static void test_slow_baseline(void) {
    unsigned ms = lab_test_slow_baseline_ms();
    struct timespec d = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (ms && nanosleep(&d, &d) != 0) {
    }
}

/* A wrong result where the run changed an input (lab_input is read-only, lab.h): says which
 * input and how, in place of a guess at the wrong value's cause. Labs of requests, whose
 * inputs appear only when they arrive, are left to the usual diagnosis. */
static void explain_mismatch_by_changed_input(harness *h, const lab_buffers *buf, int32_t run, lab_mismatch *m) {
    const lab_workload *w = &buf->workload;
    if (m->correct || m->first_batch < 0 || buf->pending) return;
    uint32_t *fresh = malloc(w->batch_bytes);
    if (!fresh) return;
    const char *item = lab_item(h->res->spec);
    for (int b = 0; b < w->batches; b++) {
        lab_fill_batch(fresh, w->batch_elems, h->res->seed, run, b);
        for (size_t i = 0; i < w->batch_elems; i++) {
            if (fresh[i] == buf->inputs[b][i]) continue;
            bool result_there = buf->inputs[b][i] == buf->expected[b][i];
            snprintf(m->why, sizeof(m->why),
                     "the run changed %s %d's input, which is read-only (lab_input(ctx, %d)[%zu] was 0x%08x, the "
                     "harness wrote 0x%08x)%s",
                     item, b, b, i, buf->inputs[b][i], fresh[i],
                     result_there ? ". It holds that result: the copy back went to lab_input, not lab_output"
                                  : ": compute into buffers of your own");
            free(fresh);
            return;
        }
    }
    free(fresh);
}

/* One run of the baseline or yours: prepare, time run(), read the results at once (before
 * any synchronisation of the harness's own, so a missing one shows), then quiesce. */
static run_outcome do_run(harness *h, who w, const char *label) {
    run_outcome o;
    memset(&o, 0, sizeof(o));
    int32_t run = h->next_run++;
    if (w == WHO_YOURS && run < MAX_RUNS) h->yours_run[run] = true;
    lab_buffers *buf = h->ctx[w].buffers;
    lab_guard_phase("prepare", "harness");
    /* The baseline's device state, whatever your setup() changed (spec.h, baseline_enter). */
    const lab_spec *spec = h->res->spec;
    bool entered = false;
    if (w == WHO_BASELINE && spec->baseline_enter) {
        if (spec->baseline_enter(&h->ctx[w]) != 0) {
            o.rc = 1;
            o.cuda = cudaGetLastError();
            return o;
        }
        entered = true;
    }
    prepare_run(h, buf, run);
    lab_backend_between_runs((uint64_t)buf->workload.batches * buf->workload.batch_bytes);
    lab_events_progress(h->events, label, run - 1, h->total_runs);
    trace_set_run(run);
    lab_backend_phase(label, true);
    lab_guard_phase("run", who_name[w]);
    if (w == WHO_YOURS && lab_remote_active()) lab_remote_ready();
    if (h->defer) trace_defer(true);
    uint64_t t0 = lab_backend_now_ns();
    h->ctx[w].run_start_ns = t0;
    o.rc = h->impl[w]->run(&h->ctx[w]);
    uint64_t t1 = lab_backend_now_ns();
    /* The run's ops reach the race checker, the work count and the timeline now, outside its
     * timing, before anything reads them. */
    if (h->defer) trace_defer(false);
    if (w == WHO_BASELINE) test_slow_baseline();
    o.missing_request = buf->pending ? lab_requests_missing(buf) : -1;
    lab_guard_phase("check", "harness");
    const lab_workload *wl = &buf->workload;
    for (int b = 0; b < wl->batches; b++) {
        trace_record_host_access(buf->outputs[b], wl->batch_bytes, false, "harness reads result", b, t1);
        lab_work_results_read(h->work, run, buf->outputs[b], wl->batch_bytes);
    }
    /* What follows is the harness's, not part of the run's timeline. */
    trace_set_run(-1);
    o.check = lab_verify(buf, lab_item(h->res->spec), lab_items(h->res->spec));
    explain_mismatch_by_changed_input(h, buf, run, &o.check);
    o.cuda = cudaGetLastError();
    /* The work run() left on the device is run()'s: waiting for it is charged to whoever
     * ran, so that a student's endless kernel is their timeout, not the harness's. */
    lab_guard_phase("run", who_name[w]);
    cudaError_t sync = sync_devices();
    lab_guard_phase("check", "harness");
    if (o.cuda == cudaSuccess) o.cuda = sync;
    if (entered && spec->baseline_leave) {
        lab_guard_phase("prepare", "harness");
        spec->baseline_leave(&h->ctx[w]);
        lab_guard_phase("check", "harness");
    }
    lab_backend_flush(); /* this run's device times, after its timing */
    lab_backend_phase(label, false);
    trace_record_phase(label, t0, t1);
    if (buf->pending && o.missing_request < 0) lab_requests_measure(buf, h->res->spec, h->timeline, run, h->results_only, &o.latency);
    o.ms = (double)(t1 - t0) / 1e6;
    o.returned_ns = t1;
    return o;
}

/* What a phase of yours that returned rc stopped on, for the error: the last CUDA call of
 * the phase that failed (the referee saw it fail), and what the referee refused until then,
 * which is often why; a refusal after it (a teardown() destroying handles that setup()
 * never made) is in the report's own line, not here. */
static void stopped_on(lab_result *r, const char *what, int rc) {
    const char *failed = lab_remote_active() ? lab_remote_failed_call() : "";
    if (failed[0])
        snprintf(r->error, sizeof(r->error), "%s returned %d after %s", what, rc, failed);
    else
        snprintf(r->error, sizeof(r->error), "%s returned %d (your program's output says which call failed)", what,
                 rc);
    const char *refused = lab_remote_active() ? lab_remote_refusals() : "";
    size_t at = strlen(r->error);
    if (refused[0] && at < sizeof(r->error))
        snprintf(r->error + at, sizeof(r->error) - at, " (the referee refused: %s)", refused);
    r->error_has_refusals = true;
}

/* Turns a failed run into the result's error. Returns true when it failed. */
static bool run_failed(harness *h, who w, const char *label, const run_outcome *o) {
    if (o->rc != 0) {
        char what[96];
        snprintf(what, sizeof(what), "%s: %s run()", label, w == WHO_YOURS ? "your" : "the baseline's");
        if (w == WHO_YOURS)
            stopped_on(h->res, what, o->rc);
        else
            snprintf(h->res->error, sizeof(h->res->error), "%s returned %d", what, o->rc);
        return true;
    }
    if (o->missing_request >= 0) {
        snprintf(h->res->error, sizeof(h->res->error),
                 "%s: %s run() returned without waiting for request %d (lab_wait_request(ctx, %d)): a request's "
                 "input exists only once it has arrived",
                 label, w == WHO_YOURS ? "your" : "the baseline's", o->missing_request, o->missing_request);
        return true;
    }
    if (o->cuda != cudaSuccess) {
        snprintf(h->res->error, sizeof(h->res->error),
                 "%s: a CUDA error after %s run(): %s (%s)%s", label, w == WHO_YOURS ? "your" : "the baseline's",
                 cudaGetErrorName(o->cuda), cudaGetErrorString(o->cuda),
                 o->cuda == cudaErrorIllegalAddress
                     ? ": a kernel or copy touched memory outside its buffer (a sticky error: this process can run "
                       "no more CUDA work, so the lab stops here)"
                     : "");
        return true;
    }
    if (w == WHO_BASELINE && !o->check.correct) {
        snprintf(h->res->error, sizeof(h->res->error),
                 "%s: the baseline's results are wrong (%s %d): the harness or the spec is broken, not your "
                 "code; please report it",
                 label, lab_item(h->res->spec), o->check.first_batch);
        return true;
    }
    return false;
}

static void note_result(harness *h, const run_outcome *o, const char *label) {
    if (!o->check.correct && h->res->correct) {
        h->res->correct = false;
        h->res->mismatch = o->check;
        h->res->mismatch_run = strdup(label);
    }
}

static int terminal_width(void) {
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40) return ws.ws_col;
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40) return ws.ws_col;
    const char *cols = getenv("COLUMNS");
    if (cols && atoi(cols) >= 40) return atoi(cols);
    return 100;
}

static bool utf8_terminal(void) {
    const char *vars[] = {"LC_ALL", "LC_CTYPE", "LANG"};
    for (size_t i = 0; i < 3; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) return strstr(v, "UTF-8") || strstr(v, "utf8") || strstr(v, "UTF8");
    }
    return false;
}

/* Races of yours: those in the first of your runs that has any (every run repeats the
 * same mistakes; one run's worth is what there is to fix). The ones shown are of as many
 * different kinds as there are, in the order found. */
/* The program's source line of an op's call site into out; where it may not be looked up
 * (STREAMLAB_NO_SUBPROCESS, the grader's sandbox), the site words the grader puts the line
 * in place of; "" when the call was the kit's own (lab_source_line_words). Returns the
 * call's address relative to the binary when it was not looked up, for the one who ran the
 * lab to look up (the grader does, from the race's "..._site" keys); else 0. */
static uint64_t line_of_site(uint64_t site, char *out, size_t len) {
    uintptr_t offset;
    return lab_source_line_words(site, out, len, &offset) == LAB_LINE_NOT_ALLOWED ? offset : 0;
}

_Static_assert(LAB_RACE_RAW == (int)TRACE_RACE_RAW && LAB_RACE_WAR == (int)TRACE_RACE_WAR &&
                   LAB_RACE_WAW == (int)TRACE_RACE_WAW && LAB_RACE_HOST_READ == (int)TRACE_RACE_HOST_READ,
               "lab_race_kind follows trace_race_kind");

/* Whether race r is the spec's planted race p. */
static bool is_planted(const lab_planted_race *p, const trace_race *r) {
    return (int)r->kind == (int)p->kind && r->first.kind == p->first && r->second.kind == p->second &&
           (p->first != TRACE_OP_COPY || r->first.dir == p->first_dir) &&
           (p->second != TRACE_OP_COPY || r->second.dir == p->second_dir);
}

/* Which planted races your runs still have, and how many of their races are none of them. */
static void count_planted(harness *h) {
    const lab_spec *spec = h->res->spec;
    if (spec->n_planted <= 0) return;
    size_t kept = trace_racecheck_kept(h->racecheck);
    for (size_t i = 0; i < kept; i++) {
        const trace_race *r = trace_racecheck_report(h->racecheck, i);
        int32_t run = r->second.run >= 0 ? r->second.run : r->first.run;
        if (run < 0 || run >= MAX_RUNS || !h->yours_run[run]) continue;
        bool known = false;
        for (int p = 0; p < spec->n_planted && p < LAB_MAX_PLANTED; p++)
            if (is_planted(&spec->planted[p], r)) {
                h->res->planted_left |= 1u << p;
                known = true;
            }
        if (!known) h->res->other_races++;
    }
    h->res->planted_fixed = 0;
    for (int p = 0; p < spec->n_planted && p < LAB_MAX_PLANTED; p++) h->res->planted_fixed += !(h->res->planted_left >> p & 1u);
}

/* The host reads of your runs that nothing ordered after the stream work that wrote what
 * they read (host_read races: run() returned, or the host read, before waiting for it), and
 * the streams of that work (lab_findings.early_reads). */
static void count_early_reads(harness *h, lab_findings *f) {
    size_t kept = trace_racecheck_kept(h->racecheck);
    for (size_t i = 0; i < kept; i++) {
        const trace_race *r = trace_racecheck_report(h->racecheck, i);
        int32_t run = r->second.run >= 0 ? r->second.run : r->first.run;
        if (r->kind != TRACE_RACE_HOST_READ || run < 0 || run >= MAX_RUNS || !h->yours_run[run]) continue;
        f->early_reads++;
        bool known = false;
        for (int k = 0; k < f->n_early_read_streams; k++) known |= f->early_read_streams[k] == r->first.stream;
        if (known || f->n_early_read_streams >= LAB_FACT_STREAMS) continue;
        int at = f->n_early_read_streams++; /* kept in order of id */
        while (at > 0 && f->early_read_streams[at - 1] > r->first.stream) {
            f->early_read_streams[at] = f->early_read_streams[at - 1];
            at--;
        }
        f->early_read_streams[at] = r->first.stream;
    }
}

static void collect_races(harness *h) {
    count_planted(h);
    size_t kept = trace_racecheck_kept(h->racecheck);
    int32_t chosen = -1;
    for (size_t i = 0; i < kept; i++) {
        const trace_race *r = trace_racecheck_report(h->racecheck, i);
        int32_t run = r->second.run >= 0 ? r->second.run : r->first.run;
        if (run >= 0 && run < MAX_RUNS && h->yours_run[run] && (chosen < 0 || run < chosen)) chosen = run;
    }
    if (chosen < 0) return;
    bool shown_kind[TRACE_RACE_KIND_COUNT] = {false};
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < kept; i++) {
            const trace_race *r = trace_racecheck_report(h->racecheck, i);
            int32_t run = r->second.run >= 0 ? r->second.run : r->first.run;
            if (run != chosen) continue;
            if (pass == 0) h->res->races++;
            bool new_kind = !shown_kind[r->kind];
            if (h->res->races_shown < LAB_MAX_RACES_SHOWN && (pass == 0) == new_kind) {
                bool already = false;
                for (size_t j = 0; j < h->res->races_shown; j++) already |= h->res->race[j].seq == r->seq;
                if (!already) {
                    size_t k = h->res->races_shown++;
                    trace_race *shown = &h->res->race[k];
                    *shown = *r;
                    h->res->race_site[k][0] =
                        line_of_site(shown->first.call_site, shown->first.line, sizeof(shown->first.line));
                    h->res->race_site[k][1] =
                        line_of_site(shown->second.call_site, shown->second.line, sizeof(shown->second.line));
                    if (shown->early_event)
                        (void)line_of_site(shown->early_record_site, shown->early_record_line,
                                           sizeof(shown->early_record_line));
                    if (shown->wrong_event) {
                        (void)line_of_site(shown->wrong_record_site, shown->wrong_record_line,
                                           sizeof(shown->wrong_record_line));
                        (void)line_of_site(shown->wrong_wait_site, shown->wrong_wait_line,
                                           sizeof(shown->wrong_wait_line));
                    }
                    if (shown->wait_fault != TRACE_WAIT_FAULT_NONE) {
                        /* The blamed wait's fix names the lines of the wait and of the record:
                         * made again now that they are known. */
                        h->res->race_site[k][2] =
                            line_of_site(shown->wait_site, shown->wait_line, sizeof(shown->wait_line));
                        h->res->race_site[k][3] = line_of_site(shown->mark_record_site, shown->mark_record_line,
                                                               sizeof(shown->mark_record_line));
                        trace_race_make_fix(shown);
                    }
                    shown_kind[r->kind] = true;
                }
            }
        }
    }
}

/* What the legacy default stream did to your streams in your last timed run, and which of
 * your streams were still busy when run() returned: in words, for the report. */
static void describe_streams(harness *h) {
    lab_result *r = h->res;
    trace_stall stalls[LAB_MAX_STALLS_SHOWN];
    r->stalls = trace_stalls_find_held(h->timeline, h->last_yours_run, stalls, LAB_MAX_STALLS_SHOWN, &r->stalls_held);
    for (size_t i = 0; i < r->stalls && i < LAB_MAX_STALLS_SHOWN; i++) {
        char *text = r->stall_text[i];
        size_t cap = sizeof(r->stall_text[i]);
        trace_stall_format(&stalls[i], h->timeline, lab_item(r->spec), text, cap);
        char line[96];
        line_of_site(stalls[i].op.call_site, line, sizeof(line));
        size_t at = strlen(text);
        if (line[0] && at < cap) snprintf(text + at, cap - at, " (%s)", line);
    }
    int32_t busy[16];
    size_t nb = trace_streams_busy_at(h->timeline, h->last_yours_run, h->last_yours_returned_ns, busy, 16);
    size_t at = 0, named = 0;
    for (size_t i = 0; i < nb && i < 16; i++) {
        if (busy[i] == TRACE_STREAM_LEGACY) continue;
        const trace_stream *st = trace_timeline_stream(h->timeline, busy[i]);
        char label[64];
        trace_stream_label(busy[i], st ? st->name : NULL, label, sizeof(label));
        if (at < sizeof(r->busy_text))
            at += (size_t)snprintf(r->busy_text + at, sizeof(r->busy_text) - at, "%s%s", named ? ", " : "", label);
        named++;
    }
    if (named && nb > 16 && at < sizeof(r->busy_text))
        snprintf(r->busy_text + at, sizeof(r->busy_text) - at, " and more");
}

/* A wrong value the verifier cannot place (not poison, not an input, not another batch's
 * result) often comes from a read that ran before the write it needed: when the race
 * checker saw a read-after-write race on the wrong batch's data, the diagnosis says so. */
static void explain_mismatch_by_races(harness *h) {
    lab_result *r = h->res;
    if (r->correct || r->races == 0 || r->mismatch.first_batch < 0) return;
    if (strncmp(r->mismatch.why, "it matches no", 13) != 0) return;
    size_t kept = trace_racecheck_kept(h->racecheck);
    const trace_race *best = NULL;
    for (size_t i = 0; i < kept; i++) {
        const trace_race *race = trace_racecheck_report(h->racecheck, i);
        if (race->kind != TRACE_RACE_RAW || race->second.on_host) continue;
        if (!best || (race->second.batch == r->mismatch.first_batch && best->second.batch != r->mismatch.first_batch))
            best = race;
    }
    if (!best) return;
    char reader[128], writer[128], rs[64], ws[64];
    trace_race_op_describe(&best->second, reader, sizeof(reader));
    trace_race_op_describe(&best->first, writer, sizeof(writer));
    trace_stream_label(best->second.stream, best->second.stream_name, rs, sizeof(rs));
    trace_stream_label(best->first.stream, best->first.stream_name, ws, sizeof(ws));
    snprintf(r->mismatch.why, sizeof(r->mismatch.why),
             "it was computed from data read before it was written: %.100s on %.40s may read what %.100s on %.40s "
             "has not written yet (a read-after-write race: see the races)",
             reader, rs, writer, ws);
}

/* Each device's engines, then the link's directions, for the report's "engines busy". */
static void describe_devices(const trace_metrics *m, lab_result *r) {
    size_t len = 0, cap = sizeof(r->devices_busy);
    for (uint32_t d = 0; d < m->devices && d < TRACE_MAX_DEVICES && len < cap; d++) {
        const trace_busy *e = m->device_engine[d];
        len += (size_t)snprintf(r->devices_busy + len, cap - len,
                                "%sGPU %u H2D %.0f%%, compute %.0f%%, D2H %.0f%%, overlap %.0f%%", d ? "; " : "", d,
                                100 * e[TRACE_ENGINE_H2D].utilisation, 100 * e[TRACE_ENGINE_COMPUTE].utilisation,
                                100 * e[TRACE_ENGINE_D2H].utilisation, 100 * m->device_overlap[d]);
    }
    for (uint32_t a = 0; a < TRACE_MAX_DEVICES; a++)
        for (uint32_t b = 0; b < TRACE_MAX_DEVICES && len < cap; b++)
            if (m->link[a][b].ops)
                len += (size_t)snprintf(r->devices_busy + len, cap - len, "; link GPU %u -> GPU %u %.0f%%", a, b,
                                        100 * m->link[a][b].utilisation);
}

static void compute_metrics(harness *h) {
    lab_result *r = h->res;
    r->timeline_run = h->last_yours_run;
    trace_metrics m;
    if (h->last_yours_run > 0 && trace_metrics_compute(h->timeline, h->last_yours_run, &m) == 0) {
        r->have_metrics = true;
        r->makespan_ms = (double)m.makespan_ns / 1e6;
        r->overlap = m.overlap;
        r->util_h2d = m.engine[TRACE_ENGINE_H2D].utilisation;
        r->util_compute = m.engine[TRACE_ENGINE_COMPUTE].utilisation;
        r->util_d2h = m.engine[TRACE_ENGINE_D2H].utilisation;
        r->devices_busy[0] = '\0';
        if (trace_timeline_multi_device(h->timeline, h->last_yours_run)) describe_devices(&m, r);
        trace_metrics_free(&m);
    }
    if (h->last_yours_run > 0) describe_streams(h);
    lab_host_memory_scan_setup(&r->host, h->timeline, h->setup_t0, h->setup_t1);
    if (h->yours_warmup_run > 0) lab_host_memory_scan_warmup(&r->host, h->timeline, h->yours_warmup_run);
    if (h->last_yours_run > 0) {
        lab_host_memory_scan_run(&r->host, h->timeline, h->last_yours_run, h->last_yours_ms,
                                 r->bound_ok ? &r->bound : NULL);
        lab_host_memory_payoff(&r->host, r->baseline_median_ms, r->yours_median_ms);
    }
    lab_measurement_check(&r->measurement, r->spec, &r->workload, h->last_reported, h->timeline, h->last_yours_run);
    lab_result_decide(r);
    lab_findings_compute(&h->findings, r, h->timeline, h->last_yours_run, h->last_yours_returned_ns);
    h->findings.pageable_copies = r->host.pageable[0] + r->host.pageable[1];
    h->findings.pins_in_run = r->host.run.calls;
    h->findings.left_registered = r->host.left_registered;
    h->findings.measured = r->measurement.ok;
    h->findings.planted_left = r->planted_left;
    count_early_reads(h, &h->findings);
    h->findings.peer_access = h->peer_access;
    for (int i = 0; i < h->findings.n_waits; i++)
        (void)line_of_site(h->findings.waits[i].call_site, h->findings.waits[i].line, sizeof(h->findings.waits[i].line));
    lab_findings_merge_lines(&h->findings);
    for (int i = 0; i < h->findings.n_orders; i++)
        (void)line_of_site(h->findings.orders[i].record_site, h->findings.orders[i].record_line,
                           sizeof(h->findings.orders[i].record_line));
    (void)line_of_site(h->findings.graph_made_site, h->findings.graph_made_line, sizeof(h->findings.graph_made_line));
    (void)line_of_site(h->findings.host_copy_site, h->findings.host_copy_line, sizeof(h->findings.host_copy_line));
    (void)line_of_site(h->findings.graph_captured_site, h->findings.graph_captured_line,
                       sizeof(h->findings.graph_captured_line));
    int least = 0, greatest = 0;
    if (cudaDeviceGetStreamPriorityRange(&least, &greatest) == cudaSuccess) {
        h->findings.priority_least = least;
        h->findings.priority_greatest = greatest;
    }
    r->findings = h->findings;
    r->step = r->spec->n_steps > 0 ? lab_steps_first_open(r->spec, &h->findings) : -1;
    (void)lab_steps_why(r->spec, &h->findings, r->advice_why, sizeof(r->advice_why));
    (void)lab_steps_beyond(r->spec, &h->findings, r->advice_beyond, sizeof(r->advice_beyond));
    if (!h->opt.quiet && h->last_yours_run > 0) {
        trace_text_options to = {
            .width = h->opt.width ? h->opt.width : terminal_width(),
            .utf8 = utf8_terminal(),
            .run = h->last_yours_run,
            .legend = true,
        };
        if (to.width > 200) to.width = 200;
        r->timeline = trace_export_text(h->timeline, &to);
    }
}

/* Whether the graded runs go untraced, with the timeline recorded apart (see traced_runs):
 * where device timing costs time. Their timing is then the least the metric needs
 * (timed_runs_timing). STREAMLAB_TIMED_RUNS=traced traces the timed runs anyway (to
 * measure what tracing costs them); =untraced splits on any backend (the simulator's tests
 * of the split). */
static bool timeline_apart(void) {
    const char *v = getenv("STREAMLAB_TIMED_RUNS");
    if (v && strcmp(v, "traced") == 0) return false;
    if (v && strcmp(v, "untraced") == 0) return true;
    return lab_backend_timing_costs();
}

/* After the untraced timed runs: device timing back on, and one run of the baseline and
 * one of yours, timed by nobody, whose timeline the report, --json and the live view show
 * and whose findings (streams busy at return, stalls, reported stage times) are judged.
 * They are checked like every run. False when one failed. */
static bool traced_runs(harness *h) {
    lab_backend_device_times(LAB_TIMES_FULL, &h->res->backend);
    h->results_only = false;
    h->defer = false;
    run_outcome o = do_run(h, WHO_BASELINE, "traced run (baseline)");
    if (run_failed(h, WHO_BASELINE, "the traced run", &o)) return false;
    o = do_run(h, WHO_YOURS, "traced run (yours)");
    if (run_failed(h, WHO_YOURS, "the traced run", &o)) return false;
    h->last_yours_run = h->next_run - 1;
    h->last_yours_returned_ns = o.returned_ns;
    h->last_yours_ms = o.ms;
    memcpy(h->last_reported, h->ctx[WHO_YOURS].reported, sizeof(h->last_reported));
    note_result(h, &o, "the traced run");
    return true;
}

static double mono_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The baseline's warm-up, before your setup(): besides warming up, it times the harness's
 * own work on this machine as it is now, before any code of yours has run, and the
 * harness's budget follows from it (budget.h). False when it failed. */
static bool calibrate(harness *h) {
    double t0 = mono_s();
    run_outcome o = do_run(h, WHO_BASELINE, "warm-up (baseline)");
    double took = mono_s() - t0;
    if (run_failed(h, WHO_BASELINE, "warm-up", &o)) return false;
    /* Still to come, in runs of the baseline: every other run (each of yours is checked
     * and prepared by the harness), the bound, the teardowns and the report. */
    int units = h->total_runs - 1 + 3;
    lab_guard_set_harness_budget(lab_harness_budget(took, units, lab_guard_harness_s(), h->opt.harness_timeout_s));
    return true;
}

/* Measures the bound into b (cleared first), as the harness's phase. 0, or non-zero where
 * the spec's measure_bound failed. */
static int measure_bound_into(harness *h, lab_bound *b) {
    memset(b, 0, sizeof(*b));
    lab_guard_phase("measure the bound", "harness");
    return h->res->spec->measure_bound(&h->ctx[WHO_BASELINE], b);
}

/* The bound measured again between timed runs (bound_recheck.h), on a GPU: the simulator's
 * clock does not drift, and its measurements would agree. A failed one is left out. */
static void measure_bound_between(harness *h) {
    const lab_result *r = h->res;
    if (!r->bound_ok || r->backend.simulated || h->n_bound_again >= LAB_BOUND_MEASUREMENTS - 1) return;
    lab_bound *b = &h->bound_again[h->n_bound_again];
    if (measure_bound_into(h, b) == 0 && b->ideal_ns > 0) h->n_bound_again++;
}

/* The bound that stands: the median of its measurements (bound_recheck.h). */
static void settle_bound(harness *h) {
    lab_result *r = h->res;
    if (!r->bound_ok) return;
    double ns[LAB_BOUND_MEASUREMENTS];
    int n = 0;
    ns[n++] = r->bound.ideal_ns;
    for (int i = 0; i < h->n_bound_again; i++) ns[n++] = h->bound_again[i].ideal_ns;
    for (int i = 0; i < n; i++) r->bound_measured_ms[i] = ns[i] / 1e6;
    r->n_bound_measured = n;
    int m = lab_bound_median_index(ns, n);
    if (m > 0) r->bound = h->bound_again[m - 1];
}

/* The timed part: your warm-up (the baseline's came before your setup), interleaved runs,
 * schedules. False when a run failed. */
static bool run_all(harness *h) {
    lab_result *r = h->res;
    char label[64];
    run_outcome o;

    o = do_run(h, WHO_YOURS, "warm-up (yours)");
    h->yours_warmup_run = h->next_run - 1;
    if (run_failed(h, WHO_YOURS, "warm-up", &o)) return false;
    note_result(h, &o, "warm-up");

    for (int k = 0; k < r->runs; k++) {
        /* Alternate who goes first, so neither always runs on a just-warmed device. */
        for (int j = 0; j < 2; j++) {
            who w = ((k + j) % 2 == 0) ? WHO_BASELINE : WHO_YOURS;
            snprintf(label, sizeof(label), "run %d/%d (%s)", k + 1, r->runs, who_name[w]);
            o = do_run(h, w, label);
            snprintf(label, sizeof(label), "run %d", k + 1);
            if (run_failed(h, w, label, &o)) return false;
            if (h->timed[w]) h->timed[w][h->n_timed[w]++] = h->next_run - 1;
            bool latency = h->res->spec->metric == LAB_METRIC_LATENCY;
            if (latency) {
                r->latency[w == WHO_YOURS][k] = o.latency;
                o.ms = o.latency.p99_ms; /* what the metric and the bound compare */
            }
            if (w == WHO_YOURS) {
                r->yours_ms[k] = o.ms;
                h->last_yours_ms = o.ms;
                h->last_yours_run = h->next_run - 1;
                h->last_yours_returned_ns = o.returned_ns;
                memcpy(h->last_reported, h->ctx[WHO_YOURS].reported, sizeof(h->last_reported));
                note_result(h, &o, label);
            } else {
                r->baseline_ms[k] = o.ms;
            }
        }
        /* The bound again after the middle timed run and after the last (one run: never). */
        if (r->runs >= 2 && (k == (r->runs - 1) / 2 || k == r->runs - 1)) measure_bound_between(h);
    }

    if (h->apart && !traced_runs(h)) return false;

    if (lab_backend_can_perturb()) {
        for (int s = 1; s <= h->opt.schedules; s++) {
            snprintf(label, sizeof(label), "schedule %d/%d (yours)", s, h->opt.schedules);
            lab_backend_perturb(lab_mix64(r->seed ^ (0x5CED0000u + (uint64_t)s)), SCHEDULE_AMOUNT);
            o = do_run(h, WHO_YOURS, label);
            lab_backend_perturb(0, 0.0);
            snprintf(label, sizeof(label), "schedule %d", s);
            if (run_failed(h, WHO_YOURS, label, &o)) return false;
            r->schedules = s;
            if (!o.check.correct && !r->schedule_failed) r->schedule_failed = s;
            note_result(h, &o, label);
        }
    }
    return true;
}

/* The metric of a run that took t ms (see spec.h: every metric is a rate from a time). */
static double metric_of(const lab_result *r, double t_ms) {
    if (!(t_ms > 0)) return 0;
    switch (r->spec->metric) {
    case LAB_METRIC_BANDWIDTH: {
        double bytes = 2.0 * (double)r->workload.batches * (double)r->workload.batch_bytes;
        return bytes / (t_ms * 1e6); /* bytes per ns = GB/s */
    }
    case LAB_METRIC_LATENCY: return t_ms; /* the p99 latency itself */
    case LAB_METRIC_SPEEDUP: break;
    }
    return r->baseline_median_ms / t_ms;
}

/* Measuring the bound again (bound_recheck.h): into a bound of its own, kept if shorter. */
typedef struct bound_again {
    harness *h;
    lab_bound candidate;
} bound_again;

static int measure_bound_again(void *arg, double *ideal_ns) {
    bound_again *a = arg;
    if (measure_bound_into(a->h, &a->candidate) != 0) return 1;
    *ideal_ns = a->candidate.ideal_ns;
    return 0;
}

static void keep_bound_again(void *arg) {
    bound_again *a = arg;
    a->h->res->bound = a->candidate;
}

/* A bound measured longer than the baseline's median run was disturbed: measured again, up
 * to twice, after the timed runs (seen on an H100: 362 us a batch where 104 is usual, which
 * made a program at half the target look above it). */
static void recheck_bound(harness *h, const lab_spec *spec) {
    lab_result *r = h->res;
    if (!r->bound_ok || r->runs <= 0) return;
    double baseline_ns = median(r->baseline_ms, r->runs) * 1e6;
    double first_ns = r->bound.ideal_ns, ideal_ns = first_ns;
    bound_again a = {.h = h};
    lab_bound_again again = {measure_bound_again, keep_bound_again, &a};
    if (lab_bound_recheck(&ideal_ns, baseline_ns, 2, &again) > 0)
        fprintf(stderr, "streamlab: the %s measured %.3f ms, longer than the baseline's %.3f ms; measured again: %.3f ms\n",
                spec->bound_name ? spec->bound_name : "bound", first_ns / 1e6, baseline_ns / 1e6, ideal_ns / 1e6);
}

/* Speedups, the metric, and where they stand against the bound the spec measured. The
 * fraction of the bound is the ideal time over yours, whatever the metric. */
static void finish_speed(lab_result *r) {
    r->baseline_median_ms = median(r->baseline_ms, r->runs);
    r->yours_median_ms = median(r->yours_ms, r->runs);
    r->baseline_best_ms = minimum(r->baseline_ms, r->runs);
    r->yours_best_ms = minimum(r->yours_ms, r->runs);
    r->speedup = r->yours_median_ms > 0 ? r->baseline_median_ms / r->yours_median_ms : 0;
    r->speedup_best = r->yours_best_ms > 0 ? r->baseline_best_ms / r->yours_best_ms : 0;
    r->value = metric_of(r, r->yours_median_ms);
    r->value_best = r->spec->metric == LAB_METRIC_SPEEDUP ? r->speedup_best : metric_of(r, r->yours_best_ms);
    if (r->bound_ok && r->bound.ideal_ns > 0) {
        r->ideal_ms = r->bound.ideal_ns / 1e6;
        r->speedup_bound = r->baseline_median_ms / r->ideal_ms;
        r->target_speedup = r->spec->target_bound_fraction * r->speedup_bound;
        r->bound_fraction = r->speedup / r->speedup_bound;
        r->value_bound = metric_of(r, r->ideal_ms);
        r->value_target = r->spec->metric == LAB_METRIC_LATENCY ? r->value_bound / r->spec->target_bound_fraction
                                                                 : r->spec->target_bound_fraction * r->value_bound;
    }
    if (r->latency[0]) lab_result_latency_summary(r);
}

/* Whether your timed runs did the work the lab requires on the device (work.h), judged
 * against the baseline's timed runs: a run that did not keeps its correctness and its
 * race-freedom, and its speed counts for nothing: speedup, speedup_best and bound_fraction
 * are 0 (what a grade reads), what was measured stays in the report. */
static void judge_work(harness *h) {
    lab_result *r = h->res;
    lab_work_tally required = lab_work_least(h->work, h->timed[WHO_BASELINE], h->n_timed[WHO_BASELINE]);
    lab_work_tally done = lab_work_least(h->work, h->timed[WHO_YOURS], h->n_timed[WHO_YOURS]);
    lab_work_judge(&required, &done, LAB_WORK_DEFAULT | r->spec->work.also, lab_item(r->spec), lab_items(r->spec),
                   r->workload.batches, &r->work);
    /* A wrong result's speed counts for nothing already, and its figures stay as they were
     * (the hints read them). */
    if (r->work.ok || !r->correct) return;
    r->speedup_measured = r->speedup;
    r->bound_fraction_measured = r->bound_fraction;
    r->speedup = r->speedup_best = r->bound_fraction = 0;
}


/* The commands of yours the referee refused (remote.h), in the report; where a run failed or
 * a value was never written, the refusal is usually why, so the error or the diagnosis of
 * the first wrong value says it too. */
static void note_refusals(lab_result *r) {
    const char *refused = lab_remote_refusals();
    if (!refused[0]) return;
    snprintf(r->refused, sizeof(r->refused), "%s", refused);
    if (r->error_has_refusals) return;
    char *to = r->error[0] ? r->error : !r->correct && r->mismatch.first_batch >= 0 ? r->mismatch.why : NULL;
    size_t cap = r->error[0] ? sizeof(r->error) : sizeof(r->mismatch.why);
    if (!to) return;
    size_t at = strlen(to);
    if (at < cap) snprintf(to + at, cap - at, " (the referee refused: %s)", refused);
}

static void emit(harness *h) {
    lab_result *r = h->res;
    note_refusals(r);
    lab_result_decide(r);
    lab_events_result(h->events, r);
    /* The next step and the hints: prose, wrapped as the report is (wrap.h). */
    lab_wrap w;
    if (h->opt.hint) {
        lab_result_print_text(r, LAB_REPORT_VERDICT_HINT, h->out);
        fputc('\n', h->out);
        char path[4096];
        bool keep = lab_hints_path(path, sizeof(path));
        FILE *o = lab_wrap_begin(&w, h->out, LAB_WRAP_COLUMNS);
        if (r->status == LAB_STATUS_ERROR)
            fprintf(o, "Fix the error first: run without --hint to see it.\n");
        else if (r->spec->n_steps == 0)
            fprintf(o, "This lab has no hints yet; the lesson: %s\n", r->spec->lesson);
        else
            lab_hints_print_next(r->spec, &h->findings, r->status == LAB_STATUS_PASS, keep ? path : NULL, o);
        lab_wrap_end(&w);
    } else if (h->opt.json) {
        lab_result_print_text(r, h->opt.quiet ? LAB_REPORT_VERDICT : LAB_REPORT_SUMMARY, stderr);
        if (!h->opt.quiet && r->status != LAB_STATUS_ERROR) {
            FILE *o = lab_wrap_begin(&w, stderr, LAB_WRAP_COLUMNS);
            lab_steps_print_next(r->spec, &h->findings, r->status == LAB_STATUS_PASS, o);
            lab_wrap_end(&w);
        }
        cJSON *j = lab_result_json(r);
        char *s = cJSON_PrintUnformatted(j);
        if (s) printf("%s\n", s);
        fflush(stdout);
        cJSON_free(s);
        cJSON_Delete(j);
    } else {
        lab_result_print_text(r, h->opt.quiet ? LAB_REPORT_VERDICT : LAB_REPORT_FULL, h->out);
        if (!h->opt.quiet && r->status != LAB_STATUS_ERROR) {
            FILE *o = lab_wrap_begin(&w, h->out, LAB_WRAP_COLUMNS);
            lab_steps_print_next(r->spec, &h->findings, r->status == LAB_STATUS_PASS, o);
            lab_wrap_end(&w);
        }
    }
}

int main(int argc, char **argv) {
    static harness H;
    static lab_result R;
    harness *h = &H;
    char err[512];
    const lab_spec *spec = &LAB_SPEC;

    int rc = lab_parse_options(argc, argv, &h->opt, err, sizeof(err));
    if (rc) {
        fprintf(stderr, "%s: %s\nTry '%s --help'.\n", spec->id, err, lab_usage_name(argv[0]));
        return LAB_EXIT_USAGE;
    }
    if (h->opt.help) {
        lab_print_usage(lab_usage_name(argv[0]), spec->id, stdout);
        return 0;
    }
    if (h->opt.probe_device) {
        rc = lab_backend_probe(err, sizeof(err));
        if (rc == 0) rc = lab_backend_need_devices(spec->devices, err, sizeof(err));
        fprintf(rc ? stderr : stdout, "%s\n", err);
        return rc;
    }
    h->out = h->opt.json ? stderr : stdout;
    h->res = &R;
    R.spec = spec;
    R.correct = true;
    R.step = -1;
    R.runs = h->opt.runs;
    R.seed = h->opt.seed_given ? h->opt.seed : lab_fresh_seed();
    R.workload = lab_make_workload(&spec->workload, R.seed);
    R.baseline_ms = calloc((size_t)R.runs, sizeof(double));
    R.yours_ms = calloc((size_t)R.runs, sizeof(double));
    h->timed[WHO_BASELINE] = calloc((size_t)R.runs, sizeof(int32_t));
    h->timed[WHO_YOURS] = calloc((size_t)R.runs, sizeof(int32_t));
    h->next_run = 1;
    h->total_runs = 2 + 2 * R.runs + (lab_backend_can_perturb() ? h->opt.schedules : 0);

    char events_err[256];
    h->events = lab_events_open(h->opt.events_fd, spec->id, events_err, sizeof(events_err));
    if (h->opt.events_fd >= 0 && !h->events) {
        fprintf(stderr, "%s: --events-fd %d: %s\n", spec->id, h->opt.events_fd, events_err);
        return LAB_EXIT_USAGE;
    }

    h->opt.devices = spec->devices;
    h->peer_access = -1;
    rc = lab_backend_init(&h->opt, &R.backend, err, sizeof(err));
    if (rc) {
        fprintf(stderr, "%s: %s\n", spec->id, err);
        lab_events_close(h->events);
        return rc;
    }
    h->apart = timeline_apart();
    R.timeline_apart = h->apart;
    if (h->apart) {
        /* The requests' latencies are read off their operations' ends (lab 04, lab 06): CUDA
         * events give those, after the copies to the host alone where no background work's
         * span is measured too; every other metric is a run's host-timed length. */
        lab_device_times times = spec->metric != LAB_METRIC_LATENCY ? LAB_TIMES_NONE
                                 : spec->is_background              ? LAB_TIMES_ENDS
                                                                    : LAB_TIMES_RESULTS;
        lab_backend_device_times(times, &R.backend);
        h->results_only = times == LAB_TIMES_RESULTS;
        h->total_runs += 2;
        /* What recording costs each call (the race checker's, the work count's) is paid
         * after each of these runs, not in it (recorder.h, trace_defer). */
        h->defer = true;
    } else {
        /* The timed runs are traced: device timing from the warm-up on (CUPTI's set-up
         * costs milliseconds). */
        lab_backend_device_times(LAB_TIMES_FULL, &R.backend);
    }
    lab_events_hello(h->events, &R);

    h->racecheck = trace_racecheck_create(0);
    h->timeline = trace_timeline_create();
    h->work = lab_work_create();
    trace_racecheck_install(h->racecheck);
    trace_timeline_install(h->timeline);
    lab_work_install(h->work);
    lab_events_install(h->events);
    lab_guard_config guard = {
        .lab_id = spec->id,
        .timeout_s = h->opt.timeout_s,
        .harness_s = lab_harness_budget_start(h->opt.harness_timeout_s),
        .events_fd = h->opt.events_fd,
        .line_fn = lab_events_fatal_line,
        .where_fn = lab_events_where,
        .ctx = h->events,
    };
    lab_guard_install(&guard); /* in the harness's phase "start" */

    /* Your code runs in a process of its own, started before anything is allocated, so that
     * the lab's buffers can be made in the memory the two share (remote.h). */
    if (lab_student_runs_apart()) {
        char path[4096];
        const char *student = h->opt.student;
        if (!student && lab_remote_default_path(path, sizeof(path)) == 0) student = path;
        if (!student) {
            snprintf(R.error, sizeof(R.error), "no program of yours to run: name it with --student PATH");
            goto report;
        }
        if (lab_remote_start(student, R.backend.simulated, err, sizeof(err)) != 0) {
            snprintf(R.error, sizeof(R.error), "could not start your lab's program: %.400s", err);
            goto report;
        }
    }

    if (lab_buffers_alloc(&h->buf, &R.workload, spec->inputs, spec->outputs, err, sizeof(err)) != 0) {
        snprintf(R.error, sizeof(R.error), "could not allocate the lab's buffers: %.400s", err);
        goto report;
    }
    /* Pageable buffers are yours to pin (lab 01): the baseline, which copies from them as
     * they are, gets buffers of its own, so that what you pin does not speed it up. */
    bool baseline_own = spec->inputs == LAB_MEMORY_PAGEABLE || spec->outputs == LAB_MEMORY_PAGEABLE;
    if (baseline_own &&
        lab_buffers_alloc(&h->baseline_buf, &R.workload, spec->inputs, spec->outputs, err, sizeof(err)) != 0) {
        snprintf(R.error, sizeof(R.error), "could not allocate the baseline's buffers: %.400s", err);
        goto report;
    }
    if (lab_has_requests(spec)) {
        void *background = NULL;
        if (spec->background_bytes && cudaMalloc(&background, spec->background_bytes) != cudaSuccess) {
            snprintf(R.error, sizeof(R.error), "could not allocate the background's %zu bytes of device memory",
                     spec->background_bytes);
            goto report;
        }
        h->background = background;
        if (lab_requests_alloc(&h->buf, background, err, sizeof(err)) != 0 ||
            (baseline_own && lab_requests_alloc(&h->baseline_buf, background, err, sizeof(err)) != 0)) {
            snprintf(R.error, sizeof(R.error), "could not allocate the requests: %.400s", err);
            goto report;
        }
        R.latency[0] = calloc((size_t)R.runs, sizeof(lab_run_latency));
        R.latency[1] = calloc((size_t)R.runs, sizeof(lab_run_latency));
    }
    h->impl[WHO_BASELINE] = spec->baseline;
    h->impl[WHO_YOURS] = &LAB_STUDENT;
    for (int w = 0; w < 2; w++) {
        h->ctx[w].buffers = w == WHO_BASELINE && baseline_own ? &h->baseline_buf : &h->buf;
        h->ctx[w].who = who_name[w];
    }
    h->buf.seed = h->baseline_buf.seed = R.seed;
    bool yours_set_up = false;

    lab_guard_phase("setup", "baseline");
    if (spec->baseline->setup(&h->ctx[WHO_BASELINE]) != 0) {
        snprintf(R.error, sizeof(R.error), "the baseline's setup() failed (see above)");
        goto report;
    }
    if (!calibrate(h)) goto teardown;
    yours_set_up = true;
    lab_guard_phase("setup", "yours");
    lab_backend_phase("setup (yours)", true);
    h->setup_t0 = lab_backend_now_ns();
    rc = LAB_STUDENT.setup(&h->ctx[WHO_YOURS]);
    h->setup_t1 = lab_backend_now_ns();
    lab_backend_phase("setup (yours)", false);
    if (rc != 0) {
        stopped_on(&R, "your setup()", rc);
        goto teardown;
    }
    if (sync_devices() != cudaSuccess) {
        cudaError_t e = cudaGetLastError();
        snprintf(R.error, sizeof(R.error), "a CUDA error after your setup(): %s", cudaGetErrorName(e));
        goto teardown;
    }

    lab_events_progress(h->events, "measuring the bound", 0, h->total_runs);
    R.bound_ok = measure_bound_into(h, &R.bound) == 0;

    if (run_all(h)) {
        settle_bound(h);
        recheck_bound(h, spec);
        finish_speed(&R);
        judge_work(h);
    }
    h->peer_access = probe_peer_access();

teardown:
    if (yours_set_up) {
        lab_guard_phase("teardown", "yours");
        LAB_STUDENT.teardown(&h->ctx[WHO_YOURS]);
        /* Work your teardown() left on the device is yours too, not the harness's. */
        (void)sync_devices();
        (void)cudaGetLastError();
    }
    lab_guard_phase("teardown", "harness");
    lab_host_memory_check_teardown(&R.host, &h->buf);
    lab_guard_phase("teardown", "baseline");
    spec->baseline->teardown(&h->ctx[WHO_BASELINE]);
    lab_guard_phase("report", "harness");
    lab_backend_flush();
    collect_races(h);
    explain_mismatch_by_races(h);
    compute_metrics(h);

report:
    if (h->opt.trace_path) {
        char path[4096];
        const char *p = cli_user_path(h->opt.trace_path, path, sizeof(path));
        if (trace_export_chrome_file(h->timeline, TRACE_RUN_ANY, R.race, R.races_shown, p, err, sizeof(err)) == 0)
            fprintf(stderr, "trace written to %s (open it in https://ui.perfetto.dev)\n", p);
        else
            fprintf(stderr, "could not write the trace: %s\n", err);
    }
    emit(h);
    lab_guard_done();
    lab_events_close(h->events);
    lab_requests_free(&h->buf);
    lab_requests_free(&h->baseline_buf);
    lab_buffers_free(&h->buf);
    lab_buffers_free(&h->baseline_buf);
    lab_remote_stop();
    if (h->background) cudaFree(h->background);
    free(R.latency[0]);
    free(R.latency[1]);
    lab_work_uninstall(h->work);
    trace_timeline_uninstall(h->timeline);
    trace_racecheck_uninstall(h->racecheck);
    lab_work_destroy(h->work);
    trace_timeline_destroy(h->timeline);
    trace_racecheck_destroy(h->racecheck);
    lab_backend_shutdown();
    free(R.timeline);
    free(R.baseline_ms);
    free(R.yours_ms);
    free(h->timed[WHO_BASELINE]);
    free(h->timed[WHO_YOURS]);
    free((void *)R.mismatch_run);
    return R.exit_code;
}
