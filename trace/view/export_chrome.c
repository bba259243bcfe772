/* trace/view/export_chrome.c: Chrome/Perfetto trace JSON from a timeline, built with cJSON
 * (see export_chrome.h). */
#include "trace/view/export_chrome.h"

#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const trace_engine ENGINES[] = {TRACE_ENGINE_H2D, TRACE_ENGINE_COMPUTE, TRACE_ENGINE_D2H, TRACE_ENGINE_HOST};

/* Numbers go in as raw JSON text: cJSON prints a number with "%1.15g" and reads it back
 * to check it, which dominates the export of a long trace. Whole numbers print exactly in
 * decimal, and microseconds from nanoseconds exactly with three decimals. */
static void add_int(cJSON *o, const char *key, int64_t v) {
    char text[24];
    snprintf(text, sizeof(text), "%" PRId64, v);
    cJSON_AddRawToObject(o, key, text);
}

static void add_us(cJSON *o, const char *key, uint64_t ns) {
    char text[32];
    snprintf(text, sizeof(text), "%" PRIu64 ".%03u", ns / 1000u, (unsigned)(ns % 1000u));
    cJSON_AddRawToObject(o, key, text);
}

static cJSON *metadata(cJSON *events, const char *name, int pid, int tid) {
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "ph", "M");
    cJSON_AddStringToObject(e, "name", name);
    add_int(e, "pid", pid);
    add_int(e, "tid", tid);
    cJSON *args = cJSON_AddObjectToObject(e, "args");
    cJSON_AddItemToArray(events, e);
    return args;
}

static void name_process(cJSON *events, int pid, const char *name, int sort) {
    cJSON_AddStringToObject(metadata(events, "process_name", pid, 0), "name", name);
    cJSON_AddNumberToObject(metadata(events, "process_sort_index", pid, 0), "sort_index", sort);
}

static void name_thread(cJSON *events, int pid, int tid, const char *name, int sort) {
    cJSON_AddStringToObject(metadata(events, "thread_name", pid, tid), "name", name);
    cJSON_AddNumberToObject(metadata(events, "thread_sort_index", pid, tid), "sort_index", sort);
}

/* The bar's title: "H2D batch 3", "process batch 3", "cudaStreamSynchronize". */
static void title_of(const trace_op *op, char *buf, size_t size) {
    const char *base = op->name;
    char event[56];
    if (op->kind == TRACE_OP_COPY) base = trace_copy_dir_name(op->dir)[0] ? trace_copy_dir_name(op->dir) : "copy";
    if ((op->kind == TRACE_OP_EVENT_RECORD || op->kind == TRACE_OP_EVENT_WAIT) && op->name[0]) {
        /* "event_record event \"ready\"": the kind, then the event as the program named it. */
        char label[42];
        trace_event_label(op->event, op->name, label, sizeof(label));
        snprintf(event, sizeof(event), "%.12s %s", trace_op_kind_name(op->kind), label);
        base = event;
    }
    if (!base[0]) base = trace_op_kind_name(op->kind);
    if (op->batch >= 0)
        snprintf(buf, size, "%s batch %" PRId32, base, op->batch);
    else
        snprintf(buf, size, "%s", base);
}


static cJSON *op_args(trace_timeline *tl, const trace_op *op, bool multi) {
    cJSON *args = cJSON_CreateObject();
    add_int(args, "op", (int64_t)op->id);
    cJSON_AddStringToObject(args, "kind", trace_op_kind_name(op->kind));
    if (op->kind == TRACE_OP_COPY) {
        cJSON_AddStringToObject(args, "dir", trace_copy_dir_name(op->dir));
        cJSON_AddBoolToObject(args, "pinned", op->pinned);
    }
    if (op->bytes) add_int(args, "bytes", (int64_t)op->bytes);
    if (op->batch >= 0) add_int(args, "batch", op->batch);
    if (op->run >= 0) add_int(args, "run", op->run);
    if (op->stream >= 0) {
        add_int(args, "stream", op->stream);
        const trace_stream *s = trace_timeline_stream(tl, op->stream);
        if (s) cJSON_AddStringToObject(args, "stream_name", s->name);
        add_int(args, "priority", op->priority);
    }
    if (multi && op->engine == TRACE_ENGINE_LINK) {
        add_int(args, "src_device", op->device);
        add_int(args, "dst_device", op->dst_device);
    } else if (multi) {
        add_int(args, "device", op->device);
    }
    if (op->kind == TRACE_OP_COPY && op->bytes && op->end_ns > op->start_ns)
        cJSON_AddNumberToObject(args, "GB/s", (double)op->bytes / (double)(op->end_ns - op->start_ns)); /* B/ns */
    if (op->kind == TRACE_OP_KERNEL) {
        char shape[96];
        snprintf(shape, sizeof(shape), "[%u,%u,%u]", op->grid[0], op->grid[1], op->grid[2]);
        cJSON_AddStringToObject(args, "grid", shape);
        snprintf(shape, sizeof(shape), "[%u,%u,%u]", op->block[0], op->block[1], op->block[2]);
        cJSON_AddStringToObject(args, "block", shape);
    }
    if (op->kind == TRACE_OP_EVENT_RECORD || op->kind == TRACE_OP_EVENT_WAIT ||
        (op->kind == TRACE_OP_SYNC && op->sync == TRACE_SYNC_EVENT))
        add_int(args, "event", (int64_t)op->event);
    if ((op->kind == TRACE_OP_EVENT_RECORD || op->kind == TRACE_OP_EVENT_WAIT) && op->name[0])
        cJSON_AddStringToObject(args, "event_name", op->name);
    return args;
}

static void add_event(cJSON *events, trace_timeline *tl, const trace_op *op, uint64_t t0, int pid, int tid,
                      bool multi) {
    char title[TRACE_NAME_MAX + 32];
    title_of(op, title, sizeof(title));
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "name", title);
    cJSON_AddStringToObject(e, "cat", trace_op_kind_name(op->kind));
    bool instant = op->end_ns <= op->start_ns;
    cJSON_AddStringToObject(e, "ph", instant ? "i" : "X");
    add_us(e, "ts", op->start_ns - t0);
    if (instant)
        cJSON_AddStringToObject(e, "s", "t");
    else
        add_us(e, "dur", op->end_ns - op->start_ns);
    add_int(e, "pid", pid);
    add_int(e, "tid", tid);
    cJSON_AddItemToObject(e, "args", op_args(tl, op, multi));
    cJSON_AddItemToArray(events, e);
}

/* An op of the timeline by its id (and run: ids repeat across runs only in a merged store). */
typedef struct op_ref {
    uint64_t id;
    int32_t run;
    size_t index;
} op_ref;

static int cmp_op_ref(const void *a, const void *b) {
    const op_ref *x = a, *y = b;
    if (x->id != y->id) return (x->id > y->id) - (x->id < y->id);
    return (x->run > y->run) - (x->run < y->run);
}

static int add_races(cJSON *events, trace_timeline *tl, int32_t run, const trace_race *races, size_t n_races,
                     uint64_t t0, bool multi);

static uint32_t clip_device(uint32_t d) { return d < TRACE_MAX_DEVICES ? d : TRACE_MAX_DEVICES - 1; }

/* The tracks and events of a run on several devices (see export_chrome.h). */
static void multi_device_tracks(cJSON *events, trace_timeline *tl, int32_t run, const trace_lane *lanes,
                                size_t n_lanes, size_t n_races, uint64_t t0, bool any) {
    name_process(events, TRACE_CHROME_PID_ENGINES, "host", 0);
    name_thread(events, TRACE_CHROME_PID_ENGINES, TRACE_ENGINE_HOST, trace_engine_name(TRACE_ENGINE_HOST), 0);
    name_thread(events, TRACE_CHROME_PID_ENGINES, TRACE_CHROME_TID_PHASES, "phases", 10);
    if (n_races) name_thread(events, TRACE_CHROME_PID_ENGINES, TRACE_CHROME_TID_RACES, "races", 11);
    for (size_t l = 0, sort = 0; l < n_lanes; l++, sort++) {
        const trace_lane *lane = &lanes[l];
        if (lane->heading) {
            bool link = lane->engine == TRACE_ENGINE_LINK;
            int pid = link ? TRACE_CHROME_PID_LINK : TRACE_CHROME_PID_DEVICE(clip_device(lane->device));
            name_process(events, pid, lane->label, link ? 1 + TRACE_MAX_DEVICES : 1 + (int)clip_device(lane->device));
        } else if (lane->is_stream) {
            name_thread(events, TRACE_CHROME_PID_DEVICE(clip_device(lane->device)),
                        TRACE_CHROME_TID_STREAM_BASE + lane->stream, lane->label, (int)sort);
        } else if (lane->engine == TRACE_ENGINE_LINK) {
            name_thread(events, TRACE_CHROME_PID_LINK, TRACE_CHROME_TID_LINK(lane->device, clip_device(lane->dst_device)),
                        lane->label, (int)sort);
        } else if (lane->engine != TRACE_ENGINE_HOST) {
            name_thread(events, TRACE_CHROME_PID_DEVICE(clip_device(lane->device)), (int)lane->engine, lane->label,
                        (int)sort);
        }
    }
    if (!any) return;
    size_t n = trace_timeline_count(tl);
    for (size_t i = 0; i < n; i++) {
        const trace_op *op = trace_timeline_get(tl, i);
        if (!trace_timeline_in_run(op, run)) continue;
        if (op->kind == TRACE_OP_PHASE) {
            add_event(events, tl, op, t0, TRACE_CHROME_PID_ENGINES, TRACE_CHROME_TID_PHASES, true);
            continue;
        }
        uint32_t d = clip_device(op->device);
        if (op->engine == TRACE_ENGINE_HOST)
            add_event(events, tl, op, t0, TRACE_CHROME_PID_ENGINES, TRACE_ENGINE_HOST, true);
        else if (op->engine == TRACE_ENGINE_LINK)
            add_event(events, tl, op, t0, TRACE_CHROME_PID_LINK, TRACE_CHROME_TID_LINK(d, clip_device(op->dst_device)),
                      true);
        else if (op->engine != TRACE_ENGINE_NONE)
            add_event(events, tl, op, t0, TRACE_CHROME_PID_DEVICE(d), (int)op->engine, true);
        trace_lane stream_lane = {.is_stream = true, .stream = op->stream};
        if (op->stream >= 0 && trace_lane_has(&stream_lane, op)) {
            const trace_stream *s = trace_timeline_stream(tl, op->stream);
            uint32_t sd = s ? clip_device(s->device) : 0;
            add_event(events, tl, op, t0, TRACE_CHROME_PID_DEVICE(sd), TRACE_CHROME_TID_STREAM_BASE + op->stream, true);
        }
    }
}

cJSON *trace_export_chrome_json(trace_timeline *tl, int32_t run, const trace_race *races, size_t n_races) {
    cJSON *root = cJSON_CreateObject();
    if (!root) return NULL;
    cJSON *events = cJSON_AddArrayToObject(root, "traceEvents");
    cJSON_AddStringToObject(root, "displayTimeUnit", "ns");
    /* The origin: the first start of anything in the run, phases included. */
    uint64_t t0 = UINT64_MAX;
    size_t n = trace_timeline_count(tl);
    for (size_t i = 0; i < n; i++) {
        const trace_op *op = trace_timeline_get(tl, i);
        if (trace_timeline_in_run(op, run) && op->start_ns < t0) t0 = op->start_ns;
    }
    bool any = t0 != UINT64_MAX;
    if (!any) t0 = 0;
    cJSON *other = cJSON_AddObjectToObject(root, "otherData");
    cJSON_AddStringToObject(other, "generator", "streamlab trace/export_chrome");
    char origin[32];
    snprintf(origin, sizeof(origin), "%" PRIu64, t0);
    cJSON_AddStringToObject(other, "origin_ns", origin);
    if (run != TRACE_RUN_ANY) add_int(other, "run", run);

    trace_lane lanes[256];
    size_t n_lanes = trace_timeline_lanes(tl, run, lanes, sizeof(lanes) / sizeof(lanes[0]));
    bool multi = trace_timeline_multi_device(tl, run);
    if (multi) {
        multi_device_tracks(events, tl, run, lanes, n_lanes < 256 ? n_lanes : 256, n_races, t0, any);
        if (any && n_races && add_races(events, tl, run, races, n_races, t0, true) != 0) {
            cJSON_Delete(root);
            return NULL;
        }
        return root;
    }
    name_process(events, TRACE_CHROME_PID_ENGINES, "engines", 0);
    name_process(events, TRACE_CHROME_PID_STREAMS, "streams", 1);
    int32_t limit = trace_timeline_stream_limit(tl);
    for (size_t e = 0; e < sizeof(ENGINES) / sizeof(ENGINES[0]); e++)
        name_thread(events, TRACE_CHROME_PID_ENGINES, (int)ENGINES[e], trace_engine_name(ENGINES[e]), (int)e);
    name_thread(events, TRACE_CHROME_PID_ENGINES, TRACE_CHROME_TID_PHASES, "phases", 10);
    if (n_races) name_thread(events, TRACE_CHROME_PID_ENGINES, TRACE_CHROME_TID_RACES, "races", 11);
    /* Stream tracks: the lanes' labels where the lane table had room, else plain names. */
    for (int32_t s = 0; s < limit; s++) {
        const char *label = NULL;
        for (size_t l = 0; l < n_lanes && l < sizeof(lanes) / sizeof(lanes[0]); l++)
            if (lanes[l].is_stream && lanes[l].stream == s) label = lanes[l].label;
        char fallback[48];
        if (!label) {
            const trace_stream *info = trace_timeline_stream(tl, s);
            if (!info) continue;
            snprintf(fallback, sizeof(fallback), "%s", info->name);
            label = fallback;
        }
        name_thread(events, TRACE_CHROME_PID_STREAMS, s + 1, label, s);
    }
    if (!any) return root;

    for (size_t i = 0; i < n; i++) {
        const trace_op *op = trace_timeline_get(tl, i);
        if (!trace_timeline_in_run(op, run)) continue;
        if (op->kind == TRACE_OP_PHASE) {
            add_event(events, tl, op, t0, TRACE_CHROME_PID_ENGINES, TRACE_CHROME_TID_PHASES, multi);
            continue;
        }
        trace_lane engine_lane = {.engine = op->engine};
        if (op->engine != TRACE_ENGINE_NONE && trace_lane_has(&engine_lane, op))
            add_event(events, tl, op, t0, TRACE_CHROME_PID_ENGINES, (int)op->engine, false);
        trace_lane stream_lane = {.is_stream = true, .stream = op->stream};
        if (op->stream >= 0 && trace_lane_has(&stream_lane, op))
            add_event(events, tl, op, t0, TRACE_CHROME_PID_STREAMS, op->stream + 1, false);
    }
    if (n_races == 0) return root;
    if (add_races(events, tl, run, races, n_races, t0, false) != 0) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

/* The track an op's bar is on, where a race mark and a flow arrow bind to it: its stream's
 * when it has one, else its engine's (the host's, the link's). False when it has neither. */
static bool op_track(trace_timeline *tl, const trace_op *op, bool multi, int *pid, int *tid) {
    trace_lane stream_lane = {.is_stream = true, .stream = op->stream};
    if (op->stream >= 0 && trace_lane_has(&stream_lane, op)) {
        if (multi) {
            const trace_stream *s = trace_timeline_stream(tl, op->stream);
            *pid = TRACE_CHROME_PID_DEVICE(s ? clip_device(s->device) : 0);
            *tid = TRACE_CHROME_TID_STREAM_BASE + op->stream;
        } else {
            *pid = TRACE_CHROME_PID_STREAMS;
            *tid = op->stream + 1;
        }
        return true;
    }
    if (op->engine == TRACE_ENGINE_NONE) return false;
    if (!multi) {
        trace_lane engine_lane = {.engine = op->engine};
        if (!trace_lane_has(&engine_lane, op)) return false;
        *pid = TRACE_CHROME_PID_ENGINES;
        *tid = (int)op->engine;
    } else if (op->engine == TRACE_ENGINE_HOST) {
        *pid = TRACE_CHROME_PID_ENGINES;
        *tid = TRACE_ENGINE_HOST;
    } else if (op->engine == TRACE_ENGINE_LINK) {
        *pid = TRACE_CHROME_PID_LINK;
        *tid = TRACE_CHROME_TID_LINK(clip_device(op->device), clip_device(op->dst_device));
    } else {
        *pid = TRACE_CHROME_PID_DEVICE(clip_device(op->device));
        *tid = (int)op->engine;
    }
    return true;
}

static const trace_op *find_op(trace_timeline *tl, const op_ref *refs, size_t n, const trace_race_op *side) {
    if (!n) return NULL;
    op_ref key = {side->id, side->run, 0};
    const op_ref *hit = bsearch(&key, refs, n, sizeof(op_ref), cmp_op_ref);
    return hit ? trace_timeline_get(tl, hit->index) : NULL;
}

/* A point inside op's bar (its middle), so that a flow arrow binds to the bar itself. */
static uint64_t inside(const trace_op *op) {
    return op->end_ns > op->start_ns ? op->start_ns + (op->end_ns - op->start_ns) / 2 : op->start_ns;
}

/* The race's arguments: its number, kind, both ops with their streams and the student's
 * lines (where known), the bytes and the fix. */
static cJSON *race_args(const trace_race *r, const char *a, const char *b) {
    cJSON *args = cJSON_CreateObject();
    add_int(args, "race", (int64_t)r->seq);
    cJSON_AddStringToObject(args, "kind", trace_race_kind_name(r->kind) ? trace_race_kind_name(r->kind) : "?");
    cJSON_AddStringToObject(args, "kind_text", trace_race_kind_text(r->kind) ? trace_race_kind_text(r->kind) : "?");
    cJSON_AddStringToObject(args, "first", a);
    cJSON_AddStringToObject(args, "first_stream", r->first.stream_name);
    if (r->first.line[0]) cJSON_AddStringToObject(args, "first_line", r->first.line);
    add_int(args, "first_op", (int64_t)r->first.id);
    cJSON_AddStringToObject(args, "second", b);
    cJSON_AddStringToObject(args, "second_stream", r->second.stream_name);
    if (r->second.line[0]) cJSON_AddStringToObject(args, "second_line", r->second.line);
    add_int(args, "second_op", (int64_t)r->second.id);
    add_int(args, "bytes", (int64_t)r->bytes);
    char addr[32];
    snprintf(addr, sizeof(addr), "0x%" PRIx64, r->addr);
    cJSON_AddStringToObject(args, "addr", addr);
    cJSON_AddStringToObject(args, "fix", r->fix);
    return args;
}

static cJSON *instant(const char *name, uint64_t at, uint64_t t0, int pid, int tid, cJSON *args) {
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "name", name);
    cJSON_AddStringToObject(e, "cat", "race");
    cJSON_AddStringToObject(e, "ph", "i");
    cJSON_AddStringToObject(e, "s", "t");
    add_us(e, "ts", at > t0 ? at - t0 : 0);
    add_int(e, "pid", pid);
    add_int(e, "tid", tid);
    cJSON_AddItemToObject(e, "args", args);
    return e;
}

/* One end of a race's flow arrow: "s" at the earlier op, "f" at the later one, both bound to
 * the bar they are inside ("bp": "e"). */
static cJSON *flow(const char *ph, const char *name, uint64_t id, uint64_t at, uint64_t t0, int pid, int tid) {
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "name", name);
    cJSON_AddStringToObject(e, "cat", "race");
    cJSON_AddStringToObject(e, "ph", ph);
    add_int(e, "id", (int64_t)id);
    cJSON_AddStringToObject(e, "bp", "e");
    add_us(e, "ts", at > t0 ? at - t0 : 0);
    add_int(e, "pid", pid);
    add_int(e, "tid", tid);
    return e;
}

/* Each race: an instant on the races track where its later op started (its number, kind,
 * both ops, the student's lines, the fix), a mark on each of its two ops' own tracks, a flow
 * arrow from the earlier op's bar to the later one's, and a "races" argument on both ops'
 * bars naming the race. Returns 0, or -1 when out of memory. */
static int add_races(cJSON *events, trace_timeline *tl, int32_t run, const trace_race *races, size_t n_races,
                     uint64_t t0, bool multi) {
    size_t n = trace_timeline_count(tl);
    op_ref *refs = malloc(n * sizeof(op_ref) + 1);
    if (!refs) return -1;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const trace_op *op = trace_timeline_get(tl, i);
        if (trace_timeline_in_run(op, run) && op->kind != TRACE_OP_PHASE) refs[m++] = (op_ref){op->id, op->run, i};
    }
    qsort(refs, m, sizeof(op_ref), cmp_op_ref);
    /* What each racing op's bar says: "race 1 RAW (read-after-write) with kernel ... (line)". */
    cJSON *notes = cJSON_CreateObject(); /* "op/run" -> array of strings */
    for (size_t r = 0; r < n_races; r++) {
        const trace_race *race = &races[r];
        char a[TRACE_NAME_MAX + 64], b[TRACE_NAME_MAX + 64], title[2 * (TRACE_NAME_MAX + 64) + 64];
        trace_race_op_describe(&race->first, a, sizeof(a));
        trace_race_op_describe(&race->second, b, sizeof(b));
        const char *kind = trace_race_kind_name(race->kind) ? trace_race_kind_name(race->kind) : "?";
        snprintf(title, sizeof(title), "%s race %" PRIu64 ": %s / %s", kind, race->seq, a, b);
        const trace_op *first = find_op(tl, refs, m, &race->first), *second = find_op(tl, refs, m, &race->second);
        cJSON_AddItemToArray(events, instant(title, second ? second->start_ns : t0, t0, TRACE_CHROME_PID_ENGINES,
                                             TRACE_CHROME_TID_RACES, race_args(race, a, b)));
        int pid[2] = {0, 0}, tid[2] = {0, 0};
        bool on[2] = {first && op_track(tl, first, multi, &pid[0], &tid[0]),
                      second && op_track(tl, second, multi, &pid[1], &tid[1])};
        const trace_op *ops[2] = {first, second};
        for (int k = 0; k < 2; k++) {
            if (!on[k]) continue;
            char mark[96];
            snprintf(mark, sizeof(mark), "race %" PRIu64 " %s (%s op)", race->seq, kind, k ? "later" : "earlier");
            cJSON_AddItemToArray(events, instant(mark, ops[k]->start_ns, t0, pid[k], tid[k], race_args(race, a, b)));
            const trace_race_op *other = k ? &race->first : &race->second;
            char note[512], key[48];
            snprintf(note, sizeof(note), "race %" PRIu64 " %s (%s) with %s on %s%s%s", race->seq, kind,
                     trace_race_kind_text(race->kind) ? trace_race_kind_text(race->kind) : "?", k ? a : b,
                     other->stream_name, other->line[0] ? ", " : "", other->line);
            snprintf(key, sizeof(key), "%" PRIu64 "/%d", ops[k]->id, (int)ops[k]->run);
            cJSON *list = cJSON_GetObjectItemCaseSensitive(notes, key);
            if (!list) list = cJSON_AddArrayToObject(notes, key);
            if (list) cJSON_AddItemToArray(list, cJSON_CreateString(note));
        }
        if (on[0] && on[1]) {
            char name[64];
            snprintf(name, sizeof(name), "race %" PRIu64 " %s", race->seq, kind);
            cJSON_AddItemToArray(events, flow("s", name, race->seq, inside(first), t0, pid[0], tid[0]));
            cJSON_AddItemToArray(events, flow("f", name, race->seq, inside(second), t0, pid[1], tid[1]));
        }
    }
    /* The racing ops' bars name their races. */
    cJSON *e;
    cJSON_ArrayForEach(e, events) {
        const char *ph = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "ph"));
        const char *cat = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "cat"));
        if (!ph || (strcmp(ph, "X") && strcmp(ph, "i")) || (cat && !strcmp(cat, "race"))) continue;
        cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
        cJSON *op = cJSON_GetObjectItemCaseSensitive(args, "op");
        cJSON *r = cJSON_GetObjectItemCaseSensitive(args, "run");
        if (!op || !op->valuestring) continue; /* numbers are raw text (add_int) */
        char key[48];
        snprintf(key, sizeof(key), "%s/%s", op->valuestring, r && r->valuestring ? r->valuestring : "-1");
        cJSON *list = cJSON_GetObjectItemCaseSensitive(notes, key);
        if (list) cJSON_AddItemToObject(args, "races", cJSON_Duplicate(list, 1));
    }
    cJSON_Delete(notes);
    free(refs);
    return 0;
}

int trace_export_chrome_file(trace_timeline *tl, int32_t run, const trace_race *races, size_t n_races,
                             const char *path, char *err, size_t err_size) {
    cJSON *root = trace_export_chrome_json(tl, run, races, n_races);
    char *text = root ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    if (!text) {
        snprintf(err, err_size, "out of memory building the trace");
        return -1;
    }
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, err_size, "cannot write %s: %s", path, strerror(errno));
        free(text);
        return -1;
    }
    size_t len = strlen(text);
    bool ok = fwrite(text, 1, len, f) == len && fputc('\n', f) != EOF;
    ok = (fclose(f) == 0) && ok;
    free(text);
    if (!ok) {
        snprintf(err, err_size, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}
