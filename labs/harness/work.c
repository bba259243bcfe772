/* labs/harness/work.c: the work a run did on the device, and the verdict on it (see work.h).
 *
 * Memory a kernel wrote is kept as a sorted list of disjoint pieces [start, end), each
 * marked with the run whose kernel wrote it; memory in no piece holds nothing a kernel of
 * any run computed. */
#include "labs/harness/work.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/record/recorder.h"

typedef struct piece {
    uint64_t start, end;
    int32_t run; /* the run whose kernel wrote it (never 0) */
} piece;

struct lab_work {
    piece *p;
    size_t n, cap;
    bool lost;             /* more pieces than LAB_WORK_MAX_PIECES: no longer followed */
    lab_work_tally *runs;  /* [run], run >= 1 */
    size_t n_runs;
};

lab_work *lab_work_create(void) { return calloc(1, sizeof(lab_work)); }

void lab_work_destroy(lab_work *w) {
    if (!w) return;
    free(w->p);
    free(w->runs);
    free(w);
}

/* ---- the pieces ------------------------------------------------------------------------ */

/* The index of the first piece that ends after a. */
static size_t first_after(const lab_work *w, uint64_t a) {
    size_t lo = 0, hi = w->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (w->p[mid].end <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static bool reserve(lab_work *w, size_t more) {
    if (w->n + more <= w->cap) return true;
    if (w->n + more > LAB_WORK_MAX_PIECES) {
        w->lost = true;
        return false;
    }
    size_t cap = w->cap ? w->cap * 2 : 256;
    while (cap < w->n + more) cap *= 2;
    piece *np = realloc(w->p, cap * sizeof(piece));
    if (!np) {
        w->lost = true;
        return false;
    }
    w->p = np;
    w->cap = cap;
    return true;
}

/* Clears [a, b): the pieces that overlap it are cut back to what lies outside it. */
static void clear(lab_work *w, uint64_t a, uint64_t b) {
    if (a >= b || w->lost) return;
    size_t i = first_after(w, a);
    if (i == w->n || w->p[i].start >= b) return;
    /* A piece that covers [a, b) with room on both sides becomes two. */
    if (w->p[i].start < a && w->p[i].end > b) {
        if (!reserve(w, 1)) return;
        memmove(&w->p[i + 1], &w->p[i], (w->n - i) * sizeof(piece));
        w->n++;
        w->p[i].end = a;
        w->p[i + 1].start = b;
        return;
    }
    if (w->p[i].start < a) {
        w->p[i].end = a;
        i++;
    }
    size_t j = i;
    while (j < w->n && w->p[j].end <= b) j++;
    if (j < w->n && w->p[j].start < b) w->p[j].start = b;
    memmove(&w->p[i], &w->p[j], (w->n - j) * sizeof(piece));
    w->n -= j - i;
}

/* Marks [a, b) as written by a kernel of run (which is never 0); merges with neighbours of
 * the same run. */
static void mark(lab_work *w, uint64_t a, uint64_t b, int32_t run) {
    if (a >= b || w->lost) return;
    clear(w, a, b);
    if (w->lost) return;
    size_t i = first_after(w, a);
    bool left = i > 0 && w->p[i - 1].end == a && w->p[i - 1].run == run;
    bool right = i < w->n && w->p[i].start == b && w->p[i].run == run;
    if (left && right) {
        w->p[i - 1].end = w->p[i].end;
        memmove(&w->p[i], &w->p[i + 1], (w->n - i - 1) * sizeof(piece));
        w->n--;
    } else if (left) {
        w->p[i - 1].end = b;
    } else if (right) {
        w->p[i].start = a;
    } else {
        if (!reserve(w, 1)) return;
        memmove(&w->p[i + 1], &w->p[i], (w->n - i) * sizeof(piece));
        w->p[i] = (piece){a, b, run};
        w->n++;
    }
}

/* A copy of n bytes from src to dst: dst's marks become src's (memmove's meaning when the
 * two overlap). */
static void copy(lab_work *w, uint64_t dst, uint64_t src, uint64_t n) {
    if (!n || w->lost || dst == src) return;
    size_t i = first_after(w, src), k = 0;
    size_t count = 0;
    for (size_t j = i; j < w->n && w->p[j].start < src + n; j++) count++;
    piece *moved = count ? malloc(count * sizeof(piece)) : NULL;
    if (count && !moved) {
        w->lost = true;
        return;
    }
    for (size_t j = i; j < w->n && w->p[j].start < src + n; j++) {
        uint64_t a = w->p[j].start > src ? w->p[j].start : src;
        uint64_t b = w->p[j].end < src + n ? w->p[j].end : src + n;
        moved[k++] = (piece){a - src + dst, b - src + dst, w->p[j].run};
    }
    clear(w, dst, dst + n);
    for (size_t j = 0; j < k; j++) mark(w, moved[j].start, moved[j].end, moved[j].run);
    free(moved);
}

/* The bytes of [a, b) marked with run. */
static uint64_t marked(const lab_work *w, uint64_t a, uint64_t b, int32_t run) {
    uint64_t sum = 0;
    for (size_t i = first_after(w, a); i < w->n && w->p[i].start < b; i++) {
        if (w->p[i].run != run) continue;
        uint64_t s = w->p[i].start > a ? w->p[i].start : a;
        uint64_t e = w->p[i].end < b ? w->p[i].end : b;
        sum += e - s;
    }
    return sum;
}

/* ---- the runs -------------------------------------------------------------------------- */

static lab_work_tally *tally_of(lab_work *w, int32_t run) {
    if (run < 1) return NULL;
    if ((size_t)run >= w->n_runs) {
        size_t n = w->n_runs ? w->n_runs : 64;
        while (n <= (size_t)run) n *= 2;
        lab_work_tally *nr = realloc(w->runs, n * sizeof(lab_work_tally));
        if (!nr) return NULL;
        memset(nr + w->n_runs, 0, (n - w->n_runs) * sizeof(lab_work_tally));
        w->runs = nr;
        w->n_runs = n;
    }
    return &w->runs[run];
}

/* The op's first range that reads (write false) or writes; NULL when it has none. */
static const trace_range *range_of(const trace_op *op, bool write) {
    for (uint32_t i = 0; i < op->n_ranges && i < TRACE_MAX_RANGES; i++)
        if (((op->ranges[i].flags & TRACE_RANGE_WRITE) != 0) == write) return &op->ranges[i];
    return NULL;
}

static void add_kernel(lab_work *w, const trace_op *op, lab_work_tally *t) {
    if (!strncmp(op->name, "graph", 5)) {
        /* One op for a whole CUDA graph (a GPU's trace): its nodes are not seen. */
        if (t) t->opaque++;
        return;
    }
    const trace_range *in = range_of(op, false);
    /* Lab 09's widen and narrow are process's f^iters with a residual beside it: they count
     * as process kernels, each over the elements of its 4-byte side. */
    bool wide = !strcmp(op->name, "widen") || !strcmp(op->name, "narrow");
    if (t && (wide || !strcmp(op->name, "process"))) {
        const trace_range *out = range_of(op, true);
        const trace_range *narrow_side = !strcmp(op->name, "widen") ? in : out;
        t->amount[LAB_WORK_PROCESS] += (narrow_side ? narrow_side->bytes : 0) / sizeof(uint32_t);
        t->amount[LAB_WORK_PROCESS_LAUNCHES]++;
    } else if (t && !strcmp(op->name, "checksum")) {
        t->amount[LAB_WORK_CHECKSUM] += (in ? in->bytes : 0) / sizeof(uint32_t);
    }
    /* What a kernel computes from its input (process, widen, narrow, checksum) is marked with
     * its run (0 is no run's mark); what another writes (spin: a value the host chose, mark + block) holds
     * nothing computed, as after a memset. */
    bool computes = wide || !strcmp(op->name, "process") || !strcmp(op->name, "checksum");
    int32_t run = op->run == 0 ? -1 : op->run;
    for (uint32_t i = 0; i < op->n_ranges && i < TRACE_MAX_RANGES; i++) {
        if (!(op->ranges[i].flags & TRACE_RANGE_WRITE)) continue;
        uint64_t a = op->ranges[i].addr, b = a + op->ranges[i].bytes;
        if (computes)
            mark(w, a, b, run);
        else
            clear(w, a, b);
    }
}

void lab_work_add_op(lab_work *w, const trace_op *op) {
    if (!w) return;
    lab_work_tally *t = tally_of(w, op->run);
    switch (op->kind) {
    case TRACE_OP_COPY: {
        const trace_range *src = range_of(op, false), *dst = range_of(op, true);
        if (t && op->dir == TRACE_COPY_H2D) t->amount[LAB_WORK_H2D] += op->bytes;
        if (t && op->dir == TRACE_COPY_D2H) t->amount[LAB_WORK_D2H] += op->bytes;
        if (!dst) break;
        if (op->dir == TRACE_COPY_H2D || !src)
            clear(w, dst->addr, dst->addr + dst->bytes);
        else
            copy(w, dst->addr, src->addr, dst->bytes < src->bytes ? dst->bytes : src->bytes);
        break;
    }
    case TRACE_OP_KERNEL: add_kernel(w, op, t); break;
    case TRACE_OP_MEMSET:
    case TRACE_OP_HOST_ACCESS:
        /* A memset, or the host writing a buffer (the harness's inputs and poison, the
         * loader): nothing a kernel computed is left there. */
        for (uint32_t i = 0; i < op->n_ranges && i < TRACE_MAX_RANGES; i++)
            if (op->ranges[i].flags & TRACE_RANGE_WRITE)
                clear(w, op->ranges[i].addr, op->ranges[i].addr + op->ranges[i].bytes);
        break;
    default: break;
    }
    if (t && w->lost) t->lost = true;
}

void lab_work_results_read(lab_work *w, int32_t run, const void *addr, uint64_t bytes) {
    if (!w) return;
    lab_work_tally *t = tally_of(w, run);
    if (!t) return;
    if (w->lost) {
        t->lost = true;
        return;
    }
    uint64_t a = (uint64_t)(uintptr_t)addr;
    t->amount[LAB_WORK_RESULTS] += marked(w, a, a + bytes, run);
}

lab_work_tally lab_work_of_run(const lab_work *w, int32_t run) {
    lab_work_tally t;
    memset(&t, 0, sizeof(t));
    if (w && run >= 1 && (size_t)run < w->n_runs) t = w->runs[run];
    return t;
}

lab_work_tally lab_work_least(const lab_work *w, const int32_t *runs, int n) {
    lab_work_tally least;
    memset(&least, 0, sizeof(least));
    for (int i = 0; i < n; i++) {
        lab_work_tally t = lab_work_of_run(w, runs[i]);
        for (int k = 0; k < LAB_WORK_KINDS; k++)
            if (i == 0 || t.amount[k] < least.amount[k]) least.amount[k] = t.amount[k];
        if (t.opaque > least.opaque) least.opaque = t.opaque;
        least.lost |= t.lost;
    }
    return least;
}

/* ---- the sink ------------------------------------------------------------------------- */

static void on_op(void *ctx, const trace_op *op) { lab_work_add_op(ctx, op); }

int lab_work_install(lab_work *w) {
    if (!w) return -1;
    trace_sink s = {.ctx = w, .on_op = on_op};
    return trace_add_sink(&s);
}

void lab_work_uninstall(lab_work *w) { trace_remove_sink(w); }

/* ---- the verdict ------------------------------------------------------------------------ */

const char *lab_work_kind_key(lab_work_kind kind) {
    switch (kind) {
    case LAB_WORK_H2D: return "h2d_bytes";
    case LAB_WORK_D2H: return "d2h_bytes";
    case LAB_WORK_PROCESS: return "process_elements";
    case LAB_WORK_PROCESS_LAUNCHES: return "process_kernels";
    case LAB_WORK_CHECKSUM: return "checksum_elements";
    case LAB_WORK_RESULTS: return "results_bytes";
    case LAB_WORK_KINDS: break;
    }
    return "?";
}

/* "4.0 MiB", "256.0 KiB", "12 bytes". */
static void bytes_text(uint64_t n, char *buf, size_t len) {
    if (n >= 1024u * 1024u)
        snprintf(buf, len, "%.1f MiB", (double)n / (1024.0 * 1024.0));
    else if (n >= 1024u)
        snprintf(buf, len, "%.1f KiB", (double)n / 1024.0);
    else
        snprintf(buf, len, "%" PRIu64 " byte%s", n, n == 1 ? "" : "s");
}

/* "0.02%" of a part of whole, with as many decimals as a small part needs to show. */
static void share_text(uint64_t part, uint64_t whole, char *buf, size_t len) {
    double pct = whole ? 100.0 * (double)part / (double)whole : 0;
    snprintf(buf, len, pct >= 1 || pct == 0 ? "%.0f%%" : pct >= 0.01 ? "%.2f%%" : "%.4f%%", pct);
}

/* One missing kind, in words. */
static void say_missing(lab_work_kind k, const lab_work_verdict *v, const char *item, const char *items, int batches,
                        char *p, size_t room) {
    uint64_t need = v->required[k], got = v->done[k];
    char a[32], b[32], share[16];
    share_text(got, need, share, sizeof(share));
    p[0] = '\0';
    switch (k) {
    case LAB_WORK_PROCESS:
        if (!got)
            snprintf(p, room,
                     "your run launched no process kernel over the %s' data: the lab requires every %s to go "
                     "through the process kernel on the device (%" PRIu64 " elements a run, as the baseline's runs do)",
                     items, item, need);
        else
            snprintf(p, room,
                     "your run's process kernels went over %" PRIu64 " elements, %s of the %" PRIu64
                     " a run that the lab requires (every %s through the process kernel on the device, as the "
                     "baseline's runs do)",
                     got, share, need, item);
        break;
    case LAB_WORK_PROCESS_LAUNCHES:
        snprintf(p, room,
                 "your run ran %" PRIu64 " process kernel%s, where the lab requires %" PRIu64
                 " a run (each kernel of the workload, as the baseline launches them; a CUDA graph's kernels count "
                 "at every replay)",
                 got, got == 1 ? "" : "s", need);
        break;
    case LAB_WORK_CHECKSUM:
        snprintf(p, room, "your run's checksum kernels read %" PRIu64 " elements, where the lab requires %" PRIu64 " a run",
                 got, need);
        break;
    case LAB_WORK_RESULTS:
        bytes_text(need, a, sizeof(a));
        bytes_text(got, b, sizeof(b));
        if (!got)
            snprintf(p, room,
                     "none of your run's %s of results came from the device's computation: each output was copied "
                     "back from memory that no kernel of the run wrote (a result computed on the host and copied to "
                     "the device and back is still the host's); the lab requires each %s's result to be computed by "
                     "a kernel on the device and copied back from there",
                     a, item);
        else
            snprintf(p, room,
                     "only %s of your run's %s of results (%s) came from memory a kernel of the run wrote, the rest "
                     "from memory no kernel wrote (computed on the host, say); the lab requires each %s's result to "
                     "be computed by a kernel on the device and copied back from there",
                     b, a, share, item);
        break;
    case LAB_WORK_H2D:
    case LAB_WORK_D2H: {
        bool up = k == LAB_WORK_H2D;
        bytes_text(need, a, sizeof(a));
        bytes_text(got, b, sizeof(b));
        snprintf(p, room, "your run copied %s %s, where the lab's %s are %s a run (%d %s: every %s's %s must %s the device)",
                 b, up ? "host-to-device" : "device-to-host", up ? "inputs" : "results", a, batches, items, item,
                 up ? "input" : "result", up ? "go to" : "come back from");
        break;
    }
    case LAB_WORK_KINDS: break;
    }
}

void lab_work_judge(const lab_work_tally *required, const lab_work_tally *done, unsigned need, const char *item,
                    const char *items, int batches, lab_work_verdict *out) {
    memset(out, 0, sizeof(*out));
    for (int k = 0; k < LAB_WORK_KINDS; k++) {
        out->required[k] = required->amount[k];
        out->done[k] = done->amount[k];
    }
    unsigned judged = 0;
    for (int k = 0; k < LAB_WORK_KINDS; k++)
        if ((need & LAB_WORK_BIT(k)) && required->amount[k] > 0) judged |= LAB_WORK_BIT(k);
    /* Graphs whose nodes the trace does not see (a GPU's): their kernels and what they
     * wrote cannot be counted, only the copies outside them. */
    unsigned unseen = 0;
    if (done->opaque > 0)
        unseen = judged & (LAB_WORK_BIT(LAB_WORK_PROCESS) | LAB_WORK_BIT(LAB_WORK_PROCESS_LAUNCHES) |
                           LAB_WORK_BIT(LAB_WORK_CHECKSUM) | LAB_WORK_BIT(LAB_WORK_RESULTS));
    judged &= ~unseen;
    out->judged = judged;
    out->checked = judged != 0;
    for (int k = 0; k < LAB_WORK_KINDS; k++)
        if ((judged & LAB_WORK_BIT(k)) && done->amount[k] < required->amount[k]) out->missing |= LAB_WORK_BIT(k);
    /* Memory written in too many pieces to follow: its results cannot be told from the
     * host's, so they are not the device's. */
    bool lost = (judged & LAB_WORK_BIT(LAB_WORK_RESULTS)) && done->lost;
    if (lost) out->missing |= LAB_WORK_BIT(LAB_WORK_RESULTS);
    out->ok = out->missing == 0;
    if (!out->ok) {
        snprintf(out->why, sizeof(out->why), "the lab's work was not done on the device, so the speed does not count: ");
        size_t head = strlen(out->why);
        char *list = out->why + head;
        size_t room = sizeof(out->why) - head;
        list[0] = '\0';
        static const lab_work_kind order[] = {LAB_WORK_PROCESS, LAB_WORK_PROCESS_LAUNCHES, LAB_WORK_CHECKSUM,
                                              LAB_WORK_RESULTS,  LAB_WORK_H2D,              LAB_WORK_D2H};
        for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
            lab_work_kind k = order[i];
            if (!(out->missing & LAB_WORK_BIT(k))) continue;
            char clause[512];
            if (k == LAB_WORK_RESULTS && lost)
                snprintf(clause, sizeof(clause),
                         "your run wrote device memory in more than %u separate pieces, more than the harness "
                         "follows, so its results cannot be told from results computed on the host",
                         LAB_WORK_MAX_PIECES);
            else
                say_missing(k, out, item, items, batches, clause, sizeof(clause));
            size_t at = strlen(list);
            snprintf(list + at, room - at, "%s%s", at ? "; " : "", clause);
        }
    } else if (unseen) {
        snprintf(out->why, sizeof(out->why),
                 "your run launched CUDA graphs, whose kernels this GPU's trace does not see one by one: only the "
                 "copies outside them were counted");
    }
}
