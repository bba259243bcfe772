/* trace/check/vector_clock.h: vector clocks for the race checker: one logical clock per thread
 * of execution (the host thread, then one per stream), grown on demand. An access made at
 * epoch (thread t, clock c) happens before a point whose vector clock V has V[t] >= c. */
#ifndef STREAMLAB_TRACE_VECTOR_CLOCK_H
#define STREAMLAB_TRACE_VECTOR_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct trace_vc {
    uint64_t *c; /* c[t] for t < n; missing entries are 0 */
    uint32_t n;
} trace_vc;

static inline uint64_t trace_vc_get(const trace_vc *v, uint32_t t) { return t < v->n ? v->c[t] : 0; }
/* Whether the access at epoch (t, clock) happens before v. */
static inline bool trace_vc_covers(const trace_vc *v, uint32_t t, uint64_t clock) {
    return clock <= trace_vc_get(v, t);
}

void trace_vc_set(trace_vc *v, uint32_t t, uint64_t clock);
/* v[t] += 1; returns the new value. */
uint64_t trace_vc_tick(trace_vc *v, uint32_t t);
/* dst = max(dst, src) element-wise. */
void trace_vc_join(trace_vc *dst, const trace_vc *src);
/* dst = src. */
void trace_vc_copy(trace_vc *dst, const trace_vc *src);
void trace_vc_free(trace_vc *v);

#ifdef __cplusplus
}
#endif

#endif
