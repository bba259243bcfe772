/* trace/stream/events_schema.c: the event stream's names, both ways (see events_schema.h). */
#include "trace/stream/events_schema.h"

#include <string.h>

static const char *const TYPE_NAMES[] = {NULL, "hello", "stream", "op", "race", "phase", "progress", "result", "bye"};
#define N_TYPES (sizeof(TYPE_NAMES) / sizeof(TYPE_NAMES[0]))

const char *trace_event_type_name(trace_event_type type) {
    return (unsigned)type < N_TYPES ? TYPE_NAMES[type] : NULL;
}

trace_event_type trace_event_type_from_name(const char *name) {
    if (!name) return 0;
    for (unsigned i = 1; i < N_TYPES; i++)
        if (strcmp(name, TYPE_NAMES[i]) == 0) return (trace_event_type)i;
    return 0;
}

static const char *const ENGINE_NAMES[] = {"none", "h2d", "d2h", "compute", "host", "link"};
static const char *const SYNC_NAMES[] = {"none", "stream", "event", "device", "op"};

static int index_of(const char *const *names, int n, const char *name) {
    if (!name) return -1;
    for (int i = 0; i < n; i++)
        if (names[i] && strcmp(names[i], name) == 0) return i;
    return -1;
}

const char *trace_events_engine_name(trace_engine engine) {
    return (unsigned)engine <= TRACE_ENGINE_LINK ? ENGINE_NAMES[engine] : "none";
}

int trace_events_engine_from_name(const char *name) { return index_of(ENGINE_NAMES, 6, name); }

const char *trace_events_sync_name(trace_sync_target target) {
    return (unsigned)target <= TRACE_SYNC_OP ? SYNC_NAMES[target] : "none";
}

int trace_events_sync_from_name(const char *name) { return index_of(SYNC_NAMES, 5, name); }

int trace_events_kind_from_name(const char *name) {
    if (!name) return -1;
    for (int k = 0; k < TRACE_OP_KIND_COUNT; k++)
        if (strcmp(name, trace_op_kind_name((trace_op_kind)k)) == 0) return k;
    return -1;
}

int trace_events_dir_from_name(const char *name) {
    if (!name) return -1;
    if (name[0] == '\0') return TRACE_COPY_NONE;
    for (int d = TRACE_COPY_H2D; d <= TRACE_COPY_H2H; d++)
        if (strcmp(name, trace_copy_dir_name((trace_copy_dir)d)) == 0) return d;
    return -1;
}
