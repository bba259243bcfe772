/* trace/gpu/event_timer.c: op times from CUDA event pairs (see event_timer.h). All calls
 * come from the host thread that drives the runtime (the interposer's). */
#include "trace/gpu/event_timer.h"

#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "trace/gpu/event_clock.h"
#include "trace/gpu/real.h"
#include "trace/recorder.h"

/* Candidate base events recorded at each rebase; the best becomes the base. */
#define BASE_TRIES 3

typedef struct pair {
    uint64_t token;
    uint64_t op_id; /* 0 until bound */
    uint64_t enqueue_ns;
    cudaEvent_t start, end;
    bool ended; /* the end event was recorded */
} pair;

static struct {
    bool running;
    cudaStream_t base_stream;
    cudaEvent_t candidates[BASE_TRIES];
    cudaEvent_t base; /* one of the candidates */
    uint64_t base_ns;
    cudaEvent_t *pool;
    size_t n_pool, cap_pool;
    pair *pending;
    size_t n_pending, cap_pending;
    uint64_t next_token;
    uint64_t timed, failed;
} E = {.next_token = 1};

static bool grow(void **p, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return true;
    size_t ncap = *cap ? *cap * 2 : 64;
    while (ncap < need) ncap *= 2;
    void *q = realloc(*p, ncap * elem);
    if (!q) return false;
    *p = q;
    *cap = ncap;
    return true;
}

static bool take_event(cudaEvent_t *ev) {
    if (E.n_pool > 0) {
        *ev = E.pool[--E.n_pool];
        return true;
    }
    cudaError_t pending = cudaPeekAtLastError();
    cudaError_t err = __real_cudaEventCreate(ev);
    trace_gpu_forget_error(err, pending);
    return err == cudaSuccess;
}

static void give_event(cudaEvent_t ev) {
    if (grow((void **)&E.pool, &E.cap_pool, E.n_pool + 1, sizeof(cudaEvent_t)))
        E.pool[E.n_pool++] = ev;
    else
        __real_cudaEventDestroy(ev);
}

static bool record(cudaEvent_t ev, const void *stream) {
    cudaError_t pending = cudaPeekAtLastError();
    cudaError_t err = __real_cudaEventRecord(ev, (cudaStream_t)stream);
    trace_gpu_forget_error(err, pending);
    return err == cudaSuccess;
}

/* Records the base on the idle private stream between two clock reads, polling for its
 * completion so that the second read follows it closely. Of BASE_TRIES candidates, the one
 * with the narrowest bracket becomes the base (its placement error is at most half the
 * bracket). */
static bool rebase(void) {
    uint64_t best_gap = UINT64_MAX;
    for (int i = 0; i < BASE_TRIES; i++) {
        uint64_t before = trace_gpu_now_ns();
        if (__real_cudaEventRecord(E.candidates[i], E.base_stream) != cudaSuccess) return false;
        cudaError_t q;
        while ((q = __real_cudaEventQuery(E.candidates[i])) == cudaErrorNotReady) {
        }
        uint64_t after = trace_gpu_now_ns();
        if (q != cudaSuccess) return false;
        if (after - before < best_gap) {
            best_gap = after - before;
            E.base = E.candidates[i];
            E.base_ns = trace_gpu_event_base_ns(before, after);
        }
    }
    return true;
}

static void destroy_candidates(int n) {
    for (int i = 0; i < n; i++) __real_cudaEventDestroy(E.candidates[i]);
}

bool trace_gpu_events_start(char *why, size_t why_size) {
    if (E.running) return true;
    cudaError_t pending = cudaPeekAtLastError();
    int made = 0;
    cudaError_t err = __real_cudaStreamCreateWithFlags(&E.base_stream, cudaStreamNonBlocking);
    while (err == cudaSuccess && made < BASE_TRIES) {
        err = __real_cudaEventCreate(&E.candidates[made]);
        if (err == cudaSuccess) made++;
    }
    if (err == cudaSuccess && !rebase()) {
        err = cudaPeekAtLastError();
        if (err == cudaSuccess) err = cudaErrorUnknown;
    }
    if (err != cudaSuccess) {
        destroy_candidates(made);
        if (E.base_stream) __real_cudaStreamDestroy(E.base_stream);
        E.base_stream = NULL;
    }
    trace_gpu_forget_error(err, pending);
    if (err != cudaSuccess) {
        snprintf(why, why_size, "CUDA events cannot be used on this device (%s)", cudaGetErrorString(err));
        return false;
    }
    E.running = true;
    return true;
}

static void drop_pair(size_t i) {
    give_event(E.pending[i].start);
    give_event(E.pending[i].end);
    E.pending[i] = E.pending[--E.n_pending];
}

void trace_gpu_events_stop(void) {
    if (!E.running) return;
    trace_gpu_events_resolve(false);
    while (E.n_pending > 0) drop_pair(E.n_pending - 1);
    for (size_t i = 0; i < E.n_pool; i++) __real_cudaEventDestroy(E.pool[i]);
    E.n_pool = 0;
    destroy_candidates(BASE_TRIES);
    __real_cudaStreamDestroy(E.base_stream);
    E.base_stream = NULL;
    (void)cudaGetLastError(); /* teardown after cudaDeviceReset may fail; nothing to tell */
    free(E.pool);
    free(E.pending);
    E.pool = NULL;
    E.pending = NULL;
    E.cap_pool = E.cap_pending = 0;
    E.running = false;
}

static bool capturing(const void *stream) {
    enum cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    cudaError_t pending = cudaPeekAtLastError();
    cudaError_t err = cudaStreamIsCapturing((cudaStream_t)stream, &status);
    trace_gpu_forget_error(err, pending);
    return err != cudaSuccess || status != cudaStreamCaptureStatusNone;
}

uint64_t trace_gpu_events_op_begin(const void *stream) {
    if (!E.running || capturing(stream)) return 0;
    if (!grow((void **)&E.pending, &E.cap_pending, E.n_pending + 1, sizeof(pair))) return 0;
    pair p = {0};
    if (!take_event(&p.start)) return 0;
    if (!take_event(&p.end)) {
        give_event(p.start);
        return 0;
    }
    if (!record(p.start, stream)) {
        give_event(p.start);
        give_event(p.end);
        return 0;
    }
    p.token = E.next_token++;
    E.pending[E.n_pending++] = p;
    return p.token;
}

/* Index of the pair with this token (usually the last), or -1. */
static long find(uint64_t token) {
    for (size_t i = E.n_pending; i-- > 0;)
        if (E.pending[i].token == token) return (long)i;
    return -1;
}

void trace_gpu_events_op_end(uint64_t token, const void *stream) {
    long i = token ? find(token) : -1;
    if (i < 0) return;
    if (record(E.pending[i].end, stream))
        E.pending[i].ended = true;
    else
        drop_pair((size_t)i);
}

void trace_gpu_events_op_bind(uint64_t token, uint64_t op_id, uint64_t enqueue_ns) {
    long i = token ? find(token) : -1;
    if (i < 0) return;
    E.pending[i].op_id = op_id;
    E.pending[i].enqueue_ns = enqueue_ns;
}

void trace_gpu_events_op_cancel(uint64_t token) {
    long i = token ? find(token) : -1;
    if (i >= 0) drop_pair((size_t)i);
}

void trace_gpu_events_resolve(bool device_wide) {
    if (!E.running) return;
    cudaError_t pending_error = cudaPeekAtLastError();
    size_t i = 0;
    while (i < E.n_pending) {
        pair *p = &E.pending[i];
        if (!p->op_id || !p->ended) {
            i++;
            continue;
        }
        cudaError_t q = __real_cudaEventQuery(p->end);
        if (q == cudaErrorNotReady) {
            i++;
            continue;
        }
        float start_ms = 0, end_ms = 0;
        if (q == cudaSuccess && cudaEventElapsedTime(&start_ms, E.base, p->start) == cudaSuccess &&
            cudaEventElapsedTime(&end_ms, E.base, p->end) == cudaSuccess) {
            uint64_t s, e;
            /* The query found the op complete, so it ended by now. */
            trace_gpu_event_span(E.base_ns, start_ms, end_ms, p->enqueue_ns, trace_gpu_now_ns(), &s, &e);
            trace_op_timed(p->op_id, s, e);
            E.timed++;
        } else {
            E.failed++;
        }
        drop_pair(i); /* moves the last pair into slot i */
    }
    if (device_wide && E.n_pending == 0 && trace_gpu_event_rebase_due(E.base_ns, trace_gpu_now_ns())) rebase();
    /* Whatever these queries left for cudaGetLastError is the tracer's, not the program's. */
    if (pending_error == cudaSuccess) (void)cudaGetLastError();
}

void trace_gpu_events_add_stats(trace_gpu_stats *stats) {
    stats->ops_timed += E.timed;
    stats->unmatched += E.failed;
}
