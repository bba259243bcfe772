/* trace/stream/events_writer.c: the live event stream's writer (see events_writer.h). */
#define _GNU_SOURCE /* MSG_NOSIGNAL, sigtimedwait */
#include "trace/stream/events_writer.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* The "op" record, built once and refilled for every op: ops are most of the stream, and
 * building a fresh cJSON tree costs dozens of allocations a line. */
enum {
    F_V, F_T, F_ID, F_KIND, F_DIR, F_ENGINE, F_STREAM, F_PRIORITY, F_BATCH, F_RUN, F_NAME, F_START, F_END, F_BYTES,
    F_PINNED, F_GRID, F_BLOCK, F_SYNC, F_EVENT, F_WAITED, F_NONCE, F_DEVICE, F_DST_DEVICE, F_COUNT
};
static const char *const OP_KEYS[F_COUNT] = {"v",     "t",     "id",    "kind",   "dir",   "engine",    "stream",
                                             "priority", "batch", "run",  "name",   "start", "end",       "bytes",
                                             "pinned", "grid",  "block", "sync",   "event", "waited_op", "nonce",
                                             "device", "dst_device"};
#define RAW_CAP 48 /* room for any number or "[x,y,z]" */

typedef struct op_template {
    cJSON *obj;
    cJSON *item[F_COUNT];
    const char *last[F_COUNT]; /* the static name each string field holds, to skip copies */
} op_template;

struct trace_events_writer {
    pthread_mutex_t lock;
    op_template op;
    int fd;
    trace_events_options opt;
    char nonce[128];
    char *buf;
    size_t len, cap;
    char *line; /* cJSON_PrintPreallocated's buffer */
    size_t line_cap;
    uint64_t last_flush_ms;
    uint64_t origin;
    bool broken;
    char error[256];
    uint64_t lines, dropped, clamped;
};

static uint64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

trace_events_options trace_events_default_options(void) {
    trace_events_options o;
    memset(&o, 0, sizeof(o));
    o.include_api = true;
    o.origin_ns = TRACE_EVENTS_ORIGIN_AUTO;
    return o;
}

trace_events_writer *trace_events_writer_create(int fd, const trace_events_options *options) {
    trace_events_writer *w = calloc(1, sizeof(*w));
    if (!w) return NULL;
    pthread_mutex_init(&w->lock, NULL);
    w->fd = fd;
    w->opt = options ? *options : trace_events_default_options();
    if (w->opt.nonce) snprintf(w->nonce, sizeof(w->nonce), "%s", w->opt.nonce);
    w->opt.nonce = NULL;
    if (w->opt.stall_timeout_ms <= 0) w->opt.stall_timeout_ms = 5000;
    if (w->opt.buffer_bytes == 0) w->opt.buffer_bytes = 64 * 1024;
    if (w->opt.flush_interval_ms <= 0) w->opt.flush_interval_ms = 50;
    w->origin = w->opt.origin_ns;
    w->last_flush_ms = now_ms();
    if (fd < 0) {
        w->broken = true;
        snprintf(w->error, sizeof(w->error), "no file descriptor (%d)", fd);
    }
    return w;
}

/* ---- writing to the descriptor ------------------------------------------------------------ */

/* write() with SIGPIPE held off for this thread: a reader that went away gives EPIPE. */
static ssize_t write_nosigpipe(int fd, const char *p, size_t n) {
    sigset_t pipe_set, old;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    sigset_t pending;
    sigemptyset(&pending);
    sigpending(&pending);
    bool was_pending = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    ssize_t k = write(fd, p, n);
    int saved = errno;
    if (k < 0 && saved == EPIPE && !was_pending) {
        struct timespec zero = {0, 0};
        while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR) {
        }
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = saved;
    return k;
}

static void go_off(trace_events_writer *w, const char *why) {
    if (w->broken) return;
    w->broken = true;
    snprintf(w->error, sizeof(w->error), "%s", why);
    fprintf(stderr, "streamlab: live event stream off: %s\n", why);
}

/* Writes all n bytes unless the reader is gone or stalls. Lock held. */
static int write_all(trace_events_writer *w, const char *p, size_t n) {
    int waited_ms = 0;
    while (n > 0 && !w->broken) {
        struct pollfd pfd = {w->fd, POLLOUT, 0};
        int slice = 100;
        int pr = poll(&pfd, 1, slice);
        if (pr < 0) {
            if (errno == EINTR) continue;
            char why[128];
            snprintf(why, sizeof(why), "poll: %s", strerror(errno));
            go_off(w, why);
            return -1;
        }
        if (pr == 0) {
            waited_ms += slice;
            if (waited_ms >= w->opt.stall_timeout_ms) {
                char why[128];
                snprintf(why, sizeof(why), "the reader accepted nothing for %d ms", waited_ms);
                go_off(w, why);
                return -1;
            }
            continue;
        }
        if (pfd.revents & POLLNVAL) {
            go_off(w, "the descriptor is not open");
            return -1;
        }
        /* A pipe that polls writable takes PIPE_BUF bytes without blocking. */
        size_t chunk = n < PIPE_BUF ? n : PIPE_BUF;
        ssize_t k = send(w->fd, p, chunk, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (k < 0 && errno == ENOTSOCK) k = write_nosigpipe(w->fd, p, chunk);
        if (k < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
            char why[128];
            snprintf(why, sizeof(why), "%s", errno == EPIPE ? "the reader went away (EPIPE)" : strerror(errno));
            go_off(w, why);
            return -1;
        }
        p += k;
        n -= (size_t)k;
        waited_ms = 0;
    }
    return w->broken ? -1 : 0;
}

static int flush_locked(trace_events_writer *w) {
    int rc = 0;
    if (w->len > 0 && !w->broken) rc = write_all(w, w->buf, w->len);
    w->len = 0;
    w->last_flush_ms = now_ms();
    return w->broken ? -1 : rc;
}

/* Adds one record (with the newline; with the nonce too unless the record has it). Lock
 * held. */
static int emit(trace_events_writer *w, cJSON *obj, bool urgent, bool add_nonce) {
    if (add_nonce && w->nonce[0]) cJSON_AddStringToObject(obj, "nonce", w->nonce);
    if (w->broken) {
        w->dropped++;
        return -1;
    }
    /* Print into the reusable line buffer, growing it until the record fits. */
    if (!w->line) {
        w->line_cap = 1024;
        w->line = malloc(w->line_cap);
    }
    while (w->line && !cJSON_PrintPreallocated(obj, w->line, (int)w->line_cap, false)) {
        if (w->line_cap > TRACE_EVENTS_MAX_LINE) {
            fprintf(stderr, "streamlab: live event stream: a \"%s\" record is over %u bytes; dropped\n",
                    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(obj, "t")), TRACE_EVENTS_MAX_LINE);
            w->dropped++;
            return -1;
        }
        free(w->line);
        w->line_cap *= 2;
        w->line = malloc(w->line_cap);
    }
    if (!w->line) {
        w->line_cap = 0;
        w->dropped++;
        return -1;
    }
    size_t n = strlen(w->line);
    if (n > TRACE_EVENTS_MAX_LINE) {
        w->dropped++;
        return -1;
    }
    if (w->len + n + 1 > w->cap) {
        size_t ncap = w->cap ? w->cap : w->opt.buffer_bytes + 1024;
        while (ncap < w->len + n + 1) ncap *= 2;
        char *p = realloc(w->buf, ncap);
        if (!p) {
            w->dropped++;
            return -1;
        }
        w->buf = p;
        w->cap = ncap;
    }
    memcpy(w->buf + w->len, w->line, n);
    w->buf[w->len + n] = '\n';
    w->len += n + 1;
    w->lines++;
    if (urgent || w->len >= w->opt.buffer_bytes || now_ms() - w->last_flush_ms >= (uint64_t)w->opt.flush_interval_ms)
        return flush_locked(w);
    return 0;
}

/* Whole numbers. cJSON prints a number with "%1.15g" and reads it back with sscanf to
 * check it, which costs about a microsecond a number; whole numbers print exactly in
 * decimal, so they go in as raw JSON text. */
static void add_uint(cJSON *o, const char *key, uint64_t v) {
    char text[24];
    snprintf(text, sizeof(text), "%" PRIu64, v);
    cJSON_AddRawToObject(o, key, text);
}

static void add_int(cJSON *o, const char *key, int64_t v) {
    char text[24];
    snprintf(text, sizeof(text), "%" PRId64, v);
    cJSON_AddRawToObject(o, key, text);
}

static cJSON *record(const char *type) {
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    add_int(o, "v", TRACE_EVENTS_VERSION);
    cJSON_AddStringToObject(o, "t", type);
    return o;
}

static cJSON *bye_record(int status, const char *reason) {
    cJSON *o = record("bye");
    if (o) {
        add_int(o, "status", status);
        if (reason && reason[0]) cJSON_AddStringToObject(o, "reason", reason);
    }
    return o;
}

/* Emits and frees obj. */
static int emit_locked_free(trace_events_writer *w, cJSON *obj, bool urgent) {
    if (!obj) {
        w->dropped++;
        return -1;
    }
    int rc = emit(w, obj, urgent, true);
    cJSON_Delete(obj);
    return rc;
}

static int emit_free(trace_events_writer *w, cJSON *obj, bool urgent) {
    pthread_mutex_lock(&w->lock);
    int rc = emit_locked_free(w, obj, urgent);
    pthread_mutex_unlock(&w->lock);
    return rc;
}

/* ---- times -------------------------------------------------------------------------------- */

static void see_time(trace_events_writer *w, uint64_t t) {
    if (w->origin != TRACE_EVENTS_ORIGIN_AUTO || t == 0) return;
    if (t < TRACE_EVENTS_MAX_TIME_NS / 2) {
        w->origin = 0;
    } else {
        uint64_t second = 1000000000ull;
        w->origin = t / second * second;
        w->origin = w->origin >= second ? w->origin - second : 0;
    }
}

static uint64_t rel(trace_events_writer *w, uint64_t t) {
    see_time(w, t);
    uint64_t origin = w->origin == TRACE_EVENTS_ORIGIN_AUTO ? 0 : w->origin;
    if (t < origin) {
        w->clamped++;
        return 0;
    }
    uint64_t r = t - origin;
    if (r >= TRACE_EVENTS_MAX_TIME_NS) {
        w->clamped++;
        r = TRACE_EVENTS_MAX_TIME_NS - 1;
    }
    return r;
}

/* ---- records --------------------------------------------------------------------------------- */

static void add_string(cJSON *o, const char *key, const char *value) {
    cJSON_AddStringToObject(o, key, value ? value : "");
}

int trace_events_hello(trace_events_writer *w, const trace_events_hello_info *info) {
    cJSON *o = record("hello");
    if (o) {
        add_string(o, "lab", info ? info->lab : NULL);
        add_string(o, "backend", info ? info->backend : NULL);
        add_string(o, "profile", info ? info->profile : NULL);
        add_string(o, "device", info ? info->device : NULL);
        add_string(o, "run_label", info ? info->run_label : NULL);
    }
    return emit_free(w, o, true);
}

static cJSON *stream_record(const trace_stream *s) {
    cJSON *o = record("stream");
    if (!o) return NULL;
    add_int(o, "id", s->id);
    char name[sizeof(s->name) + 1];
    memcpy(name, s->name, sizeof(s->name));
    name[sizeof(s->name)] = '\0';
    add_string(o, "name", name);
    add_int(o, "priority", s->priority);
    add_int(o, "flags", s->flags);
    if (s->legacy) cJSON_AddBoolToObject(o, "legacy", true);
    if (s->per_thread) cJSON_AddBoolToObject(o, "per_thread", true);
    if (s->destroyed) cJSON_AddBoolToObject(o, "destroyed", true);
    if (s->device) add_int(o, "device", s->device <= TRACE_EVENTS_MAX_DEVICE ? s->device : TRACE_EVENTS_MAX_DEVICE);
    return o;
}

int trace_events_stream(trace_events_writer *w, const trace_stream *stream) {
    return emit_free(w, stream_record(stream), false);
}


static bool template_init(op_template *t) {
    memset(t, 0, sizeof(*t));
    t->obj = cJSON_CreateObject();
    if (!t->obj) return false;
    for (int f = 0; f < F_COUNT; f++) {
        cJSON *it;
        switch (f) {
        case F_T: case F_KIND: case F_DIR: case F_ENGINE: case F_NAME: case F_SYNC: case F_NONCE:
            it = cJSON_CreateString("");
            break;
        case F_PINNED:
            it = cJSON_CreateFalse();
            break;
        default:
            it = cJSON_CreateRaw("0");
            if (it) {
                char *buf = cJSON_malloc(RAW_CAP);
                if (buf) {
                    snprintf(buf, RAW_CAP, "0");
                    cJSON_free(it->valuestring);
                    it->valuestring = buf;
                } else {
                    cJSON_Delete(it);
                    it = NULL;
                }
            }
            break;
        }
        if (!it) return false;
        t->item[f] = it;
    }
    return true;
}

static void template_detach_all(op_template *t) {
    while (t->obj && t->obj->child) cJSON_DetachItemViaPointer(t->obj, t->obj->child);
}

static void template_free(op_template *t) {
    template_detach_all(t);
    for (int f = 0; f < F_COUNT; f++) cJSON_Delete(t->item[f]);
    cJSON_Delete(t->obj);
    memset(t, 0, sizeof(*t));
}

static void use(op_template *t, int f) { cJSON_AddItemToObjectCS(t->obj, OP_KEYS[f], t->item[f]); }

/* Decimal digits of v into out (RAW_CAP bytes); the numbers of every op line go through
 * here, and snprintf's format parsing is most of the cost of a line. */
static void decimal(char *out, uint64_t v, bool negative) {
    char digits[24];
    int n = 0;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    int o = 0;
    if (negative) out[o++] = '-';
    while (n) out[o++] = digits[--n];
    out[o] = '\0';
}

static void use_u(op_template *t, int f, uint64_t v) {
    decimal(t->item[f]->valuestring, v, false);
    use(t, f);
}

static void use_i(op_template *t, int f, int64_t v) {
    decimal(t->item[f]->valuestring, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, v < 0);
    use(t, f);
}

/* A string field; static_name: v is one of the schema's constant names, unchanged when
 * the field already holds it. */
static bool use_s(op_template *t, int f, const char *v, bool static_name) {
    if (!static_name || t->last[f] != v) {
        if (!cJSON_SetValuestring(t->item[f], v)) return false;
        t->last[f] = static_name ? v : NULL;
    }
    use(t, f);
    return true;
}

static void use_dims(op_template *t, int f, const uint32_t d[3]) {
    char *out = t->item[f]->valuestring;
    *out++ = '[';
    for (int i = 0; i < 3; i++) {
        decimal(out, d[i], false);
        out += strlen(out);
        *out++ = i < 2 ? ',' : ']';
    }
    *out = '\0';
    use(t, f);
}

/* Fills the op template with op; NULL when out of memory. Lock held. */
static cJSON *op_record(trace_events_writer *w, const trace_op *op) {
    op_template *t = &w->op;
    if (!t->obj && !template_init(t)) {
        template_free(t);
        return NULL;
    }
    template_detach_all(t);
    char name[TRACE_NAME_MAX + 1];
    memcpy(name, op->name, TRACE_NAME_MAX);
    name[TRACE_NAME_MAX] = '\0';
    use_i(t, F_V, TRACE_EVENTS_VERSION);
    bool ok = use_s(t, F_T, "op", true);
    use_u(t, F_ID, op->id % TRACE_EVENTS_MAX_ID);
    ok = ok && use_s(t, F_KIND, trace_op_kind_name(op->kind), true);
    if (op->kind == TRACE_OP_COPY) ok = ok && use_s(t, F_DIR, trace_copy_dir_name(op->dir), true);
    ok = ok && use_s(t, F_ENGINE, trace_events_engine_name(op->engine), true);
    /* Devices only where they say something: a peer copy, or an op of a device other than
     * 0 (a run on one device writes what it wrote before devices were recorded). */
    if (op->engine == TRACE_ENGINE_LINK || op->device != 0)
        use_u(t, F_DEVICE, op->device <= TRACE_EVENTS_MAX_DEVICE ? op->device : TRACE_EVENTS_MAX_DEVICE);
    if (op->engine == TRACE_ENGINE_LINK)
        use_u(t, F_DST_DEVICE, op->dst_device <= TRACE_EVENTS_MAX_DEVICE ? op->dst_device : TRACE_EVENTS_MAX_DEVICE);
    use_i(t, F_STREAM, op->stream);
    use_i(t, F_PRIORITY, op->priority);
    use_i(t, F_BATCH, op->batch);
    use_i(t, F_RUN, op->run);
    if (name[0]) ok = ok && use_s(t, F_NAME, name, false);
    uint64_t start = rel(w, op->start_ns), end = rel(w, op->end_ns);
    use_u(t, F_START, start);
    use_u(t, F_END, end < start ? start : end);
    if (op->bytes) use_u(t, F_BYTES, op->bytes < TRACE_EVENTS_MAX_BYTES ? op->bytes : TRACE_EVENTS_MAX_BYTES);
    if (op->kind == TRACE_OP_COPY) {
        /* Keep the flag bits (cJSON_StringIsConst) above the type. */
        cJSON *pinned = t->item[F_PINNED];
        pinned->type = (pinned->type & ~0xFF) | (op->pinned ? cJSON_True : cJSON_False);
        use(t, F_PINNED);
    }
    if (op->kind == TRACE_OP_KERNEL) {
        use_dims(t, F_GRID, op->grid);
        use_dims(t, F_BLOCK, op->block);
    }
    if (op->kind == TRACE_OP_SYNC) ok = ok && use_s(t, F_SYNC, trace_events_sync_name(op->sync), true);
    if (op->event && op->event < TRACE_EVENTS_MAX_ID) use_u(t, F_EVENT, op->event);
    if (op->waited_op && op->waited_op < TRACE_EVENTS_MAX_ID) use_u(t, F_WAITED, op->waited_op);
    if (w->nonce[0]) ok = ok && use_s(t, F_NONCE, w->nonce, true);
    return ok ? t->obj : NULL;
}

int trace_events_op(trace_events_writer *w, const trace_op *op) {
    pthread_mutex_lock(&w->lock);
    cJSON *obj = op_record(w, op);
    int rc;
    if (obj) {
        rc = emit(w, obj, false, false);
    } else {
        w->dropped++;
        rc = -1;
    }
    pthread_mutex_unlock(&w->lock);
    return rc;
}

static cJSON *race_side(const trace_race_op *s, bool multi_device) {
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    add_uint(o, "id", s->id % TRACE_EVENTS_MAX_ID);
    cJSON_AddStringToObject(o, "kind", trace_op_kind_name(s->kind));
    if (s->kind == TRACE_OP_COPY) cJSON_AddStringToObject(o, "dir", trace_copy_dir_name(s->dir));
    add_int(o, "stream", s->stream);
    char buf[TRACE_NAME_MAX + 1];
    memcpy(buf, s->stream_name, sizeof(s->stream_name));
    buf[sizeof(s->stream_name)] = '\0';
    cJSON_AddStringToObject(o, "stream_name", buf);
    cJSON_AddBoolToObject(o, "on_host", s->on_host);
    add_int(o, "batch", s->batch);
    add_int(o, "run", s->run);
    memcpy(buf, s->name, TRACE_NAME_MAX);
    buf[TRACE_NAME_MAX] = '\0';
    cJSON_AddStringToObject(o, "name", buf);
    if (multi_device) {
        add_uint(o, "device", s->device <= TRACE_EVENTS_MAX_DEVICE ? s->device : TRACE_EVENTS_MAX_DEVICE);
        add_uint(o, "stream_device",
                 s->stream_device <= TRACE_EVENTS_MAX_DEVICE ? s->stream_device : TRACE_EVENTS_MAX_DEVICE);
        if (s->peer) {
            cJSON_AddBoolToObject(o, "peer", true);
            add_uint(o, "dst_device", s->dst_device <= TRACE_EVENTS_MAX_DEVICE ? s->dst_device : TRACE_EVENTS_MAX_DEVICE);
        }
    }
    return o;
}

int trace_events_race(trace_events_writer *w, const trace_race *race) {
    cJSON *o = record("race");
    if (o) {
        add_uint(o, "seq", race->seq % TRACE_EVENTS_MAX_ID);
        const char *kind = trace_race_kind_name(race->kind);
        cJSON_AddStringToObject(o, "kind", kind ? kind : "RAW");
        char addr[32];
        snprintf(addr, sizeof(addr), "0x%" PRIx64, race->addr);
        cJSON_AddStringToObject(o, "addr", addr);
        add_uint(o, "bytes", race->bytes < TRACE_EVENTS_MAX_BYTES ? race->bytes : TRACE_EVENTS_MAX_BYTES);
        cJSON_AddItemToObject(o, "first", race_side(&race->first, race->multi_device));
        cJSON_AddItemToObject(o, "second", race_side(&race->second, race->multi_device));
        if (race->multi_device) {
            /* A program on several devices (absent: one device): the bytes' device, -1 host. */
            cJSON_AddBoolToObject(o, "multi_device", true);
            add_int(o, "buffer_device", race->buffer_device >= 0 && race->buffer_device <= TRACE_EVENTS_MAX_DEVICE
                                            ? race->buffer_device
                                            : -1);
        }
        char fix[TRACE_RACE_FIX_MAX + 1];
        memcpy(fix, race->fix, TRACE_RACE_FIX_MAX);
        fix[TRACE_RACE_FIX_MAX] = '\0';
        cJSON_AddStringToObject(o, "fix", fix);
    }
    return emit_free(w, o, true);
}

static cJSON *phase_record(trace_events_writer *w, const char *name, uint64_t start_ns, uint64_t end_ns, int32_t run) {
    cJSON *o = record("phase");
    if (!o) return NULL;
    add_string(o, "name", name);
    uint64_t start = rel(w, start_ns), end = rel(w, end_ns);
    add_uint(o, "start", start);
    add_uint(o, "end", end < start ? start : end);
    add_int(o, "run", run);
    return o;
}

int trace_events_phase(trace_events_writer *w, const char *name, uint64_t start_ns, uint64_t end_ns, int32_t run) {
    pthread_mutex_lock(&w->lock);
    int rc = emit_locked_free(w, phase_record(w, name, start_ns, end_ns, run), true);
    pthread_mutex_unlock(&w->lock);
    return rc;
}

int trace_events_progress(trace_events_writer *w, const char *text, int64_t done, int64_t total) {
    cJSON *o = record("progress");
    if (o) {
        add_string(o, "text", text);
        add_int(o, "done", done);
        add_int(o, "total", total);
    }
    return emit_free(w, o, true);
}

int trace_events_result(trace_events_writer *w, const cJSON *result) {
    if (!cJSON_IsObject(result)) return -1;
    cJSON *o = record("result");
    if (o) cJSON_AddItemToObject(o, "result", cJSON_Duplicate(result, true));
    return emit_free(w, o, true);
}

int trace_events_bye(trace_events_writer *w, int status, const char *reason) {
    return emit_free(w, bye_record(status, reason), true);
}

char *trace_events_format_bye(trace_events_writer *w, int status, const char *reason) {
    cJSON *o = bye_record(status, reason);
    if (!o) return NULL;
    pthread_mutex_lock(&w->lock);
    if (w->nonce[0]) cJSON_AddStringToObject(o, "nonce", w->nonce);
    pthread_mutex_unlock(&w->lock);
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!text) return NULL;
    size_t len = strlen(text);
    char *line = malloc(len + 2);
    if (line) {
        memcpy(line, text, len);
        line[len] = '\n';
        line[len + 1] = '\0';
    }
    cJSON_free(text);
    return line;
}

int trace_events_flush(trace_events_writer *w) {
    pthread_mutex_lock(&w->lock);
    int rc = flush_locked(w);
    pthread_mutex_unlock(&w->lock);
    return rc;
}

bool trace_events_writer_ok(trace_events_writer *w) {
    pthread_mutex_lock(&w->lock);
    bool ok = !w->broken;
    pthread_mutex_unlock(&w->lock);
    return ok;
}

const char *trace_events_writer_error(trace_events_writer *w) { return w->broken ? w->error : ""; }

uint64_t trace_events_writer_lines(trace_events_writer *w) { return w->lines; }
uint64_t trace_events_writer_dropped(trace_events_writer *w) { return w->dropped; }
uint64_t trace_events_writer_origin(trace_events_writer *w) { return w->origin; }

/* ---- sink ---------------------------------------------------------------------------------------- */

static void sink_stream(void *ctx, const trace_stream *stream) { trace_events_stream(ctx, stream); }

static void sink_op(void *ctx, const trace_op *op) {
    trace_events_writer *w = ctx;
    pthread_mutex_lock(&w->lock);
    see_time(w, op->timed && op->start_ns ? op->start_ns : op->enqueue_ns);
    pthread_mutex_unlock(&w->lock);
}

static void sink_timed(void *ctx, const trace_op *op) {
    trace_events_writer *w = ctx;
    if (op->kind == TRACE_OP_PHASE) {
        char name[TRACE_NAME_MAX + 1];
        memcpy(name, op->name, TRACE_NAME_MAX);
        name[TRACE_NAME_MAX] = '\0';
        trace_events_phase(w, name, op->start_ns, op->end_ns, op->run);
        return;
    }
    if (op->kind == TRACE_OP_API && !w->opt.include_api) return;
    trace_events_op(w, op);
}

static void sink_race(void *ctx, const trace_race *race) { trace_events_race(ctx, race); }

trace_sink trace_events_writer_sink(trace_events_writer *w) {
    trace_sink s;
    memset(&s, 0, sizeof(s));
    s.ctx = w;
    s.on_stream = sink_stream;
    s.on_op = sink_op;
    s.on_timed = sink_timed;
    s.on_race = sink_race;
    return s;
}

int trace_events_writer_install(trace_events_writer *w) {
    if (trace_has_sink(w)) return 0;
    int32_t n = trace_stream_count();
    for (int32_t i = 0; i < n; i++) {
        const trace_stream *s = trace_stream_get(i);
        if (s) trace_events_stream(w, s);
    }
    trace_sink s = trace_events_writer_sink(w);
    return trace_add_sink(&s);
}

void trace_events_writer_uninstall(trace_events_writer *w) { trace_remove_sink(w); }

void trace_events_writer_destroy(trace_events_writer *w) {
    if (!w) return;
    trace_events_writer_uninstall(w);
    trace_events_flush(w);
    free(w->buf);
    free(w->line);
    template_free(&w->op);
    pthread_mutex_destroy(&w->lock);
    free(w);
}
