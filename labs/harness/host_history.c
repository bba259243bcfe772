/* labs/harness/host_history.c: the least time spent before each command of a run (see
 * host_history.h). */
#include "labs/harness/host_history.h"

#include <stdlib.h>

void lab_host_history_begin_run(lab_host_history *h) {
    h->at = 0;
    h->runs++;
}

uint64_t lab_host_history_filter(lab_host_history *h, uint64_t spent_ns) {
    size_t i = h->at++;
    if (i < h->n) {
        if (spent_ns < h->least[i]) h->least[i] = spent_ns;
        return h->least[i];
    }
    if (h->n == h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 256;
        uint64_t *more = realloc(h->least, cap * sizeof(*more));
        if (!more) return spent_ns; /* charged as measured: no worse than without a history */
        h->least = more;
        h->cap = cap;
    }
    h->least[h->n++] = spent_ns;
    return spent_ns;
}

void lab_host_history_reset(lab_host_history *h) {
    free(h->least);
    h->least = NULL;
    h->n = h->cap = h->at = 0;
    h->runs = 0;
}
