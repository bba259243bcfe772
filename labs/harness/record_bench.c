/* labs/harness/record_bench.c: what recording costs each CUDA call of a lab's timed run on
 * a GPU, by sink, on any machine (no GPU needed).
 *
 * In a lab's timed runs on a GPU every runtime call the program makes goes through the
 * interposer (trace/gpu/interpose.c) and is recorded for the race checker and the work
 * check, untimed (docs/labs.md, "Which run each figure comes from"). This benchmark feeds
 * the recorder the calls lab 06's reference makes, as the interposer and the kernels'
 * launchers would record them, with no runtime under them: runs of 32 requests, each a
 * request's arrival (a host write of its input), cudaMemcpyAsync of the input from pinned
 * memory to the device, a process kernel, cudaEventRecord, and cudaMemcpyAsync of the
 * result into the lab's pinned output, request i on stream i % --streams; after each run
 * (outside its timing, as the runner does) the harness reads the results, the copies to the
 * host get device times (results-only timing) and the run's phase is recorded.
 *
 * Each configuration runs --runs lab runs, --reps times, in a process of its own, and prints
 * the least of the reps in nanoseconds of this thread's CPU time per call (a request's four
 * calls and its arrival, divided by four):
 *   frame                     what the interposer's frames do besides recording: the call
 *                             site, whether a sink is installed, two clock reads, the memory
 *                             classification of a copy's host side (allocation cache under
 *                             its lock) and the copy's op;
 *   recorder                  the frame and the recorder with one sink that does nothing;
 *   + race checker, + timeline, + work, + event stream (to /dev/null):
 *                             that sink alone;
 *   timed run                 the sinks a lab's timed run installs (race checker, timeline,
 *                             work); + event stream: as under the grader (--events-fd).
 * Each configuration is run both ways: "eager", each op handed to the sinks as it is
 * recorded (what the timed runs did before trace_defer, recorder.h), and "deferred", the
 * run's ops kept and handed over when it returns (what they do now), both columns what the
 * calls cost inside the run; "after" is the hand-over at the end of each run, outside its
 * timing, per call; "saved" is what deferring takes off the calls inside the run. --only
 * TEXT measures the configurations whose name holds TEXT.
 * Exit status: 0 done, 1 a measurement's process failed, 2 bad options. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "labs/harness/work.h"
#include "trace/check/racecheck.h"
#include "trace/gpu/classify.h"
#include "trace/gpu/mem_cache.h"
#include "trace/record/recorder.h"
#include "trace/stream/events_writer.h"
#include "trace/view/timeline.h"


#define REQUESTS 32      /* a run of lab 06 */
#define BATCH (1u << 20) /* bytes a request carries (what the ranges cover) */
#define MAX_STREAMS 64
#define CALLS 4 /* per request: H2D copy, kernel, event record, D2H copy */

enum { SINK_RACES = 1, SINK_TIMELINE = 2, SINK_WORK = 4, SINK_EVENTS = 8, SINK_NULL = 16 };

typedef struct config {
    const char *name;
    unsigned sinks;
    bool record; /* false: the frame alone */
} config;

static const config configs[] = {
    {"frame (no recording)", SINK_NULL, false},
    {"recorder, an empty sink", SINK_NULL, true},
    {"+ race checker", SINK_RACES, true},
    {"+ timeline", SINK_TIMELINE, true},
    {"+ work", SINK_WORK, true},
    {"+ event stream", SINK_EVENTS, true},
    {"timed run", SINK_RACES | SINK_TIMELINE | SINK_WORK, true},
    {"timed run + event stream", SINK_RACES | SINK_TIMELINE | SINK_WORK | SINK_EVENTS, true},
};

static bool record_on; /* the configuration records (not the frame alone) */

static uint64_t clock_ns(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The ops' times, as the trace clock gives them. */
static uint64_t now_ns(void) { return clock_ns(CLOCK_MONOTONIC); }

/* What is measured: this thread's CPU time, which another process on a busy machine does
 * not add to. */
static uint64_t cpu_ns(void) { return clock_ns(CLOCK_THREAD_CPUTIME_ID); }

/* ---- the interposer's side, without a runtime ------------------------------------------ */

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static trace_gpu_mem_cache *cache;

static trace_gpu_mem mem_of(const void *ptr) {
    trace_gpu_mem kind = TRACE_GPU_MEM_PAGEABLE;
    pthread_mutex_lock(&cache_lock);
    (void)trace_gpu_mem_cache_lookup(cache, ptr, &kind);
    pthread_mutex_unlock(&cache_lock);
    return kind;
}

/* cudaMemcpyAsync as interpose.c's traced_copy records it. Returns the op's id (0: none). */
static uint64_t call_copy(void *dst, const void *src, uint64_t count, trace_gpu_copy_kind kind, const void *stream) {
    TRACE_CALL_SITE();
    if (!trace_active()) return 0;
    trace_gpu_mem src_mem = kind == TRACE_GPU_COPY_H2D ? mem_of(src) : TRACE_GPU_MEM_DEVICE;
    trace_gpu_mem dst_mem = kind == TRACE_GPU_COPY_D2H ? mem_of(dst) : TRACE_GPU_MEM_DEVICE;
    trace_gpu_copy_class cls = trace_gpu_classify_copy(kind, src_mem, dst_mem);
    uint64_t t0 = now_ns();
    uint64_t t1 = now_ns();
    trace_op op;
    trace_copy_rule rule = trace_gpu_copy_op(&op, cls, dst, src, count, true);
    (void)rule;
    op.enqueue_ns = t0;
    if (!record_on) return 0;
    uint64_t id = trace_record(&op, stream);
    trace_record_api("cudaMemcpyAsync", t0, t1);
    return id;
}

/* kernels_process as kernels/gpu/launch_gpu.c records it. */
static void call_kernel(uint32_t *out, const uint32_t *in, uint64_t n, const void *stream) {
    TRACE_CALL_SITE();
    if (!trace_active()) return;
    trace_op op;
    memset(&op, 0, sizeof(op));
    op.kind = TRACE_OP_KERNEL;
    op.engine = TRACE_ENGINE_COMPUTE;
    op.batch = -1;
    strcpy(op.name, "process");
    op.grid[0] = (uint32_t)((n + 255) / 256);
    op.grid[1] = op.grid[2] = 1;
    op.block[0] = 256;
    op.block[1] = op.block[2] = 1;
    trace_op_add_range(&op, in, n * sizeof(uint32_t), TRACE_RANGE_READ);
    trace_op_add_range(&op, out, n * sizeof(uint32_t), TRACE_RANGE_WRITE);
    uint64_t t0 = now_ns();
    uint64_t t1 = now_ns();
    op.enqueue_ns = t0;
    if (!record_on) return;
    trace_record(&op, stream);
    trace_record_api("cudaLaunchKernel", t0, t1);
}

/* cudaEventRecord as interpose.c's traced_event_record records it. */
static void call_event_record(const void *event, const void *stream) {
    TRACE_CALL_SITE();
    if (!trace_active()) return;
    uint64_t t0 = now_ns();
    uint64_t t1 = now_ns();
    if (!record_on) return;
    trace_record_event_record(event, stream, t0);
    trace_record_api("cudaEventRecord", t0, t1);
}

/* ---- one configuration ------------------------------------------------------------------ */

typedef struct sinks {
    trace_racecheck *races;
    trace_timeline *timeline;
    lab_work *work;
    trace_events_writer *events;
    int null_fd;
} sinks;

static void on_nothing(void *ctx, const trace_op *op) {
    (void)ctx;
    (void)op;
}

static int null_ctx;

static void install(sinks *s, unsigned which) {
    memset(s, 0, sizeof(*s));
    s->null_fd = -1;
    if (which & SINK_NULL) {
        trace_sink n = {.ctx = &null_ctx, .on_op = on_nothing};
        trace_add_sink(&n);
    }
    if (which & SINK_RACES) {
        s->races = trace_racecheck_create(0);
        trace_racecheck_install(s->races);
    }
    if (which & SINK_TIMELINE) {
        s->timeline = trace_timeline_create();
        trace_timeline_install(s->timeline);
    }
    if (which & SINK_WORK) {
        s->work = lab_work_create();
        lab_work_install(s->work);
    }
    if (which & SINK_EVENTS) {
        s->null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
        s->events = trace_events_writer_create(s->null_fd, NULL);
        trace_events_writer_install(s->events);
    }
}

static void uninstall(sinks *s) {
    trace_reset(); /* every sink out, ids from 1 */
    trace_racecheck_destroy(s->races);
    trace_timeline_destroy(s->timeline);
    lab_work_destroy(s->work);
    trace_events_writer_destroy(s->events);
    if (s->null_fd >= 0) close(s->null_fd);
}

typedef struct timing {
    double in_run_ns;   /* per call, inside the runs */
    double after_ns;    /* per call, the hand-over after each run */
} timing;

/* Fake addresses: nothing reads or writes them. */
static void *addr(uint64_t region, uint64_t i) { return (void *)(uintptr_t)(0x10000000000ull * region + i * 2 * BATCH); }

static timing one_rep(const config *c, int runs, int n_streams, bool deferred) {
    static char stream_handles[MAX_STREAMS], event_handles[MAX_STREAMS];
    record_on = c->record;
    cache = trace_gpu_mem_cache_create();
    sinks s;
    install(&s, c->sinks);
    for (int k = 0; k < n_streams; k++) {
        trace_stream_created_on(&stream_handles[k], 1 /* non-blocking */, 0, 0);
        trace_event_created(&event_handles[k], 0);
        trace_gpu_mem_cache_add(cache, addr(3, (uint64_t)k), BATCH, TRACE_GPU_MEM_DEVICE);
        trace_gpu_mem_cache_add(cache, addr(4, (uint64_t)k), BATCH, TRACE_GPU_MEM_DEVICE);
    }
    for (int i = 0; i < REQUESTS; i++) {
        trace_gpu_mem_cache_add(cache, addr(1, (uint64_t)i), BATCH, TRACE_GPU_MEM_PINNED);
        trace_gpu_mem_cache_add(cache, addr(2, (uint64_t)i), BATCH, TRACE_GPU_MEM_PINNED);
    }
    uint64_t in_run = 0, after = 0, d2h[REQUESTS];
    for (int32_t run = 1; run <= runs; run++) {
        /* The harness prepares the run: fresh inputs, poisoned outputs. */
        uint64_t p = now_ns();
        for (int i = 0; i < REQUESTS; i++) {
            trace_record_host_access(addr(1, (uint64_t)i), BATCH, true, "input", i, p);
            trace_record_host_access(addr(2, (uint64_t)i), BATCH, true, "poison", -1, p);
        }
        trace_set_run(run);
        if (deferred) trace_defer(true);
        uint64_t t0 = now_ns(), c0 = cpu_ns();
        for (int i = 0; i < REQUESTS; i++) {
            int k = i % n_streams;
            const void *st = &stream_handles[k];
            trace_record_host_access(addr(1, (uint64_t)i), BATCH, true, "request arrives", i, now_ns());
            call_copy(addr(3, (uint64_t)k), addr(1, (uint64_t)i), BATCH, TRACE_GPU_COPY_H2D, st);
            call_kernel(addr(4, (uint64_t)k), addr(3, (uint64_t)k), BATCH / 4, st);
            call_event_record(&event_handles[k], st);
            d2h[i] = call_copy(addr(2, (uint64_t)i), addr(4, (uint64_t)k), BATCH, TRACE_GPU_COPY_D2H, st);
        }
        uint64_t t1 = now_ns(), c1 = cpu_ns();
        if (deferred) trace_defer(false);
        uint64_t c2 = cpu_ns();
        in_run += c1 - c0;
        after += c2 - c1;
        /* The harness reads the results, the copies to the host get their device times. */
        for (int i = 0; i < REQUESTS; i++) {
            trace_record_host_access(addr(2, (uint64_t)i), BATCH, false, "harness reads result", i, t1);
            if (s.work) lab_work_results_read(s.work, run, addr(2, (uint64_t)i), BATCH);
        }
        trace_set_run(-1);
        for (int i = 0; i < REQUESTS; i++)
            if (d2h[i]) trace_op_timed(d2h[i], t0 + (uint64_t)i * 1000, t0 + (uint64_t)i * 1000 + 500);
        trace_record_phase("run", t0, t1);
    }
    uninstall(&s);
    trace_gpu_mem_cache_destroy(cache);
    cache = NULL;
    double calls = (double)runs * REQUESTS * CALLS;
    timing t = {(double)in_run / calls, (double)after / calls};
    return t;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double minimum(double *v, int n) {
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return v[0];
}

/* One configuration's figures, measured in a child process, so that what one configuration
 * left in the heap does not change the next one's. */
static timing measure(const config *c, int runs, int n_streams, int reps, bool deferred) {
    timing m = {-1, -1};
    int fds[2];
    if (pipe(fds) != 0) return m;
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return m;
    }
    if (pid == 0) {
        close(fds[0]);
        double in_run[64], after[64];
        (void)one_rep(c, runs / 10 + 1, n_streams, deferred); /* warm-up */
        for (int r = 0; r < reps; r++) {
            timing t = one_rep(c, runs, n_streams, deferred);
            in_run[r] = t.in_run_ns;
            after[r] = t.after_ns;
        }
        m.in_run_ns = minimum(in_run, reps);
        m.after_ns = minimum(after, reps);
        ssize_t w = write(fds[1], &m, sizeof(m));
        _exit(w == (ssize_t)sizeof(m) ? 0 : 1);
    }
    close(fds[1]);
    if (read(fds[0], &m, sizeof(m)) != (ssize_t)sizeof(m)) m.in_run_ns = m.after_ns = -1;
    close(fds[0]);
    int status;
    (void)waitpid(pid, &status, 0);
    return m;
}

static void usage(FILE *f, const char *argv0) {
    fprintf(f,
            "usage: %s [--runs N] [--streams N] [--reps N] [--only TEXT]\n"
            "Records lab 06's calls (32 requests a run: H2D copy, kernel, event record, D2H copy) through the\n"
            "recorder with each sink a lab's timed run installs, and prints ns per call, eager and deferred.\n"
            "  --runs N     lab runs per measurement (default 100)\n"
            "  --streams N  streams the requests go round (default 8, at most %d)\n"
            "  --reps N     measurements per configuration, the least printed (default 5, at most 64)\n"
            "  --only TEXT  only the configurations whose name holds TEXT\n",
            argv0, MAX_STREAMS);
}

int main(int argc, char **argv) {
    static const struct option opts[] = {{"runs", required_argument, NULL, 'r'},
                                         {"streams", required_argument, NULL, 's'},
                                         {"reps", required_argument, NULL, 'n'},
                                         {"only", required_argument, NULL, 'o'},
                                         {"help", no_argument, NULL, 'h'},
                                         {0, 0, 0, 0}};
    long long runs = 100, streams = 8, reps = 5;
    const char *only = NULL;
    int c;
    opterr = 0; /* cli_refused says what was wrong */
    while ((c = getopt_long(argc, argv, "r:s:n:o:h", opts, NULL)) != -1) {
        if (c == 'o') {
            only = optarg;
            continue;
        }
        long long *into = c == 'r' ? &runs : c == 's' ? &streams : c == 'n' ? &reps : NULL;
        long long hi = c == 'r' ? 100000 : c == 's' ? MAX_STREAMS : 64;
        if (into) {
            if (!cli_int(optarg, 1, hi, into)) {
                fprintf(stderr, "%s: --%s wants a whole number from 1 to %lld, not \"%s\"\n", argv[0],
                        c == 'r' ? "runs" : c == 's' ? "streams" : "reps", hi, optarg);
                return 2;
            }
            continue;
        }
        if (c == 'h') {
            usage(stdout, argv[0]);
            return 0;
        }
        char err[256];
        cli_refused(argc, argv, opts, err, sizeof(err));
        fprintf(stderr, "%s\n", err);
        usage(stderr, argv[0]);
        return 2;
    }
    if (optind < argc) {
        fprintf(stderr, "%s: unexpected argument \"%s\"\n", argv[0], argv[optind]);
        return 2;
    }
    bool any = false;
    for (size_t i = 0; i < sizeof(configs) / sizeof(configs[0]); i++) any |= !only || strstr(configs[i].name, only);
    if (!any) {
        fprintf(stderr, "%s: --only \"%s\" names no configuration\n", argv[0], only);
        return 2;
    }
    printf("lab 06's calls: %lld runs of %d requests on %lld streams, least of %lld reps, ns per call\n", runs,
           REQUESTS, streams, reps);
    printf("%-28s %10s %10s %10s %10s\n", "", "eager", "deferred", "after", "saved");
    for (size_t i = 0; i < sizeof(configs) / sizeof(configs[0]); i++) {
        if (only && !strstr(configs[i].name, only)) continue;
        timing e = measure(&configs[i], (int)runs, (int)streams, (int)reps, false);
        timing d = measure(&configs[i], (int)runs, (int)streams, (int)reps, true);
        if (e.in_run_ns < 0 || d.in_run_ns < 0) {
            fprintf(stderr, "%s: the process measuring \"%s\" failed\n", argv[0], configs[i].name);
            return 1;
        }
        printf("%-28s %10.0f %10.0f %10.0f %9.0f%%\n", configs[i].name, e.in_run_ns, d.in_run_ns, d.after_ns,
               e.in_run_ns > 0 ? 100.0 * (1.0 - d.in_run_ns / e.in_run_ns) : 0.0);
    }
    return 0;
}
