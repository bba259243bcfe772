/* trace/gpu/time_check.c: device times that cannot be right (see time_check.h). */
#include "trace/gpu/time_check.h"

#include <stdlib.h>
#include <string.h>

static int by_stream_then_id(const void *x, const void *y) {
    const trace_gpu_timed_op *a = x, *b = y;
    if (a->stream != b->stream) return a->stream < b->stream ? -1 : 1;
    return (a->op_id > b->op_id) - (a->op_id < b->op_id);
}

int trace_gpu_check_times(const trace_gpu_timed_op *ops, size_t n, trace_gpu_time_errors *errors) {
    if (n == 0) return 0;
    trace_gpu_timed_op *v = malloc(n * sizeof(*v));
    if (!v) return -1;
    memcpy(v, ops, n * sizeof(*v));
    qsort(v, n, sizeof(*v), by_stream_then_id);
    for (size_t i = 0; i < n; i++) {
        errors->checked++;
        if (v[i].start_ns < v[i].enqueue_ns) errors->before_enqueue++;
        if (i == 0 || v[i - 1].stream != v[i].stream) continue;
        if (v[i].start_ns < v[i - 1].start_ns)
            errors->out_of_order++;
        else if (v[i].start_ns < v[i - 1].end_ns)
            errors->overlap++;
    }
    free(v);
    return 0;
}
