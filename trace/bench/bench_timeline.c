/* trace/bench/bench_timeline.c: the timeline store, metrics and exporters on a long run
 * (target: 100k+ ops handled without noticeable delay). Prints the figures. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/bench/bench_common.h"
#include "trace/view/export_chrome.h"
#include "trace/view/export_text.h"
#include "trace/view/metrics.h"
#include "trace/record/recorder.h"
#include "trace/view/timeline.h"

int main(int argc, char **argv) {
    uint64_t n = bench_parse_ops(argc, argv, 200000, "Stores a double-buffered pipeline's timed ops, then measures "
                                                     "and exports them.");
    trace_reset();
    trace_timeline *tl = trace_timeline_create();
    trace_timeline_install(tl);
    double t0 = bench_now();
    uint64_t ops = bench_pipeline(n, 4);
    double stored = bench_now() - t0;
    t0 = bench_now();
    trace_metrics m;
    trace_metrics_compute(tl, TRACE_RUN_ANY, &m);
    double measured = bench_now() - t0;
    t0 = bench_now();
    cJSON *chrome = trace_export_chrome_json(tl, TRACE_RUN_ANY, NULL, 0);
    char *json = cJSON_PrintUnformatted(chrome);
    double chrome_s = bench_now() - t0;
    t0 = bench_now();
    trace_text_options o = {120, true, TRACE_RUN_ANY, true, 0};
    char *text = trace_export_text(tl, &o);
    double text_s = bench_now() - t0;
    printf("recorded %llu ops, %zu timed ops stored in %.3f s\n", (unsigned long long)ops, trace_timeline_count(tl),
           stored);
    printf("metrics:        %.3f s (overlap %.0f%%, H2D busy %.0f%%)\n", measured, m.overlap * 100,
           m.engine[TRACE_ENGINE_H2D].utilisation * 100);
    printf("chrome export:  %.3f s (%.1f MB)\n", chrome_s, json ? (double)strlen(json) / 1e6 : 0.0);
    printf("text timeline:  %.3f s\n", text_s);
    free(json);
    free(text);
    cJSON_Delete(chrome);
    trace_metrics_free(&m);
    trace_timeline_destroy(tl);
    trace_reset();
    return 0;
}
