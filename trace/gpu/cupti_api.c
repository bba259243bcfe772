/* trace/gpu/cupti_api.c: loading CUPTI at run time (see cupti_api.h). */
#define _GNU_SOURCE
#include "trace/gpu/cupti_api.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#ifndef TRACE_GPU_CUDA_PATH
#define TRACE_GPU_CUDA_PATH "/usr/local/cuda"
#endif

/* snprintf that may cut the text short (messages and paths are bounded on purpose). */
__attribute__((format(printf, 3, 4))) static void put(char *buf, size_t size, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, size, fmt, ap);
    va_end(ap);
}

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static trace_gpu_cupti_api api;
static bool loaded;
static char load_failure[512];

/* Resolves name into *slot; false when the library lacks it. */
static bool resolve(void *lib, const char *name, void *slot, size_t slot_size) {
    void *sym = dlsym(lib, name);
    if (!sym) return false;
    memcpy(slot, &sym, slot_size);
    return true;
}

#define RESOLVE(lib, field, name) resolve(lib, name, &api.field, sizeof(api.field))

static void *open_first(char *tried, size_t tried_size) {
    char candidates[4][512];
    int n = 0;
    const char *env = getenv("STREAMLAB_CUPTI_LIB");
    if (env && *env) {
        put(candidates[n++], sizeof(candidates[0]), "%s", env);
    } else {
        int major = CUDART_VERSION / 1000;
        put(candidates[n++], sizeof(candidates[0]), "libcupti.so.%d", major);
        put(candidates[n++], sizeof(candidates[0]), "%s/lib64/libcupti.so.%d", TRACE_GPU_CUDA_PATH, major);
        put(candidates[n++], sizeof(candidates[0]), "%s/extras/CUPTI/lib64/libcupti.so.%d",
                 TRACE_GPU_CUDA_PATH, major);
    }
    tried[0] = '\0';
    for (int i = 0; i < n; i++) {
        void *lib = dlopen(candidates[i], RTLD_NOW | RTLD_LOCAL);
        if (lib) {
            put(api.path, sizeof(api.path), "%s", candidates[i]);
            return lib;
        }
        size_t used = strlen(tried);
        put(tried + used, tried_size - used, "%s%s", used ? "; " : "", dlerror());
    }
    return NULL;
}

static void load(void) {
    char tried[1024];
    void *lib = open_first(tried, sizeof(tried));
    if (!lib) {
        put(load_failure, sizeof(load_failure), "the CUPTI library could not be loaded (%s)", tried);
        return;
    }
    bool ok = RESOLVE(lib, register_callbacks, "cuptiActivityRegisterCallbacks") &&
              RESOLVE(lib, enable, "cuptiActivityEnable") && RESOLVE(lib, disable, "cuptiActivityDisable") &&
              RESOLVE(lib, flush_all, "cuptiActivityFlushAll") &&
              RESOLVE(lib, next_record, "cuptiActivityGetNextRecord") &&
              RESOLVE(lib, dropped_records, "cuptiActivityGetNumDroppedRecords") &&
              RESOLVE(lib, push_external_id, "cuptiActivityPushExternalCorrelationId") &&
              RESOLVE(lib, pop_external_id, "cuptiActivityPopExternalCorrelationId") &&
              RESOLVE(lib, timestamp, "cuptiGetTimestamp") && RESOLVE(lib, result_string, "cuptiGetResultString") &&
              RESOLVE(lib, version, "cuptiGetVersion");
    if (!ok) {
        put(load_failure, sizeof(load_failure), "%s lacks a function this build needs (%s)", api.path,
                 dlerror());
        return; /* the library stays open: unloading CUPTI is not supported */
    }
    if (!RESOLVE(lib, event_device_timestamps, "cuptiActivityEnableCudaEventDeviceTimestamps"))
        api.event_device_timestamps = NULL;
    if (!RESOLVE(lib, enable_runtime_api, "cuptiActivityEnableRuntimeApi")) api.enable_runtime_api = NULL;
    if (!RESOLVE(lib, subscribe, "cuptiSubscribe") || !RESOLVE(lib, unsubscribe, "cuptiUnsubscribe") ||
        !RESOLVE(lib, enable_callback, "cuptiEnableCallback")) {
        api.subscribe = NULL;
        api.unsubscribe = NULL;
        api.enable_callback = NULL;
    }
    if (!RESOLVE(lib, stream_id, "cuptiGetStreamIdEx")) api.stream_id = NULL;
    uint32_t version = 0;
    if (api.version(&version) == CUPTI_SUCCESS && version / 10000 != CUPTI_API_VERSION / 10000) {
        put(load_failure, sizeof(load_failure),
                 "%s has CUPTI API version %u, but this build's records follow version %u", api.path, version,
                 (unsigned)CUPTI_API_VERSION);
        return;
    }
    loaded = true;
}

const trace_gpu_cupti_api *trace_gpu_cupti_load(char *why, size_t why_size) {
    pthread_once(&load_once, load);
    if (loaded) return &api;
    if (why && why_size) put(why, why_size, "%s", load_failure);
    return NULL;
}

const char *trace_gpu_cupti_result(const trace_gpu_cupti_api *a, CUptiResult r) {
    const char *s = NULL;
    if (a && a->result_string && a->result_string(r, &s) == CUPTI_SUCCESS && s) return s;
    return "unknown CUPTI error";
}
