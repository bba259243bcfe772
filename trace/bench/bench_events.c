/* trace/bench/bench_events.c: what the live event stream costs: the writer sink on a
 * pipeline's ops (to a temporary file), and the reader on what it wrote. Prints the figures. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "trace/bench/bench_common.h"
#include "trace/stream/events_reader.h"
#include "trace/stream/events_writer.h"
#include "trace/record/recorder.h"

int main(int argc, char **argv) {
    uint64_t n = bench_parse_ops(argc, argv, 1000000, "Streams a double-buffered pipeline's ops as JSON lines, then "
                                                      "reads them back.");
    char path[] = "/tmp/streamlab_bench_events_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) {
        perror("mkstemp");
        return 1;
    }
    unlink(path);
    trace_reset();
    double t0 = bench_now();
    uint64_t ops = bench_pipeline(n, 4);
    double bare = bench_now() - t0;
    trace_reset();
    trace_events_writer *w = trace_events_writer_create(fd, NULL);
    trace_events_writer_install(w);
    t0 = bench_now();
    ops = bench_pipeline(n, 4);
    trace_events_flush(w);
    double written = bench_now() - t0;
    uint64_t lines = trace_events_writer_lines(w);
    trace_events_writer_destroy(w);
    trace_reset();
    off_t size = lseek(fd, 0, SEEK_END);
    printf("recorder only:             %llu ops in %.3f s (%.0f ns/op)\n", (unsigned long long)ops, bare,
           bare * 1e9 / (double)ops);
    printf("recorder + event writer:   %llu ops in %.3f s (%.0f ns/op), %llu lines, %.1f MB\n", (unsigned long long)ops,
           written, written * 1e9 / (double)ops, (unsigned long long)lines, (double)size / 1e6);

    lseek(fd, 0, SEEK_SET);
    trace_events_reader *r = trace_events_reader_create(NULL);
    char *buf = malloc(1 << 16);
    ssize_t k;
    uint64_t records = 0, errors = 0;
    t0 = bench_now();
    while ((k = read(fd, buf, 1 << 16)) > 0) {
        trace_events_reader_feed(r, buf, (size_t)k);
        trace_event ev;
        char err[256];
        int rc;
        while ((rc = trace_events_reader_next(r, &ev, err, sizeof(err))) != 0) rc > 0 ? records++ : errors++;
    }
    double read_s = bench_now() - t0;
    printf("reader:                    %llu records (%llu errors) in %.3f s (%.0f ns/line)\n",
           (unsigned long long)records, (unsigned long long)errors, read_s, read_s * 1e9 / (double)(records + errors));
    free(buf);
    trace_events_reader_destroy(r);
    close(fd);
    return errors ? 1 : 0;
}
