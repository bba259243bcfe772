/* trace/stream/events_reader.c: the live event stream's reader (see events_reader.h): line
 * framing with a bounded line length, then one cJSON parse and strict field validation
 * per line. */
#include "trace/stream/events_reader.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- line framing ---------------------------------------------------------------------------- */

struct trace_events_reader {
    char nonce[128];
    char *buf;         /* bytes fed and not yet read: complete lines, then a partial one */
    size_t start, len, cap;
    size_t partial;    /* bytes of the incomplete last line held in buf */
    bool skipping;     /* the incomplete line is over-long: dropping it until its newline */
    uint64_t fed_lines; /* newlines seen by feed */
    uint64_t *overlong; /* numbers of over-long lines not yet reported, ascending */
    size_t n_overlong, cap_overlong, first_overlong;
    bool ended;
    bool end_done;     /* the stream's end has been handled by next */
    uint64_t lines, errors;
    cJSON *result;
};

trace_events_reader *trace_events_reader_create(const char *nonce) {
    trace_events_reader *r = calloc(1, sizeof(*r));
    if (!r) return NULL;
    if (nonce) snprintf(r->nonce, sizeof(r->nonce), "%s", nonce);
    return r;
}

void trace_events_reader_destroy(trace_events_reader *r) {
    if (!r) return;
    free(r->buf);
    free(r->overlong);
    cJSON_Delete(r->result);
    free(r);
}

/* Appends n bytes to buf; false when out of memory. */
static bool append(trace_events_reader *r, const char *p, size_t n) {
    if (n == 0) return true;
    if (r->start > 0 && (r->start >= r->len / 2 || r->len + n > r->cap)) {
        memmove(r->buf, r->buf + r->start, r->len - r->start);
        r->len -= r->start;
        r->start = 0;
    }
    if (r->len + n > r->cap) {
        size_t ncap = r->cap ? r->cap : 4096;
        while (ncap < r->len + n) ncap *= 2;
        char *q = realloc(r->buf, ncap);
        if (!q) return false;
        r->buf = q;
        r->cap = ncap;
    }
    memcpy(r->buf + r->len, p, n);
    r->len += n;
    return true;
}

static void note_overlong(trace_events_reader *r, uint64_t line) {
    if (r->n_overlong == r->cap_overlong) {
        size_t live = r->n_overlong - r->first_overlong;
        if (r->first_overlong > 0) {
            memmove(r->overlong, r->overlong + r->first_overlong, live * sizeof(uint64_t));
            r->n_overlong = live;
            r->first_overlong = 0;
        }
        if (r->n_overlong == r->cap_overlong) {
            size_t ncap = r->cap_overlong ? r->cap_overlong * 2 : 16;
            uint64_t *q = realloc(r->overlong, ncap * sizeof(uint64_t));
            if (!q) return; /* the line then reads as empty: still skipped */
            r->overlong = q;
            r->cap_overlong = ncap;
        }
    }
    r->overlong[r->n_overlong++] = line;
}

void trace_events_reader_feed(trace_events_reader *r, const void *bytes, size_t n) {
    const char *p = bytes;
    const char *end = p + n;
    if (!p || n == 0 || r->ended) return;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t seg = (size_t)((nl ? nl : end) - p);
        if (!r->skipping && r->partial + seg > TRACE_EVENTS_MAX_LINE) {
            /* Too long: forget what is held of it and drop the rest as it comes. */
            r->len -= r->partial;
            r->partial = 0;
            r->skipping = true;
            note_overlong(r, r->fed_lines + 1);
        }
        if (!r->skipping) {
            if (!append(r, p, seg)) {
                /* Out of memory: treat the line as over-long. */
                r->len -= r->partial;
                r->partial = 0;
                r->skipping = true;
                note_overlong(r, r->fed_lines + 1);
            } else {
                r->partial += seg;
            }
        }
        if (!nl) return;
        /* The line is complete; an over-long one stays as an empty placeholder. */
        if (!append(r, "\n", 1)) {
            /* No room even for a newline: the held partial line is dropped. */
            r->len -= r->partial;
        }
        r->partial = 0;
        r->skipping = false;
        r->fed_lines++;
        p = nl + 1;
    }
}

void trace_events_reader_end(trace_events_reader *r) { r->ended = true; }

cJSON *trace_events_reader_take_result(trace_events_reader *r) {
    cJSON *res = r->result;
    r->result = NULL;
    return res;
}

uint64_t trace_events_reader_lines(const trace_events_reader *r) { return r->lines; }
uint64_t trace_events_reader_errors(const trace_events_reader *r) { return r->errors; }

static bool is_blank(const char *s, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r') return false;
    return true;
}

static int fail_line(char *err, size_t err_size, uint64_t line, const char *fmt, ...) {
    char why[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    if (err && err_size) snprintf(err, err_size, "line %" PRIu64 ": %s", line, why);
    return -1;
}

int trace_events_reader_next(trace_events_reader *r, trace_event *out, char *err, size_t err_size) {
    cJSON_Delete(r->result);
    r->result = NULL;
    for (;;) {
        const char *base = r->buf ? r->buf + r->start : NULL;
        size_t avail = r->len - r->start - (r->skipping ? 0 : r->partial);
        const char *nl = avail ? memchr(base, '\n', avail) : NULL;
        uint64_t line;
        const char *text;
        size_t len;
        bool last = false;
        if (nl) {
            text = base;
            len = (size_t)(nl - base);
            r->start += len + 1;
            line = ++r->lines;
        } else if (r->ended && !r->end_done && (r->partial > 0 || r->skipping)) {
            /* The stream ended inside a line. */
            r->end_done = true;
            text = base;
            len = r->partial;
            r->start += len;
            r->partial = 0;
            line = ++r->lines;
            last = true;
            if (r->skipping) {
                r->skipping = false;
                r->errors++;
                return fail_line(err, err_size, line, "longer than %u bytes; skipped", TRACE_EVENTS_MAX_LINE);
            }
        } else {
            return 0;
        }
        if (r->first_overlong < r->n_overlong && r->overlong[r->first_overlong] == line) {
            r->first_overlong++;
            r->errors++;
            return fail_line(err, err_size, line, "longer than %u bytes; skipped", TRACE_EVENTS_MAX_LINE);
        }
        if (len == 0 || is_blank(text, len)) continue;
        int rc = trace_events_parse_line(text, len, line, r->nonce, out, err, err_size);
        if (rc < 0) {
            r->errors++;
            if (last) {
                /* Say that the stream was cut, when that is the likely cause. */
                char again[256];
                snprintf(again, sizeof(again), "%s (the stream ends here without a newline: truncated)",
                         err ? err : "");
                if (err && err_size) snprintf(err, err_size, "%s", again);
            }
            return -1;
        }
        if (out->type == TRACE_EVENT_RESULT) r->result = out->result;
        return 1;
    }
}

/* ---- one line ----------------------------------------------------------------------------------- */

typedef struct parse {
    const cJSON *obj;
    const char *what; /* the record type, for messages */
    uint64_t line;
    char *err;
    size_t err_size;
    bool failed;
} parse;

static bool fail(parse *p, const char *fmt, ...) {
    if (p->failed) return false;
    p->failed = true;
    char why[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    if (p->err && p->err_size) snprintf(p->err, p->err_size, "line %" PRIu64 ": %s: %s", p->line, p->what, why);
    return false;
}

static const cJSON *field(const cJSON *obj, const char *key) { return cJSON_GetObjectItemCaseSensitive(obj, key); }

/* An integer in [min, max] (doubles that are whole numbers). */
static bool get_int(parse *p, const cJSON *obj, const char *key, bool required, double min, double max, double *out) {
    const cJSON *f = field(obj, key);
    if (!f) return required ? fail(p, "\"%s\" is missing", key) : true;
    if (!cJSON_IsNumber(f)) return fail(p, "\"%s\" is not a number", key);
    double v = f->valuedouble;
    if (!isfinite(v) || floor(v) != v) return fail(p, "\"%s\" is not an integer", key);
    if (v < min) return fail(p, "\"%s\" is %s (%.17g)", key, v < 0 && min >= 0 ? "negative" : "too small", v);
    if (v > max) return fail(p, "\"%s\" is absurdly large (%.17g, over %.17g)", key, v, max);
    *out = v;
    return true;
}

static bool get_u64(parse *p, const cJSON *obj, const char *key, bool required, uint64_t max, uint64_t *out) {
    double v = 0;
    if (!get_int(p, obj, key, required, 0, (double)max, &v)) return false;
    if (field(obj, key)) *out = (uint64_t)v;
    return true;
}

static bool get_i32(parse *p, const cJSON *obj, const char *key, bool required, int32_t min, int32_t max, int32_t *out) {
    double v = 0;
    if (!get_int(p, obj, key, required, min, max, &v)) return false;
    if (field(obj, key)) *out = (int32_t)v;
    return true;
}

static bool get_bool(parse *p, const cJSON *obj, const char *key, bool *out) {
    const cJSON *f = field(obj, key);
    if (!f) return true;
    if (!cJSON_IsBool(f)) return fail(p, "\"%s\" is not true or false", key);
    *out = cJSON_IsTrue(f);
    return true;
}

/* Length of the well-formed UTF-8 sequence at s (n bytes available), or 0; *printable
 * says whether it encodes a printable code point (not a C1 control). */
static size_t utf8_len(const unsigned char *s, size_t n, bool *printable) {
    unsigned char c = s[0];
    size_t len;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        cp = c & 0x1Fu;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        cp = c & 0x0Fu;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        cp = c & 0x07u;
    } else {
        return 0;
    }
    if (n < len) return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (s[i] & 0x3Fu);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF))) return 0; /* overlong */
    if (cp >= 0xD800 && cp <= 0xDFFF) return 0;                                              /* surrogates */
    *printable = !(cp >= 0x80 && cp <= 0x9F);                                                /* C1 controls */
    return len;
}

/* Copies src into dst (size bytes), cut at a character boundary, with each control
 * character and each byte of invalid UTF-8 replaced by '?'. */
static void copy_clean(char *dst, size_t size, const char *src) {
    const unsigned char *s = (const unsigned char *)src;
    size_t n = strlen(src), i = 0, o = 0;
    while (i < n && o + 1 < size) {
        if (s[i] < 0x80) {
            dst[o++] = (s[i] < 0x20 || s[i] == 0x7F) ? '?' : (char)s[i];
            i++;
            continue;
        }
        bool printable = false;
        size_t len = utf8_len(s + i, n - i, &printable);
        if (len == 0 || !printable) {
            dst[o++] = '?';
            i += len ? len : 1;
            continue;
        }
        if (o + len + 1 > size) break;
        memcpy(dst + o, s + i, len);
        o += len;
        i += len;
    }
    dst[o] = '\0';
}

static bool get_str(parse *p, const cJSON *obj, const char *key, bool required, char *dst, size_t size) {
    const cJSON *f = field(obj, key);
    if (!f) return required ? fail(p, "\"%s\" is missing", key) : true;
    if (!cJSON_IsString(f) || !f->valuestring) return fail(p, "\"%s\" is not a string", key);
    copy_clean(dst, size, f->valuestring);
    return true;
}

/* A name from a fixed list: returns its index, or -1 after failing. */
static int get_enum(parse *p, const cJSON *obj, const char *key, bool required, int (*lookup)(const char *), int dflt) {
    const cJSON *f = field(obj, key);
    if (!f) {
        if (required) fail(p, "\"%s\" is missing", key);
        return required ? -1 : dflt;
    }
    if (!cJSON_IsString(f) || !f->valuestring) {
        fail(p, "\"%s\" is not a string", key);
        return -1;
    }
    int v = lookup(f->valuestring);
    if (v < 0) {
        char shown[40];
        copy_clean(shown, sizeof(shown), f->valuestring);
        fail(p, "unknown %s \"%s\"", key, shown);
    }
    return v;
}

static bool get_dims(parse *p, const cJSON *obj, const char *key, uint32_t out[3]) {
    const cJSON *f = field(obj, key);
    if (!f) return true;
    if (!cJSON_IsArray(f) || cJSON_GetArraySize(f) != 3) return fail(p, "\"%s\" is not an array of 3 sizes", key);
    for (int i = 0; i < 3; i++) {
        const cJSON *d = cJSON_GetArrayItem(f, i);
        if (!cJSON_IsNumber(d) || !isfinite(d->valuedouble) || floor(d->valuedouble) != d->valuedouble ||
            d->valuedouble < 0 || d->valuedouble > TRACE_EVENTS_MAX_DIM)
            return fail(p, "\"%s\" has a size that is not an integer in 0..%u", key, TRACE_EVENTS_MAX_DIM);
        out[i] = (uint32_t)d->valuedouble;
    }
    return true;
}

static bool get_span(parse *p, const cJSON *obj, uint64_t *start, uint64_t *end) {
    if (!get_u64(p, obj, "start", true, TRACE_EVENTS_MAX_TIME_NS - 1, start)) return false;
    if (!get_u64(p, obj, "end", true, TRACE_EVENTS_MAX_TIME_NS - 1, end)) return false;
    if (*end < *start) return fail(p, "ends (%" PRIu64 ") before it starts (%" PRIu64 ")", *end, *start);
    return true;
}

static int lookup_dir_nonempty(const char *name) { return name[0] ? trace_events_dir_from_name(name) : -1; }

static bool parse_hello(parse *p, trace_event_hello *h) {
    const cJSON *o = p->obj;
    h->version = TRACE_EVENTS_VERSION;
    return get_str(p, o, "lab", false, h->lab, sizeof(h->lab)) &&
           get_str(p, o, "backend", false, h->backend, sizeof(h->backend)) &&
           get_str(p, o, "profile", false, h->profile, sizeof(h->profile)) &&
           get_str(p, o, "device", false, h->device, sizeof(h->device)) &&
           get_str(p, o, "run_label", false, h->run_label, sizeof(h->run_label));
}

/* A device number, absent in lines written before devices were recorded (device 0). */
static bool get_device(parse *p, const cJSON *obj, const char *key, uint32_t *out) {
    uint64_t v = *out;
    if (!get_u64(p, obj, key, false, TRACE_EVENTS_MAX_DEVICE, &v)) return false;
    *out = (uint32_t)v;
    return true;
}

static bool parse_stream(parse *p, trace_stream *s) {
    const cJSON *o = p->obj;
    uint64_t flags = 0;
    if (!get_i32(p, o, "id", true, 0, TRACE_EVENTS_MAX_STREAM, &s->id)) return false;
    snprintf(s->name, sizeof(s->name), s->id == TRACE_STREAM_LEGACY ? "default" : "s%d", (int)s->id);
    if (!get_str(p, o, "name", false, s->name, sizeof(s->name))) return false;
    if (!get_i32(p, o, "priority", false, -1000000, 1000000, &s->priority)) return false;
    if (!get_u64(p, o, "flags", false, UINT32_MAX, &flags)) return false;
    s->flags = (unsigned)flags;
    s->legacy = s->id == TRACE_STREAM_LEGACY;
    return get_bool(p, o, "legacy", &s->legacy) && get_bool(p, o, "per_thread", &s->per_thread) &&
           get_bool(p, o, "destroyed", &s->destroyed) && get_device(p, o, "device", &s->device);
}

/* "device" (0 when absent) and, for a peer copy, "dst_device" (the device when absent). */
static bool parse_op_devices(parse *p, trace_op *op) {
    const cJSON *o = p->obj;
    if (!get_device(p, o, "device", &op->device)) return false;
    op->dst_device = op->device;
    if (!get_device(p, o, "dst_device", &op->dst_device)) return false;
    op->device_set = field(o, "device") != NULL;
    return true;
}

static bool parse_op(parse *p, trace_op *op) {
    const cJSON *o = p->obj;
    op->batch = -1;
    op->run = -1;
    op->stream = TRACE_STREAM_NONE;
    op->timed = true;
    if (!get_u64(p, o, "id", true, TRACE_EVENTS_MAX_ID, &op->id)) return false;
    int kind = get_enum(p, o, "kind", true, trace_events_kind_from_name, -1);
    if (kind < 0) return false;
    op->kind = (trace_op_kind)kind;
    int dir = get_enum(p, o, "dir", op->kind == TRACE_OP_COPY, op->kind == TRACE_OP_COPY ? lookup_dir_nonempty
                                                                                         : trace_events_dir_from_name,
                       TRACE_COPY_NONE);
    if (dir < 0) return false;
    op->dir = (trace_copy_dir)dir;
    int engine = get_enum(p, o, "engine", false, trace_events_engine_from_name, TRACE_ENGINE_NONE);
    if (engine < 0) return false;
    op->engine = (trace_engine)engine;
    int sync = get_enum(p, o, "sync", false, trace_events_sync_from_name, TRACE_SYNC_NONE);
    if (sync < 0) return false;
    op->sync = (trace_sync_target)sync;
    return get_i32(p, o, "stream", false, -1, TRACE_EVENTS_MAX_STREAM, &op->stream) &&
           get_i32(p, o, "priority", false, -1000000, 1000000, &op->priority) &&
           get_i32(p, o, "batch", false, -1, INT32_MAX, &op->batch) &&
           get_i32(p, o, "run", false, -1, INT32_MAX, &op->run) &&
           get_str(p, o, "name", false, op->name, sizeof(op->name)) && get_span(p, o, &op->start_ns, &op->end_ns) &&
           get_u64(p, o, "bytes", false, TRACE_EVENTS_MAX_BYTES, &op->bytes) && get_bool(p, o, "pinned", &op->pinned) &&
           get_dims(p, o, "grid", op->grid) && get_dims(p, o, "block", op->block) &&
           get_u64(p, o, "event", false, TRACE_EVENTS_MAX_ID, &op->event) &&
           get_u64(p, o, "waited_op", false, TRACE_EVENTS_MAX_ID, &op->waited_op) && parse_op_devices(p, op);
}

/* A side's devices, written for programs on several devices only (absent: device 0). */
static bool parse_side_devices(parse *p, const cJSON *o, trace_race_op *s) {
    if (!get_device(p, o, "device", &s->device) || !get_device(p, o, "stream_device", &s->stream_device) ||
        !get_bool(p, o, "peer", &s->peer))
        return false;
    s->dst_device = s->device;
    return get_device(p, o, "dst_device", &s->dst_device);
}

static bool parse_side(parse *p, const char *key, trace_race_op *s) {
    const cJSON *o = field(p->obj, key);
    if (!o) return fail(p, "\"%s\" is missing", key);
    if (!cJSON_IsObject(o)) return fail(p, "\"%s\" is not an object", key);
    s->batch = -1;
    s->run = -1;
    s->stream = TRACE_STREAM_NONE;
    if (!get_u64(p, o, "id", true, TRACE_EVENTS_MAX_ID, &s->id)) return false;
    int kind = get_enum(p, o, "kind", true, trace_events_kind_from_name, -1);
    if (kind < 0) return false;
    s->kind = (trace_op_kind)kind;
    int dir = get_enum(p, o, "dir", false, trace_events_dir_from_name, TRACE_COPY_NONE);
    if (dir < 0) return false;
    s->dir = (trace_copy_dir)dir;
    return get_i32(p, o, "stream", false, -1, TRACE_EVENTS_MAX_STREAM, &s->stream) &&
           get_str(p, o, "stream_name", false, s->stream_name, sizeof(s->stream_name)) &&
           get_bool(p, o, "on_host", &s->on_host) && get_i32(p, o, "batch", false, -1, INT32_MAX, &s->batch) &&
           get_i32(p, o, "run", false, -1, INT32_MAX, &s->run) && get_str(p, o, "name", false, s->name, sizeof(s->name)) &&
           parse_side_devices(p, o, s);
}

static int lookup_race_kind(const char *name) { return trace_race_kind_from_name(name); }

static bool parse_race(parse *p, trace_race *r) {
    const cJSON *o = p->obj;
    r->buffer_device = -1;
    if (!get_u64(p, o, "seq", false, TRACE_EVENTS_MAX_ID, &r->seq)) return false;
    int kind = get_enum(p, o, "kind", true, lookup_race_kind, -1);
    if (kind < 0) return false;
    r->kind = (trace_race_kind)kind;
    const cJSON *addr = field(o, "addr");
    if (addr) {
        if (cJSON_IsString(addr) && addr->valuestring) {
            const char *s = addr->valuestring;
            char *end = NULL;
            if (!(s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) || !s[2]) return fail(p, "\"addr\" is not a 0x... address");
            for (const char *c = s + 2; *c; c++)
                if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f') || (*c >= 'A' && *c <= 'F')) || c - s > 17)
                    return fail(p, "\"addr\" is not a 64-bit hex address");
            r->addr = strtoull(s + 2, &end, 16);
        } else if (!get_u64(p, o, "addr", false, TRACE_EVENTS_MAX_ID, &r->addr)) {
            return false;
        }
    }
    return get_u64(p, o, "bytes", false, TRACE_EVENTS_MAX_BYTES, &r->bytes) && parse_side(p, "first", &r->first) &&
           parse_side(p, "second", &r->second) && get_str(p, o, "fix", false, r->fix, sizeof(r->fix)) &&
           get_bool(p, o, "multi_device", &r->multi_device) &&
           get_i32(p, o, "buffer_device", false, -1, TRACE_EVENTS_MAX_DEVICE, &r->buffer_device);
}

static bool parse_phase(parse *p, trace_event_phase *ph) {
    ph->run = -1;
    return get_str(p, p->obj, "name", false, ph->name, sizeof(ph->name)) &&
           get_span(p, p->obj, &ph->start_ns, &ph->end_ns) && get_i32(p, p->obj, "run", false, -1, INT32_MAX, &ph->run);
}

static bool parse_progress(parse *p, trace_event_progress *pr) {
    double done = 0, total = 0;
    if (!get_str(p, p->obj, "text", false, pr->text, sizeof(pr->text)) ||
        !get_int(p, p->obj, "done", false, 0, (double)TRACE_EVENTS_MAX_ID, &done) ||
        !get_int(p, p->obj, "total", false, 0, (double)TRACE_EVENTS_MAX_ID, &total))
        return false;
    pr->done = (int64_t)done;
    pr->total = (int64_t)total;
    return true;
}

static bool parse_bye(parse *p, trace_event_bye *b) {
    int32_t status = 0;
    if (!get_i32(p, p->obj, "status", false, INT32_MIN, INT32_MAX, &status)) return false;
    b->status = status;
    return get_str(p, p->obj, "reason", false, b->reason, sizeof(b->reason));
}

int trace_events_parse_line(const char *text, size_t len, uint64_t line, const char *nonce, trace_event *out,
                            char *err, size_t err_size) {
    memset(out, 0, sizeof(*out));
    out->line = line;
    if (len > TRACE_EVENTS_MAX_LINE)
        return fail_line(err, err_size, line, "longer than %u bytes; skipped", TRACE_EVENTS_MAX_LINE);
    if (memchr(text, '\0', len)) return fail_line(err, err_size, line, "contains a NUL byte");
    const char *parse_end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &parse_end, false);
    if (!root) {
        size_t col = parse_end && parse_end >= text && parse_end <= text + len ? (size_t)(parse_end - text) + 1 : 1;
        return fail_line(err, err_size, line, "not valid JSON (at column %zu)", col);
    }
    /* Only white space may follow the object. */
    for (const char *c = parse_end; c && c < text + len; c++) {
        if (*c != ' ' && *c != '\t' && *c != '\r') {
            cJSON_Delete(root);
            return fail_line(err, err_size, line, "text after the JSON object (at column %zu)", (size_t)(c - text) + 1);
        }
    }
    int rc = -1;
    parse p = {root, "record", line, err, err_size, false};
    const cJSON *v = field(root, "v");
    const cJSON *t = field(root, "t");
    if (!cJSON_IsObject(root)) {
        fail_line(err, err_size, line, "not a JSON object");
        goto done;
    }
    if (nonce && nonce[0]) {
        const cJSON *n = field(root, "nonce");
        if (!cJSON_IsString(n) || !n->valuestring || strcmp(n->valuestring, nonce) != 0) {
            fail_line(err, err_size, line, "%s nonce; line rejected", cJSON_IsString(n) ? "wrong" : "no");
            goto done;
        }
    }
    if (!v) {
        fail_line(err, err_size, line, "no \"v\" (schema version)");
        goto done;
    }
    if (!cJSON_IsNumber(v) || v->valuedouble != TRACE_EVENTS_VERSION) {
        fail_line(err, err_size, line, "unsupported schema version (this reader reads \"v\":%d)", TRACE_EVENTS_VERSION);
        goto done;
    }
    if (!cJSON_IsString(t) || !t->valuestring) {
        fail_line(err, err_size, line, "no \"t\" (record type)");
        goto done;
    }
    out->type = trace_event_type_from_name(t->valuestring);
    if (!out->type) {
        char shown[40];
        copy_clean(shown, sizeof(shown), t->valuestring);
        fail_line(err, err_size, line, "unknown record type \"%s\"", shown);
        goto done;
    }
    p.what = trace_event_type_name(out->type);
    bool ok = false;
    switch (out->type) {
    case TRACE_EVENT_HELLO: ok = parse_hello(&p, &out->u.hello); break;
    case TRACE_EVENT_STREAM: ok = parse_stream(&p, &out->u.stream); break;
    case TRACE_EVENT_OP: ok = parse_op(&p, &out->u.op); break;
    case TRACE_EVENT_RACE: ok = parse_race(&p, &out->u.race); break;
    case TRACE_EVENT_PHASE: ok = parse_phase(&p, &out->u.phase); break;
    case TRACE_EVENT_PROGRESS: ok = parse_progress(&p, &out->u.progress); break;
    case TRACE_EVENT_RESULT: {
        cJSON *res = cJSON_GetObjectItemCaseSensitive(root, "result");
        if (!cJSON_IsObject(res)) {
            fail(&p, "\"result\" is %s", res ? "not an object" : "missing");
            break;
        }
        out->result = cJSON_DetachItemViaPointer(root, res);
        ok = true;
        break;
    }
    case TRACE_EVENT_BYE: ok = parse_bye(&p, &out->u.bye); break;
    }
    if (ok) rc = 1;
done:
    cJSON_Delete(root);
    if (rc < 0) {
        cJSON_Delete(out->result);
        trace_event_type type = out->type;
        memset(out, 0, sizeof(*out));
        out->type = type;
        out->line = line;
    }
    return rc;
}
