/* trace/record/batch_tags.c: batch provenance over an interval map (see batch_tags.h). */
#include "trace/record/batch_tags.h"

#include <string.h>

void trace_batch_tags_init(trace_batch_tags *t) {
    trace_imap_ops ops;
    memset(&ops, 0, sizeof(ops));
    ops.val_size = sizeof(int32_t);
    trace_imap_init(&t->map, &ops);
}

void trace_batch_tags_clear(trace_batch_tags *t) { trace_imap_clear(&t->map); }

static int32_t seg_batch(const trace_imap *m, size_t i) {
    int32_t b;
    memcpy(&b, trace_imap_val(m, i), sizeof(b));
    return b;
}

/* The batch covering most of op's read bytes, or -1 when none is tagged. A few distinct
 * batches are tallied; ties go to the first one met (the lowest address). */
static int32_t infer(const trace_batch_tags *t, const trace_op *op) {
    enum { MAX_SEEN = 8 };
    int32_t batch[MAX_SEEN];
    uint64_t bytes[MAX_SEEN];
    int n = 0;
    for (uint32_t r = 0; r < op->n_ranges && r < TRACE_MAX_RANGES; r++) {
        const trace_range *rg = &op->ranges[r];
        if (rg->flags & TRACE_RANGE_WRITE) continue;
        uint64_t lo = rg->addr, hi = trace_imap_end(rg->addr, rg->bytes);
        for (size_t i = trace_imap_lower(&t->map, lo);
             i < trace_imap_count(&t->map) && trace_imap_lo(&t->map, i) < hi; i++) {
            uint64_t a = trace_imap_lo(&t->map, i), b = trace_imap_hi(&t->map, i);
            uint64_t len = (b < hi ? b : hi) - (a > lo ? a : lo);
            int32_t v = seg_batch(&t->map, i);
            int k = 0;
            while (k < n && batch[k] != v) k++;
            if (k == n) {
                if (n == MAX_SEEN) continue;
                batch[n] = v;
                bytes[n++] = 0;
            }
            bytes[k] += len;
        }
    }
    int best = -1;
    for (int k = 0; k < n; k++)
        if (best < 0 || bytes[k] > bytes[best]) best = k;
    return best < 0 ? -1 : batch[best];
}

void trace_batch_tags_apply(trace_batch_tags *t, trace_op *op) {
    if (op->n_ranges == 0) return;
    if (op->batch < 0) op->batch = infer(t, op);
    for (uint32_t r = 0; r < op->n_ranges && r < TRACE_MAX_RANGES; r++) {
        const trace_range *rg = &op->ranges[r];
        if (!(rg->flags & TRACE_RANGE_WRITE)) continue;
        uint64_t lo = rg->addr, hi = trace_imap_end(rg->addr, rg->bytes);
        if (op->batch >= 0)
            trace_imap_assign(&t->map, lo, hi, &op->batch);
        else
            trace_imap_erase(&t->map, lo, hi);
    }
}

int32_t trace_batch_tags_at(const trace_batch_tags *t, uint64_t addr) {
    size_t i = trace_imap_lower(&t->map, addr);
    if (i < trace_imap_count(&t->map) && trace_imap_lo(&t->map, i) <= addr) return seg_batch(&t->map, i);
    return -1;
}
