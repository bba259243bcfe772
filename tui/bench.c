/* tui/bench.c: `bazel run //tui:bench`: how fast the timeline redraws with 100,000 ops on
 * screen, and how soon an op is on screen after it arrives on the event stream.
 *
 * Redraw: a run of 100,000 ops (a pipeline over 8 streams: copies, kernels, the host's API
 * spans and waits), drawn whole, then zoomed, at 80x24 and 200x60, through the real ncurses
 * layer into /dev/null (a terminal of type xterm-256color): layout, drawing and the copy to
 * ncurses with its output. The first frame after the data changed also recomputes the
 * run's metrics and sorts the lanes; it is reported on its own.
 *
 * Arrival to screen: a writer thread sends 100,000 ops through a pipe with the real event
 * writer, in batches of 500 every 10 ms, and notes when each batch was written; the real
 * loop (tui_app_step) reads, draws (to /dev/null) and, after each frame, notes which ops
 * that frame showed. The latency of an op is its frame's time less its batch's. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "trace/stream/events_writer.h"
#include "tui/app.h"
#include "tui/draw.h"
#include "tui/layout.h"
#include "tui/term.h"

#define N_OPS 100000
#define STREAMS 8
#define BATCH_OPS 500
#define BATCH_EVERY_MS 10

/* ---- a synthetic pipeline ----------------------------------------------------------------- */

/* Op i of the pipeline, in the order a lab would send them. Each batch of work is six ops:
 * the host's cudaMemcpyAsync and launch spans, an H2D copy, a kernel, a D2H copy, and every
 * eighth batch a cudaStreamSynchronize wait. */
static trace_op make_op(uint64_t i) {
    trace_op op;
    memset(&op, 0, sizeof(op));
    uint64_t b = i / 6, k = i % 6;
    int32_t s = (int32_t)(1 + b % STREAMS);
    uint64_t t = b * 100000; /* a batch every 100 us; each stage takes 90 us */
    op.id = i + 1;
    op.run = 1;
    op.batch = (int32_t)b;
    op.stream = s;
    op.timed = true;
    switch (k) {
    case 0:
        op.kind = TRACE_OP_API;
        op.engine = TRACE_ENGINE_HOST;
        op.stream = TRACE_STREAM_NONE;
        snprintf(op.name, sizeof(op.name), "cudaMemcpyAsync");
        op.start_ns = t;
        op.end_ns = t + 3000;
        break;
    case 1:
        op.kind = TRACE_OP_COPY;
        op.dir = TRACE_COPY_H2D;
        op.engine = TRACE_ENGINE_H2D;
        op.bytes = 4u << 20;
        op.pinned = true;
        op.start_ns = t + 3000;
        op.end_ns = t + 93000;
        break;
    case 2:
        op.kind = TRACE_OP_KERNEL;
        op.engine = TRACE_ENGINE_COMPUTE;
        snprintf(op.name, sizeof(op.name), "process");
        op.grid[0] = 4096;
        op.block[0] = 256;
        op.start_ns = t + 93000;
        op.end_ns = t + 183000;
        break;
    case 3:
        op.kind = TRACE_OP_COPY;
        op.dir = TRACE_COPY_D2H;
        op.engine = TRACE_ENGINE_D2H;
        op.bytes = 4u << 20;
        op.pinned = true;
        op.start_ns = t + 183000;
        op.end_ns = t + 273000;
        break;
    case 4:
        op.kind = TRACE_OP_API;
        op.engine = TRACE_ENGINE_HOST;
        op.stream = TRACE_STREAM_NONE;
        snprintf(op.name, sizeof(op.name), "kernel launch");
        op.start_ns = t + 3000;
        op.end_ns = t + 6000;
        break;
    default:
        op.kind = TRACE_OP_SYNC;
        op.engine = TRACE_ENGINE_HOST;
        op.sync = TRACE_SYNC_STREAM;
        snprintf(op.name, sizeof(op.name), "cudaStreamSynchronize");
        op.start_ns = t + 6000;
        op.end_ns = b % 8 == 7 ? t + 273000 : t + 6000;
        break;
    }
    return op;
}

static void write_prologue(trace_events_writer *w) {
    trace_events_hello_info h = {"bench", "sim", "h200", "NVIDIA H200 (simulated)", "yours"};
    trace_events_hello(w, &h);
    for (int32_t s = 1; s <= STREAMS; s++) {
        trace_stream st;
        memset(&st, 0, sizeof(st));
        st.id = s;
        snprintf(st.name, sizeof(st.name), "buf %c", 'A' + s - 1);
        trace_events_stream(w, &st);
    }
    trace_events_progress(w, "run 1/1 (yours)", 0, 1);
}

/* ---- statistics -------------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct stats {
    double mean, p50, p99, max;
} stats;

static stats summarise(double *v, size_t n) {
    stats s = {0, 0, 0, 0};
    if (n == 0) return s;
    qsort(v, n, sizeof(double), cmp_double);
    for (size_t i = 0; i < n; i++) s.mean += v[i];
    s.mean /= (double)n;
    s.p50 = v[n / 2];
    s.p99 = v[(size_t)((double)(n - 1) * 0.99)];
    s.max = v[n - 1];
    return s;
}

/* ---- redraw ------------------------------------------------------------------------------ */

typedef struct redraw_case {
    const char *what;
    int cols, rows;
    double zoom; /* fraction of the run on screen */
} redraw_case;

static double redraw_case_run(tui_session *s, const redraw_case *c, double *refresh_ms, double *draw_share) {
    FILE *out = fopen("/dev/null", "w");
    int never[2];
    if (!out || pipe(never) != 0) {
        fprintf(stderr, "bench: cannot open /dev/null or a pipe\n");
        exit(1);
    }
    FILE *in = fdopen(never[0], "r");
    char err[512];
    tui_term *term = tui_term_open_stream(out, in, "xterm-256color", c->cols, c->rows, false, err, sizeof(err));
    if (!term) {
        fprintf(stderr, "bench: %s\n", err);
        exit(1);
    }
    tui_screen *scr = tui_screen_create(c->cols, c->rows);
    tui_model m;
    tui_model_init(&m, NULL, NULL);
    tui_model_open_lab(&m, -1, s, NULL);
    m.color = tui_term_color(term);
    m.utf8 = true;
    if (c->zoom < 1) tui_model_zoom(&m, c->zoom, tui_model_data_span(&m) / 2);
    /* What the loop does once new events were read: the metrics (and the sorting they need). */
    double r0 = tui_now_ms();
    m.now_ms = r0;
    tui_model_refresh(&m, true);
    *refresh_ms = tui_now_ms() - r0;
    m.defer_metrics = true; /* as in the loop: frames read the cache */
    enum { FRAMES = 60 };
    double total[FRAMES], draw_only = 0;
    for (int f = 0; f < FRAMES; f++) {
        /* Something changed every frame: the selection moves along the H2D lane. */
        tui_model_key(&m, TUI_KEY_TAB);
        m.overlay = TUI_OVERLAY_NONE;
        double t0 = tui_now_ms();
        m.now_ms = t0;
        tui_layout L;
        tui_layout_compute(&L, &m, c->cols, c->rows);
        tui_draw(scr, &m, &L);
        double t1 = tui_now_ms();
        tui_term_blit(term, scr, f == 0);
        double t2 = tui_now_ms();
        tui_layout_free(&L);
        total[f] = t2 - t0;
        if (f > 0) draw_only += t1 - t0;
    }
    stats st = summarise(total + 1, FRAMES - 1); /* the first frame also paints the whole terminal */
    *draw_share = draw_only / (FRAMES - 1);
    tui_screen_destroy(scr);
    tui_term_close(term);
    fclose(out);
    fclose(in);
    close(never[1]);
    printf("  %-34s mean %6.2f ms  p50 %6.2f  max %6.2f   (of which drawing %.2f)\n", c->what, st.mean, st.p50, st.max,
           *draw_share);
    return st.max;
}

/* ---- arrival to screen --------------------------------------------------------------------- */

typedef struct feeder {
    int fd;
    double sent_ms[N_OPS / BATCH_OPS + 1]; /* when each batch was on the pipe */
} feeder;

static void *feed(void *arg) {
    feeder *f = arg;
    trace_events_options o = trace_events_default_options();
    o.buffer_bytes = 1u << 22; /* flushed by hand, once per batch */
    o.flush_interval_ms = 1000000;
    trace_events_writer *w = trace_events_writer_create(f->fd, &o);
    write_prologue(w);
    trace_events_flush(w);
    for (uint64_t i = 0; i < N_OPS; i++) {
        trace_op op = make_op(i);
        trace_events_op(w, &op);
        if ((i + 1) % BATCH_OPS == 0 || i + 1 == N_OPS) {
            /* The batch is on the stream from the write on: note the time first. */
            double sent = tui_now_ms();
            __atomic_store(&f->sent_ms[i / BATCH_OPS], &sent, __ATOMIC_RELEASE);
            trace_events_flush(w);
            struct timespec ts = {0, BATCH_EVERY_MS * 1000000L};
            nanosleep(&ts, NULL);
        }
    }
    trace_events_result(w, NULL);
    trace_events_flush(w);
    trace_events_writer_destroy(w);
    close(f->fd);
    return NULL;
}

typedef struct latency {
    feeder *f;
    uint64_t shown;   /* ops already on screen */
    double *lat;      /* per op */
    size_t n;
} latency;

static void on_frame(void *ctx, tui_app *a) {
    latency *l = ctx;
    uint64_t ops = a->sessions[TUI_YOURS]->ops;
    double now = tui_now_ms();
    for (uint64_t i = l->shown; i < ops && i < N_OPS; i++) {
        double sent;
        __atomic_load(&l->f->sent_ms[i / BATCH_OPS], &sent, __ATOMIC_ACQUIRE);
        l->lat[l->n++] = now - sent;
    }
    l->shown = ops;
}

static void arrival_bench(void) {
    int p[2];
    if (pipe(p) != 0) exit(1);
    static feeder f;
    f.fd = p[1];
    tui_app_options o;
    memset(&o, 0, sizeof(o));
    static tui_app a;
    /* The app replays a descriptor: a pipe whose writer is the feeder thread. */
    char path[64];
    snprintf(path, sizeof(path), "/dev/fd/%d", p[0]);
    o.replay = path;
    o.history = "";
    char err[512];
    if (tui_app_init(&a, &o, NULL, 120, 40, err, sizeof(err)) != 0) {
        fprintf(stderr, "bench: %s\n", err);
        exit(1);
    }
    close(p[0]); /* the app opened its own */
    FILE *out = fopen("/dev/null", "w");
    int never[2];
    if (!out || pipe(never) != 0) exit(1);
    FILE *in = fdopen(never[0], "r");
    tui_term *term = tui_term_open_stream(out, in, "xterm-256color", 120, 40, false, err, sizeof(err));
    if (!term) {
        fprintf(stderr, "bench: %s\n", err);
        exit(1);
    }
    tui_app_attach(&a, term);
    latency l = {&f, 0, calloc(N_OPS, sizeof(double)), 0};
    a.on_frame = on_frame;
    a.on_frame_ctx = &l;
    pthread_t t;
    double t0 = tui_now_ms();
    pthread_create(&t, NULL, feed, &f);
    while (a.sessions[TUI_YOURS]->state == TUI_SESSION_RUNNING && tui_now_ms() - t0 < 60000) tui_app_step(&a, 100);
    tui_app_draw(&a);
    pthread_join(t, NULL);
    double took = tui_now_ms() - t0;
    uint64_t frames = a.frames;
    size_t n = l.n;
    stats st = summarise(l.lat, n);
    printf("  %zu ops in %.1f s (%d every %d ms), %llu frames drawn\n", n, took / 1000, BATCH_OPS, BATCH_EVERY_MS,
           (unsigned long long)frames);
    printf("  arrival to screen:                 mean %6.2f ms  p50 %6.2f  p99 %6.2f  max %6.2f\n", st.mean, st.p50,
           st.p99, st.max);
    printf("  target: every op on screen within 100 ms of arriving: %s\n",
           n == N_OPS && st.max < 100 ? "met" : "NOT met");
    free(l.lat);
    tui_app_free(&a);
    tui_term_close(term);
    fclose(out);
    fclose(in);
    close(never[1]);
}

int main(void) {
    printf("streamlab tui benchmark: %d ops on %d streams (each frame: layout, drawing, ncurses to /dev/null)\n", N_OPS,
           STREAMS);
    /* The run, through the real writer and reader. */
    FILE *tmp = tmpfile();
    if (!tmp) return 1;
    trace_events_writer *w = trace_events_writer_create(fileno(tmp), NULL);
    write_prologue(w);
    for (uint64_t i = 0; i < N_OPS; i++) {
        trace_op op = make_op(i);
        trace_events_op(w, &op);
    }
    trace_events_flush(w);
    trace_events_writer_destroy(w);
    tui_session *s = tui_session_create("bench", TUI_YOURS);
    char buf[1 << 16];
    ssize_t n;
    off_t at = 0;
    while ((n = pread(fileno(tmp), buf, sizeof(buf), at)) > 0) {
        tui_session_feed(s, buf, (size_t)n, 0);
        at += n;
    }
    fclose(tmp);
    tui_session_exited(s, 0);
    tui_run *run = tui_session_latest(s, TUI_ROLE_YOURS);
    if (!run || run->ops != N_OPS || s->bad_lines) {
        fprintf(stderr, "bench: the synthetic run did not load (%llu ops, %llu bad lines)\n",
                run ? (unsigned long long)run->ops : 0ull, (unsigned long long)s->bad_lines);
        return 1;
    }
    printf("redraw with all %d ops in the run (60 frames each):\n", N_OPS);
    const redraw_case cases[] = {
        {"80x24, the whole run on screen", 80, 24, 1.0},
        {"200x60, the whole run on screen", 200, 60, 1.0},
        {"200x60, zoomed to 1% of the run", 200, 60, 0.01},
        {"300x90, the whole run on screen", 300, 90, 1.0},
    };
    double worst = 0, refresh = 0, share;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        double r = 0, mx = redraw_case_run(s, &cases[i], &r, &share);
        if (mx > worst) worst = mx;
        if (i == 0) refresh = r;
    }
    printf("  target: every redraw under 30 ms: %s (slowest %.2f ms)\n", worst < 30 ? "met" : "NOT met", worst);
    printf("  metrics of the %d ops recomputed after new events (trace/view/metrics.h, between frames, in a\n"
           "  turn with no events waiting; while a lab streams at most every %.0f ms or 10x its cost): %.2f ms\n",
           N_OPS, TUI_METRICS_INTERVAL_MS, refresh);
    tui_session_destroy(s);
    printf("arrival to screen:\n");
    arrival_bench();
    return 0;
}
