/* trace/check/race_corpus/corpus.c: helpers for the race corpus programs (see corpus.h). */
#include "trace/check/race_corpus/corpus.h"

#include <stdio.h>
#include <stdlib.h>

#include "sim/include/streamlab_sim.h"
#include "trace/record/recorder.h"

void corpus_check(cudaError_t err, const char *what, const char *file, int line) {
    if (err == cudaSuccess) return;
    fprintf(stderr, "%s:%d: %s failed: %s\n", file, line, what, cudaGetErrorString(err));
    exit(1);
}

typedef struct scale_args {
    const float *in;
    float *out;
    size_t n;
} scale_args;

#define SCALE_THREADS 256u

static void scale_body(const void *args, uint32_t block_begin, uint32_t block_end) {
    const scale_args *a = args;
    for (size_t i = (size_t)block_begin * SCALE_THREADS; i < (size_t)block_end * SCALE_THREADS && i < a->n; i++)
        a->out[i] = 2.0f * a->in[i];
}

void corpus_scale(const float *in, float *out, size_t n, cudaStream_t s) {
    scale_args args = {in, out, n};
    sim_kernel_launch k = {0};
    k.name = "scale";
    k.grid = (dim3){.x = (unsigned)((n + SCALE_THREADS - 1) / SCALE_THREADS), .y = 1, .z = 1};
    k.block = (dim3){.x = SCALE_THREADS, .y = 1, .z = 1};
    k.body = scale_body;
    k.args = &args;
    k.args_size = sizeof(args);
    k.cost.fp32_ops = SCALE_THREADS;
    k.cost.dram_bytes = 8.0 * SCALE_THREADS;
    k.n_ranges = 2;
    k.ranges[0] = (trace_range){(uint64_t)(uintptr_t)in, n * sizeof(float), TRACE_RANGE_READ};
    k.ranges[1] = (trace_range){(uint64_t)(uintptr_t)out, n * sizeof(float), TRACE_RANGE_WRITE};
    CORPUS_CHECK(sim_launch_kernel(&k, s));
}

void corpus_host_read(const void *p, size_t n, const char *what) {
    trace_record_host_access(p, n, false, what, -1, sim_now_ns());
}

void corpus_host_write(const void *p, size_t n, const char *what) {
    trace_record_host_access(p, n, true, what, -1, sim_now_ns());
}
