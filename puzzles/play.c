/* puzzles/play.c: runs a puzzle's variants on the lab backend and measures each from its
 * timeline (play.h), and the small API variants and judges use (puzzle.h). */
#include "puzzles/play.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "labs/harness/backend.h"
#include "trace/record/recorder.h"
#include "trace/view/export_text.h"
#include "trace/view/metrics.h"
#include "trace/view/timeline.h"

enum { RUN_WARMUP = 0, RUN_TIMED = 1 };

/* The run being measured, for puzzle_report. */
static puzzle_run *g_current;

void puzzle_report(const char *name, double value) {
    if (!g_current || g_current->n_values >= PUZZLE_MAX_VALUES) return;
    int i = g_current->n_values++;
    snprintf(g_current->values[i].name, sizeof(g_current->values[i].name), "%s", name);
    g_current->values[i].value = value;
}

void puzzle_host_work(uint64_t ns) { lab_backend_wait_until(lab_backend_now_ns() + ns); }

void puzzle_name_stream(cudaStream_t stream, const char *name) { lab_backend_name_stream(stream, name); }

void puzzle_name_event(cudaEvent_t event, const char *name) { lab_backend_name_event(event, name); }

double puzzle_value(const puzzle_run *run, const char *name, double def) {
    for (int i = run->n_values - 1; i >= 0; i--)
        if (strcmp(run->values[i].name, name) == 0) return run->values[i].value;
    return def;
}

const puzzle_stream *puzzle_stream_named(const puzzle_run *run, const char *name) {
    for (int i = 0; i < run->n_streams; i++)
        if (strstr(run->streams[i].label, name)) return &run->streams[i];
    return NULL;
}

int puzzle_backend_start(const char *backend, const char *profile, puzzle_backend *out, char *err,
                         size_t err_len) {
    lab_options o;
    memset(&o, 0, sizeof(o));
    o.backend = !backend || strcmp(backend, "auto") == 0 ? LAB_BACKEND_AUTO
                : strcmp(backend, "gpu") == 0        ? LAB_BACKEND_GPU
                                                     : LAB_BACKEND_SIM;
    o.profile = profile;
    lab_backend_info info;
    int rc = lab_backend_init(&o, &info, err, err_len);
    if (rc != 0) return rc;
    /* A puzzle's answer is read off its timeline: device times from the start. */
    lab_backend_device_times(LAB_TIMES_FULL, &info);
    memset(out, 0, sizeof(*out));
    out->simulated = info.simulated;
    if (info.simulated)
        snprintf(out->device, sizeof(out->device), "%.90s, %.40s profile", info.device, info.profile);
    else
        snprintf(out->device, sizeof(out->device), "%.150s", info.device);
    return 0;
}

void puzzle_backend_stop(void) { lab_backend_shutdown(); }

/* The most ops matching (kind, dir) that run at one time. */
static int max_concurrent(trace_timeline *tl, trace_op_kind kind, trace_copy_dir dir) {
    size_t n = trace_timeline_count(tl);
    uint64_t *ends = calloc(n + 1, sizeof(uint64_t));
    if (!ends) return 0;
    size_t live = 0;
    int best = 0;
    /* Ops come in order of start: drop the ones that ended by this start, add this one. */
    for (size_t i = 0; i < n; i++) {
        const trace_op *op = trace_timeline_get(tl, i);
        if (op->kind != kind || (kind == TRACE_OP_COPY && op->dir != dir)) continue;
        size_t k = 0;
        for (size_t j = 0; j < live; j++)
            if (ends[j] > op->start_ns) ends[k++] = ends[j];
        live = k;
        ends[live++] = op->end_ns;
        if ((int)live > best) best = (int)live;
    }
    free(ends);
    return best;
}

static void fill_streams(trace_timeline *tl, uint64_t t0, puzzle_run *r) {
    trace_lane lanes[32];
    size_t n_lanes = trace_timeline_lanes(tl, RUN_TIMED, lanes, 32);
    if (n_lanes > 32) n_lanes = 32;
    size_t n = trace_timeline_count(tl);
    for (size_t l = 0; l < n_lanes && r->n_streams < PUZZLE_MAX_STREAMS; l++) {
        if (!lanes[l].is_stream) continue;
        puzzle_stream *s = &r->streams[r->n_streams++];
        s->id = lanes[l].stream;
        snprintf(s->label, sizeof(s->label), "%s", lanes[l].label);
        uint64_t first = UINT64_MAX, last = 0, busy = 0, cover_end = 0;
        for (size_t i = 0; i < n; i++) {
            const trace_op *op = trace_timeline_get(tl, i);
            if (!trace_lane_has(&lanes[l], op) || op->end_ns <= op->start_ns) continue;
            if (op->start_ns < first) first = op->start_ns;
            if (op->end_ns > last) last = op->end_ns;
            /* ops on a lane come in order of start: the union of their intervals */
            uint64_t a = op->start_ns > cover_end ? op->start_ns : cover_end;
            if (op->end_ns > a) busy += op->end_ns - a;
            if (op->end_ns > cover_end) cover_end = op->end_ns;
        }
        if (first == UINT64_MAX) first = last = t0;
        s->start_ms = (double)(first - t0) / 1e6;
        s->end_ms = (double)(last - t0) / 1e6;
        s->busy_ms = (double)busy / 1e6;
    }
}

/* Runs one variant twice (warm-up, timed) and measures the timed run. */
static int play_one(const puzzle_variant *v, trace_timeline *tl, puzzle_run *r) {
    memset(r, 0, sizeof(*r));
    r->variant = v->name;
    lab_backend_reset();
    trace_reset();
    trace_set_run(RUN_WARMUP);
    cudaError_t err = v->run();
    (void)cudaDeviceSynchronize();
    lab_backend_flush();
    if (err == cudaSuccess) {
        trace_reset(); /* the timed run's streams are s1, s2, ... as the program made them */
        trace_timeline_clear(tl);
        if (trace_timeline_install(tl) != 0) return -1;
        trace_set_run(RUN_TIMED);
        g_current = r;
        uint64_t h0 = lab_backend_now_ns();
        err = v->run();
        uint64_t h1 = lab_backend_now_ns();
        g_current = NULL;
        (void)cudaDeviceSynchronize();
        lab_backend_flush();
        trace_set_run(-1);
        trace_timeline_uninstall(tl);
        r->host_ms = (double)(h1 - h0) / 1e6;
    }
    r->error = err;
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        return -1;
    }
    trace_metrics m;
    if (trace_metrics_compute(tl, RUN_TIMED, &m) == 0) {
        r->span_ms = (double)m.makespan_ns / 1e6;
        r->kernel_busy_ms = (double)m.engine[TRACE_ENGINE_COMPUTE].busy_ns / 1e6;
        r->h2d_busy_ms = (double)m.engine[TRACE_ENGINE_H2D].busy_ns / 1e6;
        r->d2h_busy_ms = (double)m.engine[TRACE_ENGINE_D2H].busy_ns / 1e6;
        r->overlap_ms = (double)m.overlap_ns / 1e6;
        fill_streams(tl, m.t0_ns, r);
        trace_metrics_free(&m);
    }
    r->max_kernels = max_concurrent(tl, TRACE_OP_KERNEL, TRACE_COPY_NONE);
    r->max_h2d = max_concurrent(tl, TRACE_OP_COPY, TRACE_COPY_H2D);
    r->max_d2h = max_concurrent(tl, TRACE_OP_COPY, TRACE_COPY_D2H);
    return 0;
}

int puzzle_play(const puzzle *p, int width, bool utf8, puzzle_run runs[PUZZLE_MAX_VARIANTS]) {
    int rc = 0;
    trace_timeline *tls[PUZZLE_MAX_VARIANTS] = {NULL};
    double longest = 0;
    for (int i = 0; i < p->n_variants; i++) {
        tls[i] = trace_timeline_create();
        if (tls[i]) trace_timeline_keep_run(tls[i], RUN_TIMED);
        if (!tls[i] || play_one(&p->variants[i], tls[i], &runs[i]) != 0) rc = -1;
        if (runs[i].span_ms > longest) longest = runs[i].span_ms;
    }
    lab_backend_reset();
    trace_reset();
    /* One scale for all: each timeline's axis covers the longest span, so that lengths compare
     * at a glance. A variant that would fill less than PUZZLE_MIN_SHARE of the width on it
     * (puzzle 004's 6 ms beside 327 ms: two columns) is drawn on its own scale instead, and a
     * line above its timeline says so. */
    for (int i = 0; i < p->n_variants; i++) {
        if (!tls[i]) continue;
        trace_text_options o;
        memset(&o, 0, sizeof(o));
        o.width = width;
        o.utf8 = utf8;
        o.run = RUN_TIMED;
        o.legend = i == p->n_variants - 1;
        o.span_ns = (uint64_t)(longest * 1e6);
        bool own = runs[i].span_ms > 0 && runs[i].span_ms < PUZZLE_MIN_SHARE * longest;
        if (own) o.span_ns = 0;
        char *text = runs[i].error == cudaSuccess ? trace_export_text(tls[i], &o) : NULL;
        if (text && own) {
            char note[256];
            snprintf(note, sizeof(note),
                     "(on its own time scale: on the others', 0 to %.3g ms, it would fill %.0f%% of the width)\n",
                     longest, 100.0 * runs[i].span_ms / longest);
            size_t a = strlen(note), b = strlen(text);
            char *both = malloc(a + b + 1);
            if (both) {
                memcpy(both, note, a);
                memcpy(both + a, text, b + 1);
                free(text);
                text = both;
            }
        }
        runs[i].timeline = text;
        trace_timeline_destroy(tls[i]);
    }
    return rc;
}

void puzzle_runs_free(puzzle_run runs[PUZZLE_MAX_VARIANTS], int n) {
    for (int i = 0; i < n; i++) {
        free(runs[i].timeline);
        runs[i].timeline = NULL;
    }
}

int puzzle_judge(const puzzle *p, const puzzle_run *runs, char *why, size_t why_len) {
    if (why_len) why[0] = '\0';
    for (int i = 0; i < p->n_variants; i++)
        if (runs[i].error != cudaSuccess) {
            snprintf(why, why_len, "variant %s failed: %s", runs[i].variant, cudaGetErrorString(runs[i].error));
            return -1;
        }
    return p->judge(runs, why, why_len);
}
