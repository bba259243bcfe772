/* labs/harness/steps.c: findings, the student's next step and tiered hints (see steps.h). */
#define _POSIX_C_SOURCE 200809L
#include "labs/harness/steps.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli/state.h"
#include "trace/view/stalls.h"

#define MAX_STREAMS 1024

typedef struct write_at {
    uint64_t addr;
    int32_t stream;
} write_at;

static int compare_write(const void *a, const void *b) {
    const write_at *x = a, *y = b;
    if (x->addr != y->addr) return x->addr < y->addr ? -1 : 1;
    return (x->stream > y->stream) - (x->stream < y->stream);
}

/* Buffers written by stream work of more than one stream in run, counted by start
 * address: what a pipeline that shares device buffers between its streams does. */
static int count_shared_buffers(trace_timeline *tl, int32_t run) {
    size_t n = trace_timeline_count(tl), used = 0, cap = 64;
    write_at *w = malloc(cap * sizeof(*w));
    if (!w) return 0;
    for (size_t i = 0; i < n; i++) {
        const trace_op *op = trace_timeline_get(tl, i);
        if (!trace_timeline_in_run(op, run) || !trace_op_kind_is_stream_work(op->kind) || op->stream < 0) continue;
        for (uint32_t k = 0; k < op->n_ranges && k < TRACE_MAX_RANGES; k++) {
            if (!(op->ranges[k].flags & TRACE_RANGE_WRITE)) continue;
            if (used == cap) {
                write_at *more = realloc(w, 2 * cap * sizeof(*w));
                if (!more) break;
                w = more;
                cap *= 2;
            }
            w[used].addr = op->ranges[k].addr;
            w[used].stream = op->stream;
            used++;
        }
    }
    qsort(w, used, sizeof(*w), compare_write);
    int shared = 0;
    for (size_t i = 0; i < used;) {
        size_t j = i + 1;
        bool other = false;
        while (j < used && w[j].addr == w[i].addr) {
            other |= w[j].stream != w[i].stream;
            j++;
        }
        shared += other;
        i = j;
    }
    free(w);
    return shared;
}

void lab_findings_compute(lab_findings *f, const lab_result *r, trace_timeline *tl, int32_t run, uint64_t returned_ns) {
    memset(f, 0, sizeof(*f));
    f->peer_access = -1; /* the runner asks the runtime (two-device labs) */
    f->correct = r->correct && r->status != LAB_STATUS_ERROR;
    f->race_free = r->races == 0;
    f->reached = r->status == LAB_STATUS_PASS;
    f->bound_fraction = r->bound_fraction;
    if (!tl || run <= 0) return;
    static bool used[MAX_STREAMS];
    memset(used, 0, sizeof(used));
    size_t n = trace_timeline_count(tl);
    for (size_t i = 0; i < n; i++) {
        const trace_op *op = trace_timeline_get(tl, i);
        if (!trace_timeline_in_run(op, run) || !trace_op_kind_is_stream_work(op->kind)) continue;
        if (op->stream == TRACE_STREAM_LEGACY)
            f->stream0_work = true;
        else if (op->stream > 0 && op->stream < MAX_STREAMS && !used[op->stream]) {
            used[op->stream] = true;
            f->streams_used++;
        }
    }
    f->shared_buffers = count_shared_buffers(tl, run);
    /* Host waits before the run's last piece of stream work was queued: a host round trip
     * between stages, where an event would have ordered the streams. */
    uint64_t last_enqueue = 0;
    for (size_t i = 0; i < n; i++) {
        const trace_op *op = trace_timeline_get(tl, i);
        if (trace_timeline_in_run(op, run) && trace_op_kind_is_stream_work(op->kind) && op->enqueue_ns > last_enqueue)
            last_enqueue = op->enqueue_ns;
    }
    for (size_t i = 0; i < n; i++) {
        const trace_op *op = trace_timeline_get(tl, i);
        if (!trace_timeline_in_run(op, run) || op->kind != TRACE_OP_SYNC || op->end_ns > last_enqueue) continue;
        f->host_syncs++;
        if (op->sync == TRACE_SYNC_STREAM || op->sync == TRACE_SYNC_DEVICE) f->stream_syncs++;
    }
    /* Peer copies (the link lane): their rate says whether they went over the link or were
     * staged through the host. */
    double peer_bytes = 0, peer_ns = 0;
    for (size_t i = 0; i < n; i++) {
        const trace_op *op = trace_timeline_get(tl, i);
        if (!trace_timeline_in_run(op, run) || op->kind != TRACE_OP_COPY || op->engine != TRACE_ENGINE_LINK) continue;
        f->peer_copies++;
        if (op->timed && op->end_ns > op->start_ns) {
            peer_bytes += (double)op->bytes;
            peer_ns += (double)(op->end_ns - op->start_ns);
        }
    }
    if (peer_ns > 0) f->peer_gbps = peer_bytes / peer_ns;
    trace_stall stall;
    f->stalls = (int)trace_stalls_find(tl, run, &stall, 1);
    int32_t busy[64];
    size_t nb = trace_streams_busy_at(tl, run, returned_ns, busy, sizeof(busy) / sizeof(busy[0]));
    for (size_t i = 0; i < nb && i < sizeof(busy) / sizeof(busy[0]); i++)
        if (busy[i] != TRACE_STREAM_LEGACY) f->busy_at_return++;
}

int lab_steps_first_open(const lab_spec *spec, const lab_findings *f) {
    for (int i = 0; i < spec->n_steps; i++)
        if (!spec->steps[i].done(f, &spec->workload)) return i;
    return -1;
}

/* When every step is done and the lab still fails or misses its target, what the
 * findings say about it, whatever the lab. NULL when they say nothing. */
static const char *beyond_the_steps(const lab_findings *f) {
    if (f->busy_at_return > 0 && !f->correct)
        return "run() returned while some of your streams still had work (the \"returned\" line above): wait for "
               "every stream you used before run() returns.";
    if (f->stalls > 0)
        return "your code puts work on stream 0, the legacy default stream, and each such operation waits for "
               "your other streams or holds them back (the \"stream 0\" lines above). Put that work on one of "
               "your streams, or make your streams non-blocking (lab 00 is about this).";
    return NULL;
}

void lab_steps_print_next(const lab_spec *spec, const lab_findings *f, bool passed, FILE *out) {
    int i = lab_steps_first_open(spec, f);
    if (i < 0) {
        const char *why = passed ? NULL : beyond_the_steps(f);
        if (why) fprintf(out, "Next: %s\n", why);
        return;
    }
    const lab_step *st = &spec->steps[i];
    if (passed && !st->beyond_target) return;
    char why[320];
    if (st->why && st->why(f, &spec->workload, why, sizeof(why)) > 0) fprintf(out, "Why: %s.\n", why);
    fprintf(out, "%s %s: %s\n", passed ? "Further:" : "Next:", st->todo, st->next);
    fprintf(out, "      Stuck? --hint gives a hint, a little more each time.\n");
}

bool lab_hints_path(char *buf, size_t len) { return cli_state_path("hints.json", buf, len); }

static const char *const tier_name[LAB_HINT_TIERS] = {"a question", "the idea", "the shape of the code"};

void lab_hints_print_next(const lab_spec *spec, const lab_findings *f, const char *path, FILE *out) {
    int i = lab_steps_first_open(spec, f);
    if (i < 0) {
        const char *why = f->reached ? NULL : beyond_the_steps(f);
        if (why)
            fprintf(out, "Every step of this lab is done, and still: %s\n", why);
        else
            fprintf(out, "No hint needed: every step of this lab is done%s.\n",
                    f->reached ? "" : "; run without --hint for the report");
        return;
    }
    const lab_step *st = &spec->steps[i];
    cJSON *state = cli_state_load(path);
    cJSON *lab = cJSON_GetObjectItemCaseSensitive(state, spec->id);
    if (!cJSON_IsObject(lab)) {
        cJSON_DeleteItemFromObjectCaseSensitive(state, spec->id);
        lab = cJSON_AddObjectToObject(state, spec->id);
    }
    const cJSON *last_step = cJSON_GetObjectItemCaseSensitive(lab, "step");
    const cJSON *last_tier = cJSON_GetObjectItemCaseSensitive(lab, "tier");
    int tier = 0;
    if (cJSON_IsNumber(last_step) && last_step->valueint == i && cJSON_IsNumber(last_tier))
        tier = last_tier->valueint + 1;
    if (tier >= LAB_HINT_TIERS) tier = LAB_HINT_TIERS - 1;
    if (tier < 0) tier = 0;
    fprintf(out, "You are at %s.\n%s\n\nHint %d of %d (%s):\n  %s\n", st->todo, st->next, tier + 1, LAB_HINT_TIERS,
            tier_name[tier], st->hints[tier]);
    if (tier + 1 < LAB_HINT_TIERS)
        fprintf(out, "\nAsk again (--hint) for %s. The lesson has every hint: %s\n", tier_name[tier + 1], spec->lesson);
    else
        fprintf(out, "\nThat was the last hint for this step. The lesson: %s\n", spec->lesson);
    cJSON_DeleteItemFromObjectCaseSensitive(lab, "step");
    cJSON_DeleteItemFromObjectCaseSensitive(lab, "tier");
    cJSON_AddNumberToObject(lab, "step", i);
    cJSON_AddNumberToObject(lab, "tier", tier);
    (void)cli_state_save(path, state);
    cJSON_Delete(state);
}
