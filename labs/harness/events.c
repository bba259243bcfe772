/* labs/harness/events.c: the lab's live event stream (see events.h), on top of the trace
 * writer (trace/stream/events_writer.h). */
#define _POSIX_C_SOURCE 200809L
#include "labs/harness/events.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "labs/harness/options.h"
#include "trace/stream/events_writer.h"

struct lab_events {
    trace_events_writer *writer;
    char nonce[128];
};

lab_events *lab_events_open(int fd, const char *lab_id, char *err, size_t err_len) {
    (void)lab_id;
    err[0] = '\0';
    if (fd < 0) return NULL;
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY) {
        snprintf(err, err_len, "descriptor %d is not open for writing", fd);
        return NULL;
    }
    lab_events *ev = calloc(1, sizeof(*ev));
    if (!ev) {
        snprintf(err, err_len, "out of memory");
        return NULL;
    }
    /* The nonce is the grader's secret: keep it, and take it out of the environment so
     * the lab code cannot simply read it back. */
    const char *nonce = getenv("STREAMLAB_EVENTS_NONCE");
    if (nonce) snprintf(ev->nonce, sizeof(ev->nonce), "%s", nonce);
    unsetenv("STREAMLAB_EVENTS_NONCE");
    trace_events_options opt = trace_events_default_options();
    opt.nonce = ev->nonce[0] ? ev->nonce : NULL;
    ev->writer = trace_events_writer_create(fd, &opt);
    if (!ev->writer) {
        snprintf(err, err_len, "could not start the event stream");
        free(ev);
        return NULL;
    }
    return ev;
}

void lab_events_hello(lab_events *ev, const lab_result *r) {
    if (!ev) return;
    trace_events_hello_info info = {
        .lab = r->spec->id,
        .backend = r->backend.name,
        .profile = r->backend.profile,
        .device = r->backend.device,
        .run_label = "yours",
    };
    trace_events_hello(ev->writer, &info);
}

void lab_events_install(lab_events *ev) {
    if (ev) trace_events_writer_install(ev->writer);
}

void lab_events_progress(lab_events *ev, const char *label, int done, int total) {
    if (ev) trace_events_progress(ev->writer, label, done, total);
}

void lab_events_result(lab_events *ev, const lab_result *r) {
    if (!ev) return;
    cJSON *j = lab_result_json(r);
    trace_events_result(ev->writer, j);
    cJSON_Delete(j);
    trace_events_bye(ev->writer, r->exit_code, lab_status_name(r->status));
    trace_events_flush(ev->writer);
}

char *lab_events_fatal_line(void *ctx, const char *what, const char *detail, const char *phase, const char *who) {
    lab_events *ev = ctx;
    if (!ev) return NULL;
    char reason[256];
    snprintf(reason, sizeof(reason), "%s: %s in %s (%s)", what, detail, phase, who);
    /* Whatever is buffered goes first, so the stream ends in order. */
    trace_events_flush(ev->writer);
    return trace_events_format_bye(ev->writer, strcmp(what, "slow_host") ? LAB_EXIT_FAIL : LAB_EXIT_HOST, reason);
}

void lab_events_where(void *ctx, const char *phase, const char *who, uint64_t now_ns) {
    lab_events *ev = ctx;
    if (!ev) return;
    char name[TRACE_NAME_MAX];
    snprintf(name, sizeof(name), "in %s (%s)", phase, who);
    trace_events_phase(ev->writer, name, now_ns, now_ns, -1);
}

void lab_events_close(lab_events *ev) {
    if (!ev) return;
    trace_events_flush(ev->writer);
    trace_events_writer_destroy(ev->writer);
    free(ev);
}
