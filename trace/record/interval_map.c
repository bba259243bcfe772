/* trace/record/interval_map.c: sorted non-overlapping byte-range segments with inline values
 * (see interval_map.h). */
#include "trace/record/interval_map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEG_HEADER (2 * sizeof(uint64_t))

static unsigned char *seg(const trace_imap *m, size_t i) { return m->segs + i * m->stride; }

uint64_t trace_imap_lo(const trace_imap *m, size_t i) {
    uint64_t v;
    memcpy(&v, seg(m, i), sizeof(v));
    return v;
}

uint64_t trace_imap_hi(const trace_imap *m, size_t i) {
    uint64_t v;
    memcpy(&v, seg(m, i) + sizeof(uint64_t), sizeof(v));
    return v;
}

void *trace_imap_val(const trace_imap *m, size_t i) { return seg(m, i) + SEG_HEADER; }

static void set_lo(trace_imap *m, size_t i, uint64_t v) { memcpy(seg(m, i), &v, sizeof(v)); }
static void set_hi(trace_imap *m, size_t i, uint64_t v) {
    memcpy(seg(m, i) + sizeof(uint64_t), &v, sizeof(v));
}

uint64_t trace_imap_end(uint64_t addr, uint64_t bytes) {
    return bytes > UINT64_MAX - addr ? UINT64_MAX : addr + bytes;
}

void trace_imap_init(trace_imap *m, const trace_imap_ops *ops) {
    memset(m, 0, sizeof(*m));
    m->ops = *ops;
    size_t stride = SEG_HEADER + ops->val_size;
    m->stride = (stride + 7u) & ~(size_t)7u;
}

static void val_clone(const trace_imap *m, void *dst, const void *src) {
    if (m->ops.clone)
        m->ops.clone(dst, src);
    else
        memcpy(dst, src, m->ops.val_size);
}

static void val_release(const trace_imap *m, void *val) {
    if (m->ops.release) m->ops.release(val);
}

static bool val_equal(const trace_imap *m, const void *a, const void *b) {
    if (m->ops.equal) return m->ops.equal(a, b);
    return memcmp(a, b, m->ops.val_size) == 0;
}

void trace_imap_clear(trace_imap *m) {
    for (size_t i = 0; i < m->n; i++) val_release(m, trace_imap_val(m, i));
    free(m->segs);
    m->segs = NULL;
    m->n = m->cap = 0;
}

/* Opens `count` uninitialised segments at index i. */
static void open_gap(trace_imap *m, size_t i, size_t count) {
    if (m->n + count > m->cap) {
        size_t ncap = m->cap ? m->cap * 2 : 16;
        while (ncap < m->n + count) ncap *= 2;
        unsigned char *p = realloc(m->segs, ncap * m->stride);
        if (!p) {
            fprintf(stderr, "streamlab trace: out of memory (interval map)\n");
            abort();
        }
        m->segs = p;
        m->cap = ncap;
    }
    memmove(seg(m, i + count), seg(m, i), (m->n - i) * m->stride);
    m->n += count;
}

/* Removes segments [i, j) whose values were already released. */
static void close_gap(trace_imap *m, size_t i, size_t j) {
    if (j <= i) return;
    memmove(seg(m, i), seg(m, j), (m->n - j) * m->stride);
    m->n -= j - i;
}

size_t trace_imap_lower(const trace_imap *m, uint64_t addr) {
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (trace_imap_hi(m, mid) <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Splits the segment that strictly contains x (lo < x < hi) into two at x. */
static void split_at(trace_imap *m, uint64_t x) {
    size_t i = trace_imap_lower(m, x);
    if (i >= m->n) return;
    uint64_t lo = trace_imap_lo(m, i), hi = trace_imap_hi(m, i);
    if (!(lo < x && x < hi)) return;
    open_gap(m, i + 1, 1);
    set_lo(m, i + 1, x);
    set_hi(m, i + 1, hi);
    val_clone(m, trace_imap_val(m, i + 1), trace_imap_val(m, i));
    set_hi(m, i, x);
}

void trace_imap_cover(trace_imap *m, uint64_t lo, uint64_t hi, const void *fill, size_t *first,
                      size_t *last) {
    if (lo >= hi) {
        *first = *last = trace_imap_lower(m, lo);
        return;
    }
    split_at(m, lo);
    split_at(m, hi);
    size_t i = trace_imap_lower(m, lo);
    *first = i;
    uint64_t cursor = lo;
    while (cursor < hi) {
        if (i < m->n && trace_imap_lo(m, i) == cursor) {
            cursor = trace_imap_hi(m, i);
            i++;
            continue;
        }
        uint64_t gap_end = (i < m->n && trace_imap_lo(m, i) < hi) ? trace_imap_lo(m, i) : hi;
        open_gap(m, i, 1);
        set_lo(m, i, cursor);
        set_hi(m, i, gap_end);
        val_clone(m, trace_imap_val(m, i), fill);
        cursor = gap_end;
        i++;
    }
    *last = i;
}

/* Releases and removes the segments inside [lo, hi) after splitting at its ends; returns
 * the index where they were. */
static size_t remove_range(trace_imap *m, uint64_t lo, uint64_t hi) {
    split_at(m, lo);
    split_at(m, hi);
    size_t i = trace_imap_lower(m, lo);
    size_t j = i;
    while (j < m->n && trace_imap_lo(m, j) < hi) {
        val_release(m, trace_imap_val(m, j));
        j++;
    }
    close_gap(m, i, j);
    return i;
}

void trace_imap_assign(trace_imap *m, uint64_t lo, uint64_t hi, const void *val) {
    if (lo >= hi) return;
    size_t i = remove_range(m, lo, hi);
    open_gap(m, i, 1);
    set_lo(m, i, lo);
    set_hi(m, i, hi);
    val_clone(m, trace_imap_val(m, i), val);
    trace_imap_coalesce(m, i, i + 1);
}

void trace_imap_erase(trace_imap *m, uint64_t lo, uint64_t hi) {
    if (lo >= hi) return;
    remove_range(m, lo, hi);
}

void trace_imap_coalesce(trace_imap *m, size_t first, size_t last) {
    if (m->n < 2) return;
    size_t a = first > 0 ? first - 1 : 0;
    size_t b = last + 1 < m->n ? last + 1 : m->n; /* one past the last segment to look at */
    if (a >= b) return;
    /* Compact [a, b) in place: w is the segment being grown. */
    size_t w = a;
    for (size_t r = a + 1; r < b; r++) {
        if (trace_imap_hi(m, w) == trace_imap_lo(m, r) &&
            val_equal(m, trace_imap_val(m, w), trace_imap_val(m, r))) {
            set_hi(m, w, trace_imap_hi(m, r));
            val_release(m, trace_imap_val(m, r));
        } else {
            w++;
            if (w != r) memcpy(seg(m, w), seg(m, r), m->stride);
        }
    }
    close_gap(m, w + 1, b);
}
