/* trace/gpu/overhead_bench.c: what GPU tracing costs a lab's timed run.
 *
 * Runs the double-buffering lesson's pipeline (batches of n uint32: H2D copy, process
 * kernel, D2H copy, batch i on stream i % streams, pinned host buffers; one device sync at
 * the end) in rounds; each round times one run per mode, interleaved so that drift affects
 * all modes alike:
 *   off        no sink and no collector: the interposer only passes calls through;
 *   recorder   a sink is installed, so every call is recorded, but nothing is timed;
 *   cupti      recorded and timed by CUPTI (trace_gpu_begin_mode(TRACE_GPU_WANT_CUPTI));
 *   events     recorded and timed by CUDA event pairs.
 * The collector is begun before each timed run and ended after it, outside the timing, as
 * a harness does (CUPTI's set-up cost is paid in the warm-up and reported separately).
 * Prints a markdown table of medians and the overhead of each mode over off; the target
 * for cupti is under 3%. --modes picks some of the modes: `--modes off` times a process
 * that never loads CUPTI, to compare with the interleaved off runs (CUPTI loaded, idle).
 * Exit status: 0 done, 1 a CUDA error or wrong results, 2 bad options, 77 no device. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime.h>

#include "kernels/cpu/cpu.h"
#include "kernels/kernels.h"
#include "trace/gpu/collector.h"
#include "trace/recorder.h"

#define CHECK(expr)                                                                                          \
    do {                                                                                                     \
        cudaError_t e_ = (expr);                                                                             \
        if (e_ != cudaSuccess) {                                                                             \
            fprintf(stderr, "overhead_bench: %s failed: %s\n", #expr, cudaGetErrorString(e_));               \
            exit(1);                                                                                         \
        }                                                                                                    \
    } while (0)

enum { MODE_OFF, MODE_RECORDER, MODE_CUPTI, MODE_EVENTS, MODE_COUNT };
static const char *mode_names[MODE_COUNT] = {"off", "recorder", "cupti", "events"};

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

/* A sink that counts, standing for the timeline's consumers: every op, and the device ops
 * (copies, memsets, kernels) recorded untimed and later given their times. */
typedef struct counts {
    uint64_t ops, device_ops, device_timed;
} counts;
static bool device_kind(const trace_op *op) {
    return op->kind == TRACE_OP_COPY || op->kind == TRACE_OP_MEMSET || op->kind == TRACE_OP_KERNEL;
}
static void count_op(void *ctx, const trace_op *op) {
    counts *c = ctx;
    c->ops++;
    if (device_kind(op) && !op->timed) c->device_ops++;
}
static void count_timed(void *ctx, const trace_op *op) {
    if (device_kind(op)) ((counts *)ctx)->device_timed++;
}

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

static counts sink_counts;

/* Ends any tracing: delivers the times still pending and removes the sink. */
static void leave(void) {
    trace_gpu_end();
    trace_remove_sink(&sink_counts);
}

/* Puts the process in `mode` (outside any timing). Returns false when the mode cannot be
 * reached here (CUPTI unavailable). */
static bool enter(int mode) {
    leave();
    if (mode == MODE_OFF) return true;
    trace_sink sink = {&sink_counts, NULL, count_op, count_timed, NULL};
    trace_add_sink(&sink);
    if (mode == MODE_CUPTI) return trace_gpu_begin_mode(TRACE_GPU_WANT_CUPTI) == TRACE_GPU_CUPTI;
    if (mode == MODE_EVENTS) return trace_gpu_begin_mode(TRACE_GPU_WANT_EVENTS) == TRACE_GPU_EVENTS;
    return true;
}

static int cmp_double(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static void usage(FILE *f) {
    fprintf(f,
            "usage: overhead_bench [--batches N] [--n ELEMENTS] [--iters K] [--streams S] [--rounds R]\n"
            "                      [--modes off,recorder,cupti,events]\n"
            "  times the double-buffering pipeline with GPU tracing off, recording only, CUPTI and\n"
            "  CUDA-event timing; defaults: 16 batches of 1048576, iters 250, 2 streams, 15 rounds,\n"
            "  all modes\n");
}

/* Parses a comma-separated list of mode names into wanted[]; false on an unknown name. */
static bool parse_modes(const char *text, bool wanted[MODE_COUNT]) {
    for (int m = 0; m < MODE_COUNT; m++) wanted[m] = false;
    const char *p = text;
    while (*p) {
        size_t len = strcspn(p, ",");
        bool known = false;
        for (int m = 0; m < MODE_COUNT; m++) {
            if (strlen(mode_names[m]) == len && strncmp(p, mode_names[m], len) == 0) {
                wanted[m] = known = true;
            }
        }
        if (!known || len == 0) return false;
        p += len;
        if (*p == ',') p++;
    }
    return wanted[MODE_OFF] || wanted[MODE_RECORDER] || wanted[MODE_CUPTI] || wanted[MODE_EVENTS];
}

static bool parse_positive(const char *text, long max, long *out) {
    char *end = NULL;
    long v = strtol(text, &end, 10);
    if (!end || *end || v <= 0 || v > max) return false;
    *out = v;
    return true;
}

int main(int argc, char **argv) {
    config cfg = {.batches = 16, .streams = 2, .rounds = 15, .n = (size_t)1 << 20, .iters = 250};
    static const struct option options[] = {
        {"batches", required_argument, NULL, 'b'}, {"n", required_argument, NULL, 'n'},
        {"iters", required_argument, NULL, 'i'},   {"streams", required_argument, NULL, 's'},
        {"rounds", required_argument, NULL, 'r'},  {"modes", required_argument, NULL, 'm'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0}};
    bool wanted[MODE_COUNT] = {true, true, true, true};
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
        case 'm':
            if (!parse_modes(optarg, wanted)) {
                fprintf(stderr, "overhead_bench: --modes wants names from off,recorder,cupti,events, got '%s'\n",
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

    /* Warm-up: each mode once; the first CUPTI run pays CUPTI's set-up. */
    double first_ms[MODE_COUNT] = {0};
    bool available[MODE_COUNT];
    char cupti_status[1024] = "";
    for (int m = 0; m < MODE_COUNT; m++) {
        available[m] = wanted[m] && enter(m);
        if (m == MODE_CUPTI) snprintf(cupti_status, sizeof(cupti_status), "%s", trace_gpu_status_message());
        if (available[m]) first_ms[m] = run(&p);
    }

    double *ms[MODE_COUNT];
    uint64_t recorded[MODE_COUNT] = {0}, timed[MODE_COUNT] = {0}, flushes[MODE_COUNT] = {0};
    double flush_ms[MODE_COUNT] = {0};
    for (int m = 0; m < MODE_COUNT; m++) ms[m] = calloc((size_t)cfg.rounds, sizeof(double));
    for (int r = 0; r < cfg.rounds; r++) {
        for (int m = 0; m < MODE_COUNT; m++) {
            if (!available[m] || !enter(m)) continue;
            trace_gpu_stats before = trace_gpu_get_stats();
            counts c0 = sink_counts;
            ms[m][r] = run(&p);
            trace_gpu_stats after = trace_gpu_get_stats();
            leave();
            recorded[m] += sink_counts.device_ops - c0.device_ops;
            timed[m] += sink_counts.device_timed - c0.device_timed;
            flushes[m] += after.flushes - before.flushes;
            flush_ms[m] += (after.flush_ns - before.flush_ns) / 1e6;
        }
    }
    leave();
    int bad = check_results(&p);

    printf("# overhead_bench on %s: %d batches x %zu uint32, process iters %u, %d streams, %d rounds\n",
           prop.name, cfg.batches, cfg.n, cfg.iters, cfg.streams, cfg.rounds);
    if (wanted[MODE_CUPTI]) printf("# cupti: %s\n", cupti_status);
    printf("\n| mode | median ms | best ms | vs off | device ops timed / recorded | flushes per run | flush ms "
           "per run | first run ms |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n");
    double off_median = 0;
    double medians[MODE_COUNT] = {0};
    for (int m = 0; m < MODE_COUNT; m++) {
        if (!available[m]) {
            printf("| %s | %s | | | | | | |\n", mode_names[m], wanted[m] ? "unavailable" : "not run");
            continue;
        }
        qsort(ms[m], (size_t)cfg.rounds, sizeof(double), cmp_double);
        medians[m] = ms[m][cfg.rounds / 2];
        if (m == MODE_OFF) off_median = medians[m];
        char timed_text[64] = "-";
        if (m == MODE_CUPTI || m == MODE_EVENTS)
            snprintf(timed_text, sizeof(timed_text), "%llu / %llu", (unsigned long long)timed[m],
                     (unsigned long long)recorded[m]);
        printf("| %s | %.3f | %.3f | %+.2f%% | %s | %.1f | %.3f | %.3f |\n", mode_names[m], medians[m], ms[m][0],
               off_median > 0 ? 100.0 * (medians[m] - off_median) / off_median : 0.0, timed_text, (double)flushes[m] / cfg.rounds,
               flush_ms[m] / cfg.rounds, first_ms[m]);
    }
    if (available[MODE_CUPTI] && available[MODE_OFF]) {
        double over = 100.0 * (medians[MODE_CUPTI] - off_median) / off_median;
        printf("\nCUPTI tracing overhead on the timed run: %+.2f%% (target under 3%%): %s\n", over,
               over < 3.0 ? "within target" : "OVER TARGET");
    }
    for (int m = 0; m < MODE_COUNT; m++) free(ms[m]);
    if (bad) return 1;
    return 0;
}
