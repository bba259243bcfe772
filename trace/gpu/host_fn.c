/* trace/gpu/host_fn.c: host function timing for cudaLaunchHostFunc (see host_fn.h). */
#include "trace/gpu/host_fn.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "trace/gpu/collector.h"
#include "trace/record/recorder.h"

struct trace_gpu_host_call {
    cudaHostFn_t fn;
    void *data;
    uint64_t op_id; /* 0 until bound */
    uint64_t start_ns, end_ns;
    bool ran;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

trace_gpu_host_call *trace_gpu_host_call_new(cudaHostFn_t fn, void *data) {
    trace_gpu_host_call *c = calloc(1, sizeof(*c));
    if (!c) return NULL;
    c->fn = fn;
    c->data = data;
    return c;
}

static void CUDART_CB trampoline(void *arg) {
    trace_gpu_host_call *c = arg;
    uint64_t start = trace_gpu_now_ns();
    c->fn(c->data);
    uint64_t end = trace_gpu_now_ns();
    pthread_mutex_lock(&lock);
    uint64_t op_id = c->op_id;
    c->start_ns = start;
    c->end_ns = end;
    c->ran = true;
    pthread_mutex_unlock(&lock);
    if (op_id) {
        trace_op_timed(op_id, start, end);
        free(c);
    }
}

cudaHostFn_t trace_gpu_host_call_trampoline(void) { return trampoline; }

void trace_gpu_host_call_bind(trace_gpu_host_call *c, uint64_t op_id) {
    pthread_mutex_lock(&lock);
    bool ran = c->ran;
    c->op_id = op_id;
    pthread_mutex_unlock(&lock);
    if (ran) {
        trace_op_timed(op_id, c->start_ns, c->end_ns);
        free(c);
    }
}

void trace_gpu_host_call_cancel(trace_gpu_host_call *c) { free(c); }
