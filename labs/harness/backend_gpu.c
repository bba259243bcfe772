/* labs/harness/backend_gpu.c: the real-GPU side of backend.h. Device times come from CUPTI
 * (or, where CUPTI cannot start, from CUDA events: trace/gpu/collector.h);
 * runs are timed on the same clock. Streams and phases are named for Nsight Systems too. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime.h>

#include "labs/harness/backend.h"
#include "trace/gpu/allocations.h"
#include "trace/gpu/collector.h"
#include "trace/gpu/nvtx.h"

static int device_name(char *out, size_t len) {
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        snprintf(out, len, "no usable CUDA device (%s)",
                 err != cudaSuccess ? cudaGetErrorString(err) : "the driver reports 0 devices");
        (void)cudaGetLastError();
        return 1;
    }
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
        snprintf(out, len, "cudaGetDeviceProperties failed: %s", cudaGetErrorString(cudaGetLastError()));
        return 1;
    }
    snprintf(out, len, "%.100s (sm_%d%d, %d SMs)", prop.name, prop.major, prop.minor, prop.multiProcessorCount);
    return 0;
}

int lab_backend_init(const lab_options *o, lab_backend_info *info, char *err, size_t err_len) {
    memset(info, 0, sizeof(*info));
    info->name = "gpu";
    if (o->backend == LAB_BACKEND_SIM) {
        snprintf(err, err_len,
                 "--backend=sim: this is the real-GPU build of the lab. Use the launcher "
                 "(bazel run //labs:<lab> -- --backend=sim) or the _sim binary");
        return LAB_EXIT_USAGE;
    }
    if (device_name(info->device, sizeof(info->device)) != 0) {
        snprintf(err, err_len, "%s. Run the simulator build instead (the launcher picks it by itself).",
                 info->device);
        return LAB_EXIT_FAIL;
    }
    if (lab_backend_need_devices(o->devices, err, err_len) != 0) return LAB_EXIT_USAGE;
    if (o->profile)
        fprintf(stderr, "note: --profile=%s is for the simulator; this run uses the real GPU\n", o->profile);
    /* Nothing is timed yet: the runner chooses (lab_backend_device_times) before the
     * warm-up. CUPTI is begun only for runs that are traced, never before timed runs that
     * are not: once started in a process it slows each later runtime call even after it is
     * stopped (docs/measured.md, "what CUPTI leaves in a timed run"). */
    trace_gpu_set_autoflush(false); /* the runner flushes after each run, outside its timing */
    return 0;
}

bool lab_backend_timing_costs(void) { return trace_gpu_timing_wanted(); }

void lab_backend_device_times(lab_device_times times, lab_backend_info *info) {
    trace_gpu_end(); /* delivers what is known, and stops CUPTI's records or the events */
    if (times == LAB_TIMES_ENDS || times == LAB_TIMES_RESULTS) {
        /* One event after each operation (or after each copy to the host only): its end
         * exactly, for about a microsecond of host time a call, and none of CUPTI's buffer
         * handling in the middle of a run. */
        if (trace_gpu_begin_mode(TRACE_GPU_WANT_EVENTS) == TRACE_GPU_EVENTS && times == LAB_TIMES_RESULTS)
            trace_gpu_time_only_copies_to_host(true);
    } else if (times == LAB_TIMES_FULL) {
        trace_gpu_mode mode = trace_gpu_begin();
        snprintf(info->timing, sizeof(info->timing), "%s%s", trace_gpu_status_message(),
                 mode == TRACE_GPU_EVENTS ? " (the timeline falls back to CUDA events)" : "");
    }
}

int lab_backend_probe(char *out, size_t out_len) { return device_name(out, out_len); }

int lab_backend_need_devices(int devices, char *out, size_t out_len) {
    int count = 0;
    if (devices < 2) return 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        (void)cudaGetLastError();
        count = 0;
    }
    if (count >= devices) return 0;
    char name[128] = "";
    if (count > 0) (void)device_name(name, sizeof(name));
    snprintf(out, out_len,
             "this lab needs %d GPUs and this machine has %d%s%s%s. Run it on the simulator, which models two "
             "H200s linked by NVLink: --backend=sim",
             devices, count, count > 0 ? " (" : "", name, count > 0 ? ")" : "");
    return 1;
}

uint64_t lab_backend_now_ns(void) { return trace_gpu_now_ns(); }

void lab_backend_wait_until(uint64_t t) {
    /* Sleep most of the way, spin the last 100 us: a request must not arrive late. */
    for (;;) {
        uint64_t now = trace_gpu_now_ns();
        if (now >= t) return;
        if (t - now > 200000) {
            struct timespec ts = {0, (long)(t - now - 100000)};
            nanosleep(&ts, NULL);
        }
    }
}

void lab_backend_host_work(uint64_t ns) {
    uint64_t end = trace_gpu_now_ns() + ns;
    while (trace_gpu_now_ns() < end) {
    }
}

void lab_backend_between_runs(uint64_t input_bytes) { (void)input_bytes; }

uint64_t lab_backend_host_copy_ns(uint64_t bytes) {
    (void)bytes;
    return 0;
}

uint64_t lab_backend_host_copy_cold_ns(uint64_t bytes) {
    (void)bytes;
    return 0;
}

bool lab_backend_can_perturb(void) { return false; }

void lab_backend_perturb(uint64_t seed, double amount) {
    (void)seed;
    (void)amount;
}

void lab_backend_phase(const char *name, bool begin) {
    if (begin)
        trace_gpu_phase_begin(name);
    else
        trace_gpu_phase_end();
}

void lab_backend_name_stream(cudaStream_t stream, const char *name) { trace_gpu_name_stream(stream, name); }
void lab_backend_name_event(cudaEvent_t event, const char *name) { trace_gpu_name_event(event, name); }

bool lab_backend_device_allocation(uintptr_t addr, const void **base, size_t *bytes) {
    return trace_gpu_device_allocation_of((const void *)addr, base, bytes);
}

bool lab_backend_capture_id(cudaStream_t stream, uint64_t *id) {
    /* The legacy stream never captures, and asking about it while a blocking stream
     * captures is an error (cudaErrorStreamCaptureImplicit). */
    if (stream == NULL || stream == cudaStreamLegacy) return false;
    enum cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    unsigned long long capture = 0;
    cudaError_t before = cudaPeekAtLastError();
    if (cudaStreamGetCaptureInfo(stream, &status, &capture, NULL, NULL, NULL, NULL) != cudaSuccess) {
        /* The program's last error stays its own. */
        if (before == cudaSuccess) (void)cudaGetLastError();
        return false;
    }
    if (status == cudaStreamCaptureStatusNone) return false;
    *id = (uint64_t)capture;
    return true;
}

void lab_backend_flush(void) { trace_gpu_flush(); }

void lab_backend_reset(void) { (void)cudaDeviceSynchronize(); }

void lab_backend_shutdown(void) { trace_gpu_end(); }
