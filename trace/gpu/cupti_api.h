/* trace/gpu/cupti_api.h: the CUPTI functions the collector uses, loaded with dlopen.
 *
 * CUPTI is opened at run time rather than linked, so that a lab binary still starts (and
 * falls back to event timing) on a machine where libcupti is missing or unusable. The
 * library is looked for, in order, at $STREAMLAB_CUPTI_LIB, as libcupti.so.<CUDA major>
 * on the loader's search path (LD_LIBRARY_PATH, ld.so.cache), and under the CUDA toolkit
 * the build used (lib64/, extras/CUPTI/lib64/). Internal to trace/gpu/. */
#ifndef STREAMLAB_TRACE_GPU_CUPTI_API_H
#define STREAMLAB_TRACE_GPU_CUPTI_API_H

#include <stdbool.h>
#include <stddef.h>

#include <cupti.h>

typedef struct trace_gpu_cupti_api {
    __typeof__(&cuptiActivityRegisterCallbacks) register_callbacks;
    __typeof__(&cuptiActivityEnable) enable;
    __typeof__(&cuptiActivityDisable) disable;
    __typeof__(&cuptiActivityFlushAll) flush_all;
    __typeof__(&cuptiActivityGetNextRecord) next_record;
    __typeof__(&cuptiActivityGetNumDroppedRecords) dropped_records;
    __typeof__(&cuptiActivityPushExternalCorrelationId) push_external_id;
    __typeof__(&cuptiActivityPopExternalCorrelationId) pop_external_id;
    __typeof__(&cuptiGetTimestamp) timestamp;
    __typeof__(&cuptiGetResultString) result_string;
    __typeof__(&cuptiGetVersion) version;
    /* Optional (NULL when this CUPTI lacks them): device timestamps of cudaEventRecord;
     * API records for chosen runtime calls only; the callback API (correlation ids of
     * chosen runtime calls as they return); CUPTI's id of a stream. */
    __typeof__(&cuptiActivityEnableCudaEventDeviceTimestamps) event_device_timestamps;
    __typeof__(&cuptiActivityEnableRuntimeApi) enable_runtime_api;
    __typeof__(&cuptiSubscribe) subscribe;
    __typeof__(&cuptiUnsubscribe) unsubscribe;
    __typeof__(&cuptiEnableCallback) enable_callback;
    __typeof__(&cuptiGetStreamIdEx) stream_id;
    char path[512]; /* where it was loaded from */
} trace_gpu_cupti_api;

/* Loads CUPTI once (later calls return the first outcome). Returns the table, or NULL with
 * a sentence in why saying what was tried and what failed. */
const trace_gpu_cupti_api *trace_gpu_cupti_load(char *why, size_t why_size);

/* "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES" for r, through the loaded library. */
const char *trace_gpu_cupti_result(const trace_gpu_cupti_api *api, CUptiResult r);

#endif
