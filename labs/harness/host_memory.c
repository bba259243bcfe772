/* labs/harness/host_memory.c: pinning calls, pageable copies and leftover registrations,
 * read from the trace (see host_memory.h). */
#include "labs/harness/host_memory.h"

#include <math.h>
#include <string.h>

#include <cuda_runtime.h>

static const char *const PINNING_CALLS[] = {
    "cudaHostRegister", "cudaHostUnregister", "cudaMallocHost", "cudaHostAlloc", "cudaFreeHost",
};

bool lab_is_pinning_call(const char *api) {
    for (size_t i = 0; i < sizeof(PINNING_CALLS) / sizeof(PINNING_CALLS[0]); i++)
        if (!strcmp(api, PINNING_CALLS[i])) return true;
    return false;
}

static bool is_copy_call(const char *api) {
    return !strncmp(api, "cudaMemcpy", 10); /* cudaMemcpy, cudaMemcpyAsync, their _ptds/_ptsz forms */
}

/* Adds a pinning call's op to p. The ops of one program call (a cudaFreeHost the referee
 * performs as a device synchronisation and an unregistration, trace_op.as_call) are
 * recorded one after the other: the call is counted once, its time from its first op's
 * start to its last op's end. *open_call and *open_end follow the call being added to. */
static void add_pinning(lab_pinning *p, const trace_op *op, uint64_t *open_call, uint64_t *open_end) {
    uint64_t start = op->start_ns;
    if (op->as_call && op->as_call == *open_call) {
        if (start < *open_end) start = *open_end; /* time already counted */
    } else {
        p->calls++;
    }
    *open_call = op->as_call;
    if (op->end_ns > start) p->ms += (double)(op->end_ns - start) / 1e6;
    if (op->end_ns > *open_end || !op->as_call) *open_end = op->end_ns;
    if (strstr(p->names, op->name)) return;
    size_t used = strlen(p->names);
    if (used + strlen(op->name) + 3 >= sizeof(p->names)) return;
    if (used) strcat(p->names, ", ");
    strcat(p->names, op->name);
}

/* The pinning calls of recorder run `run` (in_run) or of the window [t0, t1] into p. */
static void scan_pinning(lab_pinning *p, trace_timeline *tl, bool in_run, int32_t run, uint64_t t0, uint64_t t1) {
    memset(p, 0, sizeof(*p));
    uint64_t open_call = 0, open_end = 0;
    size_t n = trace_timeline_count(tl);
    for (size_t i = 0; i < n; i++) {
        const trace_op *op = trace_timeline_get(tl, i);
        if (op->kind != TRACE_OP_API || !lab_is_pinning_call(op->name)) continue;
        if (in_run ? trace_timeline_in_run(op, run) : op->start_ns >= t0 && op->end_ns <= t1)
            add_pinning(p, op, &open_call, &open_end);
    }
}

void lab_host_memory_scan_setup(lab_host_memory *m, trace_timeline *tl, uint64_t t0, uint64_t t1) {
    scan_pinning(&m->setup, tl, false, 0, t0, t1);
}

static double figure(const lab_bound *b, const char *key) {
    for (size_t i = 0; b && i < b->n_figures; i++)
        if (!strcmp(b->figures[i].key, key)) return b->figures[i].value;
    return 0;
}

void lab_host_memory_scan_warmup(lab_host_memory *m, trace_timeline *tl, int32_t run) {
    scan_pinning(&m->warmup, tl, true, run, 0, 0);
}

void lab_host_memory_scan_run(lab_host_memory *m, trace_timeline *tl, int32_t run, double run_ms, const lab_bound *b) {
    scan_pinning(&m->run, tl, true, run, 0, 0);
    memset(m->pageable, 0, sizeof(m->pageable));
    memset(m->pageable_gbps, 0, sizeof(m->pageable_gbps));
    m->copy_wait_ms = 0;
    m->run_ms = run_ms;
    m->pinned_gbps[0] = figure(b, "h2d_gbps");
    m->pinned_gbps[1] = figure(b, "d2h_gbps");
    double bytes[2] = {0, 0}, ns[2] = {0, 0};
    size_t n = trace_timeline_count(tl);
    for (size_t i = 0; i < n; i++) {
        const trace_op *op = trace_timeline_get(tl, i);
        if (!trace_timeline_in_run(op, run)) continue;
        if (op->kind == TRACE_OP_API) {
            if (is_copy_call(op->name)) m->copy_wait_ms += (double)(op->end_ns - op->start_ns) / 1e6;
            continue;
        }
        if (op->kind != TRACE_OP_COPY || op->pinned) continue;
        int d = op->dir == TRACE_COPY_H2D ? 0 : op->dir == TRACE_COPY_D2H ? 1 : -1;
        if (d < 0) continue;
        m->pageable[d]++;
        if (op->timed && op->end_ns > op->start_ns) {
            bytes[d] += (double)op->bytes;
            ns[d] += (double)(op->end_ns - op->start_ns);
        }
    }
    for (int d = 0; d < 2; d++) m->pageable_gbps[d] = ns[d] > 0 ? bytes[d] / ns[d] : 0;
}

static void check_one(lab_host_memory *m, void *p) {
    if (!p) return;
    if (cudaHostUnregister(p) == cudaSuccess)
        m->left_registered++;
    else
        (void)cudaGetLastError(); /* not registered: as it should be */
}

void lab_host_memory_check_teardown(lab_host_memory *m, const lab_buffers *buf) {
    m->left_registered = 0;
    for (int b = 0; b < buf->workload.batches; b++) {
        if (buf->input_memory == LAB_MEMORY_PAGEABLE) check_one(m, buf->inputs[b]);
        if (buf->output_memory == LAB_MEMORY_PAGEABLE) check_one(m, buf->outputs[b]);
    }
}

void lab_host_memory_payoff(lab_host_memory *m, double baseline_ms, double yours_ms) {
    m->payoff_runs = 0;
    double saved = baseline_ms - yours_ms;
    if (m->setup.calls == 0 || !(saved > 0)) return;
    m->payoff_runs = (int)ceil(m->setup.ms / saved);
    if (m->payoff_runs < 1) m->payoff_runs = 1;
}

bool lab_host_memory_worth_showing(const lab_host_memory *m, const lab_spec *spec) {
    return spec->inputs == LAB_MEMORY_PAGEABLE || spec->outputs == LAB_MEMORY_PAGEABLE || m->setup.calls > 0 ||
           m->run.calls > 0 || m->warmup.calls > 0 || m->pageable[0] > 0 || m->pageable[1] > 0;
}

static const char *const DIR_NAME[2] = {"H2D", "D2H"};

void lab_host_memory_print(const lab_host_memory *m, FILE *out) {
    if (m->pageable[0] + m->pageable[1] > 0) {
        fprintf(out, "  host mem   ");
        bool first = true;
        for (int d = 0; d < 2; d++) {
            if (!m->pageable[d]) continue;
            fprintf(out, "%s%d %s cop%s %s pageable memory at %.1f GB/s", first ? "" : "; ", m->pageable[d],
                    DIR_NAME[d], m->pageable[d] == 1 ? "y" : "ies", d == 0 ? "from" : "to", m->pageable_gbps[d]);
            if (m->pinned_gbps[d] > 0) fprintf(out, " (pinned: %.1f GB/s)", m->pinned_gbps[d]);
            first = false;
        }
        fprintf(out, "\n             the driver staged each one through a pinned buffer of its own, and the host "
                     "waited %.2f ms of the run's %.2f in copy calls\n",
                m->copy_wait_ms, m->run_ms);
    } else {
        fprintf(out, "  host mem   every copy went from or to pinned memory\n");
    }
    if (m->run.calls > 0)
        fprintf(out, "  pinning    run() pins every time: %d call%s (%s) took %.2f ms of a %.2f ms run; pin once, in "
                     "setup(), and keep it\n",
                m->run.calls, m->run.calls == 1 ? "" : "s", m->run.names, m->run.ms, m->run_ms);
    if (m->warmup.calls > m->run.calls)
        fprintf(out, "  pinning    your first run() (the warm-up, not timed) spent %.2f ms in %d call%s (%s): a "
                     "program pays that in its first run; the lab's timed runs did not see it. Pin in setup().\n",
                m->warmup.ms, m->warmup.calls, m->warmup.calls == 1 ? "" : "s", m->warmup.names);
    if (m->setup.calls > 0) {
        fprintf(out, "  pinning    setup() spent %.2f ms in %d call%s (%s), once", m->setup.ms, m->setup.calls,
                m->setup.calls == 1 ? "" : "s", m->setup.names);
        if (m->payoff_runs == 1)
            fprintf(out, "; it paid for itself within the first run\n");
        else if (m->payoff_runs > 1)
            fprintf(out, "; it paid for itself after %d runs\n", m->payoff_runs);
        else
            fprintf(out, "; your runs are not faster than the baseline's, so it has not paid off\n");
    }
    if (m->left_registered > 0)
        fprintf(out, "  teardown   left %d of the harness's buffers registered: cudaHostUnregister what setup() "
                     "registered\n",
                m->left_registered);
}

static cJSON *pinning_json(const lab_pinning *p) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "calls", p->calls);
    cJSON_AddNumberToObject(o, "ms", p->ms);
    cJSON_AddStringToObject(o, "names", p->names);
    return o;
}

cJSON *lab_host_memory_json(const lab_host_memory *m) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToObject(o, "pinning_in_setup", pinning_json(&m->setup));
    cJSON_AddItemToObject(o, "pinning_in_run", pinning_json(&m->run));
    cJSON_AddItemToObject(o, "pinning_in_warmup", pinning_json(&m->warmup));
    for (int d = 0; d < 2; d++) {
        cJSON *c = cJSON_AddObjectToObject(o, d == 0 ? "pageable_h2d" : "pageable_d2h");
        cJSON_AddNumberToObject(c, "copies", m->pageable[d]);
        cJSON_AddNumberToObject(c, "gbps", m->pageable_gbps[d]);
        cJSON_AddNumberToObject(c, "pinned_gbps", m->pinned_gbps[d]);
    }
    cJSON_AddNumberToObject(o, "copy_wait_ms", m->copy_wait_ms);
    cJSON_AddNumberToObject(o, "left_registered", m->left_registered);
    if (m->payoff_runs > 0) cJSON_AddNumberToObject(o, "payoff_runs", m->payoff_runs);
    return o;
}
