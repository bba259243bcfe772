/* labs/harness/requests.c: requests that arrive while run() runs, their latencies, and
 * the background work (see requests.h). */
#include "labs/harness/requests.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "labs/harness/backend.h"
#include "labs/harness/workload.h"
#include "trace/record/recorder.h"

bool lab_has_requests(const lab_spec *spec) { return spec->metric == LAB_METRIC_LATENCY; }

int lab_requests_alloc(lab_buffers *b, void *background, char *err, size_t err_len) {
    size_t n = (size_t)b->workload.batches;
    b->pending = calloc(n, sizeof(uint32_t *));
    b->arrival_ns = calloc(n, sizeof(uint64_t));
    b->arrived = calloc(n, sizeof(bool));
    if (!b->pending || !b->arrival_ns || !b->arrived) {
        snprintf(err, err_len, "out of host memory for %zu requests", n);
        return 1;
    }
    for (size_t i = 0; i < n; i++) {
        b->pending[i] = malloc(b->workload.batch_bytes);
        if (!b->pending[i]) {
            snprintf(err, err_len, "out of host memory for request %zu", i);
            return 1;
        }
    }
    b->background = background;
    return 0;
}

void lab_requests_free(lab_buffers *b) {
    for (int i = 0; b->pending && i < b->workload.batches; i++) free(b->pending[i]);
    free(b->pending);
    free(b->arrival_ns);
    free(b->arrived);
    b->pending = NULL;
    b->arrival_ns = NULL;
    b->arrived = NULL;
}

void lab_requests_hold(lab_buffers *b) {
    const lab_workload *w = &b->workload;
    for (int i = 0; i < w->batches; i++) {
        memcpy(b->pending[i], b->inputs[i], w->batch_bytes);
        for (size_t k = 0; k < w->batch_elems; k++) b->inputs[i][k] = LAB_POISON;
        b->arrived[i] = false;
        b->arrival_ns[i] = 0;
    }
}

int lab_requests_missing(const lab_buffers *b) {
    for (int i = 0; i < b->workload.batches; i++)
        if (!b->arrived[i]) return i;
    return -1;
}

void lab_wait_request(lab_ctx *ctx, int i) {
    lab_buffers *b = ctx->buffers;
    const lab_spec *spec = &LAB_SPEC;
    if (!lab_has_requests(spec) || !b->pending) {
        fprintf(stderr, "streamlab: lab_wait_request: this lab has no requests; every input is there from the start\n");
        return;
    }
    if (i < 0 || i >= b->workload.batches) {
        fprintf(stderr, "streamlab: lab_wait_request(ctx, %d): there are only requests 0 to %d\n", i,
                b->workload.batches - 1);
        return;
    }
    if (b->arrived[i]) return;
    uint64_t at = ctx->run_start_ns + (uint64_t)((spec->request_first_us + i * spec->request_every_us) * 1e3);
    lab_backend_wait_until(at);
    memcpy(b->inputs[i], b->pending[i], b->workload.batch_bytes);
    trace_record_host_access(b->inputs[i], b->workload.batch_bytes, true, "request arrives", i, at);
    b->arrival_ns[i] = at;
    b->arrived[i] = true;
}

int lab_background(lab_ctx *ctx, cudaStream_t stream) {
    const lab_spec *spec = &LAB_SPEC;
    if (!spec->background) {
        fprintf(stderr, "streamlab: lab_background: this lab has no background work\n");
        return 1;
    }
    return spec->background(ctx, stream, ctx->buffers->background);
}

static int compare_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double lab_requests_percentile(const double *sorted, int n, double q) {
    int k = (int)(q * n + 0.999999) - 1;
    if (k < 0) k = 0;
    if (k >= n) k = n - 1;
    return sorted[k];
}

double lab_requests_pooled_p99(const lab_run_latency *runs, int n) {
    int total = 0;
    for (int k = 0; k < n; k++) total += runs[k].kept;
    if (total == 0) return 0;
    double *all = malloc((size_t)total * sizeof(double));
    if (!all) return 0;
    int m = 0;
    for (int k = 0; k < n; k++)
        for (int i = 0; i < runs[k].kept; i++) all[m++] = runs[k].latency_ms[i];
    qsort(all, (size_t)m, sizeof(double), compare_double);
    double p = lab_requests_percentile(all, m, 0.99);
    free(all);
    return p;
}

void lab_requests_measure(const lab_buffers *b, const lab_spec *spec, trace_timeline *tl, int32_t run,
                          bool results_only, lab_run_latency *out) {
    memset(out, 0, sizeof(*out));
    int n = b->workload.batches;
    uint64_t *end = calloc((size_t)n, sizeof(uint64_t));
    uint64_t *first_call = calloc((size_t)n, sizeof(uint64_t));
    double *lat = calloc((size_t)n, sizeof(double));
    double *wait = calloc((size_t)n, sizeof(double));
    if (!end || !first_call || !lat || !wait) {
        free(end);
        free(first_call);
        free(lat);
        free(wait);
        return;
    }
    uint64_t bg0 = UINT64_MAX, bg1 = 0;
    size_t count = trace_timeline_count(tl);
    for (size_t k = 0; k < count; k++) {
        const trace_op *op = trace_timeline_get(tl, k);
        if (!trace_timeline_in_run(op, run) || !trace_op_kind_is_stream_work(op->kind)) continue;
        if (op->batch >= 0 && op->batch < n && (!first_call[op->batch] || op->enqueue_ns < first_call[op->batch]) &&
            !(spec->is_background && spec->is_background(op)))
            first_call[op->batch] = op->enqueue_ns;
        if (!op->timed) continue;
        if (spec->is_background && spec->is_background(op)) {
            out->background_ops++;
            if (op->start_ns < bg0) bg0 = op->start_ns;
            if (op->end_ns > bg1) bg1 = op->end_ns;
            continue;
        }
        if (results_only && !(op->kind == TRACE_OP_COPY && op->dir == TRACE_COPY_D2H)) continue;
        if (op->batch >= 0 && op->batch < n && op->end_ns > end[op->batch]) end[op->batch] = op->end_ns;
    }
    if (out->background_ops > 0) out->background_ms = (double)(bg1 - bg0) / 1e6;
    /* run()'s start, from a request's arrival (batch i arrives at a fixed time after it). */
    for (int i = 0; i < n && out->background_ops > 0; i++) {
        if (!b->arrived[i]) continue;
        uint64_t offset = (uint64_t)((spec->request_first_us + i * spec->request_every_us) * 1e3);
        uint64_t start = b->arrival_ns[i] > offset ? b->arrival_ns[i] - offset : 0;
        out->background_done_ms = bg1 > start ? (double)(bg1 - start) / 1e6 : 0;
        break;
    }
    uint64_t first_arrival = UINT64_MAX, last_end = 0;
    for (int i = 0; i < n; i++) {
        if (!b->arrived[i] || end[i] == 0) continue;
        wait[out->requests] = first_call[i] > b->arrival_ns[i] ? (double)(first_call[i] - b->arrival_ns[i]) / 1e6 : 0;
        lat[out->requests++] = end[i] > b->arrival_ns[i] ? (double)(end[i] - b->arrival_ns[i]) / 1e6 : 0;
        if (b->arrival_ns[i] < first_arrival) first_arrival = b->arrival_ns[i];
        if (end[i] > last_end) last_end = end[i];
    }
    if (out->requests > 0 && last_end > first_arrival) out->span_ms = (double)(last_end - first_arrival) / 1e6;
    if (out->requests > 0) {
        qsort(lat, (size_t)out->requests, sizeof(double), compare_double);
        out->p50_ms = lab_requests_percentile(lat, out->requests, 0.50);
        out->p99_ms = lab_requests_percentile(lat, out->requests, 0.99);
        out->max_ms = lat[out->requests - 1];
        qsort(wait, (size_t)out->requests, sizeof(double), compare_double);
        out->host_wait_p99_ms = lab_requests_percentile(wait, out->requests, 0.99);
        out->kept = out->requests < LAB_LATENCY_KEPT ? out->requests : LAB_LATENCY_KEPT;
        for (int i = 0; i < out->kept; i++) out->latency_ms[i] = lat[i];
    }
    free(end);
    free(first_call);
    free(lat);
    free(wait);
}
