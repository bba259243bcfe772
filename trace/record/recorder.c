/* trace/record/recorder.c: the process-wide recorder (see recorder.h): stream and event ids,
 * op numbering, batch provenance, the ops waiting for their device times, and fan-out to
 * the sinks. */
#define _XOPEN_SOURCE 700
#include "trace/record/recorder.h"

#include "trace/record/batch_tags.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HANDLE_LEGACY ((const void *)0x1)
#define HANDLE_PER_THREAD ((const void *)0x2)

typedef struct stream_slot {
    const void *handle;
    trace_stream info;
} stream_slot;

typedef struct event_slot {
    const void *handle;
    uint64_t id;
    unsigned flags;
    bool live;
    char name[TRACE_NAME_MAX]; /* the program's name for it (lab_name_event, NVTX); "" none */
} event_slot;

/* Ops waiting for trace_op_timed: open addressing on the op id (never 0). */
typedef struct pending_map {
    trace_op *slots; /* slots[i].id == 0: empty */
    size_t cap;      /* a power of two */
    size_t count;
} pending_map;

static struct recorder {
    pthread_mutex_t lock;
    bool lock_ready;
    trace_sink sinks[TRACE_MAX_SINKS];
    int n_sinks;
    stream_slot *streams;
    int32_t n_streams, cap_streams;
    int32_t last_lookup; /* index of the last stream found by handle */
    event_slot *events;
    size_t n_events, cap_events;
    uint64_t next_event_id;
    uint64_t next_op_id;
    int32_t run;
    pending_map pending;
    trace_batch_tags tags;
    bool tags_ready;
} R = {.next_op_id = 1, .next_event_id = 1, .run = -1};

static pthread_once_t lock_once = PTHREAD_ONCE_INIT;

static void init_lock(void) {
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    /* Sinks may call back in (the race checker reports races from on_op). */
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&R.lock, &attr);
    pthread_mutexattr_destroy(&attr);
    R.lock_ready = true;
}

static void lock(void) {
    pthread_once(&lock_once, init_lock);
    pthread_mutex_lock(&R.lock);
}

static void unlock(void) { pthread_mutex_unlock(&R.lock); }

static void *grow(void *ptr, size_t elem, size_t *cap, size_t need) {
    if (need <= *cap) return ptr;
    size_t ncap = *cap ? *cap * 2 : 16;
    while (ncap < need) ncap *= 2;
    void *p = realloc(ptr, ncap * elem);
    if (!p) {
        fprintf(stderr, "streamlab trace: out of memory\n");
        abort();
    }
    memset((char *)p + *cap * elem, 0, (ncap - *cap) * elem);
    *cap = ncap;
    return p;
}

/* ---- streams ---------------------------------------------------------------------- */

static void ensure_legacy(void) {
    if (R.n_streams > 0) return;
    size_t cap = (size_t)R.cap_streams;
    R.streams = grow(R.streams, sizeof(stream_slot), &cap, 1);
    R.cap_streams = (int32_t)cap;
    stream_slot *s = &R.streams[0];
    memset(s, 0, sizeof(*s));
    s->handle = NULL;
    s->info.id = TRACE_STREAM_LEGACY;
    s->info.legacy = true;
    snprintf(s->info.name, sizeof(s->info.name), "default");
    R.n_streams = 1;
}

static void notify_stream(const trace_stream *info) {
    for (int i = 0; i < R.n_sinks; i++)
        if (R.sinks[i].on_stream) R.sinks[i].on_stream(R.sinks[i].ctx, info);
}

static int32_t add_stream(const void *handle, unsigned flags, int32_t priority, bool per_thread, uint32_t device) {
    ensure_legacy();
    size_t cap = (size_t)R.cap_streams;
    R.streams = grow(R.streams, sizeof(stream_slot), &cap, (size_t)R.n_streams + 1);
    R.cap_streams = (int32_t)cap;
    int32_t id = R.n_streams++;
    stream_slot *s = &R.streams[id];
    memset(s, 0, sizeof(*s));
    s->handle = handle;
    s->info.id = id;
    s->info.flags = flags;
    s->info.priority = priority;
    s->info.per_thread = per_thread;
    s->info.device = device;
    snprintf(s->info.name, sizeof(s->info.name), per_thread ? "per-thread" : "s%d", (int)id);
    notify_stream(&s->info);
    return id;
}

/* Index of the live stream with this handle, or -1. Lock held. */
static int32_t find_stream(const void *handle) {
    ensure_legacy();
    if (handle == NULL || handle == HANDLE_LEGACY) return TRACE_STREAM_LEGACY;
    if (R.last_lookup > 0 && R.last_lookup < R.n_streams) {
        stream_slot *s = &R.streams[R.last_lookup];
        if (s->handle == handle && !s->info.destroyed) return R.last_lookup;
    }
    for (int32_t i = R.n_streams - 1; i > 0; i--) {
        if (R.streams[i].handle == handle && !R.streams[i].info.destroyed) {
            R.last_lookup = i;
            return i;
        }
    }
    if (handle == HANDLE_PER_THREAD) return add_stream(handle, 0, 0, true, 0);
    return -1;
}

int32_t trace_stream_created(const void *handle, unsigned flags, int32_t priority) {
    return trace_stream_created_on(handle, flags, priority, 0);
}

int32_t trace_stream_created_on(const void *handle, unsigned flags, int32_t priority, uint32_t device) {
    lock();
    int32_t id = add_stream(handle, flags, priority, false, device);
    unlock();
    return id;
}

void trace_stream_destroyed(const void *handle) {
    lock();
    int32_t id = find_stream(handle);
    if (id > 0) {
        R.streams[id].info.destroyed = true;
        notify_stream(&R.streams[id].info);
    }
    unlock();
}

void trace_stream_set_legacy(const void *handle) {
    lock();
    int32_t id = find_stream(handle);
    if (id > 0) {
        R.streams[id].info.legacy = true;
        notify_stream(&R.streams[id].info);
    }
    unlock();
}

void trace_stream_set_name(const void *handle, const char *name) {
    lock();
    int32_t id = find_stream(handle);
    if (id >= 0 && name) {
        snprintf(R.streams[id].info.name, sizeof(R.streams[id].info.name), "%s", name);
        notify_stream(&R.streams[id].info);
    }
    unlock();
}

int32_t trace_stream_id(const void *handle) {
    lock();
    int32_t id = find_stream(handle);
    unlock();
    return id;
}

const trace_stream *trace_stream_get(int32_t id) {
    lock();
    ensure_legacy();
    const trace_stream *s = (id >= 0 && id < R.n_streams) ? &R.streams[id].info : NULL;
    unlock();
    return s;
}

int32_t trace_stream_count(void) {
    lock();
    ensure_legacy();
    int32_t n = R.n_streams;
    unlock();
    return n;
}

/* ---- events ----------------------------------------------------------------------- */

static event_slot *find_event(const void *handle) {
    for (size_t i = R.n_events; i-- > 0;)
        if (R.events[i].live && R.events[i].handle == handle) return &R.events[i];
    return NULL;
}

uint64_t trace_event_created(const void *handle, unsigned flags) {
    lock();
    R.events = grow(R.events, sizeof(event_slot), &R.cap_events, R.n_events + 1);
    event_slot *e = &R.events[R.n_events++];
    e->handle = handle;
    e->id = R.next_event_id++;
    e->flags = flags;
    e->live = true;
    e->name[0] = '\0';
    uint64_t id = e->id;
    unlock();
    return id;
}

void trace_event_destroyed(const void *handle) {
    lock();
    event_slot *e = find_event(handle);
    if (e) e->live = false;
    unlock();
}

void trace_event_set_name(const void *handle, const char *name) {
    lock();
    event_slot *e = find_event(handle);
    if (e && name) snprintf(e->name, sizeof(e->name), "%s", name);
    unlock();
}

/* The event of an event record or wait: its id (0 when unknown) in op->event and its name
 * in op->name (event records and waits carry their event's name to every sink), from one
 * look-up. */
static void event_to_op(const void *handle, trace_op *op) {
    lock();
    event_slot *e = find_event(handle);
    op->event = e ? e->id : 0;
    if (e) snprintf(op->name, sizeof(op->name), "%s", e->name);
    unlock();
}

uint64_t trace_event_id(const void *handle) {
    lock();
    event_slot *e = find_event(handle);
    uint64_t id = e ? e->id : 0;
    unlock();
    return id;
}

/* ---- pending ops ------------------------------------------------------------------- */

static size_t slot_of(uint64_t id, size_t cap) {
    uint64_t h = id * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 17) & (cap - 1);
}

static void pending_put(pending_map *m, const trace_op *op);

static void pending_rehash(pending_map *m, size_t ncap) {
    trace_op *old = m->slots;
    size_t ocap = m->cap;
    m->slots = calloc(ncap, sizeof(trace_op));
    if (!m->slots) {
        fprintf(stderr, "streamlab trace: out of memory\n");
        abort();
    }
    m->cap = ncap;
    m->count = 0;
    for (size_t i = 0; i < ocap; i++)
        if (old[i].id) pending_put(m, &old[i]);
    free(old);
}

static void pending_put(pending_map *m, const trace_op *op) {
    if ((m->count + 1) * 4 > m->cap * 3) pending_rehash(m, m->cap ? m->cap * 2 : 64);
    size_t i = slot_of(op->id, m->cap);
    while (m->slots[i].id && m->slots[i].id != op->id) i = (i + 1) & (m->cap - 1);
    if (!m->slots[i].id) m->count++;
    m->slots[i] = *op;
}

/* Removes the op with this id into *out; false when absent. */
static bool pending_take(pending_map *m, uint64_t id, trace_op *out) {
    if (!m->cap) return false;
    size_t i = slot_of(id, m->cap);
    while (m->slots[i].id && m->slots[i].id != id) i = (i + 1) & (m->cap - 1);
    if (!m->slots[i].id) return false;
    *out = m->slots[i];
    /* Backward-shift deletion keeps probe chains intact without tombstones. */
    size_t hole = i;
    size_t j = i;
    for (;;) {
        j = (j + 1) & (m->cap - 1);
        if (!m->slots[j].id) break;
        size_t home = slot_of(m->slots[j].id, m->cap);
        bool movable = (hole <= j) ? (home <= hole || home > j) : (home <= hole && home > j);
        if (movable) {
            m->slots[hole] = m->slots[j];
            hole = j;
        }
    }
    m->slots[hole].id = 0;
    m->count--;
    return true;
}

/* ---- sinks ------------------------------------------------------------------------- */

void trace_reset(void) {
    lock();
    free(R.streams);
    free(R.events);
    free(R.pending.slots);
    R.streams = NULL;
    R.n_streams = R.cap_streams = 0;
    R.last_lookup = 0;
    R.events = NULL;
    R.n_events = R.cap_events = 0;
    R.next_event_id = 1;
    R.next_op_id = 1;
    R.run = -1;
    memset(&R.pending, 0, sizeof(R.pending));
    if (R.tags_ready) trace_batch_tags_clear(&R.tags);
    R.n_sinks = 0;
    memset(R.sinks, 0, sizeof(R.sinks));
    unlock();
}

int trace_add_sink(const trace_sink *sink) {
    lock();
    int rc = -1;
    if (R.n_sinks < TRACE_MAX_SINKS) {
        R.sinks[R.n_sinks++] = *sink;
        rc = 0;
    }
    unlock();
    return rc;
}

void trace_remove_sink(void *ctx) {
    lock();
    for (int i = 0; i < R.n_sinks; i++) {
        if (R.sinks[i].ctx == ctx) {
            memmove(&R.sinks[i], &R.sinks[i + 1], (size_t)(R.n_sinks - i - 1) * sizeof(trace_sink));
            R.n_sinks--;
            break;
        }
    }
    unlock();
}

bool trace_has_sink(const void *ctx) {
    lock();
    bool found = false;
    for (int i = 0; i < R.n_sinks; i++)
        if (R.sinks[i].ctx == ctx) found = true;
    unlock();
    return found;
}

bool trace_active(void) {
    lock();
    bool active = R.n_sinks > 0;
    unlock();
    return active;
}

void trace_set_run(int32_t run) {
    lock();
    R.run = run;
    unlock();
}

int32_t trace_current_run(void) {
    lock();
    int32_t run = R.run;
    unlock();
    return run;
}

/* ---- call sites ---------------------------------------------------------------------- */

static _Thread_local uint64_t t_site;
static _Thread_local unsigned t_site_depth;

void trace_call_site_enter(const void *return_address) {
    if (t_site_depth++ == 0) t_site = (uint64_t)(uintptr_t)return_address;
}

void trace_call_site_exit(void) {
    if (t_site_depth > 0 && --t_site_depth == 0) t_site = 0;
}

uint64_t trace_call_site(void) { return t_site; }

/* ---- program order ------------------------------------------------------------------ */

/* Ops that belong to a stream: its work, and a host wait on it. */
static bool on_stream_kind(const trace_op *op) {
    return trace_op_kind_is_stream_work(op->kind) ||
           (op->kind == TRACE_OP_SYNC && op->sync == TRACE_SYNC_STREAM);
}

static void emit(const trace_op *op, bool timed) {
    for (int i = 0; i < R.n_sinks; i++)
        if (R.sinks[i].on_op) R.sinks[i].on_op(R.sinks[i].ctx, op);
    if (timed)
        for (int i = 0; i < R.n_sinks; i++)
            if (R.sinks[i].on_timed) R.sinks[i].on_timed(R.sinks[i].ctx, op);
}

uint64_t trace_record(trace_op *op, const void *stream_handle) {
    lock();
    op->id = R.next_op_id++;
    op->run = R.run;
    if (!op->call_site) op->call_site = t_site;
    if (on_stream_kind(op)) {
        int32_t id = find_stream(stream_handle);
        op->stream = id;
        op->priority = id >= 0 ? R.streams[id].info.priority : 0;
        if (!op->device_set) op->device = op->dst_device = id >= 0 ? R.streams[id].info.device : 0;
    } else {
        op->stream = TRACE_STREAM_NONE;
        if (!op->device_set) op->device = op->dst_device = 0;
    }
    if (R.n_sinks > 0) {
        if (op->n_ranges > 0) {
            if (!R.tags_ready) {
                trace_batch_tags_init(&R.tags);
                R.tags_ready = true;
            }
            trace_batch_tags_apply(&R.tags, op);
        }
        if (!op->timed) pending_put(&R.pending, op);
        emit(op, op->timed);
    }
    uint64_t id = op->id;
    unlock();
    return id;
}

static void set_name(trace_op *op, const char *name) {
    if (name) snprintf(op->name, sizeof(op->name), "%s", name);
}

uint64_t trace_record_event_record(const void *event, const void *stream, uint64_t host_ns) {
    trace_op op;
    memset(&op, 0, sizeof(op));
    op.kind = TRACE_OP_EVENT_RECORD;
    op.batch = -1;
    event_to_op(event, &op);
    op.enqueue_ns = host_ns;
    return trace_record(&op, stream);
}

uint64_t trace_record_stream_wait(const void *stream, const void *event, uint64_t host_ns) {
    trace_op op;
    memset(&op, 0, sizeof(op));
    op.kind = TRACE_OP_EVENT_WAIT;
    op.batch = -1;
    event_to_op(event, &op);
    op.enqueue_ns = host_ns;
    return trace_record(&op, stream);
}

/* A host-lane op of `kind`, named, lasting [start_ns, end_ns] and already timed. */
static trace_op host_op(trace_op_kind kind, const char *name, uint64_t start_ns, uint64_t end_ns) {
    trace_op op;
    memset(&op, 0, sizeof(op));
    op.kind = kind;
    op.engine = TRACE_ENGINE_HOST;
    op.batch = -1;
    set_name(&op, name);
    op.enqueue_ns = op.start_ns = start_ns;
    op.end_ns = end_ns;
    op.timed = true;
    return op;
}

uint64_t trace_record_sync(trace_sync_target target, const void *handle, const char *api,
                           uint64_t start_ns, uint64_t end_ns) {
    trace_op op = host_op(TRACE_OP_SYNC, api, start_ns, end_ns);
    op.sync = target;
    if (target == TRACE_SYNC_EVENT) op.event = trace_event_id(handle);
    return trace_record(&op, target == TRACE_SYNC_STREAM ? handle : NULL);
}

uint64_t trace_record_sync_op(uint64_t op_id, const char *api, uint64_t start_ns, uint64_t end_ns) {
    trace_op op = host_op(TRACE_OP_SYNC, api, start_ns, end_ns);
    op.sync = TRACE_SYNC_OP;
    op.waited_op = op_id;
    return trace_record(&op, NULL);
}

uint64_t trace_record_host_access(const void *addr, uint64_t bytes, bool write, const char *what,
                                  int32_t batch, uint64_t host_ns) {
    trace_op op = host_op(TRACE_OP_HOST_ACCESS, what, host_ns, host_ns);
    op.batch = batch;
    op.bytes = bytes;
    trace_op_add_range(&op, addr, bytes, write ? TRACE_RANGE_WRITE : TRACE_RANGE_READ);
    return trace_record(&op, NULL);
}

uint64_t trace_record_api(const char *api, uint64_t start_ns, uint64_t end_ns) {
    trace_op op = host_op(TRACE_OP_API, api, start_ns, end_ns);
    return trace_record(&op, NULL);
}

uint64_t trace_record_phase(const char *name, uint64_t start_ns, uint64_t end_ns) {
    trace_op op = host_op(TRACE_OP_PHASE, name, start_ns, end_ns);
    return trace_record(&op, NULL);
}

/* ---- timing and races ----------------------------------------------------------------- */

void trace_op_timed(uint64_t id, uint64_t start_ns, uint64_t end_ns) {
    lock();
    trace_op op;
    if (R.n_sinks > 0 && pending_take(&R.pending, id, &op)) {
        op.start_ns = start_ns;
        op.end_ns = end_ns;
        op.timed = true;
        for (int i = 0; i < R.n_sinks; i++)
            if (R.sinks[i].on_timed) R.sinks[i].on_timed(R.sinks[i].ctx, &op);
    }
    unlock();
}

uint64_t trace_pending_count(void) {
    lock();
    uint64_t n = R.pending.count;
    unlock();
    return n;
}

void trace_report_race(const struct trace_race *race) {
    lock();
    for (int i = 0; i < R.n_sinks; i++)
        if (R.sinks[i].on_race) R.sinks[i].on_race(R.sinks[i].ctx, race);
    unlock();
}
