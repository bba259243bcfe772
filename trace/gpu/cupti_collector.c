/* trace/gpu/cupti_collector.c: CUPTI activity records to recorder op times (see
 * cupti_collector.h and correlation.h). */
#define _GNU_SOURCE
#include "trace/gpu/cupti_collector.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cupti.h>
#include <cupti_runtime_cbid.h>

#include "trace/gpu/correlation.h"
#include "trace/gpu/cupti_api.h"
#include "trace/recorder.h"

/* CUPTI fills buffers of this size; a kernel record is about 200 bytes. */
#define BUFFER_BYTES ((size_t)4 << 20)
#define BUFFER_ALIGN 8
/* Ring sizes of the correlation table (see correlation.h). */
#define LOG2_TOKENS 16
#define LOG2_LINKS 18

static const trace_gpu_cupti_api *api;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static trace_gpu_corr *corr;          /* under lock */
static bool running;
static bool callbacks_registered;
static bool event_stamps;
static CUpti_ActivityKind enabled[16];
static int n_enabled;
static struct {
    uint64_t api_records, sync_records, dropped;
} counts; /* under lock */

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records) {
    *buffer = aligned_alloc(BUFFER_ALIGN, BUFFER_BYTES);
    *size = *buffer ? BUFFER_BYTES : 0; /* 0: CUPTI drops records and counts them */
    *max_records = 0;
}

/* One activity record. Lock held. */
static void take_record(const CUpti_Activity *rec) {
    switch (rec->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
        const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)rec;
        if (k->start || k->end) trace_gpu_corr_device(corr, k->correlationId, k->start, k->end);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)rec;
        if (m->start || m->end) trace_gpu_corr_device(corr, m->correlationId, m->start, m->end);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)rec;
        if (m->start || m->end) trace_gpu_corr_device(corr, m->correlationId, m->start, m->end);
        break;
    }
    case CUPTI_ACTIVITY_KIND_CUDA_EVENT: {
        const CUpti_ActivityCudaEvent2 *e = (const CUpti_ActivityCudaEvent2 *)rec;
        if (e->deviceTimestamp)
            trace_gpu_corr_device(corr, e->correlationId, e->deviceTimestamp, e->deviceTimestamp);
        break;
    }
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
        const CUpti_ActivityExternalCorrelation *x = (const CUpti_ActivityExternalCorrelation *)rec;
        if (x->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0)
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
    if (corr && buffer && valid > 0) {
        CUpti_Activity *rec = NULL;
        while (api->next_record(buffer, valid, &rec) == CUPTI_SUCCESS) take_record(rec);
    }
    size_t dropped = 0;
    if (api->dropped_records(ctx, stream_id, &dropped) == CUPTI_SUCCESS) counts.dropped += dropped;
    pthread_mutex_unlock(&lock);
    free(buffer);
}

/* Hands every op that has its times to the recorder (outside the lock: the recorder calls
 * its sinks). */
static void deliver(void) {
    trace_gpu_timing batch[256];
    for (;;) {
        pthread_mutex_lock(&lock);
        size_t n = corr ? trace_gpu_corr_take_ready(corr, batch, sizeof(batch) / sizeof(batch[0])) : 0;
        pthread_mutex_unlock(&lock);
        for (size_t i = 0; i < n; i++) trace_op_timed(batch[i].op_id, batch[i].start_ns, batch[i].end_ns);
        if (n < sizeof(batch) / sizeof(batch[0])) return;
    }
}

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

/* The runtime calls that enqueue device work, for STREAMLAB_CUPTI_API=selected. */
static const CUpti_CallbackId selected_calls[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020,      CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020,      CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020,
};
static bool selected_api;

/* Turns API records for selected_calls on or off; false (with why) when this CUPTI cannot. */
static bool enable_selected_runtime_api(bool on, char *why, size_t why_size) {
    if (!api->enable_runtime_api) {
        if (why_size) snprintf(why, why_size, "this CUPTI has no cuptiActivityEnableRuntimeApi");
        return false;
    }
    for (size_t i = 0; i < sizeof(selected_calls) / sizeof(selected_calls[0]); i++) {
        CUptiResult r = api->enable_runtime_api(selected_calls[i], on ? 1 : 0);
        if (r != CUPTI_SUCCESS && on) {
            if (why_size)
                snprintf(why, why_size, "cuptiActivityEnableRuntimeApi failed: %s", trace_gpu_cupti_result(api, r));
            return false;
        }
    }
    return true;
}

bool trace_gpu_cupti_start(char *why, size_t why_size, char *info, size_t info_size) {
    if (running) return true;
    api = trace_gpu_cupti_load(why, why_size);
    if (!api) return false;

    pthread_mutex_lock(&lock);
    if (!corr) corr = trace_gpu_corr_create(LOG2_TOKENS, LOG2_LINKS);
    bool have_table = corr != NULL;
    pthread_mutex_unlock(&lock);
    if (!have_table) {
        snprintf(why, why_size, "out of memory for the correlation table");
        return false;
    }
    if (!callbacks_registered) {
        CUptiResult r = api->register_callbacks(buffer_requested, buffer_completed);
        if (r != CUPTI_SUCCESS) {
            snprintf(why, why_size, "cuptiActivityRegisterCallbacks failed: %s", trace_gpu_cupti_result(api, r));
            return false;
        }
        callbacks_registered = true;
    }

    const char *which = getenv("STREAMLAB_CUPTI_API");
    if (!which || !*which) which = "both";
    bool selected = strcmp(which, "selected") == 0;
    bool runtime = !selected && strcmp(which, "driver") != 0;
    bool driver = !selected && strcmp(which, "runtime") != 0;
    bool ok = enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL", true, why, why_size) &&
              enable(CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY", true, why, why_size) &&
              enable(CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET", true, why, why_size) &&
              enable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, "EXTERNAL_CORRELATION", true, why, why_size) &&
              (!runtime || enable(CUPTI_ACTIVITY_KIND_RUNTIME, "RUNTIME", true, why, why_size)) &&
              (!driver || enable(CUPTI_ACTIVITY_KIND_DRIVER, "DRIVER", true, why, why_size)) &&
              (!selected || enable_selected_runtime_api(true, why, why_size));
    if (!ok) {
        if (selected) enable_selected_runtime_api(false, why, 0);
        disable_all();
        return false;
    }
    selected_api = selected;
    bool sync = enable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "SYNCHRONIZATION", false, why, why_size);
    event_stamps = false;
    if (api->event_device_timestamps && api->event_device_timestamps(1) == CUPTI_SUCCESS)
        event_stamps = enable(CUPTI_ACTIVITY_KIND_CUDA_EVENT, "CUDA_EVENT", false, why, why_size);
    running = true;
    uint32_t version = 0;
    api->version(&version);
    snprintf(info, info_size, "%s, CUPTI API %u; API records: %s%s%s%s; %s; %s", api->path, version,
             runtime ? "runtime" : "", runtime && driver ? "+" : "", driver ? "driver" : "",
             selected ? "selected runtime calls" : "",
             event_stamps ? "cudaEventRecord device timestamps" : "cudaEventRecord at its enqueue time",
             sync ? "synchronization records" : "no synchronization records");
    return true;
}

void trace_gpu_cupti_stop(void) {
    if (!running) return;
    trace_gpu_cupti_flush(true);
    if (selected_api) enable_selected_runtime_api(false, NULL, 0);
    disable_all();
    if (event_stamps && api->event_device_timestamps) api->event_device_timestamps(0);
    running = false;
}

/* The loaded library, for its clock, whether or not collection ever starts. */
static const trace_gpu_cupti_api *clock_api;

bool trace_gpu_cupti_clock_available(void) {
    clock_api = trace_gpu_cupti_load(NULL, 0);
    return clock_api != NULL;
}

uint64_t trace_gpu_cupti_now_ns(void) {
    uint64_t t = 0;
    clock_api->timestamp(&t);
    return t;
}

bool trace_gpu_cupti_event_timestamps(void) { return running && event_stamps; }

uint64_t trace_gpu_cupti_op_begin(void) {
    if (!running) return 0;
    pthread_mutex_lock(&lock);
    uint64_t token = trace_gpu_corr_new_token(corr);
    pthread_mutex_unlock(&lock);
    if (api->push_external_id(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, token) != CUPTI_SUCCESS) {
        trace_gpu_cupti_op_cancel(token);
        return 0;
    }
    return token;
}

void trace_gpu_cupti_op_end(uint64_t token) {
    if (!token) return;
    uint64_t last = 0;
    api->pop_external_id(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last);
}

void trace_gpu_cupti_op_bind(uint64_t token, uint64_t op_id, uint64_t enqueue_ns) {
    if (!token) return;
    pthread_mutex_lock(&lock);
    if (corr) trace_gpu_corr_bind(corr, token, op_id, enqueue_ns);
    pthread_mutex_unlock(&lock);
}

void trace_gpu_cupti_op_cancel(uint64_t token) {
    if (!token) return;
    pthread_mutex_lock(&lock);
    if (corr) trace_gpu_corr_cancel(corr, token);
    pthread_mutex_unlock(&lock);
}

void trace_gpu_cupti_flush(bool forced) {
    if (!api || !callbacks_registered) return;
    api->flush_all(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
    deliver();
}

void trace_gpu_cupti_add_stats(trace_gpu_stats *stats) {
    pthread_mutex_lock(&lock);
    if (corr) {
        trace_gpu_corr_stats c = trace_gpu_corr_get_stats(corr);
        stats->device_records += c.device_records;
        stats->unmatched += c.lost + c.late;
        stats->ops_timed += c.timed;
    }
    stats->api_records += counts.api_records;
    stats->sync_records += counts.sync_records;
    stats->dropped_records += counts.dropped;
    pthread_mutex_unlock(&lock);
}
