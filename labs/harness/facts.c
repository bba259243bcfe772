/* labs/harness/facts.c: what specs ask of the facts of a run (spec.h, "facts specs
 * read"): the wait that over-synchronises, a wait in words, an allocation call's fix, a
 * free's wait, a stream, an event's order. */
#include <stdio.h>
#include <string.h>

#include "labs/harness/spec.h"

const lab_wait_fact *lab_fact_costly_wait(const lab_findings *f) {
    for (int i = 0; i < f->n_waits && i < LAB_FACT_WAITS; i++) {
        const lab_wait_fact *w = &f->waits[i];
        if (w->host && w->in_loop && w->on_path > 0 && f->run_ms > 0 && w->cost_ms >= LAB_FACT_COSTLY * f->run_ms)
            return w;
    }
    return NULL;
}

const char *lab_fact_short_line(const char *line) {
    const char *slash = strrchr(line, '/');
    return slash ? slash + 1 : line;
}

void lab_fact_line_note(const char *line, const char *pre, const char *post, char *buf, size_t len) {
    if (!len) return;
    buf[0] = '\0';
    if (line[0]) snprintf(buf, len, "%s%s%s", pre, lab_fact_short_line(line), post);
}

int lab_fact_wait_text(const lab_findings *f, const lab_wait_fact *w, char *buf, size_t len) {
    char at[160];
    lab_fact_line_note(w->line, " at ", "", at, sizeof(at));
    int n = w->on_path ? w->on_path : w->times;
    double ms = w->on_path ? w->cost_ms : w->held_ms;
    char whom[64] = "the host";
    if (!w->host) {
        const lab_stream_fact *s = lab_fact_stream(f, w->stream);
        snprintf(whom, sizeof(whom), "%s", s ? s->label : "its stream");
    }
    if (w->not_ready > 0) /* a poll: every call of its loops, the successes with the rest */
        return snprintf(buf, len, "%s%s, polled in a loop (%d calls), held %s %d time%s, %.1f ms of the run's %.1f ms",
                        w->call, at, w->not_ready + w->times, whom, n, n == 1 ? "" : "s", ms, f->run_ms);
    return snprintf(buf, len, "%s%s held %s %d time%s, %.1f ms of the run's %.1f ms", w->call, at, whom, n,
                    n == 1 ? "" : "s", ms, f->run_ms);
}

/* The calls that allocate or free memory, by family, and what to do instead of calling
 * them in run(). */
static const struct {
    const char *call;
    const char *fix;
} allocation_calls[] = {
    {"cudaFree", "allocate each device buffer once, in setup() (cudaMalloc), and free it in teardown() (cudaFree), "
                 "not in run()"},
    {"cudaMalloc", "allocate each device buffer once, in setup() (cudaMalloc), and free it in teardown() "
                   "(cudaFree), not in run()"},
    {"cudaFreeHost", "allocate each pinned buffer once, in setup() (cudaMallocHost), and free it in teardown() "
                     "(cudaFreeHost), not in run()"},
    {"cudaMallocHost", "allocate each pinned buffer once, in setup() (cudaMallocHost), and free it in teardown() "
                       "(cudaFreeHost), not in run()"},
    {"cudaHostAlloc", "allocate each pinned buffer once, in setup() (cudaHostAlloc), and free it in teardown() "
                      "(cudaFreeHost), not in run()"},
    {"cudaHostUnregister", "pin each buffer once, in setup() (cudaHostRegister), and unpin it in teardown() "
                           "(cudaHostUnregister), not in run()"},
    {"cudaHostRegister", "pin each buffer once, in setup() (cudaHostRegister), and unpin it in teardown() "
                         "(cudaHostUnregister), not in run()"},
};

const char *lab_fact_allocation_fix(const lab_wait_fact *w) {
    if (!w || !w->host) return NULL;
    size_t base = strcspn(w->call, "(");
    for (size_t i = 0; i < sizeof(allocation_calls) / sizeof(allocation_calls[0]); i++)
        if (strlen(allocation_calls[i].call) == base && !strncmp(w->call, allocation_calls[i].call, base))
            return allocation_calls[i].fix;
    return NULL;
}

bool lab_fact_wait_frees(const lab_wait_fact *w) { return w->host && !strncmp(w->call, "cudaFree(", 9); }

const lab_stream_fact *lab_fact_stream(const lab_findings *f, int32_t id) {
    for (int i = 0; i < f->n_streams && i < LAB_FACT_STREAMS; i++)
        if (f->streams[i].id == id) return &f->streams[i];
    return NULL;
}

static bool kind_is(trace_op_kind k, trace_copy_dir d, trace_op_kind want, trace_copy_dir want_dir) {
    if (want == TRACE_OP_KIND_COUNT) return true;
    return k == want && (want != TRACE_OP_COPY || want_dir == TRACE_COPY_NONE || d == want_dir);
}

const lab_order_fact *lab_fact_order(const lab_findings *f, trace_op_kind marks, trace_copy_dir marks_dir,
                                     trace_op_kind then, trace_copy_dir then_dir) {
    for (int i = 0; i < f->n_orders && i < LAB_FACT_ORDERS; i++) {
        const lab_order_fact *o = &f->orders[i];
        if (kind_is(o->marks, o->marks_dir, marks, marks_dir) && kind_is(o->then, o->then_dir, then, then_dir))
            return o;
    }
    return NULL;
}

const lab_order_fact *lab_fact_usual_order(const lab_findings *f, trace_op_kind marks, trace_copy_dir marks_dir,
                                           trace_op_kind then, trace_copy_dir then_dir) {
    const lab_order_fact *best = NULL;
    for (int i = 0; i < f->n_orders && i < LAB_FACT_ORDERS; i++) {
        const lab_order_fact *o = &f->orders[i];
        if (kind_is(o->marks, o->marks_dir, marks, marks_dir) && kind_is(o->then, o->then_dir, then, then_dir) &&
            (!best || o->times > best->times))
            best = o;
    }
    return best;
}

const char *lab_fact_op_words(trace_op_kind kind, trace_copy_dir dir) {
    switch (kind) {
    case TRACE_OP_KERNEL: return "the kernel";
    case TRACE_OP_MEMSET: return "a memset";
    case TRACE_OP_HOST_FN: return "a host function";
    case TRACE_OP_COPY:
        return dir == TRACE_COPY_H2D ? "the upload" : dir == TRACE_COPY_D2H ? "the download" : "a copy";
    case TRACE_OP_KIND_COUNT: return "nothing";
    default: return "an event";
    }
}
