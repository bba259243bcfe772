/* trace/gpu/collector.c: the collector's front: choice of mode and strategy, the trace
 * clock, status, autoflush, and dispatch of the sources' op brackets to CUPTI or event
 * timing (see collector.h). */
#define _GNU_SOURCE
#include "trace/gpu/collector.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "trace/gpu/cupti_collector.h"
#include "trace/gpu/event_timer.h"
#include "trace/record/recorder.h"

/* A token that means "time this op at its enqueue time when it is bound". */
#define TOKEN_HOST_TIME UINT64_MAX

static struct {
    trace_gpu_mode mode;
    bool atexit_registered;
    bool manual_flush; /* autoflush off */
    uint64_t last_flush_ns;
    uint64_t ops_tracked;
    bool only_to_host; /* trace_gpu_time_only_copies_to_host */
    uint64_t flushes, flush_ns;
    char strategy[48];
    char message[1024];
} C = {.mode = TRACE_GPU_OFF,
       .strategy = "off",
       .message = "GPU timing is off (trace_gpu_begin was not called)"};

/* Sets the status sentence; a long one is cut short (it is bounded on purpose). */
__attribute__((format(printf, 1, 2))) static void set_message(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(C.message, sizeof(C.message), fmt, ap);
    va_end(ap);
}


/* ---- options from the environment ---------------------------------------------------------- */

static bool env_is(const char *name, const char *value) {
    const char *v = getenv(name);
    return v && strcasecmp(v, value) == 0;
}

static bool env_says_off(const char *name) {
    const char *v = getenv(name);
    return v && (strcmp(v, "0") == 0 || strcasecmp(v, "off") == 0 || strcasecmp(v, "no") == 0 ||
                 strcasecmp(v, "false") == 0);
}

/* Appends a note on an environment variable with a value this build does not know. */
static void note_unknown(char *notes, size_t size, const char *name, const char *known) {
    const char *v = getenv(name);
    if (!v || !*v) return;
    char list[128];
    snprintf(list, sizeof(list), "%s", known);
    for (char *save = NULL, *w = strtok_r(list, "|", &save); w; w = strtok_r(NULL, "|", &save))
        if (strcasecmp(v, w) == 0) return;
    size_t used = strlen(notes);
    snprintf(notes + used, size - used, "%s%s=%s is not one of %s, ignored", used ? "; " : "", name, v, known);
}

static trace_gpu_options resolve(const trace_gpu_options *given, char *notes, size_t notes_size) {
    trace_gpu_options o = {TRACE_GPU_AUTO, TRACE_GPU_MATCH_AUTO, TRACE_GPU_API_AUTO, TRACE_GPU_EVENTS_AUTO};
    if (given) o = *given;
    notes[0] = '\0';
    if (o.request == TRACE_GPU_AUTO) {
        note_unknown(notes, notes_size, "STREAMLAB_GPU_TIMING", "cupti|events|none");
        if (env_is("STREAMLAB_GPU_TIMING", "none"))
            o.request = TRACE_GPU_WANT_NONE;
        else if (env_is("STREAMLAB_GPU_TIMING", "events") || env_says_off("STREAMLAB_CUPTI"))
            o.request = TRACE_GPU_WANT_EVENTS;
    }
    if (o.match == TRACE_GPU_MATCH_AUTO) {
        note_unknown(notes, notes_size, "STREAMLAB_CUPTI_MATCH", "callback|stream|external");
        o.match = env_is("STREAMLAB_CUPTI_MATCH", "stream")     ? TRACE_GPU_MATCH_STREAM_ORDER
                  : env_is("STREAMLAB_CUPTI_MATCH", "external") ? TRACE_GPU_MATCH_EXTERNAL
                  : env_is("STREAMLAB_CUPTI_MATCH", "callback") ? TRACE_GPU_MATCH_CALLBACK
                                                                : TRACE_GPU_DEFAULT_MATCH;
    }
    if (o.api_records == TRACE_GPU_API_AUTO) {
        note_unknown(notes, notes_size, "STREAMLAB_CUPTI_API", "selected|runtime|driver|both");
        /* Selected runtime records left every op untimed on an H200 (CUDA 13.0): external
         * matching needs the runtime and driver records. */
        o.api_records = env_is("STREAMLAB_CUPTI_API", "runtime")    ? TRACE_GPU_API_RUNTIME
                        : env_is("STREAMLAB_CUPTI_API", "driver")   ? TRACE_GPU_API_DRIVER
                        : env_is("STREAMLAB_CUPTI_API", "selected") ? TRACE_GPU_API_SELECTED
                                                                    : TRACE_GPU_API_BOTH;
    }
    if (o.events == TRACE_GPU_EVENTS_AUTO) {
        note_unknown(notes, notes_size, "STREAMLAB_EVENTS", "single|pair");
        o.events = env_is("STREAMLAB_EVENTS", "pair") ? TRACE_GPU_EVENTS_PAIR : TRACE_GPU_EVENTS_SINGLE;
    }
    return o;
}

static const char *match_name(trace_gpu_match m, trace_gpu_api_records a) {
    switch (m) {
    case TRACE_GPU_MATCH_STREAM_ORDER: return "cupti-stream";
    case TRACE_GPU_MATCH_EXTERNAL:
        switch (a) {
        case TRACE_GPU_API_RUNTIME: return "cupti-external-runtime";
        case TRACE_GPU_API_DRIVER: return "cupti-external-driver";
        case TRACE_GPU_API_BOTH: return "cupti-external-both";
        default: return "cupti-external-selected";
        }
    default: return "cupti-callback";
    }
}

/* ---- begin and end -------------------------------------------------------------------------- */

static void at_exit(void) { trace_gpu_end(); }

trace_gpu_mode trace_gpu_begin(void) { return trace_gpu_begin_options(NULL); }

trace_gpu_mode trace_gpu_begin_mode(trace_gpu_request request) {
    trace_gpu_options o = {request, TRACE_GPU_MATCH_AUTO, TRACE_GPU_API_AUTO, TRACE_GPU_EVENTS_AUTO};
    return trace_gpu_begin_options(&o);
}

trace_gpu_mode trace_gpu_begin_options(const trace_gpu_options *given) {
    if (C.mode != TRACE_GPU_OFF) return C.mode;
    (void)trace_gpu_now_ns(); /* the trace clock is chosen now, before anything is timed */
    char notes[400];
    trace_gpu_options o = resolve(given, notes, sizeof(notes));
    char cupti_why[600] = "", info[800] = "", events_why[300] = "";
    char tail[420] = "";
    if (notes[0]) snprintf(tail, sizeof(tail), " (%s)", notes);
    if (o.request == TRACE_GPU_WANT_NONE) {
        snprintf(C.strategy, sizeof(C.strategy), "off");
        set_message("no device times: GPU timing was turned off (STREAMLAB_GPU_TIMING=none or asked for); "
                    "operations are recorded untimed%s", tail);
        return C.mode;
    }
    bool want_cupti = o.request == TRACE_GPU_WANT_CUPTI || o.request == TRACE_GPU_AUTO;
    trace_gpu_match used = o.match;
    if (want_cupti &&
        trace_gpu_cupti_start(o.match, o.api_records, &used, cupti_why, sizeof(cupti_why), info, sizeof(info))) {
        C.mode = TRACE_GPU_CUPTI;
        snprintf(C.strategy, sizeof(C.strategy), "%s",
                 match_name(used, used == o.match ? o.api_records : TRACE_GPU_API_SELECTED));
        set_message("device times from CUPTI activity records (%s)%s", info, tail);
    } else {
        if (!want_cupti)
            snprintf(cupti_why, sizeof(cupti_why), "%s",
                     given && given->request == TRACE_GPU_WANT_EVENTS ? "event timing was asked for"
                                                                      : "the environment asks for CUDA events");
        bool single = o.events != TRACE_GPU_EVENTS_PAIR;
        if (trace_gpu_events_start(single, events_why, sizeof(events_why))) {
            C.mode = TRACE_GPU_EVENTS;
            snprintf(C.strategy, sizeof(C.strategy), "%s", single ? "events-single" : "events-pair");
            set_message("CUPTI not used (%s); device times come from CUDA events recorded %s, so an operation's "
                        "start is when its stream reached it (waiting for a busy engine counts as running)%s",
                        cupti_why,
                        single ? "after each operation (its start is the later of its enqueue and the end before it)"
                               : "around each operation",
                        tail);
        } else {
            snprintf(C.strategy, sizeof(C.strategy), "off");
            set_message("no device times: CUPTI not used (%s), and %s%s", cupti_why, events_why, tail);
        }
    }
    C.last_flush_ns = trace_gpu_now_ns();
    if (C.mode != TRACE_GPU_OFF && !C.atexit_registered) {
        atexit(at_exit);
        C.atexit_registered = true;
    }
    return C.mode;
}

/* may_rebase: event timing may renew its base if nothing of the program's is pending. */
static void flush_now(bool may_rebase) {
    uint64_t t0 = trace_gpu_now_ns();
    if (C.mode == TRACE_GPU_CUPTI) trace_gpu_cupti_flush(false);
    if (C.mode == TRACE_GPU_EVENTS) trace_gpu_events_resolve(may_rebase);
    uint64_t t1 = trace_gpu_now_ns();
    C.flushes++;
    C.flush_ns += t1 - t0;
    C.last_flush_ns = t1;
}

void trace_gpu_end(void) {
    if (C.mode == TRACE_GPU_CUPTI) trace_gpu_cupti_stop();
    if (C.mode == TRACE_GPU_EVENTS) trace_gpu_events_stop();
    if (C.mode != TRACE_GPU_OFF)
        set_message("GPU timing is off (trace_gpu_end was called)");
    C.mode = TRACE_GPU_OFF;
    C.only_to_host = false;
    snprintf(C.strategy, sizeof(C.strategy), "off");
}

void trace_gpu_flush(void) {
    if (C.mode != TRACE_GPU_OFF) flush_now(true);
}

void trace_gpu_set_autoflush(bool on) { C.manual_flush = !on; }

bool trace_gpu_autoflush(void) { return !C.manual_flush; }

trace_gpu_mode trace_gpu_status(void) { return C.mode; }

bool trace_gpu_timing_wanted(void) {
    char notes[400];
    return resolve(NULL, notes, sizeof(notes)).request != TRACE_GPU_WANT_NONE;
}

const char *trace_gpu_status_message(void) { return C.message; }

const char *trace_gpu_strategy(void) { return C.strategy; }

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

/* ---- the sources' side ----------------------------------------------------------------------- */

void trace_gpu_stream_created(const void *stream, unsigned flags) {
    trace_gpu_events_stream_created(stream, flags);
    if (C.mode == TRACE_GPU_CUPTI) trace_gpu_cupti_stream_created(stream);
}

void trace_gpu_stream_destroyed(const void *stream) {
    trace_gpu_events_stream_destroyed(stream);
    trace_gpu_cupti_stream_destroyed(stream);
}

void trace_gpu_time_only_copies_to_host(bool on) { C.only_to_host = on; }

static uint64_t op_begin(const void *stream, trace_gpu_op_class op_class);

uint64_t trace_gpu_op_begin(const void *stream, trace_gpu_op_class op_class) {
    return C.only_to_host ? 0 : op_begin(stream, op_class);
}

uint64_t trace_gpu_copy_op_begin(const void *stream, int dir) {
    if (C.only_to_host && dir != TRACE_COPY_D2H) return 0;
    return op_begin(stream, TRACE_GPU_OP_COPY);
}

static uint64_t op_begin(const void *stream, trace_gpu_op_class op_class) {
    uint64_t token = 0;
    switch (C.mode) {
    case TRACE_GPU_CUPTI:
        if (op_class == TRACE_GPU_OP_EVENT_WAIT ||
            (op_class == TRACE_GPU_OP_EVENT_RECORD && !trace_gpu_cupti_event_timestamps()))
            token = TOKEN_HOST_TIME;
        else
            token = trace_gpu_cupti_op_begin(stream, op_class);
        break;
    case TRACE_GPU_EVENTS:
        token = trace_gpu_events_op_begin(stream, op_class);
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
    if (C.mode == TRACE_GPU_OFF || C.manual_flush) return;
    if (device_wide)
        flush_now(true);
    else if (trace_gpu_now_ns() - C.last_flush_ns >= TRACE_GPU_FLUSH_INTERVAL_NS)
        flush_now(false);
}

void trace_gpu_before_device_reset(void) {
    if (C.mode == TRACE_GPU_CUPTI) trace_gpu_cupti_flush(true);
    if (C.mode == TRACE_GPU_EVENTS) trace_gpu_events_stop();
}

void trace_gpu_after_device_reset(void) {
    if (C.mode != TRACE_GPU_EVENTS) return;
    char why[300];
    if (!trace_gpu_events_start(trace_gpu_events_single(), why, sizeof(why))) {
        C.mode = TRACE_GPU_OFF;
        snprintf(C.strategy, sizeof(C.strategy), "off");
        set_message("no device times after cudaDeviceReset: %s", why);
    }
}
