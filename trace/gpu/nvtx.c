/* trace/gpu/nvtx.c: NVTX stream and event names and phase ranges (see nvtx.h). */
#include "trace/gpu/nvtx.h"

#include <pthread.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtCudaRt.h>

#include "trace/record/recorder.h"

static pthread_once_t domain_once = PTHREAD_ONCE_INIT;
static nvtxDomainHandle_t domain;

static void make_domain(void) { domain = nvtxDomainCreateA("streamlab"); }

void trace_gpu_nvtx_name_stream(const void *stream, const char *name) {
    if (name) nvtxNameCudaStreamA((cudaStream_t)stream, name);
}

void trace_gpu_name_stream(const void *stream, const char *name) {
    if (!name) return;
    trace_stream_set_name(stream, name);
    trace_gpu_nvtx_name_stream(stream, name);
}

void trace_gpu_name_event(const void *event, const char *name) {
    if (!name) return;
    trace_event_set_name(event, name);
    nvtxNameCudaEventA((cudaEvent_t)event, name);
}

void trace_gpu_phase_begin(const char *name) {
    pthread_once(&domain_once, make_domain);
    nvtxEventAttributes_t attr;
    memset(&attr, 0, sizeof(attr));
    attr.version = NVTX_VERSION;
    attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attr.message.ascii = name ? name : "";
    nvtxDomainRangePushEx(domain, &attr);
}

void trace_gpu_phase_end(void) {
    pthread_once(&domain_once, make_domain);
    nvtxDomainRangePop(domain);
}
