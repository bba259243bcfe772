/* trace/check/race.c: names, descriptions and fixes for race reports (see race.h). */
#include "trace/check/race.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char *const KIND_NAMES[TRACE_RACE_KIND_COUNT] = {"RAW", "WAR", "WAW", "host_read"};
static const char *const KIND_TEXT[TRACE_RACE_KIND_COUNT] = {
    "read-after-write", "write-after-read", "write-after-write", "host read before completion"};

const char *trace_race_kind_name(trace_race_kind kind) {
    return (unsigned)kind < TRACE_RACE_KIND_COUNT ? KIND_NAMES[kind] : NULL;
}

const char *trace_race_kind_text(trace_race_kind kind) {
    return (unsigned)kind < TRACE_RACE_KIND_COUNT ? KIND_TEXT[kind] : "unknown race";
}

int trace_race_kind_from_name(const char *name) {
    if (!name) return -1;
    for (int k = 0; k < TRACE_RACE_KIND_COUNT; k++)
        if (strcmp(name, KIND_NAMES[k]) == 0) return k;
    return -1;
}

int trace_race_op_describe(const trace_race_op *op, char *buf, size_t size) {
    char what[TRACE_NAME_MAX + 32];
    switch (op->kind) {
    case TRACE_OP_COPY:
        if (op->peer) {
            snprintf(what, sizeof(what), "peer copy GPU %u -> GPU %u%s%s", op->device, op->dst_device,
                     op->name[0] ? " " : "", op->name);
            break;
        }
        snprintf(what, sizeof(what), "%s%s%s", trace_copy_dir_name(op->dir)[0] ? trace_copy_dir_name(op->dir) : "copy",
                 op->name[0] ? " " : "", op->name);
        break;
    case TRACE_OP_MEMSET:
        snprintf(what, sizeof(what), "memset%s%s", op->name[0] ? " " : "", op->name);
        break;
    case TRACE_OP_KERNEL:
        snprintf(what, sizeof(what), "kernel %s", op->name[0] ? op->name : "(unnamed)");
        break;
    case TRACE_OP_HOST_FN:
        snprintf(what, sizeof(what), "host function%s%s", op->name[0] ? " " : "", op->name);
        break;
    case TRACE_OP_HOST_ACCESS:
        snprintf(what, sizeof(what), "host access%s%s", op->name[0] ? " " : "", op->name);
        break;
    default:
        snprintf(what, sizeof(what), "%s%s%s", trace_op_kind_name(op->kind), op->name[0] ? " " : "",
                 op->name);
        break;
    }
    if (op->batch >= 0) return snprintf(buf, size, "%s batch %" PRId32, what, op->batch);
    return snprintf(buf, size, "%s", what);
}

/* The stream's label; in a program on several devices with its device after it:
 * "\"GPU 1 a\" (GPU 1)", "s3 (GPU 1)". */
static void stream_label_of(const trace_race_op *op, bool multi_device, char *buf, size_t size) {
    char plain[48];
    trace_stream_label(op->stream, op->stream_name, plain, sizeof(plain));
    if (multi_device && op->stream != TRACE_STREAM_NONE)
        snprintf(buf, size, "%s (GPU %u)", plain, op->stream_device);
    else
        snprintf(buf, size, "%s", plain);
}

/* The call that enqueued an op, for "cudaEventRecord after the launch". */
static const char *enqueue_call(const trace_race_op *op) {
    switch (op->kind) {
    case TRACE_OP_KERNEL: return "the launch";
    case TRACE_OP_COPY: return "the cudaMemcpyAsync";
    case TRACE_OP_MEMSET: return "the cudaMemsetAsync";
    case TRACE_OP_HOST_FN: return "the cudaLaunchHostFunc";
    default: return "its call";
    }
}

/* The order the program is missing comes first: for a hand-over between streams (a
 * read-after-write, or a buffer that goes from one stream to the other and back), an
 * event recorded on the stream that is done with the bytes, right after the op that
 * touches them, and waited on by the stream that touches them next: what the labs'
 * references do, at full speed. Two streams that merely share a buffer get a buffer each
 * first, which keeps them overlapping, and the event as the correct but slower
 * alternative. An event already in the program but recorded too early, or on another
 * stream, comes before either: only the record is in the wrong place. */
void trace_race_make_fix(trace_race *race) {
    char a[TRACE_NAME_MAX + 64], b[TRACE_NAME_MAX + 64], sa[64], sb[64], sc[64];
    trace_race_op_describe(&race->first, a, sizeof(a));
    trace_race_op_describe(&race->second, b, sizeof(b));
    const trace_race_op *f = &race->first, *s = &race->second;
    /* The fix names streams as the program does: where() says each one's device. */
    stream_label_of(f, false, sa, sizeof(sa));
    stream_label_of(s, false, sb, sizeof(sb));
    char fix[1024]; /* room for every part; cut to race->fix at the end */
    bool streams = !f->on_host && !s->on_host && f->stream != s->stream;
    /* Two streams that share memory they need not share. */
    bool shared = streams && !race->handover && (race->kind == TRACE_RACE_WAR || race->kind == TRACE_RACE_WAW);
    int n = 0;
    char ev[48];
    if (race->early_event && !f->on_host && !s->on_host) {
        trace_event_label(race->early_event, race->early_event_name, ev, sizeof(ev));
        n = snprintf(fix, sizeof(fix),
                     "%s waits on %s, but it was recorded on %s before %s, so it orders nothing: "
                     "record it after %s (cudaEventRecord after %s), where the wait then orders them",
                     sb, ev, sa, a, a, enqueue_call(f));
    } else if (race->wrong_event && streams) {
        trace_stream_label(race->wrong_record_stream, race->wrong_record_stream_name, sc, sizeof(sc));
        trace_event_label(race->wrong_event, race->wrong_event_name, ev, sizeof(ev));
        n = snprintf(fix, sizeof(fix),
                     "%s waits on %s, but it was recorded on %s, not on %s where %s runs, so it "
                     "orders nothing: record it on %s after %s (cudaEventRecord on %s after %s), where the wait "
                     "then orders them",
                     sb, ev, sc, sa, a, sa, a, sa, enqueue_call(f));
    } else if (!f->on_host && s->on_host) {
        const char *verb = race->kind == TRACE_RACE_HOST_READ || race->kind == TRACE_RACE_RAW ? "reads" : "writes";
        snprintf(fix, sizeof(fix),
                 "wait for %s before the host %s it (%s): cudaStreamSynchronize on that stream, or "
                 "cudaEventSynchronize on an event recorded after %s",
                 sa, verb, b, a);
    } else if (shared) {
        /* Two streams that reuse one buffer: what was meant to overlap shares memory. */
        snprintf(fix, sizeof(fix),
                 "give %s and %s buffers of their own, so that they share nothing and still overlap. Correct but "
                 "slower: record an event on %s after %s and make %s wait on it (cudaStreamWaitEvent) before %s; "
                 "the two streams then take turns with that buffer",
                 sa, sb, sa, a, sb, b);
    } else if (streams && race->handover) {
        /* A buffer handed over between streams: the event is the hand-over. */
        snprintf(fix, sizeof(fix),
                 "record an event on %s after %s (cudaEventRecord after %s) and make %s wait on it "
                 "(cudaStreamWaitEvent) before %s, so that %s overwrites the bytes only once %s is done with them",
                 sa, a, enqueue_call(f), sb, b, sb, sa);
    } else if (!f->on_host && !s->on_host) {
        snprintf(fix, sizeof(fix),
                 "record an event on %s after %s and make %s wait on it (cudaStreamWaitEvent) before %s", sa, a, sb,
                 b);
    } else {
        snprintf(fix, sizeof(fix), "order %s before %s", a, b);
    }
    if (shared && n > 0 && (size_t)n < sizeof(fix))
        snprintf(fix + n, sizeof(fix) - (size_t)n,
                 ". Faster: give %s and %s buffers of their own, so that they share nothing and still overlap", sa,
                 sb);
    snprintf(race->fix, sizeof(race->fix), "%.*s", (int)sizeof(race->fix) - 1, fix);
}

static void where(const trace_race_op *op, bool multi_device, char *buf, size_t size) {
    char label[64], place[112];
    stream_label_of(op, false, label, sizeof(label));
    if (multi_device && !op->on_host && op->stream != TRACE_STREAM_NONE)
        snprintf(place, sizeof(place), "on GPU %u, %s%s", op->stream_device,
                 op->stream == TRACE_STREAM_LEGACY ? "" : "stream ", label);
    else if (multi_device && op->on_host && op->stream != TRACE_STREAM_NONE)
        snprintf(place, sizeof(place), "on the host, enqueued on GPU %u's %s", op->stream_device, label);
    else if (op->on_host && op->stream == TRACE_STREAM_NONE)
        snprintf(place, sizeof(place), "on the host");
    else if (op->on_host)
        snprintf(place, sizeof(place), "on the host, enqueued on %s", label);
    else if (op->stream == TRACE_STREAM_LEGACY)
        snprintf(place, sizeof(place), "on %s", label);
    else
        snprintf(place, sizeof(place), "on stream %s", label);
    if (op->line[0])
        snprintf(buf, size, "%s, %s", place, op->line);
    else
        snprintf(buf, size, "%s", place);
}

int trace_race_format(const trace_race *race, char *buf, size_t size) {
    char a[TRACE_NAME_MAX + 64], b[TRACE_NAME_MAX + 64], wa[224], wb[224];
    trace_race_op_describe(&race->first, a, sizeof(a));
    trace_race_op_describe(&race->second, b, sizeof(b));
    where(&race->first, race->multi_device, wa, sizeof(wa));
    where(&race->second, race->multi_device, wb, sizeof(wb));
    /* Whose memory the bytes are in, on several devices (nothing for host memory, or
     * memory a source did not mark with its device). */
    char memory[32];
    memory[0] = '\0';
    if (race->multi_device && race->buffer_device >= 0)
        snprintf(memory, sizeof(memory), " (GPU %d memory)", (int)race->buffer_device);
    const char *relation;
    switch (race->kind) {
    case TRACE_RACE_RAW: relation = "reads bytes that may not yet be written by"; break;
    case TRACE_RACE_WAR: relation = "overwrites bytes that may still be read by"; break;
    case TRACE_RACE_WAW: relation = "writes, in no fixed order, the bytes also written by"; break;
    case TRACE_RACE_HOST_READ: relation = "reads on the host, before it completes, what is written by"; break;
    default: relation = "conflicts with"; break;
    }
    /* The event recorded too early, when there is one: a line of its own before the fix. */
    char early[640];
    early[0] = '\0';
    if (race->early_event) {
        char sa[64];
        stream_label_of(&race->first, race->multi_device, sa, sizeof(sa));
        char ev[48];
        trace_event_label(race->early_event, race->early_event_name, ev, sizeof(ev));
        snprintf(early, sizeof(early),
                 "  %s was recorded on %s (op %" PRIu64 "%s%s) before %s (op %" PRIu64 ")\n",
                 ev, sa, race->early_record_op, race->early_record_line[0] ? ", " : "",
                 race->early_record_line, a, race->first.id);
    }
    /* The event recorded on the wrong stream, when there is one: the wait and the record,
     * each with its line, and the stream the record was on. */
    if (!race->early_event && race->wrong_event) {
        char sb[64], sc[64], sa[64];
        stream_label_of(&race->second, race->multi_device, sb, sizeof(sb));
        stream_label_of(&race->first, race->multi_device, sa, sizeof(sa));
        trace_stream_label(race->wrong_record_stream, race->wrong_record_stream_name, sc, sizeof(sc));
        char ev[48];
        trace_event_label(race->wrong_event, race->wrong_event_name, ev, sizeof(ev));
        snprintf(early, sizeof(early),
                 "  %s waits on %s (op %" PRIu64 "%s%s), which was recorded on %s (op %" PRIu64
                 "%s%s), not on %s where %s (op %" PRIu64 ") runs\n",
                 sb, ev, race->wrong_wait_op, race->wrong_wait_line[0] ? ", " : "",
                 race->wrong_wait_line, sc, race->wrong_record_op, race->wrong_record_line[0] ? ", " : "",
                 race->wrong_record_line, sa, a, race->first.id);
    }
    return snprintf(buf, size,
                    "race %" PRIu64 ": %s on %" PRIu64 " bytes at 0x%" PRIx64 "%s\n"
                    "  %s (op %" PRIu64 ", %s)\n"
                    "    %s\n"
                    "  %s (op %" PRIu64 ", %s);\n"
                    "  nothing orders them.\n"
                    "%s"
                    "  fix: %s.\n",
                    race->seq, trace_race_kind_text(race->kind), race->bytes, race->addr, memory, b, race->second.id, wb,
                    relation, a, race->first.id, wa, early, race->fix);
}
