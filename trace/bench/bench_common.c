/* trace/bench/bench_common.c: shared benchmark helpers (see bench_common.h). */
#define _POSIX_C_SOURCE 200809L
#include "trace/bench/bench_common.h"

#include "cli/cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trace/record/recorder.h"

double bench_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

uint64_t bench_parse_ops(int argc, char **argv, uint64_t default_ops, const char *what) {
    static const struct option opts[] = {{"ops", required_argument, NULL, 'n'}, {"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
    uint64_t ops = default_ops;
    int c;
    while ((c = getopt_long(argc, argv, "n:h", opts, NULL)) != -1) {
        if (c == 'n') {
            long long v;
            if (!cli_int(optarg, 1, 100000000, &v)) {
                fprintf(stderr, "%s: --ops wants a whole number from 1 to 100000000, not \"%s\"\n", argv[0], optarg);
                exit(2);
            }
            ops = (uint64_t)v;
        } else {
            fprintf(c == 'h' ? stdout : stderr, "usage: %s [--ops N]\n%s\n", argv[0], what);
            exit(c == 'h' ? 0 : 2);
        }
    }
    return ops;
}

uint64_t bench_pipeline(uint64_t n_ops, int n_streams) {
    enum { MAX_STREAMS = 16, BUF = 1 << 20 };
    if (n_streams > MAX_STREAMS) n_streams = MAX_STREAMS;
    static char handles[MAX_STREAMS], events[MAX_STREAMS];
    /* Fake addresses: one host staging, device in, device out and host result per stream. */
    uint64_t base = 0x100000000ull;
    for (int s = 0; s < n_streams; s++) {
        trace_stream_created(&handles[s], 0, 0);
        trace_event_created(&events[s], 0);
    }
    uint64_t recorded = 0, t = 0;
    for (int32_t batch = 0; recorded < n_ops; batch++) {
        int s = batch % n_streams;
        uint64_t host_in = base + (uint64_t)s * 4 * BUF, dev_in = host_in + BUF, dev_out = dev_in + BUF,
                 host_out = dev_out + BUF;
        trace_record_host_access((void *)(uintptr_t)host_in, BUF, true, "lab_load_batch", batch, t);
        recorded++;
        trace_op op;
        memset(&op, 0, sizeof(op));
        op.kind = TRACE_OP_COPY;
        op.dir = TRACE_COPY_H2D;
        op.engine = TRACE_ENGINE_H2D;
        op.batch = -1;
        op.bytes = BUF;
        op.pinned = true;
        op.enqueue_ns = t;
        trace_op_add_range(&op, (void *)(uintptr_t)host_in, BUF, TRACE_RANGE_READ);
        trace_op_add_range(&op, (void *)(uintptr_t)dev_in, BUF, TRACE_RANGE_WRITE);
        uint64_t h2d = trace_record(&op, &handles[s]);
        memset(&op, 0, sizeof(op));
        op.kind = TRACE_OP_KERNEL;
        op.engine = TRACE_ENGINE_COMPUTE;
        op.batch = -1;
        snprintf(op.name, sizeof(op.name), "process");
        op.grid[0] = 132;
        op.block[0] = 256;
        trace_op_add_range(&op, (void *)(uintptr_t)dev_in, BUF, TRACE_RANGE_READ);
        trace_op_add_range(&op, (void *)(uintptr_t)dev_out, BUF, TRACE_RANGE_WRITE);
        uint64_t k = trace_record(&op, &handles[s]);
        memset(&op, 0, sizeof(op));
        op.kind = TRACE_OP_COPY;
        op.dir = TRACE_COPY_D2H;
        op.engine = TRACE_ENGINE_D2H;
        op.batch = -1;
        op.bytes = BUF;
        op.pinned = true;
        trace_op_add_range(&op, (void *)(uintptr_t)dev_out, BUF, TRACE_RANGE_READ);
        trace_op_add_range(&op, (void *)(uintptr_t)host_out, BUF, TRACE_RANGE_WRITE);
        uint64_t d2h = trace_record(&op, &handles[s]);
        trace_record_event_record(&events[s], &handles[s], t);
        trace_record_stream_wait(&handles[(s + 1) % n_streams], &events[s], t);
        recorded += 5;
        trace_op_timed(h2d, t, t + 1000);
        trace_op_timed(k, t + 1000, t + 2000);
        trace_op_timed(d2h, t + 2000, t + 3000);
        t += 1000;
        if (batch % n_streams == n_streams - 1) {
            trace_record_sync(TRACE_SYNC_STREAM, &handles[s], "cudaStreamSynchronize", t, t + 2000);
            trace_record_host_access((void *)(uintptr_t)host_out, BUF, false, "lab_store_batch", batch, t + 2000);
            recorded += 2;
        }
    }
    return recorded;
}
