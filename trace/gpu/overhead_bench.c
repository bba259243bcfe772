/* trace/gpu/overhead_bench.c: what each GPU timing strategy costs a lab's timed run, and
 * whether the times it gives are right.
 *
 * Runs the double-buffering lesson's pipeline (batches of n uint32: H2D copy, process
 * kernel, D2H copy, batch i on stream i % streams, pinned host buffers; one device sync at
 * the end) in rounds; each round times one run per strategy, in an order that rotates from
 * round to round, so that drift affects all alike:
 *   off                      no sink and no collector: the interposer passes calls through;
 *   recorder                 a sink is installed, so every call is recorded, nothing timed;
 *   cupti-callback           CUPTI, records matched by each call's correlation id (callback API);
 *   cupti-stream             CUPTI, records matched by their order on each stream;
 *   cupti-external-selected  CUPTI, external correlation ids, API records for the enqueueing calls;
 *   cupti-external-both      the same with every runtime and driver API record (the old default);
 *   events-single            one CUDA event after each op;
 *   events-pair              CUDA events before and after each op;
 *   diag-cupti-kernels-only, diag-cupti-copies-only, diag-cupti-no-records
 *                            cupti-stream with only kernel records, only memcpy records, or
 *                            none (CUPTI loaded and idle): what each kind of record costs;
 * (also selectable: cupti-external-runtime, cupti-external-driver). Each strategy is begun
 * before its run with autoflush off, warmed up with one untimed run, and its device times
 * are flushed after the timed run, outside the timing, as the lab harness does.
 *
 * Prints one table row per strategy: median and best run time, overhead over off (in this
 * process, and over --off-ms, the median of a process that never loaded CUPTI), device ops
 * timed out of recorded, ops whose times cannot be right (starting before their enqueue,
 * overlapping the op before them on their stream, or starting before it: time_check.h),
 * matching errors the collector counted, flush time per run, and the first (warm-up) run,
 * which shows each strategy's one-time set-up cost. The target for the default CUPTI
 * strategy is under 3%.
 * Exit status: 0 done, 1 a CUDA error or wrong results, 2 bad options, 77 no device. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime.h>

#include "cli/cli.h"
#include "kernels/cpu/cpu.h"
#include "kernels/kernels.h"
#include "trace/gpu/collector.h"
#include "trace/gpu/time_check.h"
#include "trace/record/recorder.h"

#define CHECK(expr)                                                                                          \
    do {                                                                                                     \
        cudaError_t e_ = (expr);                                                                             \
        if (e_ != cudaSuccess) {                                                                             \
            fprintf(stderr, "overhead_bench: %s failed: %s\n", #expr, cudaGetErrorString(e_));               \
            exit(1);                                                                                         \
        }                                                                                                    \
    } while (0)

typedef struct strategy {
    const char *name;
    bool record;           /* a sink is installed */
    bool timed;            /* the collector is begun */
    trace_gpu_options opt; /* when timed */
    bool in_default_list;
    const char *kinds;     /* STREAMLAB_CUPTI_KINDS while it begins (diagnostic rows), or NULL */
} strategy;

#define OPT(req, m, a, e)                                                                                    \
    { TRACE_GPU_##req, TRACE_GPU_MATCH_##m, TRACE_GPU_API_##a, TRACE_GPU_EVENTS_##e }

static const strategy strategies[] = {
    {"off", false, false, OPT(WANT_NONE, AUTO, AUTO, AUTO), true, NULL},
    {"recorder", true, false, OPT(WANT_NONE, AUTO, AUTO, AUTO), true, NULL},
    {"cupti-callback", true, true, OPT(WANT_CUPTI, CALLBACK, AUTO, AUTO), true, NULL},
    {"cupti-stream", true, true, OPT(WANT_CUPTI, STREAM_ORDER, AUTO, AUTO), true, NULL},
    {"cupti-external-selected", true, true, OPT(WANT_CUPTI, EXTERNAL, SELECTED, AUTO), true, NULL},
    {"cupti-external-both", true, true, OPT(WANT_CUPTI, EXTERNAL, BOTH, AUTO), true, NULL},
    {"events-single", true, true, OPT(WANT_EVENTS, AUTO, AUTO, SINGLE), true, NULL},
    {"events-pair", true, true, OPT(WANT_EVENTS, AUTO, AUTO, PAIR), true, NULL},
    /* Diagnostics: cupti-stream with only some device records, to show what each costs
     * (the other ops stay untimed); "none" leaves CUPTI loaded and idle. */
    {"diag-cupti-kernels-only", true, true, OPT(WANT_CUPTI, STREAM_ORDER, AUTO, AUTO), true, "kernel"},
    {"diag-cupti-copies-only", true, true, OPT(WANT_CUPTI, STREAM_ORDER, AUTO, AUTO), true, "memcpy"},
    {"diag-cupti-no-records", true, true, OPT(WANT_CUPTI, STREAM_ORDER, AUTO, AUTO), true, "none"},
    {"cupti-external-runtime", true, true, OPT(WANT_CUPTI, EXTERNAL, RUNTIME, AUTO), false, NULL},
    {"cupti-external-driver", true, true, OPT(WANT_CUPTI, EXTERNAL, DRIVER, AUTO), false, NULL},
};
#define N_STRATEGIES ((int)(sizeof(strategies) / sizeof(strategies[0])))
/* Whether s is what trace_gpu_begin() picks with no environment: the row the target is for. */
static bool is_default(const strategy *s) {
    return s->timed && s->opt.request == TRACE_GPU_WANT_CUPTI && s->opt.match == TRACE_GPU_DEFAULT_MATCH &&
           (s->opt.match != TRACE_GPU_MATCH_EXTERNAL || s->opt.api_records == TRACE_GPU_API_SELECTED);
}

typedef struct config {
    int batches, streams, rounds;
    size_t n;
    uint32_t iters;
} config;

typedef struct pipeline {
    config cfg;
    uint32_t **h_in, **h_out;
    uint32_t **d_in, **d_out;
    cudaStream_t *streams;
} pipeline;

/* ---- the sink: the device ops of the timed run and their times ------------------------------ */

typedef struct seen {
    bool collecting; /* the timed run is on: its device ops are kept */
    bool frozen;     /* its flush is done: later times (a forced flush at the end) do not count */
    trace_gpu_timed_op *ops;
    size_t n, cap;
    uint64_t timed;
} seen;

static seen S;

static bool device_kind(const trace_op *op) {
    return op->kind == TRACE_OP_COPY || op->kind == TRACE_OP_MEMSET || op->kind == TRACE_OP_KERNEL;
}

static void on_op(void *ctx, const trace_op *op) {
    seen *s = ctx;
    if (!s->collecting || !device_kind(op) || op->timed) return;
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 256;
        trace_gpu_timed_op *p = realloc(s->ops, cap * sizeof(*p));
        if (!p) return;
        s->ops = p;
        s->cap = cap;
    }
    trace_gpu_timed_op *t = &s->ops[s->n++];
    memset(t, 0, sizeof(*t));
    t->op_id = op->id;
    t->stream = op->stream;
    t->enqueue_ns = op->enqueue_ns;
}

static void on_timed(void *ctx, const trace_op *op) {
    seen *s = ctx;
    if (s->frozen || !device_kind(op)) return;
    /* Ids grow in recording order: binary search. */
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->ops[mid].op_id < op->id)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < s->n && s->ops[lo].op_id == op->id && s->ops[lo].start_ns == 0 && s->ops[lo].end_ns == 0) {
        s->ops[lo].start_ns = op->start_ns;
        s->ops[lo].end_ns = op->end_ns;
        s->timed++;
    }
}

/* ---- the pipeline ------------------------------------------------------------------------ */

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static kernels_process_params params_of(const config *c) {
    kernels_process_params p = {0x2545f491u, 0x9e3779b9u, c->iters};
    return p;
}

static void setup(pipeline *p) {
    const config *c = &p->cfg;
    size_t bytes = c->n * sizeof(uint32_t);
    p->h_in = calloc((size_t)c->batches, sizeof(uint32_t *));
    p->h_out = calloc((size_t)c->batches, sizeof(uint32_t *));
    p->d_in = calloc((size_t)c->streams, sizeof(uint32_t *));
    p->d_out = calloc((size_t)c->streams, sizeof(uint32_t *));
    p->streams = calloc((size_t)c->streams, sizeof(cudaStream_t));
    if (!p->h_in || !p->h_out || !p->d_in || !p->d_out || !p->streams) {
        fprintf(stderr, "overhead_bench: out of memory\n");
        exit(1);
    }
    for (int b = 0; b < c->batches; b++) {
        CHECK(cudaMallocHost((void **)&p->h_in[b], bytes));
        CHECK(cudaMallocHost((void **)&p->h_out[b], bytes));
        for (size_t i = 0; i < c->n; i++) p->h_in[b][i] = (uint32_t)(i * 2654435761u + (uint32_t)b);
    }
    for (int s = 0; s < c->streams; s++) {
        CHECK(cudaMalloc((void **)&p->d_in[s], bytes));
        CHECK(cudaMalloc((void **)&p->d_out[s], bytes));
        CHECK(cudaStreamCreateWithFlags(&p->streams[s], cudaStreamNonBlocking));
    }
}

/* One timed run of the pipeline, in ms from the first enqueue to the end of the sync. */
static double run(pipeline *p) {
    const config *c = &p->cfg;
    size_t bytes = c->n * sizeof(uint32_t);
    kernels_process_params params = params_of(c);
    CHECK(cudaDeviceSynchronize());
    double t0 = now_ms();
    for (int b = 0; b < c->batches; b++) {
        int s = b % c->streams;
        CHECK(cudaMemcpyAsync(p->d_in[s], p->h_in[b], bytes, cudaMemcpyHostToDevice, p->streams[s]));
        CHECK(kernels_process(p->d_out[s], p->d_in[s], c->n, params, p->streams[s]));
        CHECK(cudaMemcpyAsync(p->h_out[b], p->d_out[s], bytes, cudaMemcpyDeviceToHost, p->streams[s]));
    }
    CHECK(cudaDeviceSynchronize());
    return now_ms() - t0;
}

static int check_results(pipeline *p) {
    const config *c = &p->cfg;
    uint32_t *want = malloc(c->n * sizeof(uint32_t));
    if (!want) return 1;
    int bad = 0;
    for (int b = 0; b < c->batches && !bad; b++) {
        kernels_oracle_process(want, p->h_in[b], c->n, params_of(c));
        bad = memcmp(want, p->h_out[b], c->n * sizeof(uint32_t)) != 0;
        if (bad) fprintf(stderr, "overhead_bench: batch %d differs from the CPU oracle\n", b);
    }
    free(want);
    return bad;
}

/* ---- strategies -------------------------------------------------------------------------- */

/* Ends any tracing: delivers the times still pending and removes the sink. */
static void leave(void) {
    trace_gpu_end();
    trace_remove_sink(&S);
}

/* Puts the process in strategy s (outside any timing), with its status sentence in
 * status. Returns false when the strategy cannot be had here (CUPTI unavailable, or it
 * fell back to another strategy). */
static bool enter(const strategy *s, char *status, size_t status_size) {
    leave();
    if (status_size) status[0] = '\0';
    if (!s->record) return true;
    trace_sink sink = {&S, NULL, on_op, on_timed, NULL};
    trace_add_sink(&sink);
    if (!s->timed) return true;
    trace_gpu_set_autoflush(false);
    if (s->kinds) setenv("STREAMLAB_CUPTI_KINDS", s->kinds, 1);
    trace_gpu_mode mode = trace_gpu_begin_options(&s->opt);
    if (s->kinds) unsetenv("STREAMLAB_CUPTI_KINDS");
    if (status_size) snprintf(status, status_size, "%s", trace_gpu_status_message());
    bool want_cupti = s->opt.request == TRACE_GPU_WANT_CUPTI;
    if (mode != (want_cupti ? TRACE_GPU_CUPTI : TRACE_GPU_EVENTS)) return false;
    /* A diagnostic row runs under its base strategy's name. */
    return s->kinds ? strcmp(trace_gpu_strategy(), "cupti-stream") == 0 : strcmp(trace_gpu_strategy(), s->name) == 0;
}

typedef struct tally {
    bool wanted, available;
    double *ms;
    double first_ms;
    uint64_t recorded, timed, match_errors, flushes;
    double flush_ms;
    trace_gpu_time_errors wrong;
    char status[1024];
} tally;

/* One round of strategy s: warm-up, timed run, flush, checks. */
static void measure(pipeline *p, const strategy *s, tally *t, int round) {
    if (!enter(s, NULL, 0)) return;
    run(p); /* warm-up, as a harness does after beginning the collector */
    trace_gpu_flush();
    S.n = 0;
    S.timed = 0;
    S.frozen = false;
    S.collecting = true;
    trace_gpu_stats before = trace_gpu_get_stats();
    t->ms[round] = run(p);
    S.collecting = false;
    trace_gpu_flush();
    trace_gpu_stats after = trace_gpu_get_stats();
    S.frozen = true;
    leave();
    t->recorded += S.n;
    t->timed += S.timed;
    t->match_errors += after.match_errors - before.match_errors;
    t->flushes += after.flushes - before.flushes;
    t->flush_ms += (double)(after.flush_ns - before.flush_ns) / 1e6;
    /* Only the ops that got times can be checked; the others show as timed < recorded. */
    size_t w = 0;
    for (size_t i = 0; i < S.n; i++)
        if (S.ops[i].start_ns || S.ops[i].end_ns) S.ops[w++] = S.ops[i];
    if (trace_gpu_check_times(S.ops, w, &t->wrong) != 0) fprintf(stderr, "overhead_bench: out of memory\n");
}

/* ---- options and output ------------------------------------------------------------------- */

static int cmp_double(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static void usage(FILE *f) {
    fprintf(f, "usage: overhead_bench [--batches N] [--n ELEMENTS] [--iters K] [--streams S] [--rounds R]\n"
               "                      [--modes NAME,...] [--off-ms MS]\n"
               "  times the double-buffering pipeline under each GPU timing strategy; defaults: 16\n"
               "  batches of 1048576, iters 250, 2 streams, 21 rounds, and the strategies\n ");
    for (int i = 0; i < N_STRATEGIES; i++)
        if (strategies[i].in_default_list) fprintf(f, " %s", strategies[i].name);
    fprintf(f, "\n  (also: cupti-external-runtime, cupti-external-driver; 'all' for every one).\n"
               "  --off-ms: the median of `--modes off` in a fresh process, to compare with too.\n");
}

/* Parses a comma-separated list of strategy names into wanted[]; false on an unknown name. */
static bool parse_modes(const char *text, bool wanted[N_STRATEGIES]) {
    for (int m = 0; m < N_STRATEGIES; m++) wanted[m] = false;
    bool any = false;
    const char *p = text;
    while (*p) {
        size_t len = strcspn(p, ",");
        bool known = false;
        for (int m = 0; m < N_STRATEGIES; m++) {
            bool all = len == 3 && strncmp(p, "all", 3) == 0;
            if (all || (strlen(strategies[m].name) == len && strncmp(p, strategies[m].name, len) == 0))
                wanted[m] = known = any = true;
        }
        if (!known || len == 0) return false;
        p += len;
        if (*p == ',') p++;
    }
    return any;
}

static bool parse_positive(const char *text, long max, long *out) {
    long long v;
    if (!cli_int(text, 1, max, &v)) return false;
    *out = (long)v;
    return true;
}

static bool parse_ms(const char *text, double *out) {
    char *end = NULL;
    double v = strtod(text, &end);
    if (!end || end == text || *end || !(v > 0) || v > 1e6) return false;
    *out = v;
    return true;
}

static void pct(char *out, size_t size, double value, double base) {
    if (base > 0)
        snprintf(out, size, "%+.2f%%", 100.0 * (value - base) / base);
    else
        snprintf(out, size, "-");
}

int main(int argc, char **argv) {
    config cfg = {.batches = 16, .streams = 2, .rounds = 21, .n = (size_t)1 << 20, .iters = 250};
    static const struct option options[] = {
        {"batches", required_argument, NULL, 'b'}, {"n", required_argument, NULL, 'n'},
        {"iters", required_argument, NULL, 'i'},   {"streams", required_argument, NULL, 's'},
        {"rounds", required_argument, NULL, 'r'},  {"modes", required_argument, NULL, 'm'},
        {"off-ms", required_argument, NULL, 'o'},  {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    bool wanted[N_STRATEGIES];
    for (int m = 0; m < N_STRATEGIES; m++) wanted[m] = strategies[m].in_default_list;
    double fresh_off_ms = 0;
    int opt, index = 0;
    while ((opt = getopt_long(argc, argv, "", options, &index)) != -1) {
        long v = 0;
        bool ok = true;
        switch (opt) {
        case 'b': ok = parse_positive(optarg, 4096, &v), cfg.batches = (int)v; break;
        case 'n': ok = parse_positive(optarg, 1L << 28, &v), cfg.n = (size_t)v; break;
        case 'i': ok = parse_positive(optarg, 1L << 24, &v), cfg.iters = (uint32_t)v; break;
        case 's': ok = parse_positive(optarg, 64, &v), cfg.streams = (int)v; break;
        case 'r': ok = parse_positive(optarg, 1000, &v), cfg.rounds = (int)v; break;
        case 'o': ok = parse_ms(optarg, &fresh_off_ms); break;
        case 'm':
            if (!parse_modes(optarg, wanted)) {
                fprintf(stderr, "overhead_bench: --modes wants names of strategies (see --help), got '%s'\n",
                        optarg);
                return 2;
            }
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
        if (!ok) {
            fprintf(stderr, "overhead_bench: --%s wants a positive number in range, got '%s'\n",
                    options[index].name, optarg);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "overhead_bench: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        return 2;
    }

    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("overhead_bench: no CUDA device\n");
        return 77;
    }
    struct cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));

    pipeline p = {.cfg = cfg};
    setup(&p);

    tally t[N_STRATEGIES];
    memset(t, 0, sizeof(t));
    for (int m = 0; m < N_STRATEGIES; m++) {
        t[m].wanted = wanted[m];
        t[m].ms = calloc((size_t)cfg.rounds, sizeof(double));
        if (!t[m].ms) {
            fprintf(stderr, "overhead_bench: out of memory\n");
            return 1;
        }
    }
    /* The first run of each strategy, right after its first begin: its one-time set-up. */
    for (int m = 0; m < N_STRATEGIES; m++) {
        if (!wanted[m]) continue;
        t[m].available = enter(&strategies[m], t[m].status, sizeof(t[m].status));
        if (t[m].available) t[m].first_ms = run(&p);
    }
    leave();
    for (int r = 0; r < cfg.rounds; r++) {
        for (int k = 0; k < N_STRATEGIES; k++) {
            int m = (k + r) % N_STRATEGIES; /* rotate the order from round to round */
            if (t[m].available) measure(&p, &strategies[m], &t[m], r);
        }
    }
    leave();
    int bad = check_results(&p);

    printf("# overhead_bench on %s: %d batches x %zu uint32, process iters %u, %d streams, %d rounds\n", prop.name,
           cfg.batches, cfg.n, cfg.iters, cfg.streams, cfg.rounds);
    for (int m = 0; m < N_STRATEGIES; m++)
        if (t[m].wanted && strategies[m].timed) printf("# %s: %s\n", strategies[m].name, t[m].status);
    printf("\n| strategy | median ms | best ms | vs off | vs fresh off | device ops timed / recorded | wrong times: "
           "before enqueue / overlap / out of order | match errors | flush ms per run | first run ms |\n"
           "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    double medians[N_STRATEGIES] = {0};
    int off = -1;
    for (int m = 0; m < N_STRATEGIES; m++) {
        if (!t[m].available) continue;
        qsort(t[m].ms, (size_t)cfg.rounds, sizeof(double), cmp_double);
        medians[m] = t[m].ms[cfg.rounds / 2];
        if (strcmp(strategies[m].name, "off") == 0) off = m;
    }
    double off_median = off >= 0 ? medians[off] : 0;
    for (int m = 0; m < N_STRATEGIES; m++) {
        const strategy *s = &strategies[m];
        if (!t[m].wanted) continue;
        if (!t[m].available) {
            printf("| %s | unavailable (%s) | | | | | | | | |\n", s->name, t[m].status[0] ? "see above" : "?");
            continue;
        }
        char vs_off[32], vs_fresh[32], timed[48] = "-", wrong[64] = "-", errors[32] = "-";
        pct(vs_off, sizeof(vs_off), medians[m], off_median);
        pct(vs_fresh, sizeof(vs_fresh), medians[m], fresh_off_ms);
        if (s->timed) {
            snprintf(timed, sizeof(timed), "%llu / %llu", (unsigned long long)t[m].timed,
                     (unsigned long long)t[m].recorded);
            snprintf(wrong, sizeof(wrong), "%llu / %llu / %llu", (unsigned long long)t[m].wrong.before_enqueue,
                     (unsigned long long)t[m].wrong.overlap, (unsigned long long)t[m].wrong.out_of_order);
            snprintf(errors, sizeof(errors), "%llu", (unsigned long long)t[m].match_errors);
        }
        printf("| %s | %.3f | %.3f | %s | %s | %s | %s | %s | %.3f | %.3f |\n", s->name, medians[m], t[m].ms[0],
               vs_off, vs_fresh, timed, wrong, errors, t[m].flush_ms / cfg.rounds, t[m].first_ms);
    }
    /* The verdict is against the fresh process when there is one: this process has loaded
     * CUPTI, which may leave costs behind in its "off" runs. */
    double base = fresh_off_ms > 0 ? fresh_off_ms : off_median;
    printf("\n");
    for (int m = 0; m < N_STRATEGIES; m++) {
        if (!t[m].available || !strategies[m].timed || strategies[m].kinds || base <= 0) continue;
        double over = 100.0 * (medians[m] - base) / base;
        bool all_timed = t[m].timed == t[m].recorded;
        bool right = t[m].wrong.before_enqueue + t[m].wrong.overlap + t[m].wrong.out_of_order == 0;
        printf("RESULT %s overhead %+.2f%% vs %s off (target under 3%%: %s), %s, %s%s\n", strategies[m].name, over,
               fresh_off_ms > 0 ? "fresh" : "in-process", over < 3.0 ? "met" : "NOT MET",
               all_timed ? "every op timed" : "SOME OPS UNTIMED", right ? "no impossible times" : "IMPOSSIBLE TIMES",
               is_default(&strategies[m]) ? " [the default]" : "");
    }
    for (int m = 0; m < N_STRATEGIES; m++) free(t[m].ms);
    free(S.ops);
    if (bad) return 1;
    return 0;
}
