/* tui/run.c: one harness run's ops, lanes and metrics (see run.h). */
#define _POSIX_C_SOURCE 200809L
#include "tui/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trace/view/lane_label.h"

const trace_engine tui_engine_order[TUI_ENGINE_LANES] = {TRACE_ENGINE_H2D, TRACE_ENGINE_COMPUTE, TRACE_ENGINE_D2H,
                                                         TRACE_ENGINE_HOST};

tui_run *tui_run_create(int32_t number) {
    tui_run *run = calloc(1, sizeof(*run));
    if (!run) return NULL;
    run->tl = trace_timeline_create();
    if (!run->tl) {
        free(run);
        return NULL;
    }
    run->number = number;
    for (int i = 0; i < TUI_ENGINE_LANES; i++) tui_lane_init_engine(&run->engines[i], tui_engine_order[i]);
    for (uint32_t d = 0; d < TRACE_MAX_DEVICES; d++) {
        for (int i = 0; i < TUI_ENGINE_LANES; i++)
            tui_lane_init_engine_on(&run->device_engines[d][i], tui_engine_order[i], d, d);
        for (uint32_t to = 0; to < TRACE_MAX_DEVICES; to++)
            tui_lane_init_engine_on(&run->links[d][to], TRACE_ENGINE_LINK, d, to);
        tui_lane_init_heading(&run->headings[d], TRACE_ENGINE_NONE, d);
    }
    tui_lane_init_heading(&run->headings[TRACE_MAX_DEVICES], TRACE_ENGINE_LINK, 0);
    return run;
}

void tui_run_destroy(tui_run *run) {
    if (!run) return;
    trace_timeline_destroy(run->tl);
    for (int i = 0; i < TUI_ENGINE_LANES; i++) tui_lane_free(&run->engines[i]);
    for (uint32_t d = 0; d < TRACE_MAX_DEVICES; d++) {
        for (int i = 0; i < TUI_ENGINE_LANES; i++) tui_lane_free(&run->device_engines[d][i]);
        for (uint32_t to = 0; to < TRACE_MAX_DEVICES; to++) tui_lane_free(&run->links[d][to]);
    }
    for (int32_t s = 0; s < run->n_streams; s++) tui_lane_free(&run->streams[s]);
    free(run->streams);
    tui_idset_free(&run->racy);
    if (run->have_metrics) trace_metrics_free(&run->metrics);
    free(run);
}

static bool starts_with(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

void tui_run_set_label(tui_run *run, const char *label) {
    snprintf(run->label, sizeof(run->label), "%s", label);
    run->role = strstr(label, "(yours)") ? TUI_ROLE_YOURS : strstr(label, "(baseline)") ? TUI_ROLE_BASELINE : TUI_ROLE_OTHER;
    run->warmup = starts_with(label, "warm-up");
    run->timed = starts_with(label, "run ");
    run->schedule = starts_with(label, "schedule ");
    run->version++;
}

void tui_run_add_stream(tui_run *run, const trace_stream *stream) {
    trace_timeline_add_stream(run->tl, stream);
    run->version++;
}

static tui_lane *stream_lane(tui_run *run, int32_t id) {
    if (id < 0 || id > 65535) return NULL;
    if (id >= run->n_streams) {
        int32_t n = id + 1;
        tui_lane *l = realloc(run->streams, (size_t)n * sizeof(tui_lane));
        if (!l) return NULL;
        for (int32_t s = run->n_streams; s < n; s++) tui_lane_init_stream(&l[s], s);
        run->streams = l;
        run->n_streams = n;
    }
    return &run->streams[id];
}

/* The device of a stream the run has heard of (0 when it has not). */
static uint32_t stream_device(const tui_run *run, int32_t id) {
    const trace_stream *info = id >= 0 ? trace_timeline_stream(run->tl, id) : NULL;
    return info ? (info->device < TRACE_MAX_DEVICES ? info->device : TRACE_MAX_DEVICES - 1) : 0;
}

int tui_run_add_op(tui_run *run, const trace_op *op) {
    if (!op->timed || op->kind == TRACE_OP_PHASE) return 0;
    trace_timeline_add_op(run->tl, op);
    tui_bar bar = {
        .start_ns = op->start_ns,
        .end_ns = op->end_ns > op->start_ns ? op->end_ns : op->start_ns,
        .id = op->id,
        .batch = op->batch,
        .kind = (uint8_t)tui_kind_of(op),
    };
    int rc = 0;
    for (int i = 0; i < TUI_ENGINE_LANES; i++)
        if (tui_lane_wants(&run->engines[i], op)) rc |= tui_lane_add(&run->engines[i], &bar);
    uint32_t d = op->device < TRACE_MAX_DEVICES ? op->device : TRACE_MAX_DEVICES - 1;
    if (op->engine == TRACE_ENGINE_LINK) {
        uint32_t to = op->dst_device < TRACE_MAX_DEVICES ? op->dst_device : TRACE_MAX_DEVICES - 1;
        if (tui_lane_wants(&run->links[d][to], op)) rc |= tui_lane_add(&run->links[d][to], &bar);
    } else if (d > 0) {
        for (int i = 0; i < TUI_ENGINE_LANES; i++)
            if (tui_engine_order[i] != TRACE_ENGINE_HOST && tui_lane_wants(&run->device_engines[d][i], op))
                rc |= tui_lane_add(&run->device_engines[d][i], &bar);
    }
    if (d > 0 || op->engine == TRACE_ENGINE_LINK || stream_device(run, op->stream) > 0) run->multi_device = true;
    if (op->stream >= 0) {
        tui_lane *l = stream_lane(run, op->stream);
        if (!l)
            rc = -1;
        else if (tui_lane_wants(l, op))
            rc |= tui_lane_add(l, &bar);
    }
    if (!run->any || bar.start_ns < run->t0_ns) run->t0_ns = bar.start_ns;
    if (!run->any || bar.end_ns > run->t1_ns) run->t1_ns = bar.end_ns;
    run->any = true;
    run->ops++;
    run->version++;
    return rc ? -1 : 0;
}

void tui_run_set_phase(tui_run *run, uint64_t start_ns, uint64_t end_ns) {
    run->have_phase = true;
    run->phase_ns = end_ns > start_ns ? end_ns - start_ns : 0;
    run->version++;
}

void tui_run_mark_racy(tui_run *run, uint64_t id) {
    if (tui_idset_has(&run->racy, id)) return;
    tui_idset_add(&run->racy, id);
    run->version++;
}

bool tui_run_is_racy(const tui_run *run, uint64_t id) { return tui_idset_has(&run->racy, id); }

/* Appends lane when it has bars (or is a heading); returns the new count. */
static size_t put(tui_lane *lane, tui_lane **out, size_t max, size_t n) {
    if (!lane->heading && lane->n == 0) return n;
    if (!lane->heading) tui_lane_sort(lane);
    if (n < max) out[n] = lane;
    return n + 1;
}

/* A device's engine lane i: device 0's are the run's engines. */
static tui_lane *engine_of(tui_run *run, uint32_t d, int i) {
    return d == 0 ? &run->engines[i] : &run->device_engines[d][i];
}

static size_t multi_device_lanes(tui_run *run, tui_lane **out, size_t max) {
    size_t n = 0;
    for (int i = 0; i < TUI_ENGINE_LANES; i++)
        if (tui_engine_order[i] == TRACE_ENGINE_HOST) n = put(&run->engines[i], out, max, n);
    for (uint32_t d = 0; d < TRACE_MAX_DEVICES; d++) {
        bool any = false;
        for (int i = 0; i < TUI_ENGINE_LANES; i++)
            any = any || (tui_engine_order[i] != TRACE_ENGINE_HOST && engine_of(run, d, i)->n > 0);
        for (int32_t s = 0; s < run->n_streams && !any; s++) any = run->streams[s].n > 0 && stream_device(run, s) == d;
        if (!any) continue;
        n = put(&run->headings[d], out, max, n);
        for (int i = 0; i < TUI_ENGINE_LANES; i++)
            if (tui_engine_order[i] != TRACE_ENGINE_HOST) n = put(engine_of(run, d, i), out, max, n);
        for (int32_t s = 0; s < run->n_streams; s++)
            if (stream_device(run, s) == d) n = put(&run->streams[s], out, max, n);
    }
    bool link = false;
    for (uint32_t a = 0; a < TRACE_MAX_DEVICES; a++)
        for (uint32_t b = 0; b < TRACE_MAX_DEVICES; b++) link = link || run->links[a][b].n > 0;
    if (link) {
        n = put(&run->headings[TRACE_MAX_DEVICES], out, max, n);
        for (uint32_t a = 0; a < TRACE_MAX_DEVICES; a++)
            for (uint32_t b = 0; b < TRACE_MAX_DEVICES; b++) n = put(&run->links[a][b], out, max, n);
    }
    return n;
}

size_t tui_run_lanes(tui_run *run, tui_lane **out, size_t max) {
    if (run->multi_device) return multi_device_lanes(run, out, max);
    size_t n = 0;
    for (int i = 0; i < TUI_ENGINE_LANES; i++) {
        if (run->engines[i].n == 0) continue;
        tui_lane_sort(&run->engines[i]);
        if (n < max) out[n] = &run->engines[i];
        n++;
    }
    for (int32_t s = 0; s < run->n_streams; s++) {
        if (run->streams[s].n == 0) continue;
        tui_lane_sort(&run->streams[s]);
        if (n < max) out[n] = &run->streams[s];
        n++;
    }
    return n;
}

void tui_run_lane_label(tui_run *run, const tui_lane *lane, int max_cols, bool utf8, char *buf, size_t size) {
    if (lane->heading && lane->engine == TRACE_ENGINE_LINK) {
        snprintf(buf, size, "%s", trace_engine_name(TRACE_ENGINE_LINK));
        return;
    }
    if (lane->heading) {
        trace_device_label(lane->device, buf, size);
        return;
    }
    if (!lane->is_stream && lane->engine == TRACE_ENGINE_LINK) {
        snprintf(buf, size, "GPU %u -> GPU %u", lane->device, lane->dst_device);
        return;
    }
    if (!lane->is_stream) {
        snprintf(buf, size, "%s", trace_engine_name(lane->engine));
        return;
    }
    const trace_stream *info = trace_timeline_stream(run->tl, lane->stream);
    char id[16], prio[16];
    snprintf(id, sizeof(id), lane->stream == TRACE_STREAM_LEGACY ? "stream 0" : "s%d", (int)lane->stream);
    snprintf(prio, sizeof(prio), "p%d", info ? (int)info->priority : 0);
    bool named = lane->stream != TRACE_STREAM_LEGACY && info && info->name[0] && strcmp(info->name, id) != 0;
    /* id "name" prio: a name too long is shortened in the middle (the selected bar's
     * details give it whole). Names come from the event reader, printable. */
    (void)trace_lane_label_fit(id, named ? info->name : NULL, prio, max_cols > 0 ? (size_t)max_cols : 0, utf8, buf,
                               size);
}

const trace_op *tui_run_op(tui_run *run, uint64_t start_ns, uint64_t id) {
    size_t n = trace_timeline_count(run->tl);
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (trace_timeline_get(run->tl, mid)->start_ns < start_ns)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < n; i++) {
        const trace_op *op = trace_timeline_get(run->tl, i);
        if (op->start_ns != start_ns) break;
        if (op->id == id) return op;
    }
    return NULL;
}

const trace_metrics *tui_run_metrics(tui_run *run, double now_ms, double min_interval_ms) {
    if (!run->any) return NULL;
    bool stale = !run->have_metrics || run->metrics_version != run->version;
    if (stale && (!run->have_metrics || now_ms - run->metrics_at_ms >= min_interval_ms)) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        if (run->have_metrics) trace_metrics_free(&run->metrics);
        run->have_metrics = trace_metrics_compute(run->tl, TRACE_RUN_ANY, &run->metrics) == 0;
        run->metrics_version = run->version;
        run->metrics_at_ms = now_ms;
        clock_gettime(CLOCK_MONOTONIC, &b);
        run->metrics_cost_ms = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
    }
    return run->have_metrics ? &run->metrics : NULL;
}

bool tui_run_metrics_stale(const tui_run *run) {
    return run->any && (!run->have_metrics || run->metrics_version != run->version);
}
