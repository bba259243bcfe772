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

static const char *const WAIT_FAULT_NAMES[TRACE_WAIT_FAULT_COUNT] = {NULL,          "late",         "before_record",
                                                                      "other_event", "other_stream", "missing"};

const char *trace_race_wait_fault_name(trace_race_wait_fault fault) {
    return (unsigned)fault < TRACE_WAIT_FAULT_COUNT ? WAIT_FAULT_NAMES[fault] : NULL;
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

/* Whether a and b are nodes of one launch of a graph: a race between them is an order its
 * capture lacked. */
static bool one_graph(const trace_race_op *a, const trace_race_op *b) {
    return a->graph_launch && a->graph_launch == b->graph_launch;
}

/* The stream a fix names for an op: its own, but for a graph's node the stream the
 * program can order it with: the stream its capture took it from when the race is within
 * the graph, else the stream the graph was launched into (an event recorded there after
 * the launch marks the end of all of the graph's branches, and a wait there before the
 * launch holds them all). The branch's own stream is the graph's, out of the program's
 * reach. */
static void fix_stream_label(const trace_race_op *op, const trace_race_op *other, char *buf, size_t size) {
    if (!op->graph_launch) {
        stream_label_of(op, false, buf, size);
        return;
    }
    if (one_graph(op, other))
        trace_stream_label(op->graph_origin, op->graph_origin_name, buf, size);
    else
        trace_stream_label(op->graph_stream, op->graph_stream_name, buf, size);
}

/* The call that enqueued an op, for "cudaEventRecord after the launch". */
static const char *enqueue_call(const trace_race_op *op) {
    if (op->graph_launch) return "the cudaGraphLaunch";
    switch (op->kind) {
    case TRACE_OP_KERNEL: return "the launch";
    case TRACE_OP_COPY: return "the cudaMemcpyAsync";
    case TRACE_OP_MEMSET: return "the cudaMemsetAsync";
    case TRACE_OP_HOST_FN: return "the cudaLaunchHostFunc";
    default: return "its call";
    }
}

/* " (lab.c:44)": a source line as a fix gives it, the file's name without its folders; ""
 * when the line is unknown. */
static void line_note(const char *line, char *buf, size_t size) {
    if (!line[0]) {
        buf[0] = '\0';
        return;
    }
    const char *slash = strrchr(line, '/');
    snprintf(buf, size, " (%s)", slash ? slash + 1 : line);
}

/* The fix for a race whose wait is in the wrong place or names the wrong event
 * (race->wait_fault): what is wrong with the wait the program has, or which wait it lacks,
 * and the one change that makes it order the two. sb is second's stream's label. Returns
 * what snprintf returns. */
static int wait_fault_fix(const trace_race *race, const char *a, const char *b, const char *sa, const char *sb,
                          char *fix, size_t size) {
    const trace_race_op *f = &race->first, *s = &race->second;
    char ev[48], mark[48], sw[64], wl[112], rl[112], sl[112];
    trace_event_label(race->wait_event, race->wait_event_name, ev, sizeof(ev));
    trace_event_label(race->mark_event, race->mark_event_name, mark, sizeof(mark));
    trace_stream_label(race->wait_stream, race->wait_stream_name, sw, sizeof(sw));
    line_note(race->wait_line, wl, sizeof(wl));
    line_note(race->mark_record_line, rl, sizeof(rl));
    line_note(s->line, sl, sizeof(sl));
    bool host = race->wait_on_host;
    const char *who = host ? "the host" : sb; /* the waiter: B, or the host for a host access */
    switch (race->wait_fault) {
    case TRACE_WAIT_FAULT_LATE:
        if (host) {
            /* What the host waited for: the event, the stream, or (the device) nothing more to say. */
            char on[80] = "";
            if (race->wait_event || race->wait_stream >= 0)
                snprintf(on, sizeof(on), " on %s", race->wait_event ? ev : sw);
            return snprintf(fix, size,
                            "the host's %s%s%s comes after %s%s, which it should order: the host waits only from "
                            "that call on, so call it before %s",
                            race->wait_call[0] ? race->wait_call : "wait", on, wl, b, sl, b);
        }
        return snprintf(fix, size,
                        "the wait of %s on %s%s comes after %s%s, which it should order: a wait holds back only the "
                        "work queued on its stream after it, so issue it before %s",
                        sb, ev, wl, b, sl, enqueue_call(s));
    case TRACE_WAIT_FAULT_BEFORE_RECORD:
        return snprintf(fix, size,
                        "%s waits on %s%s before it is recorded after %s%s: a wait takes the event's last record "
                        "made before the wait, so this one waits for %s. Issue the wait after the cudaEventRecord",
                        who, ev, wl, a, rl,
                        race->wait_took_record ? "the previous record, which does not order it"
                                               : "nothing (the event had not been recorded yet)");
    case TRACE_WAIT_FAULT_OTHER_EVENT: {
        char took[320];
        if (!race->wait_took_record)
            snprintf(took, sizeof(took), "which had not been recorded yet, so it orders nothing");
        else if (race->wait_took_first_stream)
            snprintf(took, sizeof(took), "last recorded before %s, so it does not order it", a);
        else
            snprintf(took, sizeof(took), "last recorded on another stream than %s, so it does not order %s", sa, a);
        return snprintf(fix, size,
                        "%s waits on %s%s, %s; it is %s that was recorded on %s after %s%s: wait on that one before "
                        "%s. Its record is in the right place: the wait names the wrong event",
                        who, ev, wl, took, mark, sa, a, rl, b);
    }
    case TRACE_WAIT_FAULT_OTHER_STREAM:
        return snprintf(fix, size,
                        "%s waits on %s%s, recorded on %s after %s, but %s runs on %s, which does not wait on it: make "
                        "%s wait on it (cudaStreamWaitEvent on %s) before %s%s",
                        sw, ev, wl, sa, a, b, sb, sb, sb, b,
                        race->wait_stream == f->stream ? " (a stream's wait on an event recorded on itself orders "
                                                         "nothing)"
                                                       : "");
    case TRACE_WAIT_FAULT_MISSING:
        if (host)
            return snprintf(fix, size,
                            "%s is recorded on %s after %s%s, and nothing has waited for it since: make the host "
                            "wait for it (cudaEventSynchronize) before %s",
                            mark, sa, a, rl, b);
        return snprintf(fix, size,
                        "%s is recorded on %s after %s%s, and nothing has waited on it since: make %s wait on it "
                        "(cudaStreamWaitEvent on %s) before %s",
                        mark, sa, a, rl, sb, sb, b);
    default:
        return 0;
    }
}

/* An op as a fix names it: a graph's node, outside a race within its graph, by the launch
 * that runs it ("the graph launch that runs kernel process batch 3"), which is where the
 * program can order it. */
static void describe_for_fix(const trace_race_op *op, bool in_graph, char *buf, size_t size) {
    char what[TRACE_NAME_MAX + 64];
    trace_race_op_describe(op, what, sizeof(what));
    if (op->graph_launch && !in_graph)
        snprintf(buf, size, "the graph launch that runs %s", what);
    else
        snprintf(buf, size, "%s", what);
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
    char a[TRACE_NAME_MAX + 128], b[TRACE_NAME_MAX + 128], sa[64], sb[64], sc[64];
    const trace_race_op *f = &race->first, *s = &race->second;
    /* A graph's node is ordered by its launch, unless the race is within the graph. */
    bool in_graph = one_graph(f, s);
    describe_for_fix(f, in_graph, a, sizeof(a));
    describe_for_fix(s, in_graph, b, sizeof(b));
    /* The fix names streams as the program does: where() says each one's device. */
    fix_stream_label(f, s, sa, sizeof(sa));
    fix_stream_label(s, f, sb, sizeof(sb));
    char fix[1024]; /* room for every part; cut to race->fix at the end */
    bool streams = !f->on_host && !s->on_host && strcmp(sa, sb) != 0;
    /* Two streams that share memory they need not share. */
    bool shared = streams && !race->handover && (race->kind == TRACE_RACE_WAR || race->kind == TRACE_RACE_WAW);
    int n = 0;
    char ev[48];
    if (race->wait_fault != TRACE_WAIT_FAULT_NONE && (streams || (!f->on_host && race->wait_on_host))) {
        n = wait_fault_fix(race, a, b, sa, sb, fix, sizeof(fix));
    } else if (race->early_event && !f->on_host) {
        trace_event_label(race->early_event, race->early_event_name, ev, sizeof(ev));
        n = snprintf(fix, sizeof(fix),
                     "%s waits on %s, but it was recorded on %s before %s, so it orders nothing: "
                     "record it after %s (cudaEventRecord after %s), where the wait then orders them",
                     s->on_host ? "the host" : sb, ev, sa, a, a, enqueue_call(f));
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
    size_t len = strlen(fix);
    if (in_graph && len < sizeof(fix))
        snprintf(fix + len, sizeof(fix) - len, ", in the capture: the graph keeps the order its capture saw");
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
    char early[1024];
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
    /* The wait blamed, when there is one: the wait and the record it should have taken,
     * with their ops and lines. */
    if (race->wait_fault != TRACE_WAIT_FAULT_NONE) {
        char sw[64], ev[48], mark[48], sa[64], sb[64];
        trace_stream_label(race->wait_stream, race->wait_stream_name, sw, sizeof(sw));
        stream_label_of(&race->first, race->multi_device, sa, sizeof(sa));
        if (race->second.on_host)
            snprintf(sb, sizeof(sb), "the host");
        else
            stream_label_of(&race->second, race->multi_device, sb, sizeof(sb));
        trace_event_label(race->wait_event, race->wait_event_name, ev, sizeof(ev));
        trace_event_label(race->mark_event, race->mark_event_name, mark, sizeof(mark));
        const char *who = race->wait_on_host ? "the host" : sw;
        char wait_at[128], rec_at[128], target[256];
        snprintf(wait_at, sizeof(wait_at), "op %" PRIu64 "%s%s", race->wait_op, race->wait_line[0] ? ", " : "",
                 race->wait_line);
        snprintf(rec_at, sizeof(rec_at), "op %" PRIu64 "%s%s", race->mark_record_op,
                 race->mark_record_line[0] ? ", " : "", race->mark_record_line);
        if (race->wait_on_host && race->wait_call[0])
            snprintf(target, sizeof(target), "%s (%s, %s)",
                     race->wait_event ? ev : race->wait_stream >= 0 ? sw : "the device", race->wait_call, wait_at);
        else
            snprintf(target, sizeof(target), "%s (%s)", ev, wait_at);
        switch (race->wait_fault) {
        case TRACE_WAIT_FAULT_LATE:
            snprintf(early, sizeof(early), "  %s waits on %s after %s (op %" PRIu64 "), not before it\n", who, target,
                     b, race->second.id);
            break;
        case TRACE_WAIT_FAULT_BEFORE_RECORD:
            snprintf(early, sizeof(early), "  %s waits on %s before its record (%s) after %s (op %" PRIu64 ")\n", who,
                     target, rec_at, a, race->first.id);
            break;
        case TRACE_WAIT_FAULT_OTHER_EVENT:
            snprintf(early, sizeof(early),
                     "  %s waits on %s; the event recorded on %s after %s (op %" PRIu64 ") is %s (%s)\n", who, target,
                     sa, a, race->first.id, mark, rec_at);
            break;
        case TRACE_WAIT_FAULT_MISSING:
            snprintf(early, sizeof(early),
                     "  %s was recorded on %s (%s) after %s (op %" PRIu64 "); nothing has waited on it since\n", mark,
                     sa, rec_at, a, race->first.id);
            break;
        default:
            snprintf(early, sizeof(early),
                     "  %s waits on %s, recorded on %s (%s) after %s (op %" PRIu64 "); %s does not\n", who, target, sa,
                     rec_at, a, race->first.id, sb);
            break;
        }
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
