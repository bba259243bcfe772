/* trace/gpu/event_timer.c: op times from CUDA events (see event_timer.h). All calls come
 * from the host thread that drives the runtime (the interposer's). */
#include "trace/gpu/event_timer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "trace/gpu/clock.h"
#include "trace/gpu/capture.h"
#include "trace/gpu/event_chain.h"
#include "trace/gpu/event_clock.h"
#include "trace/gpu/real.h"
#include "trace/record/recorder.h"

/* Candidate base events recorded at each rebase; the best becomes the base. */
#define BASE_TRIES 3
/* Streams whose flags are kept; beyond that, streams count as blocking (the default). */
#define MAX_STREAMS 256

typedef struct timed_op {
    uint64_t token;
    uint64_t op_id; /* 0 until bound */
    uint64_t enqueue_ns;
    const void *stream;
    trace_gpu_stream_sync sync;
    bool marker;       /* an event record: no duration */
    bool has_start;    /* pair mode: a start event was recorded */
    bool ended;        /* the end event was recorded */
    bool dead;         /* cancelled or delivered; removed at the next compaction */
    cudaEvent_t start, end;
} timed_op;

static struct {
    bool running;
    bool single;
    cudaStream_t base_stream;
    cudaEvent_t candidates[BASE_TRIES];
    cudaEvent_t base; /* one of the candidates */
    uint64_t base_ns;
    cudaEvent_t *pool;
    size_t n_pool, cap_pool;
    timed_op *pending; /* in enqueue order */
    size_t n_pending, cap_pending;
    trace_gpu_chain *chain;
    uint64_t next_token;
    uint64_t timed, failed;
} E = {.next_token = 1, .single = true};

static struct {
    const void *stream;
    unsigned flags;
} streams[MAX_STREAMS];
static size_t n_streams;

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

/* ---- streams -------------------------------------------------------------------------------- */

void trace_gpu_events_stream_created(const void *stream, unsigned flags) {
    for (size_t i = 0; i < n_streams; i++) {
        if (streams[i].stream == stream) {
            streams[i].flags = flags;
            return;
        }
    }
    if (n_streams < MAX_STREAMS) {
        streams[n_streams].stream = stream;
        streams[n_streams].flags = flags;
        n_streams++;
    }
}

void trace_gpu_events_stream_destroyed(const void *stream) {
    for (size_t i = 0; i < n_streams; i++) {
        if (streams[i].stream == stream) {
            streams[i] = streams[--n_streams];
            break;
        }
    }
    if (E.chain) trace_gpu_chain_forget(E.chain, stream);
}

static trace_gpu_stream_sync sync_of(const void *stream) {
    if (stream == NULL || stream == (const void *)cudaStreamLegacy) return TRACE_GPU_STREAM_LEGACY;
    for (size_t i = 0; i < n_streams; i++)
        if (streams[i].stream == stream)
            return (streams[i].flags & cudaStreamNonBlocking) ? TRACE_GPU_STREAM_NONBLOCKING
                                                              : TRACE_GPU_STREAM_BLOCKING;
    return TRACE_GPU_STREAM_BLOCKING; /* cudaStreamPerThread, or a stream made elsewhere */
}

/* ---- events --------------------------------------------------------------------------------- */

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

bool trace_gpu_events_start(bool single, char *why, size_t why_size) {
    if (E.running) return true;
    E.chain = trace_gpu_chain_create();
    if (!E.chain) {
        snprintf(why, why_size, "out of memory for event timing");
        return false;
    }
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
        trace_gpu_chain_destroy(E.chain);
        E.chain = NULL;
    }
    trace_gpu_forget_error(err, pending);
    if (err != cudaSuccess) {
        snprintf(why, why_size, "CUDA events cannot be used on this device (%s)", cudaGetErrorString(err));
        return false;
    }
    E.single = single;
    E.running = true;
    return true;
}

bool trace_gpu_events_single(void) { return E.single; }

static void release(timed_op *t) {
    if (t->has_start) give_event(t->start);
    give_event(t->end);
    t->dead = true;
}

/* Removes the dead entries, keeping the order of the others. */
static void compact(void) {
    size_t w = 0;
    for (size_t r = 0; r < E.n_pending; r++)
        if (!E.pending[r].dead) E.pending[w++] = E.pending[r];
    E.n_pending = w;
}

void trace_gpu_events_stop(void) {
    if (!E.running) return;
    trace_gpu_events_resolve(false);
    for (size_t i = 0; i < E.n_pending; i++)
        if (!E.pending[i].dead) release(&E.pending[i]);
    E.n_pending = 0;
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
    trace_gpu_chain_destroy(E.chain);
    E.chain = NULL;
    E.running = false;
}

uint64_t trace_gpu_events_op_begin(const void *stream, trace_gpu_op_class op_class) {
    if (!E.running || trace_gpu_stream_capturing(stream)) return 0;
    if (!grow((void **)&E.pending, &E.cap_pending, E.n_pending + 1, sizeof(timed_op))) return 0;
    timed_op t;
    memset(&t, 0, sizeof(t));
    t.stream = stream;
    t.sync = sync_of(stream);
    t.marker = op_class == TRACE_GPU_OP_EVENT_RECORD;
    if (!take_event(&t.end)) return 0;
    if (!E.single) {
        if (!take_event(&t.start)) {
            give_event(t.end);
            return 0;
        }
        if (!record(t.start, stream)) {
            give_event(t.start);
            give_event(t.end);
            return 0;
        }
        t.has_start = true;
    }
    t.token = E.next_token++;
    E.pending[E.n_pending++] = t;
    return t.token;
}

/* The live entry with this token (usually the last), or NULL. */
static timed_op *find(uint64_t token) {
    for (size_t i = E.n_pending; i-- > 0;)
        if (E.pending[i].token == token && !E.pending[i].dead) return &E.pending[i];
    return NULL;
}

void trace_gpu_events_op_end(uint64_t token, const void *stream) {
    timed_op *t = token ? find(token) : NULL;
    if (!t) return;
    /* The call took the stream into a capture (a wait on a captured event): its end
     * event would become part of the graph. */
    if (trace_gpu_stream_capturing(stream)) {
        release(t);
        return;
    }
    if (record(t->end, stream))
        t->ended = true;
    else
        release(t);
}

void trace_gpu_events_op_bind(uint64_t token, uint64_t op_id, uint64_t enqueue_ns) {
    timed_op *t = token ? find(token) : NULL;
    if (!t) return;
    t->op_id = op_id;
    t->enqueue_ns = enqueue_ns;
}

void trace_gpu_events_op_cancel(uint64_t token) {
    timed_op *t = token ? find(token) : NULL;
    if (t) release(t);
}

/* The times of t, whose end event completed by observed_ns; false when the events could
 * not be read. */
static bool times_of(const timed_op *t, uint64_t observed_ns, uint64_t *start, uint64_t *end) {
    float end_ms = 0;
    if (__real_cudaEventElapsedTime(&end_ms, E.base, t->end) != cudaSuccess) return false;
    if (t->has_start) {
        float start_ms = 0;
        if (__real_cudaEventElapsedTime(&start_ms, E.base, t->start) != cudaSuccess) return false;
        trace_gpu_event_span(E.base_ns, start_ms, end_ms, t->enqueue_ns, observed_ns, start, end);
        return true;
    }
    /* One event: the end is measured, the start is the latest moment it could have been. */
    uint64_t at = 0;
    trace_gpu_event_span(E.base_ns, end_ms, end_ms, t->enqueue_ns, observed_ns, &at, end);
    uint64_t s = t->marker ? *end : trace_gpu_chain_start(E.chain, t->stream, t->sync, t->enqueue_ns);
    *start = s < *end ? s : *end;
    return true;
}

void trace_gpu_events_resolve(bool may_rebase) {
    if (!E.running) return;
    cudaError_t pending_error = cudaPeekAtLastError();
    for (size_t i = 0; i < E.n_pending; i++) {
        timed_op *t = &E.pending[i];
        if (t->dead || !t->op_id || !t->ended) continue;
        cudaError_t q = __real_cudaEventQuery(t->end);
        if (q == cudaErrorNotReady) continue;
        uint64_t s, e;
        /* The query found the op complete, so it ended by now. */
        if (q == cudaSuccess && times_of(t, trace_gpu_now_ns(), &s, &e)) {
            trace_gpu_chain_end(E.chain, t->stream, t->sync, e);
            trace_op_timed(t->op_id, s, e);
            E.timed++;
        } else {
            E.failed++;
        }
        release(t);
    }
    compact(); /* drops these and the cancelled ones */
    if (may_rebase && E.n_pending == 0 && trace_gpu_event_rebase_due(E.base_ns, trace_gpu_now_ns())) rebase();
    /* Whatever these queries left for cudaGetLastError is the tracer's, not the program's. */
    if (pending_error == cudaSuccess) (void)cudaGetLastError();
}

void trace_gpu_events_add_stats(trace_gpu_stats *stats) {
    stats->ops_timed += E.timed;
    stats->unmatched += E.failed;
}
