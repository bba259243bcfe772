/* trace/gpu/collector.c: the collector's front: mode choice, the trace clock, status, and
 * dispatch of the sources' op brackets to CUPTI or event timing (see collector.h). */
#define _GNU_SOURCE
#include "trace/gpu/collector.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "trace/gpu/cupti_collector.h"
#include "trace/gpu/event_timer.h"
#include "trace/recorder.h"

/* A token that means "time this op at its enqueue time when it is bound". */
#define TOKEN_HOST_TIME UINT64_MAX

static struct {
    trace_gpu_mode mode;
    bool cupti_clock;
    bool atexit_registered;
    uint64_t last_flush_ns;
    uint64_t ops_tracked;
    uint64_t flushes, flush_ns;
    char message[1024];
} C = {.mode = TRACE_GPU_OFF, .message = "GPU timing is off (trace_gpu_begin was not called)"};

/* The trace clock is chosen once, at the first use: CUPTI's whenever its library loads
 * (whether or not its activity API is then used), so that host spans and CUPTI's device
 * records always share a clock, in any mode and across begin/end. */
static pthread_once_t clock_once = PTHREAD_ONCE_INIT;

static void pick_clock(void) { C.cupti_clock = trace_gpu_cupti_clock_available(); }

static void choose_clock(void) { pthread_once(&clock_once, pick_clock); }

uint64_t trace_gpu_now_ns(void) {
    choose_clock();
    if (C.cupti_clock) return trace_gpu_cupti_now_ns();
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static bool env_says_off(const char *name) {
    const char *v = getenv(name);
    return v && (strcmp(v, "0") == 0 || strcasecmp(v, "off") == 0 || strcasecmp(v, "no") == 0 ||
                 strcasecmp(v, "false") == 0);
}

static void at_exit(void) { trace_gpu_end(); }

trace_gpu_mode trace_gpu_begin(void) { return trace_gpu_begin_mode(TRACE_GPU_AUTO); }

trace_gpu_mode trace_gpu_begin_mode(trace_gpu_request request) {
    if (C.mode != TRACE_GPU_OFF) return C.mode;
    choose_clock();
    char cupti_why[600] = "", info[400] = "", events_why[300] = "";
    bool want_cupti = request == TRACE_GPU_WANT_CUPTI ||
                      (request == TRACE_GPU_AUTO && !env_says_off("STREAMLAB_CUPTI"));
    if (want_cupti && trace_gpu_cupti_start(cupti_why, sizeof(cupti_why), info, sizeof(info))) {
        C.mode = TRACE_GPU_CUPTI;
        snprintf(C.message, sizeof(C.message),
                 "device times from CUPTI activity records (%s)", info);
    } else {
        if (!want_cupti)
            snprintf(cupti_why, sizeof(cupti_why), "%s",
                     request == TRACE_GPU_WANT_EVENTS ? "event timing was asked for"
                                                      : "STREAMLAB_CUPTI turns CUPTI off");
        if (trace_gpu_events_start(events_why, sizeof(events_why))) {
            C.mode = TRACE_GPU_EVENTS;
            snprintf(C.message, sizeof(C.message),
                     "CUPTI not used (%s); device times come from CUDA events recorded around each "
                     "operation, so an operation's start is when its stream reached it (waiting for a busy "
                     "engine counts as running)",
                     cupti_why);
        } else {
            snprintf(C.message, sizeof(C.message), "no device times: CUPTI not used (%s), and %s", cupti_why,
                     events_why);
        }
    }
    C.last_flush_ns = trace_gpu_now_ns();
    if (C.mode != TRACE_GPU_OFF && !C.atexit_registered) {
        atexit(at_exit);
        C.atexit_registered = true;
    }
    return C.mode;
}

static void flush_now(void) {
    uint64_t t0 = trace_gpu_now_ns();
    if (C.mode == TRACE_GPU_CUPTI) trace_gpu_cupti_flush(false);
    if (C.mode == TRACE_GPU_EVENTS) trace_gpu_events_resolve(false);
    uint64_t t1 = trace_gpu_now_ns();
    C.flushes++;
    C.flush_ns += t1 - t0;
    C.last_flush_ns = t1;
}

void trace_gpu_end(void) {
    if (C.mode == TRACE_GPU_CUPTI) trace_gpu_cupti_stop();
    if (C.mode == TRACE_GPU_EVENTS) trace_gpu_events_stop();
    if (C.mode != TRACE_GPU_OFF)
        snprintf(C.message, sizeof(C.message), "GPU timing is off (trace_gpu_end was called)");
    C.mode = TRACE_GPU_OFF;
}

void trace_gpu_flush(void) {
    if (C.mode != TRACE_GPU_OFF) flush_now();
}

trace_gpu_mode trace_gpu_status(void) { return C.mode; }

const char *trace_gpu_status_message(void) { return C.message; }

trace_gpu_stats trace_gpu_get_stats(void) {
    trace_gpu_stats s;
    memset(&s, 0, sizeof(s));
    s.ops_tracked = C.ops_tracked;
    s.flushes = C.flushes;
    s.flush_ns = C.flush_ns;
    trace_gpu_cupti_add_stats(&s);
    trace_gpu_events_add_stats(&s);
    return s;
}

uint64_t trace_gpu_op_begin(const void *stream, trace_gpu_op_class op_class) {
    uint64_t token = 0;
    switch (C.mode) {
    case TRACE_GPU_CUPTI:
        if (op_class == TRACE_GPU_OP_EVENT_WAIT ||
            (op_class == TRACE_GPU_OP_EVENT_RECORD && !trace_gpu_cupti_event_timestamps()))
            token = TOKEN_HOST_TIME;
        else
            token = trace_gpu_cupti_op_begin();
        break;
    case TRACE_GPU_EVENTS:
        token = trace_gpu_events_op_begin(stream);
        break;
    case TRACE_GPU_OFF:
        break;
    }
    if (token) C.ops_tracked++;
    return token;
}

void trace_gpu_op_end(uint64_t token, const void *stream) {
    if (!token || token == TOKEN_HOST_TIME) return;
    if (C.mode == TRACE_GPU_CUPTI) trace_gpu_cupti_op_end(token);
    if (C.mode == TRACE_GPU_EVENTS) trace_gpu_events_op_end(token, stream);
}

void trace_gpu_op_bind(uint64_t token, uint64_t op_id, uint64_t enqueue_ns) {
    if (!token) return;
    if (token == TOKEN_HOST_TIME) {
        trace_op_timed(op_id, enqueue_ns, enqueue_ns);
        return;
    }
    if (C.mode == TRACE_GPU_CUPTI) trace_gpu_cupti_op_bind(token, op_id, enqueue_ns);
    if (C.mode == TRACE_GPU_EVENTS) trace_gpu_events_op_bind(token, op_id, enqueue_ns);
}

void trace_gpu_op_cancel(uint64_t token) {
    if (!token || token == TOKEN_HOST_TIME) return;
    if (C.mode == TRACE_GPU_CUPTI) trace_gpu_cupti_op_cancel(token);
    if (C.mode == TRACE_GPU_EVENTS) trace_gpu_events_op_cancel(token);
}

void trace_gpu_sync_point(bool device_wide) {
    if (C.mode == TRACE_GPU_OFF) return;
    if (device_wide) {
        if (C.mode == TRACE_GPU_EVENTS) {
            uint64_t t0 = trace_gpu_now_ns();
            trace_gpu_events_resolve(true);
            C.flushes++;
            C.flush_ns += trace_gpu_now_ns() - t0;
        } else {
            flush_now();
        }
        return;
    }
    if (trace_gpu_now_ns() - C.last_flush_ns >= TRACE_GPU_FLUSH_INTERVAL_NS) flush_now();
}

void trace_gpu_before_device_reset(void) {
    if (C.mode == TRACE_GPU_CUPTI) trace_gpu_cupti_flush(true);
    if (C.mode == TRACE_GPU_EVENTS) trace_gpu_events_stop();
}

void trace_gpu_after_device_reset(void) {
    if (C.mode != TRACE_GPU_EVENTS) return;
    char why[300];
    if (!trace_gpu_events_start(why, sizeof(why))) {
        C.mode = TRACE_GPU_OFF;
        snprintf(C.message, sizeof(C.message), "no device times after cudaDeviceReset: %s", why);
    }
}
