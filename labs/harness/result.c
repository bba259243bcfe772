/* labs/harness/result.c: the verdict, the student's report and the --json object. */
#include "labs/harness/result.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "labs/harness/bound_recheck.h"
#include "labs/harness/result_schema.h"
#include "labs/harness/wrap.h"

const char *lab_status_name(lab_status status) {
    switch (status) {
    case LAB_STATUS_PASS: return "pass";
    case LAB_STATUS_BELOW_TARGET: return "below_target";
    case LAB_STATUS_INCORRECT: return "incorrect";
    case LAB_STATUS_RACY: return "racy";
    case LAB_STATUS_ERROR: break;
    }
    return "error";
}

const char *lab_metric_name(lab_metric_kind kind) {
    switch (kind) {
    case LAB_METRIC_SPEEDUP: return "speedup";
    case LAB_METRIC_BANDWIDTH: return "bandwidth";
    case LAB_METRIC_LATENCY: return "latency";
    }
    return "speedup";
}

void lab_metric_format(lab_metric_kind kind, double value, char *buf, size_t len) {
    if (kind == LAB_METRIC_LATENCY)
        snprintf(buf, len, "p99 %.3f ms", value);
    else if (kind == LAB_METRIC_BANDWIDTH)
        snprintf(buf, len, "%.1f GB/s", value);
    else
        snprintf(buf, len, "%.2fx", value);
}

const char *lab_item(const lab_spec *spec) { return spec->item && *spec->item ? spec->item : "batch"; }

const char *lab_items(const lab_spec *spec) {
    static char plural[40];
    const char *one = lab_item(spec);
    size_t n = strlen(one);
    bool es = (n >= 2 && (!strcmp(one + n - 2, "ch") || !strcmp(one + n - 2, "sh"))) ||
              (n >= 1 && (one[n - 1] == 's' || one[n - 1] == 'x'));
    snprintf(plural, sizeof(plural), "%.32s%s", one, es ? "es" : "s");
    return plural;
}

void lab_result_latency_summary(lab_result *r) {
    double v[6][4096];
    int n = r->runs < 4096 ? r->runs : 4096;
    for (int who = 0; who < 2; who++) {
        r->background_ops[who] = 0;
        for (int k = 0; k < n; k++) {
            v[0][k] = r->latency[who][k].p50_ms;
            v[1][k] = r->latency[who][k].p99_ms;
            v[2][k] = r->latency[who][k].background_ms;
            v[3][k] = r->latency[who][k].span_ms;
            v[4][k] = r->latency[who][k].host_wait_p99_ms;
            v[5][k] = r->latency[who][k].background_done_ms;
            if (k == 0 || r->latency[who][k].background_ops < r->background_ops[who])
                r->background_ops[who] = r->latency[who][k].background_ops;
        }
        r->p50_ms[who] = lab_spec_median(v[0], n);
        r->p99_ms[who] = lab_spec_median(v[1], n);
        r->background_ms[who] = lab_spec_median(v[2], n);
        r->span_ms[who] = lab_spec_median(v[3], n);
        r->host_wait_p99_ms[who] = lab_spec_median(v[4], n);
        r->background_done_ms[who] = lab_spec_median(v[5], n);
        r->p99_pooled_ms[who] = lab_requests_pooled_p99(r->latency[who], n);
    }
    r->background_ok = true;
    r->background_why[0] = '\0';
    if (!r->spec->is_background) return;
    double tol = r->spec->background_tolerance;
    if (r->background_ops[1] < r->background_ops[0]) {
        r->background_ok = false;
        snprintf(r->background_why, sizeof(r->background_why),
                 "a run of yours did %d of the background's %d operations: call lab_background(ctx, stream) once in "
                 "every run()",
                 r->background_ops[1], r->background_ops[0]);
    } else if (r->background_ms[1] > (1 + tol) * r->background_ms[0]) {
        r->background_ok = false;
        snprintf(r->background_why, sizeof(r->background_why),
                 "the background took %.2f ms, more than %.0f%% longer than the baseline's %.2f ms: urgent work must "
                 "not starve it",
                 r->background_ms[1], 100 * tol, r->background_ms[0]);
    } else if (r->background_done_ms[1] > (1 + tol) * r->background_done_ms[0]) {
        /* As long as the baseline's, but done late: queued after the requests, so that none
         * of them ever met it (the lesson's requests arrive while the background runs). */
        r->background_ok = false;
        snprintf(r->background_why, sizeof(r->background_why),
                 "the background was done %.2f ms after run() began, more than %.0f%% later than the baseline's "
                 "%.2f ms: it must start with run(), so that the requests arrive while it runs; queue it first",
                 r->background_done_ms[1], 100 * tol, r->background_done_ms[0]);
    }
}

bool lab_result_work_missing(const lab_result *r) { return r->work.checked && !r->work.ok; }

void lab_result_decide(lab_result *r) {
    /* A run that failed is not correct, whatever its outputs held when it stopped: an error
     * (a CUDA call's, a run() that returned non-zero, a setup that failed) or a command the
     * referee refused (the program was told it failed, as a CUDA error would). A crash or a
     * timeout ends the lab before any result is written (guard.h). */
    if (r->error[0] || r->refused[0]) r->correct = false;
    if (r->error[0]) {
        r->status = LAB_STATUS_ERROR;
        r->exit_code = LAB_EXIT_FAIL;
    } else if (!r->correct) {
        r->status = LAB_STATUS_INCORRECT;
        r->exit_code = LAB_EXIT_FAIL;
    } else if (r->races > 0) {
        r->status = LAB_STATUS_RACY;
        r->exit_code = LAB_EXIT_FAIL;
    } else if (r->speedup_bound <= 0 || r->speedup < r->target_speedup || (r->measurement.n > 0 && !r->measurement.ok) ||
               (r->latency[0] && !r->background_ok) || lab_result_work_missing(r)) {
        r->status = LAB_STATUS_BELOW_TARGET;
        r->exit_code = LAB_EXIT_BELOW_TARGET;
    } else {
        r->status = LAB_STATUS_PASS;
        r->exit_code = LAB_EXIT_PASS;
    }
}

static void print_mib(double bytes, FILE *out) {
    if (bytes >= 1024.0 * 1024.0)
        fprintf(out, "%.1f MiB", bytes / (1024.0 * 1024.0));
    else
        fprintf(out, "%.1f KiB", bytes / 1024.0);
}

/* The last line: the verdict in words. */
static void print_verdict(const lab_result *r, const char *value, const char *target, FILE *out) {
    const lab_spec *s = r->spec;
    switch (r->status) {
    case LAB_STATUS_PASS:
        if (s->metric == LAB_METRIC_LATENCY)
            fprintf(out, "PASS: correct, race-free, %sand the requests' %s is within the %s target.\n",
                    s->background ? "the whole background done, " : "", value, target + 4);
        else
            fprintf(out, "PASS: correct, race-free, and %s is at or above the %s target.\n", value, target);
        break;
    case LAB_STATUS_BELOW_TARGET:
        if (lab_result_work_missing(r))
            fprintf(out, "BELOW TARGET: correct and race-free, but %s. The lesson: %s\n", r->work.why, s->lesson);
        else if (r->latency[0] && !r->background_ok)
            fprintf(out, "BELOW TARGET: correct and race-free, but %s. The lesson: %s\n", r->background_why, s->lesson);
        else if (s->metric == LAB_METRIC_LATENCY)
            fprintf(out, "BELOW TARGET: correct and race-free, but the requests' %s is above the %s target. The "
                         "lesson: %s\n",
                    value, target + 4, s->lesson);
        else if (r->speedup >= r->target_speedup && r->speedup_bound > 0)
            fprintf(out, "BELOW TARGET: correct, race-free and fast enough (%s), but the time%s you reported %s not what "
                         "the GPU did (see \"measured\" above). The lesson: %s\n",
                    value, r->measurement.n == 1 ? "" : "s", r->measurement.n == 1 ? "is" : "are", s->lesson);
        else
            fprintf(out, "BELOW TARGET: correct and race-free, but %s is below the %s target%s. The lesson: %s\n", value,
                    target, r->measurement.n > 0 && !r->measurement.ok ? ", and a time you reported is not the GPU's" : "",
                    s->lesson);
        break;
    case LAB_STATUS_INCORRECT:
        if (!r->mismatch_run)
            fprintf(out, "FAIL: the referee refused a command of yours (see \"refused\" above).\n");
        else
            fprintf(out, "FAIL: some results are wrong (see \"correct\" above).\n");
        break;
    case LAB_STATUS_RACY:
        fprintf(out, "FAIL: the results were right this time, but nothing guarantees it: fix the races above.\n");
        break;
    case LAB_STATUS_ERROR:
        fprintf(out, "FAIL: the lab could not be checked (see the error above).\n");
        break;
    }
}

/* The waits that held the critical path of the run the timeline shows, the costliest
 * first (labs/harness/facts.c, trace/view/blame.h), into the report's stream, which wraps
 * them (wrap.h). */
#define WAITS_SHOWN 3
static void print_waits(const lab_result *r, FILE *out) {
    const lab_findings *f = &r->findings;
    int shown = 0;
    for (int i = 0; i < f->n_waits && shown < WAITS_SHOWN; i++) {
        const lab_wait_fact *w = &f->waits[i];
        if (!w->on_path || w->cost_ms < LAB_WAIT_SHOWN * f->run_ms) continue;
        char text[400];
        lab_fact_wait_text(f, w, text, sizeof(text));
        fprintf(out, "%s%s\n", shown ? "             " : "  waits      ", text);
        shown++;
    }
}

/* The bound's measurements, when they differ enough to say so (bound_recheck.h). */
static void bound_spread(FILE *out, const lab_result *r) {
    char text[200];
    if (lab_bound_spread_text(r->bound_measured_ms, r->n_bound_measured, text, sizeof(text)))
        fprintf(out, "             %s\n", text);
}

/* The report into out, a stream of w's: its prose is wrapped, the timeline is not. */
static void print_text(const lab_result *r, lab_report_level level, FILE *out, lab_wrap *w) {
    const lab_spec *s = r->spec;
    bool quiet = level != LAB_REPORT_FULL;
    char value[32], target[32];
    lab_metric_format(s->metric, r->value, value, sizeof(value));
    lab_metric_format(s->metric, r->value_target, target, sizeof(target));
    if (level == LAB_REPORT_VERDICT || level == LAB_REPORT_VERDICT_HINT) {
        const char *flag = level == LAB_REPORT_VERDICT_HINT ? "--hint" : "--quiet";
        fprintf(out, "streamlab · %s · ", s->id);
        if (r->status == LAB_STATUS_ERROR) {
            fprintf(out, "FAIL: %s\n", r->error);
            return;
        }
        if (r->status == LAB_STATUS_INCORRECT && !r->mismatch_run)
            fprintf(out, "FAIL: the referee refused a command of yours (run without %s to see which).\n", flag);
        else if (r->status == LAB_STATUS_INCORRECT)
            fprintf(out, "FAIL: some results are wrong (run without %s to see which).\n", flag);
        else if (r->status == LAB_STATUS_RACY)
            fprintf(out, "FAIL: %llu races (run without %s to see them and their fixes).\n",
                    (unsigned long long)r->races, flag);
        else
            print_verdict(r, value, target, out);
        return;
    }
    fprintf(out, "streamlab · %s · %s\n", s->id, s->title);
    if (r->backend.simulated)
        fprintf(out, "yours on the SIMULATED GPU (%s profile: %s) · seed %llu · %d run%s\n", r->backend.profile,
                r->backend.device, (unsigned long long)r->seed, r->runs, r->runs == 1 ? "" : "s");
    else
        fprintf(out, "yours on %s · seed %llu · %d run%s\n", r->backend.device, (unsigned long long)r->seed, r->runs,
                r->runs == 1 ? "" : "s");
    fputc('\n', out);

    if (r->status == LAB_STATUS_ERROR) {
        fprintf(out, "  error      %s\n\n", r->error);
        print_verdict(r, value, target, out);
        return;
    }

    /* correct */
    if (r->correct) {
        fprintf(out, "  correct    yes: %d %s x ", r->workload.batches, r->workload.batches == 1 ? lab_item(s) : lab_items(s));
        print_mib((double)r->workload.batch_bytes, out);
        fprintf(out, ", every bit matches the CPU oracle");
        if (r->schedules > 0) fprintf(out, " (also under %d perturbed schedules)", r->schedules);
        fputc('\n', out);
    } else if (!r->mismatch_run) {
        fprintf(out, "  correct    NO: the referee refused a command of yours (\"refused\" below), so the run "
                     "failed, whatever its results\n");
    } else {
        const lab_mismatch *m = &r->mismatch;
        fprintf(out, "  correct    NO (%s): %s %d, element %zu: got 0x%08x, expected 0x%08x\n",
                r->mismatch_run ? r->mismatch_run : "a run", lab_item(s), m->first_batch, m->first_index, m->got,
                m->expected);
        fprintf(out, "             %zu wrong values in that %s, %d wrong %s of %d;\n", m->wrong_in_first, lab_item(s),
                m->wrong_batches, lab_items(s), r->workload.batches);
        fprintf(out, "             %s\n", m->why);
    }

    /* races */
    if (r->races == 0) {
        fprintf(out, "  races      none\n");
    } else {
        fprintf(out, "  races      %llu found%s\n", (unsigned long long)r->races,
                level == LAB_REPORT_SUMMARY ? " (the JSON result has them and their fixes)"
                      : r->races > r->races_shown ? " (the first ones below)" : " (below)");
    }
    if (s->n_planted > 0) {
        fprintf(out, "  planted    %d of %d races fixed", r->planted_fixed, s->n_planted);
        if (r->other_races) fprintf(out, "; and %llu race report%s of yours that %s none of them",
                                    (unsigned long long)r->other_races, r->other_races == 1 ? "" : "s",
                                    r->other_races == 1 ? "is" : "are");
        fputc('\n', out);
        for (int p = 0; p < s->n_planted && p < LAB_MAX_PLANTED; p++)
            if (r->planted_left >> p & 1u) fprintf(out, "             left: %s\n", s->planted[p].name);
    }

    /* what stream 0 did to your streams, and streams still busy when run() returned */
    if (r->stalls > 0) {
        /* An operation that only waited for your streams delayed stream 0's own work (and
         * whoever waits for stream 0), none of your streams: the line says which did which. */
        const char *ops = r->stalls == 1 ? "" : "s";
        if (r->stalls_held >= r->stalls)
            fprintf(out, "  stream 0   %zu operation%s on the legacy default stream held your streams back:\n",
                    r->stalls, ops);
        else if (r->stalls_held == 0)
            fprintf(out,
                    "  stream 0   %zu operation%s on the legacy default stream waited for your streams, and held "
                    "none of them back:\n",
                    r->stalls, ops);
        else
            fprintf(out,
                    "  stream 0   %zu operations on the legacy default stream: %zu held your streams back, %zu only "
                    "waited for them:\n",
                    r->stalls, r->stalls_held, r->stalls - r->stalls_held);
        for (size_t i = 0; i < r->stalls && i < LAB_MAX_STALLS_SHOWN; i++)
            fprintf(out, "             %s\n", r->stall_text[i]);
        if (r->stalls > LAB_MAX_STALLS_SHOWN)
            fprintf(out, "             (and %zu more)\n", r->stalls - LAB_MAX_STALLS_SHOWN);
    }
    if (r->busy_text[0] && (!r->correct || r->races > 0))
        fprintf(out, "  returned   run() returned while %s still had work that nothing had waited for\n", r->busy_text);

    /* speed */
    char best[32], at_bound[32];
    lab_metric_format(s->metric, r->value_best, best, sizeof(best));
    lab_metric_format(s->metric, r->value_bound, at_bound, sizeof(at_bound));
    if (!r->correct) {
        fprintf(out, "  %-10s %s (median of %d), not counted: %s\n", lab_metric_name(s->metric), value, r->runs,
                r->mismatch_run ? "the results are wrong" : "the run failed");
    } else if (lab_result_work_missing(r)) {
        fprintf(out, "  %-10s %s (median of %d), not counted: your run did not do the lab's work on the device (%s)\n",
                lab_metric_name(s->metric), value, r->runs,
                r->races > 0 ? "see \"work\" below" : "the last line says what was missing");
    } else if (r->speedup_bound > 0) {
        fprintf(out, "  %-10s %s (median of %d; best %s)   target %s   %s\n", lab_metric_name(s->metric), value, r->runs,
                best, target, r->speedup >= r->target_speedup ? "reached" : "NOT reached");
        fprintf(out, "  %-10s %.0f%% of the %s %s: %s\n", s->bound_label ? s->bound_label : "bound",
                100.0 * r->bound_fraction, s->bound_name ? s->bound_name : "bound", at_bound, r->bound.detail);
        bound_spread(out, r);
    } else {
        fprintf(out, "  %-10s %s (median of %d); the %s could not be measured\n", lab_metric_name(s->metric), value,
                r->runs, s->bound_name ? s->bound_name : "bound");
    }
    if (r->latency[0]) {
        fprintf(out, "  requests   %d, arriving every %.2f ms from %.2f ms into run(): p50 %.3f ms, p99 %.3f ms (the "
                     "baseline: p50 %.3f, p99 %.3f ms)\n",
                r->workload.batches, s->request_every_us / 1e3, s->request_first_us / 1e3, r->p50_ms[1], r->p99_ms[1],
                r->p50_ms[0], r->p99_ms[0]);
        if (r->span_ms[0] > 0 && r->span_ms[1] > 0)
            fprintf(out, "  throughput %.1f requests a ms, from the first arrival to the last download (the baseline: "
                         "%.1f; they arrive at %.1f a ms)\n",
                    r->workload.batches / r->span_ms[1], r->workload.batches / r->span_ms[0],
                    s->request_every_us > 0 ? 1e3 / s->request_every_us : 0);
        if (s->background) {
            fprintf(out, "  background %s: %.2f ms (the baseline's %.2f ms), %d operation%s\n",
                    r->background_ok ? "done" : "NOT right", r->background_ms[1], r->background_ms[0],
                    r->background_ops[1], r->background_ops[1] == 1 ? "" : "s");
            if (!r->background_ok) fprintf(out, "             %s\n", r->background_why);
        }
    }
    if (r->correct && r->work.why[0] && (!lab_result_work_missing(r) || r->status != LAB_STATUS_BELOW_TARGET))
        fprintf(out, "  work       %s\n", r->work.why);
    if (r->refused[0]) fprintf(out, "  refused    the referee refused: %s\n", r->refused);
    fprintf(out, "  time       baseline %.3f ms, yours %.3f ms (medians%s)", r->baseline_median_ms, r->yours_median_ms,
            s->metric == LAB_METRIC_LATENCY ? " of the p99 latency" : "");
    if (s->metric == LAB_METRIC_BANDWIDTH) fprintf(out, ", a speedup of %.2fx", r->speedup);
    if (r->have_metrics && r->devices_busy[0])
        fprintf(out, "; engines busy: %s", r->devices_busy);
    else if (r->have_metrics)
        fprintf(out, "; engines busy: H2D %.0f%%, compute %.0f%%, D2H %.0f%%; overlap %.0f%%", 100 * r->util_h2d,
                100 * r->util_compute, 100 * r->util_d2h, 100 * r->overlap);
    fputc('\n', out);
    if (lab_host_memory_worth_showing(&r->host, s)) lab_host_memory_print(&r->host, out);
    if (r->correct) lab_measurement_print(&r->measurement, out);
    print_waits(r, out);
    if (!r->backend.simulated && r->timeline_apart)
        fprintf(out,
                "  timing     the bound and the timed runs: %s, so tracing does not slow what is graded; the "
                "timeline: a traced run of each after them, not timed, with %s\n",
                s->metric == LAB_METRIC_LATENCY
                    ? "each operation's end from a CUDA event recorded after it (what the requests' latencies "
                      "need), not CUPTI"
                    : "untraced (operations recorded for the race checker, no device times)",
                r->backend.timing);
    else if (!r->backend.simulated)
        fprintf(out, "  timing     the timed runs were traced: %s\n", r->backend.timing);

    if (!quiet) {
        for (size_t i = 0; i < r->races_shown; i++) {
            char buf[2048];
            trace_race_format(&r->race[i], buf, sizeof(buf));
            fputs("\n  ", out);
            for (const char *p = buf; *p; p++) {
                fputc(*p, out);
                if (*p == '\n' && p[1]) fputs("          ", out);
            }
        }
        if (r->timeline) {
            fprintf(out, "\n%s:\n", r->timeline_apart ? "your traced run (after the timed runs)" : "your last run");
            lab_wrap_verbatim(w, r->timeline);
        }
    }
    fputc('\n', out);
    print_verdict(r, value, target, out);
}

void lab_result_print_text(const lab_result *r, lab_report_level level, FILE *out) {
    lab_wrap w;
    FILE *wrapped = lab_wrap_begin(&w, out, LAB_WRAP_COLUMNS);
    print_text(r, level, wrapped, &w);
    lab_wrap_end(&w);
}

/* Every wait of the run the timeline shows, the costliest on its critical path first. */
static cJSON *blame_json(const lab_findings *f) {
    cJSON *b = cJSON_CreateObject();
    cJSON_AddNumberToObject(b, "run_ms", f->run_ms);
    cJSON *waits = cJSON_AddArrayToObject(b, "waits");
    for (int i = 0; i < f->n_waits; i++) {
        const lab_wait_fact *w = &f->waits[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "call", w->call);
        cJSON_AddStringToObject(o, "held", w->host ? "host" : "stream");
        if (w->line[0]) cJSON_AddStringToObject(o, "line", w->line);
        cJSON_AddNumberToObject(o, "times", w->times);
        cJSON_AddNumberToObject(o, "on_path", w->on_path);
        cJSON_AddNumberToObject(o, "cost_ms", w->cost_ms);
        cJSON_AddNumberToObject(o, "held_ms", w->held_ms);
        cJSON_AddBoolToObject(o, "in_loop", w->in_loop);
        if (w->not_ready > 0) cJSON_AddNumberToObject(o, "not_ready", w->not_ready); /* a poll */
        cJSON_AddItemToArray(waits, o);
    }
    const lab_wait_fact *costly = lab_fact_costly_wait(f);
    if (costly) {
        char text[400];
        lab_fact_wait_text(f, costly, text, sizeof(text));
        cJSON_AddStringToObject(b, "costly_wait", text);
    }
    return b;
}

static cJSON *ms_array(const double *v, int n) {
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < n; i++) cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
    return a;
}

/* A call site to look up after the run, as "0x..." (addr2line's form). */
static void add_site(cJSON *o, const char *key, uint64_t site) {
    if (!site) return;
    char hex[24];
    snprintf(hex, sizeof(hex), "0x%" PRIx64, site);
    cJSON_AddStringToObject(o, key, hex);
}

static cJSON *race_json(const trace_race *race, const uint64_t site[4]) {
    cJSON *o = cJSON_CreateObject();
    char buf[256];
    cJSON_AddStringToObject(o, LAB_KEY_RACE_KIND, trace_race_kind_name(race->kind));
    trace_race_op_describe(&race->first, buf, sizeof(buf));
    cJSON_AddStringToObject(o, LAB_KEY_RACE_FIRST, buf);
    cJSON_AddStringToObject(o, LAB_KEY_RACE_FIRST_STREAM, race->first.stream_name);
    if (race->first.line[0]) cJSON_AddStringToObject(o, LAB_KEY_RACE_FIRST_LINE, race->first.line);
    add_site(o, LAB_KEY_RACE_FIRST_SITE, site[0]);
    trace_race_op_describe(&race->second, buf, sizeof(buf));
    cJSON_AddStringToObject(o, LAB_KEY_RACE_SECOND, buf);
    cJSON_AddStringToObject(o, LAB_KEY_RACE_SECOND_STREAM, race->second.stream_name);
    if (race->second.line[0]) cJSON_AddStringToObject(o, LAB_KEY_RACE_SECOND_LINE, race->second.line);
    add_site(o, LAB_KEY_RACE_SECOND_SITE, site[1]);
    if (race->early_event) {
        cJSON *e = cJSON_AddObjectToObject(o, "early_record");
        cJSON_AddNumberToObject(e, "event", (double)race->early_event);
        if (race->early_event_name[0]) cJSON_AddStringToObject(e, "event_name", race->early_event_name);
        if (race->early_record_line[0]) cJSON_AddStringToObject(e, "line", race->early_record_line);
    }
    if (race->wrong_event) {
        /* The event the second side's stream waited on, recorded on another stream than the
         * first side's: which stream, and the lines of the record and of the wait. */
        cJSON *e = cJSON_AddObjectToObject(o, "wrong_stream_record");
        cJSON_AddNumberToObject(e, "event", (double)race->wrong_event);
        if (race->wrong_event_name[0]) cJSON_AddStringToObject(e, "event_name", race->wrong_event_name);
        cJSON_AddStringToObject(e, "recorded_on", race->wrong_record_stream_name);
        if (race->wrong_record_line[0]) cJSON_AddStringToObject(e, "record_line", race->wrong_record_line);
        if (race->wrong_wait_line[0]) cJSON_AddStringToObject(e, "wait_line", race->wrong_wait_line);
    }
    if (race->wait_fault != TRACE_WAIT_FAULT_NONE) {
        /* The wait that should have ordered the two, and what is wrong with it: the event it
         * waits on, the stream that waits ("host" for the host, with its call), its line, and
         * the record that marks the first side (for "other_event", of another event; for
         * "missing", the record no wait takes). */
        cJSON *e = cJSON_AddObjectToObject(o, LAB_KEY_RACE_BLAMED_WAIT);
        cJSON_AddStringToObject(e, LAB_KEY_BLAMED_FAULT, trace_race_wait_fault_name(race->wait_fault));
        cJSON_AddNumberToObject(e, "event", (double)race->wait_event);
        if (race->wait_event_name[0]) cJSON_AddStringToObject(e, "event_name", race->wait_event_name);
        cJSON_AddStringToObject(e, LAB_KEY_BLAMED_STREAM, race->wait_on_host ? "host" : race->wait_stream_name);
        if (race->wait_call[0]) cJSON_AddStringToObject(e, "call", race->wait_call);
        if (race->wait_line[0]) cJSON_AddStringToObject(e, LAB_KEY_BLAMED_WAIT_LINE, race->wait_line);
        add_site(e, LAB_KEY_BLAMED_WAIT_SITE, site[2]);
        if (race->mark_event != race->wait_event) {
            cJSON_AddNumberToObject(e, "marking_event", (double)race->mark_event);
            if (race->mark_event_name[0]) cJSON_AddStringToObject(e, "marking_event_name", race->mark_event_name);
        }
        if (race->mark_record_line[0]) cJSON_AddStringToObject(e, LAB_KEY_BLAMED_RECORD_LINE, race->mark_record_line);
        add_site(e, LAB_KEY_BLAMED_RECORD_SITE, site[3]);
    }
    cJSON_AddNumberToObject(o, LAB_KEY_RACE_BYTES, (double)race->bytes);
    cJSON_AddStringToObject(o, LAB_KEY_RACE_FIX, race->fix);
    if (race->multi_device) {
        /* A program on several devices: the devices of each side's stream and of the bytes
         * (-1: host memory). */
        cJSON_AddNumberToObject(o, "first_device", race->first.stream_device);
        cJSON_AddNumberToObject(o, "second_device", race->second.stream_device);
        cJSON_AddNumberToObject(o, "buffer_device", race->buffer_device);
    }
    return o;
}

/* The work your runs did on the device against what the lab requires (work.h). */
static cJSON *work_json(const lab_result *r) {
    const lab_work_verdict *v = &r->work;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, LAB_KEY_WORK_CHECKED, v->checked);
    cJSON_AddBoolToObject(o, LAB_KEY_WORK_OK, v->ok);
    if (v->why[0]) cJSON_AddStringToObject(o, LAB_KEY_WORK_WHY, v->why);
    cJSON *missing = cJSON_AddArrayToObject(o, "missing");
    cJSON *required = cJSON_AddObjectToObject(o, "required");
    cJSON *yours = cJSON_AddObjectToObject(o, "yours");
    for (int k = 0; k < LAB_WORK_KINDS; k++) {
        if (!(v->judged & LAB_WORK_BIT(k))) continue;
        const char *key = lab_work_kind_key((lab_work_kind)k);
        cJSON_AddNumberToObject(required, key, (double)v->required[k]);
        cJSON_AddNumberToObject(yours, key, (double)v->done[k]);
        if (v->missing & LAB_WORK_BIT(k)) cJSON_AddItemToArray(missing, cJSON_CreateString(key));
    }
    if (!v->ok && r->correct) {
        /* What was measured, and does not count (speedup and bound_fraction above are 0). */
        cJSON *m = cJSON_AddObjectToObject(o, "measured");
        cJSON_AddNumberToObject(m, "speedup", r->speedup_measured);
        cJSON_AddNumberToObject(m, "bound_fraction", r->bound_fraction_measured);
    }
    return o;
}

cJSON *lab_result_json(const lab_result *r) {
    cJSON *o = cJSON_CreateObject();
    /* First, so that a reader knows how to read the rest (result_schema.h). */
    cJSON_AddNumberToObject(o, LAB_KEY_VERSION, LAB_RESULT_VERSION);
    cJSON_AddStringToObject(o, LAB_KEY_LAB, r->spec->id);
    cJSON_AddStringToObject(o, LAB_KEY_BACKEND, r->backend.name ? r->backend.name : "");
    cJSON_AddStringToObject(o, LAB_KEY_PROFILE, r->backend.profile);
    cJSON_AddStringToObject(o, LAB_KEY_DEVICE, r->backend.device);
    cJSON_AddBoolToObject(o, LAB_KEY_SIMULATED, r->backend.simulated);
    /* The seed's own digits: a double would print a 64-bit seed as 2.66937219686299e+15. */
    char seed[24];
    snprintf(seed, sizeof(seed), "%llu", (unsigned long long)r->seed);
    cJSON_AddRawToObject(o, LAB_KEY_SEED, seed);
    cJSON_AddStringToObject(o, LAB_KEY_STATUS, lab_status_name(r->status));
    cJSON_AddBoolToObject(o, LAB_KEY_PASSED, r->status == LAB_STATUS_PASS);
    cJSON_AddNumberToObject(o, LAB_KEY_EXIT_CODE, r->exit_code);
    if (r->error[0]) cJSON_AddStringToObject(o, LAB_KEY_ERROR, r->error);
    cJSON_AddBoolToObject(o, LAB_KEY_CORRECT, r->correct);
    if (!r->correct && r->mismatch_run && r->mismatch.first_batch >= 0) {
        cJSON *m = cJSON_AddObjectToObject(o, LAB_KEY_FIRST_MISMATCH);
        cJSON_AddStringToObject(m, LAB_KEY_MISMATCH_RUN, r->mismatch_run ? r->mismatch_run : "");
        cJSON_AddNumberToObject(m, LAB_KEY_MISMATCH_BATCH, r->mismatch.first_batch);
        cJSON_AddNumberToObject(m, LAB_KEY_MISMATCH_INDEX, (double)r->mismatch.first_index);
        cJSON_AddNumberToObject(m, LAB_KEY_MISMATCH_GOT, r->mismatch.got);
        cJSON_AddNumberToObject(m, LAB_KEY_MISMATCH_EXPECTED, r->mismatch.expected);
        cJSON_AddNumberToObject(m, LAB_KEY_MISMATCH_WRONG_BATCHES, r->mismatch.wrong_batches);
        cJSON_AddStringToObject(m, LAB_KEY_MISMATCH_WHY, r->mismatch.why);
    }
    cJSON_AddNumberToObject(o, LAB_KEY_RACES, (double)r->races);
    if (r->spec->n_planted > 0) {
        cJSON *p = cJSON_AddObjectToObject(o, LAB_KEY_PLANTED_RACES);
        cJSON_AddNumberToObject(p, LAB_KEY_PLANTED_TOTAL, r->spec->n_planted);
        cJSON_AddNumberToObject(p, LAB_KEY_PLANTED_FIXED, r->planted_fixed);
        cJSON_AddNumberToObject(p, LAB_KEY_PLANTED_OTHER, (double)r->other_races);
        cJSON *left = cJSON_AddArrayToObject(p, LAB_KEY_PLANTED_LEFT);
        for (int k = 0; k < r->spec->n_planted && k < LAB_MAX_PLANTED; k++)
            if (r->planted_left >> k & 1u) cJSON_AddItemToArray(left, cJSON_CreateString(r->spec->planted[k].name));
    }
    cJSON *races = cJSON_AddArrayToObject(o, LAB_KEY_RACE_REPORTS);
    for (size_t i = 0; i < r->races_shown; i++) cJSON_AddItemToArray(races, race_json(&r->race[i], r->race_site[i]));
    cJSON_AddNumberToObject(o, LAB_KEY_SPEEDUP, r->speedup);
    cJSON_AddNumberToObject(o, LAB_KEY_SPEEDUP_BEST, r->speedup_best);
    cJSON_AddNumberToObject(o, LAB_KEY_TARGET, r->target_speedup);
    cJSON_AddNumberToObject(o, LAB_KEY_TARGET_BOUND_FRACTION, r->spec->target_bound_fraction);
    /* "pipeline_bound" and "pipeline_ms" are the speedup at the bound and the bound's time
     * under their first names (lab 03's), which readers of older results know. */
    cJSON_AddNumberToObject(o, LAB_KEY_PIPELINE_BOUND, r->speedup_bound);
    cJSON_AddNumberToObject(o, LAB_KEY_PIPELINE_MS, r->ideal_ms);
    cJSON_AddNumberToObject(o, LAB_KEY_BOUND_FRACTION, r->bound_fraction);
    cJSON *metric = cJSON_AddObjectToObject(o, LAB_KEY_METRIC);
    cJSON_AddStringToObject(metric, LAB_KEY_METRIC_NAME, lab_metric_name(r->spec->metric));
    cJSON_AddStringToObject(metric, LAB_KEY_METRIC_UNIT, r->spec->metric == LAB_METRIC_BANDWIDTH ? "GB/s"
                                            : r->spec->metric == LAB_METRIC_LATENCY ? "ms"
                                                                                     : "x");
    cJSON_AddNumberToObject(metric, LAB_KEY_METRIC_VALUE, r->value);
    cJSON_AddNumberToObject(metric, LAB_KEY_METRIC_BEST, r->value_best);
    cJSON_AddNumberToObject(metric, LAB_KEY_METRIC_BOUND, r->value_bound);
    cJSON_AddNumberToObject(metric, LAB_KEY_METRIC_TARGET, r->value_target);
    if (lab_result_work_missing(r)) cJSON_AddBoolToObject(metric, LAB_KEY_METRIC_COUNTED, false);
    if (r->work.checked || r->work.why[0]) cJSON_AddItemToObject(o, LAB_KEY_WORK, work_json(r));
    if (r->refused[0]) cJSON_AddStringToObject(o, LAB_KEY_REFUSED, r->refused);
    cJSON *bound = cJSON_AddObjectToObject(o, LAB_KEY_BOUND);
    cJSON_AddStringToObject(bound, LAB_KEY_BOUND_NAME, r->spec->bound_name ? r->spec->bound_name : "bound");
    cJSON_AddNumberToObject(bound, LAB_KEY_BOUND_SPEEDUP, r->speedup_bound);
    cJSON_AddNumberToObject(bound, LAB_KEY_BOUND_IDEAL_MS, r->ideal_ms);
    cJSON_AddStringToObject(bound, LAB_KEY_BOUND_DETAIL, r->bound.detail);
    if (r->n_bound_measured > 1)
        cJSON_AddItemToObject(bound, LAB_KEY_BOUND_MEASURED_MS, ms_array(r->bound_measured_ms, r->n_bound_measured));
    cJSON_AddNumberToObject(o, LAB_KEY_RUNS, r->runs);
    cJSON_AddNumberToObject(o, LAB_KEY_BATCHES, r->workload.batches);
    cJSON_AddNumberToObject(o, LAB_KEY_SCHEDULES, r->schedules);
    if (r->schedule_failed) cJSON_AddNumberToObject(o, LAB_KEY_SCHEDULE_FAILED, r->schedule_failed);
    cJSON *t = cJSON_AddObjectToObject(o, LAB_KEY_TIMINGS);
    cJSON_AddItemToObject(t, LAB_KEY_TIMINGS_BASELINE_MS, ms_array(r->baseline_ms, r->baseline_ms ? r->runs : 0));
    cJSON_AddItemToObject(t, LAB_KEY_TIMINGS_YOURS_MS, ms_array(r->yours_ms, r->yours_ms ? r->runs : 0));
    cJSON_AddNumberToObject(t, "baseline_median_ms", r->baseline_median_ms);
    cJSON_AddNumberToObject(t, "yours_median_ms", r->yours_median_ms);
    cJSON_AddNumberToObject(t, "baseline_best_ms", r->baseline_best_ms);
    cJSON_AddNumberToObject(t, "yours_best_ms", r->yours_best_ms);
    if (r->bound_ok && r->bound.n_figures > 0) {
        cJSON *p = cJSON_AddObjectToObject(o, r->bound.figures_key ? r->bound.figures_key : LAB_KEY_BOUND_FIGURES);
        for (size_t i = 0; i < r->bound.n_figures; i++)
            cJSON_AddNumberToObject(p, r->bound.figures[i].key, r->bound.figures[i].value);
    }
    if (r->have_metrics) {
        cJSON *m = cJSON_AddObjectToObject(o, LAB_KEY_METRICS);
        cJSON_AddNumberToObject(m, LAB_KEY_METRICS_MAKESPAN_MS, r->makespan_ms);
        cJSON_AddNumberToObject(m, LAB_KEY_METRICS_OVERLAP, r->overlap);
        cJSON_AddNumberToObject(m, LAB_KEY_METRICS_UTIL_H2D, r->util_h2d);
        cJSON_AddNumberToObject(m, LAB_KEY_METRICS_UTIL_COMPUTE, r->util_compute);
        cJSON_AddNumberToObject(m, LAB_KEY_METRICS_UTIL_D2H, r->util_d2h);
    }
    cJSON_AddStringToObject(o, LAB_KEY_TIMING_SOURCE, r->backend.timing);
    cJSON *stalls = cJSON_AddObjectToObject(o, LAB_KEY_STREAM0_STALLS);
    cJSON_AddNumberToObject(stalls, "count", (double)r->stalls);
    cJSON_AddNumberToObject(stalls, "held", (double)r->stalls_held);
    cJSON *lines = cJSON_AddArrayToObject(stalls, "first");
    for (size_t i = 0; i < r->stalls && i < LAB_MAX_STALLS_SHOWN; i++)
        cJSON_AddItemToArray(lines, cJSON_CreateString(r->stall_text[i]));
    if (r->busy_text[0]) cJSON_AddStringToObject(o, LAB_KEY_BUSY_AT_RETURN, r->busy_text);
    if (lab_host_memory_worth_showing(&r->host, r->spec))
        cJSON_AddItemToObject(o, LAB_KEY_HOST_MEMORY, lab_host_memory_json(&r->host));
    if (r->latency[0]) {
        cJSON *l = cJSON_AddObjectToObject(o, LAB_KEY_LATENCY);
        cJSON_AddNumberToObject(l, "requests", r->workload.batches);
        cJSON_AddNumberToObject(l, "p50_ms", r->p50_ms[1]);
        cJSON_AddNumberToObject(l, "p99_ms", r->p99_ms[1]);
        cJSON_AddNumberToObject(l, "baseline_p50_ms", r->p50_ms[0]);
        cJSON_AddNumberToObject(l, "baseline_p99_ms", r->p99_ms[0]);
        cJSON_AddNumberToObject(l, "p99_all_runs_ms", r->p99_pooled_ms[1]);
        cJSON_AddNumberToObject(l, "baseline_p99_all_runs_ms", r->p99_pooled_ms[0]);
        cJSON_AddNumberToObject(l, "host_wait_p99_ms", r->host_wait_p99_ms[1]);
        cJSON_AddNumberToObject(l, "baseline_host_wait_p99_ms", r->host_wait_p99_ms[0]);
        cJSON_AddNumberToObject(l, "span_ms", r->span_ms[1]);
        cJSON_AddNumberToObject(l, "baseline_span_ms", r->span_ms[0]);
        cJSON_AddNumberToObject(l, "throughput_per_ms", r->span_ms[1] > 0 ? r->workload.batches / r->span_ms[1] : 0);
        cJSON_AddNumberToObject(l, "baseline_throughput_per_ms",
                                r->span_ms[0] > 0 ? r->workload.batches / r->span_ms[0] : 0);
        cJSON_AddNumberToObject(l, "background_ms", r->background_ms[1]);
        cJSON_AddNumberToObject(l, "baseline_background_ms", r->background_ms[0]);
        cJSON_AddNumberToObject(l, "background_done_ms", r->background_done_ms[1]);
        cJSON_AddNumberToObject(l, "baseline_background_done_ms", r->background_done_ms[0]);
        cJSON_AddNumberToObject(l, "background_ops", r->background_ops[1]);
        cJSON_AddBoolToObject(l, LAB_KEY_LATENCY_BACKGROUND_OK, r->background_ok);
        if (r->background_why[0]) cJSON_AddStringToObject(l, LAB_KEY_LATENCY_BACKGROUND_WHY, r->background_why);
    }
    cJSON *measurement = lab_measurement_json(&r->measurement);
    if (measurement) cJSON_AddItemToObject(o, LAB_KEY_MEASUREMENT, measurement);
    if (r->spec->n_steps > 0) {
        cJSON *st = cJSON_AddObjectToObject(o, LAB_KEY_STEPS);
        cJSON_AddNumberToObject(st, "of", r->spec->n_steps);
        cJSON_AddNumberToObject(st, "done", r->step < 0 ? r->spec->n_steps : r->step);
        if (r->step >= 0) {
            cJSON_AddStringToObject(st, "next", r->spec->steps[r->step].todo);
            cJSON_AddStringToObject(st, "what_to_do", r->spec->steps[r->step].next);
        }
        if (r->advice_why[0]) cJSON_AddStringToObject(st, "why", r->advice_why);
    }
    if (r->advice_beyond[0]) cJSON_AddStringToObject(o, LAB_KEY_NEXT, r->advice_beyond);
    if (r->findings.n_waits > 0) cJSON_AddItemToObject(o, LAB_KEY_BLAME, blame_json(&r->findings));
    /* The run (the "run" of its ops on the event stream) the metrics and timeline describe. */
    if (r->timeline_run > 0) cJSON_AddNumberToObject(o, LAB_KEY_TIMELINE_RUN, r->timeline_run);
    /* Which run each figure comes from: the timed runs give the times and the metric; the
     * timeline, the engines' use, stalls and stage times come from timeline_run, which is
     * your last timed run, or a traced run of its own when the timed runs went untraced. */
    cJSON_AddStringToObject(o, LAB_KEY_TIMELINE_FROM, r->timeline_apart ? "traced_run" : "last_timed_run");
    cJSON_AddBoolToObject(o, LAB_KEY_TIMED_RUNS_TRACED, !r->timeline_apart);
    /* How the timed runs were timed: "traced" (as the timeline), "none" (no device times:
     * the run's length is host-timed), "cuda_events" (each operation's end: a lab of
     * requests with background work on a GPU), "cuda_events_copies_to_host" (each copy
     * to the host's end: a lab of requests on a GPU). */
    cJSON_AddStringToObject(o, LAB_KEY_TIMED_RUNS_TIMING,
                            !r->timeline_apart                      ? "traced"
                            : r->spec->metric != LAB_METRIC_LATENCY ? "none"
                            : r->spec->is_background                ? "cuda_events"
                                                                    : "cuda_events_copies_to_host");
    return o;
}
