/* sim/core/eventq.c: the device-event heap (see eventq.h). */
#include "sim/core/eventq.h"

#include <stdio.h>
#include <stdlib.h>

static bool before(const sim_ev *a, const sim_ev *b) {
    return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

void sim_eventq_push(sim_eventq *q, uint64_t time, sim_ev_type type, uint32_t index, uint64_t gen,
                     void *ptr) {
    if (q->count == q->cap) {
        size_t ncap = q->cap ? q->cap * 2 : 256;
        sim_ev *n = realloc(q->items, ncap * sizeof(sim_ev));
        if (!n) {
            fprintf(stderr, "streamlab simulated GPU: out of memory (event queue)\n");
            abort();
        }
        q->items = n;
        q->cap = ncap;
    }
    sim_ev ev = {time, q->next_seq++, (uint32_t)type, index, gen, ptr};
    size_t i = q->count++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!before(&ev, &q->items[parent])) break;
        q->items[i] = q->items[parent];
        i = parent;
    }
    q->items[i] = ev;
}

const sim_ev *sim_eventq_peek(const sim_eventq *q) { return q->count ? &q->items[0] : NULL; }

bool sim_eventq_pop(sim_eventq *q, sim_ev *out) {
    if (!q->count) return false;
    *out = q->items[0];
    sim_ev last = q->items[--q->count];
    size_t i = 0, n = q->count;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        const sim_ev *best = &last;
        if (l < n && before(&q->items[l], best)) {
            m = l;
            best = &q->items[l];
        }
        if (r < n && before(&q->items[r], best)) m = r;
        if (m == i) break;
        q->items[i] = q->items[m];
        i = m;
    }
    if (n) q->items[i] = last;
    return true;
}

void sim_eventq_free(sim_eventq *q) {
    free(q->items);
    q->items = NULL;
    q->count = q->cap = 0;
    q->next_seq = 0;
}
