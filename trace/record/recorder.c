/* trace/record/recorder.c: the process-wide recorder (see recorder.h): stream and event ids,
 * op numbering, batch provenance, the ops waiting for their device times, fan-out to the
 * sinks, and the ops kept while recording is deferred (trace_defer). */
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

/* What an op recorded with an event handle takes from the event, when it is recorded. */
typedef enum event_lookup {
    EVENT_NONE,   /* no event */
    EVENT_TO_OP,  /* an event record or wait: its event's id and name (event_to_op) */
    EVENT_ID_ONLY /* a host wait on an event: its id (trace_event_id) */
} event_lookup;

/* An op recorded while deferred: numbered, its event looked up, with the stream handle that
 * trace_record finishes it with when it is handed over. */
typedef struct kept_op {
    trace_op op;
    const void *stream; /* the stream handle given to trace_record */
} kept_op;

/* Kept ops past this many are handed over at once, so that a run of many ops holds a
 * bounded buffer (about 6 MiB; a run of lab 06 keeps about 300). */
#define KEPT_MAX 16384u

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
    bool deferring;    /* trace_defer(true) */
    bool handing_over; /* hand_over() is running */
    kept_op *kept;
    size_t n_kept, cap_kept;
} R = {.next_op_id = 1, .next_event_id = 1, .run = -1};

static pthread_once_t lock_once = PTHREAD_ONCE_INIT;

static void hand_over(void);

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

/* Index of the live stream with this handle, or -1, registering none. Lock held. */
static int32_t known_stream(const void *handle) {
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
    return -1;
}

/* Index of the live stream with this handle, or -1; cudaStreamPerThread is registered on
 * its first use. Lock held. */
static int32_t find_stream(const void *handle) {
    int32_t id = known_stream(handle);
    if (id < 0 && handle == HANDLE_PER_THREAD) return add_stream(handle, 0, 0, true, 0);
    return id;
}

int32_t trace_stream_created(const void *handle, unsigned flags, int32_t priority) {
    return trace_stream_created_on(handle, flags, priority, 0);
}

int32_t trace_stream_created_on(const void *handle, unsigned flags, int32_t priority, uint32_t device) {
    lock();
    hand_over();
    int32_t id = add_stream(handle, flags, priority, false, device);
    unlock();
    return id;
}

void trace_stream_destroyed(const void *handle) {
    lock();
    hand_over();
    int32_t id = find_stream(handle);
    if (id > 0) {
        R.streams[id].info.destroyed = true;
        notify_stream(&R.streams[id].info);
    }
    unlock();
}

void trace_stream_set_legacy(const void *handle) {
    lock();
    hand_over();
    int32_t id = find_stream(handle);
    if (id > 0) {
        R.streams[id].info.legacy = true;
        notify_stream(&R.streams[id].info);
    }
    unlock();
}

void trace_stream_set_name(const void *handle, const char *name) {
    lock();
    hand_over();
    int32_t id = find_stream(handle);
    if (id >= 0 && name) {
        snprintf(R.streams[id].info.name, sizeof(R.streams[id].info.name), "%s", name);
        notify_stream(&R.streams[id].info);
    }
    unlock();
}

void trace_stream_set_graph_branch(const void *handle, uint32_t branch) {
    lock();
    hand_over();
    int32_t id = find_stream(handle);
    if (id > 0) {
        R.streams[id].info.graph_branch = branch;
        notify_stream(&R.streams[id].info);
    }
    unlock();
}

int32_t trace_stream_id(const void *handle) {
    lock();
    /* A stream already known reads the same whatever is kept; one registered now must
     * come after the kept ops, as it would have. */
    int32_t id = known_stream(handle);
    if (id < 0) {
        hand_over();
        id = find_stream(handle);
    }
    unlock();
    return id;
}

const trace_stream *trace_stream_get(int32_t id) {
    lock();
    hand_over();
    ensure_legacy();
    const trace_stream *s = (id >= 0 && id < R.n_streams) ? &R.streams[id].info : NULL;
    unlock();
    return s;
}

int32_t trace_stream_count(void) {
    lock();
    hand_over();
    ensure_legacy();
    int32_t n = R.n_streams;
    unlock();
    return n;
}

/* Copies name into an op's name, cut to TRACE_NAME_MAX - 1 characters (what
 * snprintf(dst, TRACE_NAME_MAX, "%s", name) writes, without formatting). */
static void copy_name(char *dst, const char *name) {
    size_t n = strnlen(name, TRACE_NAME_MAX - 1);
    memcpy(dst, name, n);
    dst[n] = '\0';
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
    event_slot *e = find_event(handle);
    op->event = e ? e->id : 0;
    if (e) copy_name(op->name, e->name);
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
    hand_over();
    free(R.kept);
    R.kept = NULL;
    R.n_kept = R.cap_kept = 0;
    R.deferring = false;
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
    __atomic_store_n(&R.n_sinks, 0, __ATOMIC_RELEASE);
    memset(R.sinks, 0, sizeof(R.sinks));
    unlock();
}

int trace_add_sink(const trace_sink *sink) {
    lock();
    hand_over();
    int rc = -1;
    if (R.n_sinks < TRACE_MAX_SINKS) {
        R.sinks[R.n_sinks] = *sink;
        __atomic_store_n(&R.n_sinks, R.n_sinks + 1, __ATOMIC_RELEASE);
        rc = 0;
    }
    unlock();
    return rc;
}

void trace_remove_sink(void *ctx) {
    lock();
    hand_over();
    for (int i = 0; i < R.n_sinks; i++) {
        if (R.sinks[i].ctx == ctx) {
            memmove(&R.sinks[i], &R.sinks[i + 1], (size_t)(R.n_sinks - i - 1) * sizeof(trace_sink));
            __atomic_store_n(&R.n_sinks, R.n_sinks - 1, __ATOMIC_RELEASE);
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

/* Asked by every wrapped call: read without the lock (the count changes only under it). */
bool trace_active(void) { return __atomic_load_n(&R.n_sinks, __ATOMIC_ACQUIRE) > 0; }

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

/* The call made for another (trace_record_as) that this thread's ops belong to. */
static _Thread_local const char *t_as;
static _Thread_local uint64_t t_as_call;
static uint64_t as_calls; /* the last as_call handed out, in the process (atomic) */

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
           ((op->kind == TRACE_OP_SYNC || op->kind == TRACE_OP_API) && op->sync == TRACE_SYNC_STREAM);
}

static void emit(const trace_op *op, bool timed) {
    for (int i = 0; i < R.n_sinks; i++)
        if (R.sinks[i].on_op) R.sinks[i].on_op(R.sinks[i].ctx, op);
    if (timed)
        for (int i = 0; i < R.n_sinks; i++)
            if (R.sinks[i].on_timed) R.sinks[i].on_timed(R.sinks[i].ctx, op);
}

/* What a recorded op's event handle gives it. Lock held. */
static void look_up(trace_op *op, const void *event, event_lookup lookup) {
    if (lookup == EVENT_TO_OP) event_to_op(event, op);
    if (lookup == EVENT_ID_ONLY) {
        event_slot *e = find_event(event);
        op->event = e ? e->id : 0;
    }
}

/* trace_record after the op is numbered: its stream, priority and device, its batch, the
 * ops waiting for their times, the sinks. Lock held. */
static void finish_op(trace_op *op, const void *stream_handle) {
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
}

/* Hands the kept ops to the sinks, in the order they were recorded, as trace_record would
 * have then. Lock held. */
static void hand_over(void) {
    if (R.handing_over || R.n_kept == 0) return;
    R.handing_over = true;
    for (size_t i = 0; i < R.n_kept; i++) finish_op(&R.kept[i].op, R.kept[i].stream);
    R.n_kept = 0;
    R.handing_over = false;
}

/* Keeps a numbered op while deferred. Lock held. */
static void keep(const trace_op *op, const void *stream_handle) {
    if (R.n_kept == KEPT_MAX) hand_over();
    R.kept = grow(R.kept, sizeof(kept_op), &R.cap_kept, R.n_kept + 1);
    kept_op *k = &R.kept[R.n_kept++];
    k->op = *op;
    k->stream = stream_handle;
}

/* trace_record, with the event handle whose look-up the op needs. The event is looked up at
 * once, deferred or not: the events' table changes with no sink's knowledge, so it need not
 * hand kept ops over when it does. */
static uint64_t record(trace_op *op, const void *stream_handle, const void *event, event_lookup lookup) {
    lock();
    op->id = R.next_op_id++;
    op->run = R.run;
    if (!op->call_site) op->call_site = t_site;
    if (!op->as_call) op->as_call = t_as_call;
    look_up(op, event, lookup);
    if (R.deferring && !R.handing_over && R.n_sinks > 0)
        keep(op, stream_handle);
    else
        finish_op(op, stream_handle);
    uint64_t id = op->id;
    unlock();
    return id;
}

uint64_t trace_record(trace_op *op, const void *stream_handle) {
    return record(op, stream_handle, NULL, EVENT_NONE);
}

void trace_defer(bool on) {
    lock();
    if (!on) hand_over();
    R.deferring = on;
    unlock();
}

bool trace_deferring(void) {
    lock();
    bool on = R.deferring;
    unlock();
    return on;
}

static void set_name(trace_op *op, const char *name) {
    if (name) copy_name(op->name, name);
}

uint64_t trace_record_event_record(const void *event, const void *stream, uint64_t host_ns) {
    trace_op op;
    memset(&op, 0, sizeof(op));
    op.kind = TRACE_OP_EVENT_RECORD;
    op.batch = -1;
    op.enqueue_ns = host_ns;
    return record(&op, stream, event, EVENT_TO_OP);
}

uint64_t trace_record_stream_wait(const void *stream, const void *event, uint64_t host_ns) {
    trace_op op;
    memset(&op, 0, sizeof(op));
    op.kind = TRACE_OP_EVENT_WAIT;
    op.batch = -1;
    op.enqueue_ns = host_ns;
    return record(&op, stream, event, EVENT_TO_OP);
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

void trace_record_as(const char *as) {
    t_as = as;
    t_as_call = as ? __atomic_add_fetch(&as_calls, 1, __ATOMIC_RELAXED) : 0;
}

uint64_t trace_record_sync(trace_sync_target target, const void *handle, const char *api,
                           uint64_t start_ns, uint64_t end_ns) {
    trace_op op = host_op(TRACE_OP_SYNC, t_as ? t_as : api, start_ns, end_ns);
    op.sync = target;
    if (target == TRACE_SYNC_EVENT) return record(&op, NULL, handle, EVENT_ID_ONLY);
    return trace_record(&op, target == TRACE_SYNC_STREAM ? handle : NULL);
}

uint64_t trace_record_query(trace_sync_target target, const void *handle, const char *api,
                            uint64_t start_ns, uint64_t end_ns) {
    trace_op op = host_op(TRACE_OP_API, t_as ? t_as : api, start_ns, end_ns);
    op.sync = target;
    if (target == TRACE_SYNC_EVENT) return record(&op, NULL, handle, EVENT_ID_ONLY);
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
    trace_op op = host_op(TRACE_OP_API, t_as ? t_as : api, start_ns, end_ns);
    return trace_record(&op, NULL);
}

uint64_t trace_record_phase(const char *name, uint64_t start_ns, uint64_t end_ns) {
    trace_op op = host_op(TRACE_OP_PHASE, name, start_ns, end_ns);
    return trace_record(&op, NULL);
}

/* ---- timing and races ----------------------------------------------------------------- */

void trace_op_timed(uint64_t id, uint64_t start_ns, uint64_t end_ns) {
    lock();
    hand_over();
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
    hand_over();
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
