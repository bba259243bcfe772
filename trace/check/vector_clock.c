/* trace/check/vector_clock.c: growable vector clocks (see vector_clock.h). */
#include "trace/check/vector_clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void grow(trace_vc *v, uint32_t n) {
    if (n <= v->n) return;
    uint64_t *p = realloc(v->c, (size_t)n * sizeof(uint64_t));
    if (!p) {
        fprintf(stderr, "streamlab trace: out of memory (vector clock)\n");
        abort();
    }
    memset(p + v->n, 0, (size_t)(n - v->n) * sizeof(uint64_t));
    v->c = p;
    v->n = n;
}

void trace_vc_set(trace_vc *v, uint32_t t, uint64_t clock) {
    grow(v, t + 1);
    v->c[t] = clock;
}

uint64_t trace_vc_tick(trace_vc *v, uint32_t t) {
    grow(v, t + 1);
    return ++v->c[t];
}

void trace_vc_join(trace_vc *dst, const trace_vc *src) {
    grow(dst, src->n);
    for (uint32_t i = 0; i < src->n; i++)
        if (src->c[i] > dst->c[i]) dst->c[i] = src->c[i];
}

void trace_vc_copy(trace_vc *dst, const trace_vc *src) {
    grow(dst, src->n);
    if (src->n) memcpy(dst->c, src->c, (size_t)src->n * sizeof(uint64_t));
    if (dst->n > src->n) memset(dst->c + src->n, 0, (size_t)(dst->n - src->n) * sizeof(uint64_t));
}

void trace_vc_free(trace_vc *v) {
    free(v->c);
    v->c = NULL;
    v->n = 0;
}
