/* trace/bench/bench_common.h: what the trace benchmarks share: a monotonic clock, the
 * --ops option, and a generator of the op stream a double-buffered lab produces. */
#ifndef STREAMLAB_TRACE_BENCH_COMMON_H
#define STREAMLAB_TRACE_BENCH_COMMON_H

#include <stdint.h>

#include "trace/record/op.h"

/* Seconds on the monotonic clock. */
double bench_now(void);

/* Parses --ops N (default default_ops) and --help; exits with a message on bad input. */
uint64_t bench_parse_ops(int argc, char **argv, uint64_t default_ops, const char *what);

/* Records about n_ops ops through the recorder as a double-buffered pipeline on n_streams
 * streams would: per batch a host write, H2D, kernel, D2H, event record, a cross-stream
 * event wait, and every few batches a stream synchronisation and a host read. Ops get
 * times (virtual, 1 us per phase) as they would from the simulator. Returns the number of
 * ops recorded. */
uint64_t bench_pipeline(uint64_t n_ops, int n_streams);

#endif
