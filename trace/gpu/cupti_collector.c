/* trace/gpu/cupti_collector.c: CUPTI activity records to recorder op times (see
 * cupti_collector.h, correlation.h and stream_order.h). */
#define _GNU_SOURCE
#include "trace/gpu/cupti_collector.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cuda_runtime_api.h>
#include <cupti.h>
#include <cupti_runtime_cbid.h>

#include "trace/gpu/correlation.h"
#include "trace/gpu/cupti_api.h"
#include "trace/gpu/cupti_buffers.h"
#include "trace/gpu/stream_order.h"
#include "trace/record/recorder.h"

/* Ring sizes of the correlation table (see correlation.h). */
#define LOG2_TOKENS 16
#define LOG2_LINKS 18
/* Streams whose CUPTI ids are kept (stream-order matching); more are asked for each time. */
#define MAX_STREAM_IDS 256

static const trace_gpu_cupti_api *api;

/* The matching tables and counts: under lock (CUPTI's buffer callback may run on its own
 * thread). */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static trace_gpu_corr *corr;     /* callback and external matching */
static trace_gpu_sorder *sorder; /* stream-order matching */
static struct {
    uint64_t api_records, sync_records, dropped;
    uint64_t no_correlation; /* callback: ops whose call reported no correlation id */
    uint64_t no_stream_id;   /* stream order: ops on a stream CUPTI gave no id for */
    trace_gpu_corr_stats corr_retired;     /* tables of earlier sessions */
    trace_gpu_sorder_stats sorder_retired;
} counts;

static bool running;
static trace_gpu_match match; /* the strategy in use while running */
static bool callbacks_registered;
static bool event_stamps;
static bool selected_api;
static CUpti_SubscriberHandle subscriber;
static bool subscribed;
static CUpti_ActivityKind enabled[16];
static int n_enabled;

/* ---- the runtime calls that enqueue work ------------------------------------------------ */

/* The interposer's calls (its copies, memsets and event records, also as code built for
 * per-thread default streams calls them: the _ptds/_ptsz entry points) and kernels.h's
 * launches: cudaLaunchKernel in the nvcc-compiled launchers, also as built for per-thread
 * default streams, and <<<>>>, which reaches __cudaLaunchKernel from CUDA 13 on. A
 * callback costs nothing for calls the program never makes. */
static const CUpti_CallbackId enqueue_calls[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeer_v4000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeerAsync_v4000,
    CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemset_ptds_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
#if CUDART_VERSION >= 13000
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
#endif
};
#define N_ENQUEUE_CALLS (sizeof(enqueue_calls) / sizeof(enqueue_calls[0]))

/* ---- per-thread state of the op being bracketed (callback and stream order) --------------- */

typedef struct pending {
    uint64_t token;            /* 0: none */
    uint32_t correlation_id;   /* callback: the call's, once it returned (0: none seen) */
    const void *stream;        /* stream order */
    trace_gpu_rec_class cls;   /* stream order */
} pending;

static _Thread_local pending pend;
static _Thread_local uint64_t next_token;
/* Set by the callback when an enabled runtime call returns on this thread. */
static _Thread_local uint32_t last_correlation_id;

static void CUPTIAPI on_runtime_call(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                     const void *data) {
    (void)userdata;
    (void)domain;
    (void)cbid;
    const CUpti_CallbackData *cb = data;
    if (cb->callbackSite == CUPTI_API_EXIT) last_correlation_id = cb->correlationId;
}

/* ---- CUPTI stream ids (stream order) ----------------------------------------------------- */

static pthread_mutex_t ids_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    const void *stream;
    uint32_t id;
} ids[MAX_STREAM_IDS]; /* under ids_lock */
static size_t n_ids;

static bool cached_id(const void *stream, uint32_t *id) {
    bool found = false;
    pthread_mutex_lock(&ids_lock);
    for (size_t i = 0; i < n_ids && !found; i++) {
        if (ids[i].stream == stream) {
            *id = ids[i].id;
            found = true;
        }
    }
    pthread_mutex_unlock(&ids_lock);
    return found;
}

/* cuCtxGetCurrent from the driver library the runtime loaded (not linked: the runtime
 * opens libcuda itself). */
static pthread_once_t ctx_once = PTHREAD_ONCE_INIT;
static CUresult (*ctx_get_current)(CUcontext *);

static void find_ctx_get_current(void) {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    void *sym = lib ? dlsym(lib, "cuCtxGetCurrent") : NULL;
    if (sym) memcpy(&ctx_get_current, &sym, sizeof(ctx_get_current));
}

static CUcontext current_context(void) {
    pthread_once(&ctx_once, find_ctx_get_current);
    CUcontext ctx = NULL;
    if (!ctx_get_current || ctx_get_current(&ctx) != CUDA_SUCCESS) return NULL;
    return ctx;
}

/* Asks CUPTI (never under a lock of ours): the legacy stream (NULL, cudaStreamLegacy) and
 * the per-thread default stream by flag, others by handle. The default streams belong to
 * the current context, which is named when CUPTI cannot find it by itself. */
static bool ask_id(const void *stream, uint32_t *id) {
    if (!api || !api->stream_id) return false;
    uint8_t per_thread = stream == (const void *)cudaStreamPerThread;
    bool legacy = stream == NULL || stream == (const void *)cudaStreamLegacy;
    CUstream s = (legacy || per_thread) ? NULL : (CUstream)stream;
    if (api->stream_id(NULL, s, per_thread, id) == CUPTI_SUCCESS) return true;
    if (!legacy && !per_thread) return false;
    CUcontext ctx = current_context();
    return ctx && api->stream_id(ctx, NULL, per_thread, id) == CUPTI_SUCCESS;
}

static bool stream_id_of(const void *stream, uint32_t *id) {
    if (cached_id(stream, id)) return true;
    if (!ask_id(stream, id)) return false;
    pthread_mutex_lock(&ids_lock);
    if (n_ids < MAX_STREAM_IDS) {
        ids[n_ids].stream = stream;
        ids[n_ids].id = *id;
        n_ids++;
    }
    pthread_mutex_unlock(&ids_lock);
    return true;
}

void trace_gpu_cupti_stream_created(const void *stream) {
    uint32_t id;
    if (running && match == TRACE_GPU_MATCH_STREAM_ORDER) stream_id_of(stream, &id);
}

void trace_gpu_cupti_stream_destroyed(const void *stream) {
    pthread_mutex_lock(&ids_lock);
    for (size_t i = 0; i < n_ids; i++) {
        if (ids[i].stream == stream) {
            ids[i] = ids[--n_ids];
            break;
        }
    }
    pthread_mutex_unlock(&ids_lock);
}

/* ---- activity buffers and records --------------------------------------------------------- */

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records) {
    *buffer = trace_gpu_cupti_buffer_get();
    *size = *buffer ? TRACE_GPU_CUPTI_BUFFER_BYTES : 0; /* 0: CUPTI drops records and counts them */
    *max_records = 0;
}

/* One device record, to the table of the strategy in use. Lock held. */
static void device_record(uint32_t stream_id, trace_gpu_rec_class cls, uint32_t correlation_id, uint64_t start,
                          uint64_t end) {
    if (match == TRACE_GPU_MATCH_STREAM_ORDER) {
        if (sorder) trace_gpu_sorder_record(sorder, stream_id, cls, correlation_id, start, end);
    } else if (corr) {
        trace_gpu_corr_device(corr, correlation_id, start, end);
    }
}

/* One activity record. Lock held. */
static void take_record(const CUpti_Activity *rec) {
    switch (rec->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
        const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)rec;
        device_record(k->streamId, TRACE_GPU_REC_KERNEL, k->correlationId, k->start, k->end);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)rec;
        /* correlationId is the launching call's; CUPTI documents runtimeCorrelationId as the
         * runtime call's, so take that one where only it is known. */
        uint32_t id = m->correlationId;
        if (match != TRACE_GPU_MATCH_STREAM_ORDER && corr && m->runtimeCorrelationId &&
            m->runtimeCorrelationId != id && !trace_gpu_corr_knows(corr, id) &&
            trace_gpu_corr_knows(corr, m->runtimeCorrelationId))
            id = m->runtimeCorrelationId;
        device_record(m->streamId, TRACE_GPU_REC_COPY, id, m->start, m->end);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY2: {
        /* A peer copy between two devices (cudaMemcpyPeer(Async)). */
        const CUpti_ActivityMemcpyPtoP4 *m = (const CUpti_ActivityMemcpyPtoP4 *)rec;
        device_record(m->streamId, TRACE_GPU_REC_COPY, m->correlationId, m->start, m->end);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)rec;
        device_record(m->streamId, TRACE_GPU_REC_MEMSET, m->correlationId, m->start, m->end);
        break;
    }
    case CUPTI_ACTIVITY_KIND_CUDA_EVENT: {
        /* No device timestamp (0): the op is placed at its enqueue time. */
        const CUpti_ActivityCudaEvent2 *e = (const CUpti_ActivityCudaEvent2 *)rec;
        device_record(e->streamId, TRACE_GPU_REC_EVENT, e->correlationId, e->deviceTimestamp, e->deviceTimestamp);
        break;
    }
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
        const CUpti_ActivityExternalCorrelation *x = (const CUpti_ActivityExternalCorrelation *)rec;
        if (x->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0 && corr)
            trace_gpu_corr_link(corr, x->correlationId, x->externalId);
        break;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
        counts.sync_records++;
        break;
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER:
        counts.api_records++;
        break;
    default:
        break;
    }
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream_id, uint8_t *buffer, size_t size,
                                      size_t valid) {
    (void)size;
    pthread_mutex_lock(&lock);
    if (buffer && valid > 0) {
        CUpti_Activity *rec = NULL;
        while (api->next_record(buffer, valid, &rec) == CUPTI_SUCCESS) take_record(rec);
    }
    size_t dropped = 0;
    if (api->dropped_records(ctx, stream_id, &dropped) == CUPTI_SUCCESS) counts.dropped += dropped;
    pthread_mutex_unlock(&lock);
    trace_gpu_cupti_buffer_put(buffer);
}

/* Hands every op that has its times to the recorder (outside the lock: the recorder calls
 * its sinks). */
static void deliver(void) {
    trace_gpu_timing batch[256];
    const size_t cap = sizeof(batch) / sizeof(batch[0]);
    for (;;) {
        pthread_mutex_lock(&lock);
        size_t n = 0;
        if (corr) n = trace_gpu_corr_take_ready(corr, batch, cap);
        if (n < cap && sorder) n += trace_gpu_sorder_take_ready(sorder, batch + n, cap - n);
        pthread_mutex_unlock(&lock);
        for (size_t i = 0; i < n; i++) trace_op_timed(batch[i].op_id, batch[i].start_ns, batch[i].end_ns);
        if (n < cap) return;
    }
}

/* ---- enabling ----------------------------------------------------------------------------- */

static void disable_all(void) {
    for (int i = n_enabled; i-- > 0;) api->disable(enabled[i]);
    n_enabled = 0;
}

/* Enables kind; a required kind that fails fails the start. */
static bool enable(CUpti_ActivityKind kind, const char *name, bool required, char *why, size_t why_size) {
    CUptiResult r = api->enable(kind);
    if (r == CUPTI_SUCCESS) {
        enabled[n_enabled++] = kind;
        return true;
    }
    if (required)
        snprintf(why, why_size, "cuptiActivityEnable(%s) failed: %s", name, trace_gpu_cupti_result(api, r));
    return false;
}

/* Turns API records for enqueue_calls on or off; false (with why) when this CUPTI cannot. */
static bool enable_selected_runtime_api(bool on, char *why, size_t why_size) {
    if (!api->enable_runtime_api) {
        if (why_size) snprintf(why, why_size, "this CUPTI has no cuptiActivityEnableRuntimeApi");
        return false;
    }
    for (size_t i = 0; i < N_ENQUEUE_CALLS; i++) {
        CUptiResult r = api->enable_runtime_api(enqueue_calls[i], on ? 1 : 0);
        if (r != CUPTI_SUCCESS && on) {
            if (why_size)
                snprintf(why, why_size, "cuptiActivityEnableRuntimeApi failed: %s", trace_gpu_cupti_result(api, r));
            return false;
        }
    }
    return true;
}

/* Subscribes to the runtime callbacks of enqueue_calls; false with why when CUPTI will not
 * (another subscriber holds it, for one). */
static bool subscribe_callbacks(char *why, size_t why_size) {
    if (!api->subscribe || !api->enable_callback) {
        snprintf(why, why_size, "this CUPTI has no callback API");
        return false;
    }
    CUptiResult r = api->subscribe(&subscriber, on_runtime_call, NULL);
    if (r != CUPTI_SUCCESS) {
        snprintf(why, why_size, "cuptiSubscribe failed: %s", trace_gpu_cupti_result(api, r));
        return false;
    }
    subscribed = true;
    for (size_t i = 0; i < N_ENQUEUE_CALLS; i++) {
        r = api->enable_callback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, enqueue_calls[i]);
        if (r != CUPTI_SUCCESS) {
            snprintf(why, why_size, "cuptiEnableCallback failed: %s", trace_gpu_cupti_result(api, r));
            api->unsubscribe(subscriber);
            subscribed = false;
            return false;
        }
    }
    return true;
}

static void unsubscribe_callbacks(void) {
    if (!subscribed) return;
    api->unsubscribe(subscriber);
    subscribed = false;
}

/* Fresh matching tables for a new session; the old ones' counts are kept. */
static bool fresh_tables(void) {
    pthread_mutex_lock(&lock);
    if (corr) {
        trace_gpu_corr_stats s = trace_gpu_corr_get_stats(corr);
        counts.corr_retired.device_records += s.device_records;
        counts.corr_retired.timed += s.timed;
        counts.corr_retired.lost += s.lost;
        counts.corr_retired.late += s.late;
        trace_gpu_corr_destroy(corr);
    }
    if (sorder) {
        trace_gpu_sorder_stats s = trace_gpu_sorder_get_stats(sorder);
        counts.sorder_retired.records += s.records;
        counts.sorder_retired.timed += s.timed;
        counts.sorder_retired.extra += s.extra;
        counts.sorder_retired.out_of_order += s.out_of_order;
        counts.sorder_retired.too_early += s.too_early;
        trace_gpu_sorder_destroy(sorder);
    }
    corr = trace_gpu_corr_create(LOG2_TOKENS, LOG2_LINKS);
    sorder = trace_gpu_sorder_create();
    bool ok = corr && sorder;
    pthread_mutex_unlock(&lock);
    return ok;
}

static const char *api_records_name(trace_gpu_api_records a) {
    switch (a) {
    case TRACE_GPU_API_RUNTIME: return "runtime";
    case TRACE_GPU_API_DRIVER: return "driver";
    case TRACE_GPU_API_BOTH: return "runtime+driver";
    default: return "selected runtime calls";
    }
}

/* Enables what external matching needs. */
static bool enable_external(trace_gpu_api_records a, char *why, size_t why_size) {
    bool runtime = a == TRACE_GPU_API_RUNTIME || a == TRACE_GPU_API_BOTH;
    bool driver = a == TRACE_GPU_API_DRIVER || a == TRACE_GPU_API_BOTH;
    bool selected = !runtime && !driver;
    bool ok = enable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, "EXTERNAL_CORRELATION", true, why, why_size) &&
              (!runtime || enable(CUPTI_ACTIVITY_KIND_RUNTIME, "RUNTIME", true, why, why_size)) &&
              (!driver || enable(CUPTI_ACTIVITY_KIND_DRIVER, "DRIVER", true, why, why_size)) &&
              (!selected || enable_selected_runtime_api(true, why, why_size));
    if (ok && selected) selected_api = true;
    if (!ok && selected) enable_selected_runtime_api(false, why, 0);
    return ok;
}

/* The device activity kinds to enable: all, unless STREAMLAB_CUPTI_KINDS lists some
 * (kernel, memcpy, memset, event, or none) to measure what each costs. */
typedef struct kinds {
    bool kernels, copies, memsets, events;
} kinds;

static kinds kinds_wanted(void) {
    kinds k = {true, true, true, true};
    const char *v = getenv("STREAMLAB_CUPTI_KINDS");
    if (!v || !*v) return k;
    k.kernels = strstr(v, "kernel") != NULL;
    k.copies = strstr(v, "memcpy") != NULL;
    k.memsets = strstr(v, "memset") != NULL;
    k.events = strstr(v, "event") != NULL;
    return k;
}

static bool env_on(const char *name) {
    const char *v = getenv(name);
    return v && (strcmp(v, "1") == 0 || strcasecmp(v, "on") == 0 || strcasecmp(v, "yes") == 0 ||
                 strcasecmp(v, "true") == 0);
}

bool trace_gpu_cupti_start(trace_gpu_match want, trace_gpu_api_records api_records, trace_gpu_match *used,
                           char *why, size_t why_size, char *info, size_t info_size) {
    if (running) {
        *used = match;
        return true;
    }
    api = trace_gpu_cupti_load(why, why_size);
    if (!api) return false;
    if (want == TRACE_GPU_MATCH_STREAM_ORDER && !api->stream_id) {
        snprintf(why, why_size, "stream-order matching needs cuptiGetStreamIdEx, which %s lacks", api->path);
        return false;
    }
    if (!fresh_tables()) {
        snprintf(why, why_size, "out of memory for the matching tables");
        return false;
    }
    trace_gpu_cupti_buffers_reserve(TRACE_GPU_CUPTI_BUFFERS_RESERVED);
    if (!callbacks_registered) {
        CUptiResult r = api->register_callbacks(buffer_requested, buffer_completed);
        if (r != CUPTI_SUCCESS) {
            snprintf(why, why_size, "cuptiActivityRegisterCallbacks failed: %s", trace_gpu_cupti_result(api, r));
            return false;
        }
        callbacks_registered = true;
    }

    selected_api = false;
    kinds k = kinds_wanted();
    bool ok = (!k.kernels || enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL", true, why, why_size)) &&
              (!k.copies || enable(CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY", true, why, why_size)) &&
              (!k.memsets || enable(CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET", true, why, why_size));
    /* Peer copies come as MEMCPY2 records; a CUPTI without them leaves peer copies untimed. */
    if (ok && k.copies) (void)enable(CUPTI_ACTIVITY_KIND_MEMCPY2, "MEMCPY2", false, why, why_size);
    char fallback[300] = "";
    match = want;
    /* Without the callback API (another tool holds CUPTI's one subscriber), stream order
     * times every op just as well and needs no API records. */
    if (ok && want == TRACE_GPU_MATCH_CALLBACK && !subscribe_callbacks(fallback, sizeof(fallback)))
        match = TRACE_GPU_MATCH_STREAM_ORDER;
    if (ok && match == TRACE_GPU_MATCH_EXTERNAL) ok = enable_external(api_records, why, why_size);
    if (!ok) {
        unsubscribe_callbacks();
        disable_all();
        return false;
    }
    bool sync = env_on("STREAMLAB_CUPTI_SYNC") &&
                enable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "SYNCHRONIZATION", false, why, why_size);
    event_stamps = false;
    /* CUDA_EVENT records came back for every cudaEventRecord on an H200 with external
     * correlation only; with callback or stream-order matching an event recorded more than
     * once got none, so there an event record is a marker at its enqueue time. */
    if (k.events && match == TRACE_GPU_MATCH_EXTERNAL && api->event_device_timestamps &&
        api->event_device_timestamps(1) == CUPTI_SUCCESS)
        event_stamps = enable(CUPTI_ACTIVITY_KIND_CUDA_EVENT, "CUDA_EVENT", false, why, why_size);
    running = true;
    *used = match;

    uint32_t version = 0;
    api->version(&version);
    char how[1024];
    switch (match) {
    case TRACE_GPU_MATCH_STREAM_ORDER:
        snprintf(how, sizeof(how), "records matched to operations by their order on each stream%s%s%s",
                 fallback[0] ? " (the callback API is not available: " : "", fallback, fallback[0] ? ")" : "");
        break;
    case TRACE_GPU_MATCH_EXTERNAL:
        snprintf(how, sizeof(how), "records matched through external correlation ids, API records: %s",
                 api_records_name(api_records));
        break;
    default:
        snprintf(how, sizeof(how), "records matched by the correlation id of each call (callback API)");
        break;
    }
    bool all_kinds = k.kernels && k.copies && k.memsets && k.events;
    snprintf(info, info_size, "%s, CUPTI API %u; %s; %s%s%s%s%s%s%s", api->path, version, how,
             event_stamps ? "cudaEventRecord device timestamps" : "cudaEventRecord at its enqueue time",
             sync ? "; synchronization records" : "", all_kinds ? "" : "; only the records of (STREAMLAB_CUPTI_KINDS):",
             !all_kinds && k.kernels ? " kernels" : "", !all_kinds && k.copies ? " copies" : "",
             !all_kinds && k.memsets ? " memsets" : "", !all_kinds && k.events ? " events" : "");
    return true;
}

void trace_gpu_cupti_stop(void) {
    if (!running) return;
    trace_gpu_cupti_flush(true);
    unsubscribe_callbacks();
    if (selected_api) enable_selected_runtime_api(false, NULL, 0);
    selected_api = false;
    disable_all();
    if (event_stamps && api->event_device_timestamps) api->event_device_timestamps(0);
    running = false;
}

bool trace_gpu_cupti_event_timestamps(void) { return running && event_stamps; }

/* ---- the op brackets ---------------------------------------------------------------------- */

static trace_gpu_rec_class record_class(trace_gpu_op_class c) {
    switch (c) {
    case TRACE_GPU_OP_COPY: return TRACE_GPU_REC_COPY;
    case TRACE_GPU_OP_MEMSET: return TRACE_GPU_REC_MEMSET;
    case TRACE_GPU_OP_EVENT_RECORD: return TRACE_GPU_REC_EVENT;
    default: return TRACE_GPU_REC_KERNEL;
    }
}

/* A per-thread token for callback and stream-order ops (never 0, never UINT64_MAX). */
static uint64_t thread_token(void) {
    if (++next_token >= UINT64_MAX - 1) next_token = 1;
    return next_token;
}

uint64_t trace_gpu_cupti_op_begin(const void *stream, trace_gpu_op_class op_class) {
    if (!running) return 0;
    switch (match) {
    case TRACE_GPU_MATCH_CALLBACK:
        last_correlation_id = 0;
        pend.token = thread_token();
        pend.correlation_id = 0;
        return pend.token;
    case TRACE_GPU_MATCH_STREAM_ORDER:
        pend.token = thread_token();
        pend.stream = stream;
        pend.cls = record_class(op_class);
        return pend.token;
    case TRACE_GPU_MATCH_EXTERNAL:
    case TRACE_GPU_MATCH_AUTO:
        break;
    }
    pthread_mutex_lock(&lock);
    uint64_t token = corr ? trace_gpu_corr_new_token(corr) : 0;
    pthread_mutex_unlock(&lock);
    if (!token) return 0;
    if (api->push_external_id(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, token) != CUPTI_SUCCESS) {
        trace_gpu_cupti_op_cancel(token);
        return 0;
    }
    return token;
}

void trace_gpu_cupti_op_end(uint64_t token) {
    if (!token) return;
    if (match == TRACE_GPU_MATCH_CALLBACK) {
        if (pend.token == token) pend.correlation_id = last_correlation_id;
        return;
    }
    if (match == TRACE_GPU_MATCH_STREAM_ORDER) return;
    uint64_t last = 0;
    api->pop_external_id(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last);
}

void trace_gpu_cupti_op_bind(uint64_t token, uint64_t op_id, uint64_t enqueue_ns) {
    if (!token) return;
    if (match == TRACE_GPU_MATCH_CALLBACK || match == TRACE_GPU_MATCH_STREAM_ORDER) {
        if (pend.token != token) return;
        pend.token = 0;
        uint32_t stream_id = 0;
        bool stream_order = match == TRACE_GPU_MATCH_STREAM_ORDER;
        bool have_id = stream_order ? stream_id_of(pend.stream, &stream_id) : pend.correlation_id != 0;
        pthread_mutex_lock(&lock);
        if (!have_id) {
            if (stream_order)
                counts.no_stream_id++;
            else
                counts.no_correlation++;
        } else if (stream_order) {
            if (sorder && trace_gpu_sorder_op(sorder, stream_id, pend.cls, op_id, enqueue_ns) != 0)
                counts.no_stream_id++;
        } else if (corr) {
            trace_gpu_corr_bind_correlation(corr, pend.correlation_id, op_id, enqueue_ns);
        }
        pthread_mutex_unlock(&lock);
        return;
    }
    pthread_mutex_lock(&lock);
    if (corr) trace_gpu_corr_bind(corr, token, op_id, enqueue_ns);
    pthread_mutex_unlock(&lock);
}

void trace_gpu_cupti_op_cancel(uint64_t token) {
    if (!token) return;
    if (match == TRACE_GPU_MATCH_CALLBACK || match == TRACE_GPU_MATCH_STREAM_ORDER) {
        if (pend.token == token) pend.token = 0;
        return;
    }
    pthread_mutex_lock(&lock);
    if (corr) trace_gpu_corr_cancel(corr, token);
    pthread_mutex_unlock(&lock);
}

/* ---- flushing and counts ------------------------------------------------------------------ */

void trace_gpu_cupti_flush(bool forced) {
    if (!api || !callbacks_registered) return;
    api->flush_all(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
    deliver();
}

void trace_gpu_cupti_add_stats(trace_gpu_stats *stats) {
    pthread_mutex_lock(&lock);
    trace_gpu_corr_stats c = counts.corr_retired;
    if (corr) {
        trace_gpu_corr_stats now = trace_gpu_corr_get_stats(corr);
        c.device_records += now.device_records;
        c.timed += now.timed;
        c.lost += now.lost;
        c.late += now.late;
    }
    trace_gpu_sorder_stats o = counts.sorder_retired;
    if (sorder) {
        trace_gpu_sorder_stats now = trace_gpu_sorder_get_stats(sorder);
        o.records += now.records;
        o.timed += now.timed;
        o.extra += now.extra;
        o.out_of_order += now.out_of_order;
        o.too_early += now.too_early;
    }
    stats->device_records += c.device_records + o.records;
    stats->ops_timed += c.timed + o.timed;
    stats->unmatched += c.lost + c.late + o.extra + o.out_of_order + o.too_early + counts.no_correlation +
                        counts.no_stream_id;
    stats->match_errors += o.extra + o.out_of_order + o.too_early + counts.no_correlation;
    stats->api_records += counts.api_records;
    stats->sync_records += counts.sync_records;
    stats->dropped_records += counts.dropped;
    pthread_mutex_unlock(&lock);
}
