/* trace/bench/bench_racecheck.c: how fast the recorder and the race checker take a long
 * op stream (target: a million ops in a few seconds). Prints the figures. */
#include <stdio.h>

#include "trace/bench/bench_common.h"
#include "trace/check/racecheck.h"
#include "trace/record/recorder.h"

int main(int argc, char **argv) {
    uint64_t n = bench_parse_ops(argc, argv, 1000000, "Records a double-buffered pipeline's ops through the recorder "
                                                      "with no sink, then with the race checker installed.");
    trace_reset();
    double t0 = bench_now();
    uint64_t ops = bench_pipeline(n, 4);
    double bare = bench_now() - t0;
    trace_reset();
    trace_racecheck *rc = trace_racecheck_create(0);
    if (!rc || trace_racecheck_install(rc) != 0) {
        fprintf(stderr, "cannot install the race checker\n");
        return 1;
    }
    t0 = bench_now();
    ops = bench_pipeline(n, 4);
    double checked = bench_now() - t0;
    printf("recorder only:             %llu ops in %.3f s (%.0f ns/op)\n", (unsigned long long)ops, bare,
           bare * 1e9 / (double)ops);
    printf("recorder + race checker:   %llu ops in %.3f s (%.0f ns/op), %llu races\n", (unsigned long long)ops,
           checked, checked * 1e9 / (double)ops, (unsigned long long)trace_racecheck_count(rc));
    trace_racecheck_destroy(rc);
    trace_reset();
    return 0;
}
