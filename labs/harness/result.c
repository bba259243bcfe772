/* labs/harness/result.c: the verdict, the student's report and the --json object. */
#include "labs/harness/result.h"

#include <string.h>

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

void lab_result_decide(lab_result *r) {
    if (r->error[0]) {
        r->status = LAB_STATUS_ERROR;
        r->exit_code = LAB_EXIT_FAIL;
    } else if (!r->correct) {
        r->status = LAB_STATUS_INCORRECT;
        r->exit_code = LAB_EXIT_FAIL;
    } else if (r->races > 0) {
        r->status = LAB_STATUS_RACY;
        r->exit_code = LAB_EXIT_FAIL;
    } else if (r->pipeline_bound <= 0 || r->speedup < r->target_speedup) {
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

void lab_result_print_text(const lab_result *r, bool quiet, FILE *out) {
    const lab_spec *s = r->spec;
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
        fprintf(out, "FAIL: the lab could not be checked (see the error above).\n");
        return;
    }

    /* correct */
    if (r->correct) {
        fprintf(out, "  correct    yes: %d batches x ", r->workload.batches);
        print_mib((double)r->workload.batch_bytes, out);
        fprintf(out, ", every bit matches the CPU oracle");
        if (r->schedules > 0) fprintf(out, " (also under %d perturbed schedules)", r->schedules);
        fputc('\n', out);
    } else {
        const lab_mismatch *m = &r->mismatch;
        fprintf(out, "  correct    NO (%s): batch %d, element %zu: got 0x%08x, expected 0x%08x\n",
                r->mismatch_run ? r->mismatch_run : "a run", m->first_batch, m->first_index, m->got, m->expected);
        fprintf(out, "             %zu wrong values in that batch, %d wrong batches of %d;\n", m->wrong_in_first,
                m->wrong_batches, r->workload.batches);
        fprintf(out, "             %s\n", m->why);
    }

    /* races */
    if (r->races == 0) {
        fprintf(out, "  races      none\n");
    } else {
        fprintf(out, "  races      %llu found%s\n", (unsigned long long)r->races,
                quiet ? " (run without --quiet to see them and their fixes)"
                      : r->races > r->races_shown ? " (the first ones below)" : " (below)");
    }

    /* speed */
    if (r->pipeline_bound > 0) {
        fprintf(out, "  speedup    %.2fx (median of %d; best %.2fx)   target %.2fx   %s\n", r->speedup, r->runs,
                r->speedup_best, r->target_speedup, r->speedup >= r->target_speedup ? "reached" : "NOT reached");
        fprintf(out, "  pipeline   %.0f%% of the pipeline bound %.2fx: a perfect pipeline takes %.3f ms (per batch "
                     "on its own: H2D %.0f us, kernel %.0f us, D2H %.0f us)\n",
                100.0 * r->bound_fraction, r->pipeline_bound, r->pipeline_ms, r->phases.h2d_ns / 1e3,
                r->phases.kernel_ns / 1e3, r->phases.d2h_ns / 1e3);
    } else {
        fprintf(out, "  speedup    %.2fx (median of %d); the pipeline bound could not be measured\n", r->speedup,
                r->runs);
    }
    fprintf(out, "  time       baseline %.3f ms, yours %.3f ms (medians)", r->baseline_median_ms, r->yours_median_ms);
    if (r->have_metrics)
        fprintf(out, "; engines busy: H2D %.0f%%, compute %.0f%%, D2H %.0f%%; overlap %.0f%%", 100 * r->util_h2d,
                100 * r->util_compute, 100 * r->util_d2h, 100 * r->overlap);
    fputc('\n', out);
    if (!r->backend.simulated) fprintf(out, "  timing     %s\n", r->backend.timing);

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
        if (r->timeline) fprintf(out, "\nyour last run:\n%s", r->timeline);
    }
    fputc('\n', out);
    switch (r->status) {
    case LAB_STATUS_PASS:
        fprintf(out, "PASS: correct, race-free, and %.2fx is at or above the %.2fx target.\n", r->speedup,
                r->target_speedup);
        break;
    case LAB_STATUS_BELOW_TARGET:
        fprintf(out, "BELOW TARGET: correct and race-free, but %.2fx is below the %.2fx target. The lesson: %s\n",
                r->speedup, r->target_speedup, s->lesson);
        break;
    case LAB_STATUS_INCORRECT:
        fprintf(out, "FAIL: some results are wrong (see \"correct\" above).\n");
        break;
    case LAB_STATUS_RACY:
        fprintf(out, "FAIL: the results were right this time, but nothing guarantees it: fix the races above.\n");
        break;
    case LAB_STATUS_ERROR:
        break;
    }
}

static cJSON *ms_array(const double *v, int n) {
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < n; i++) cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
    return a;
}

static cJSON *race_json(const trace_race *race) {
    cJSON *o = cJSON_CreateObject();
    char buf[256];
    cJSON_AddStringToObject(o, "kind", trace_race_kind_name(race->kind));
    trace_race_op_describe(&race->first, buf, sizeof(buf));
    cJSON_AddStringToObject(o, "first", buf);
    cJSON_AddStringToObject(o, "first_stream", race->first.stream_name);
    trace_race_op_describe(&race->second, buf, sizeof(buf));
    cJSON_AddStringToObject(o, "second", buf);
    cJSON_AddStringToObject(o, "second_stream", race->second.stream_name);
    cJSON_AddNumberToObject(o, "bytes", (double)race->bytes);
    cJSON_AddStringToObject(o, "fix", race->fix);
    return o;
}

cJSON *lab_result_json(const lab_result *r) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "lab", r->spec->id);
    cJSON_AddStringToObject(o, "backend", r->backend.name ? r->backend.name : "");
    cJSON_AddStringToObject(o, "profile", r->backend.profile);
    cJSON_AddStringToObject(o, "device", r->backend.device);
    cJSON_AddBoolToObject(o, "simulated", r->backend.simulated);
    cJSON_AddNumberToObject(o, "seed", (double)r->seed);
    cJSON_AddStringToObject(o, "status", lab_status_name(r->status));
    cJSON_AddBoolToObject(o, "passed", r->status == LAB_STATUS_PASS);
    cJSON_AddNumberToObject(o, "exit_code", r->exit_code);
    if (r->error[0]) cJSON_AddStringToObject(o, "error", r->error);
    cJSON_AddBoolToObject(o, "correct", r->correct);
    if (!r->correct && r->mismatch.first_batch >= 0) {
        cJSON *m = cJSON_AddObjectToObject(o, "first_mismatch");
        cJSON_AddStringToObject(m, "run", r->mismatch_run ? r->mismatch_run : "");
        cJSON_AddNumberToObject(m, "batch", r->mismatch.first_batch);
        cJSON_AddNumberToObject(m, "index", (double)r->mismatch.first_index);
        cJSON_AddNumberToObject(m, "got", r->mismatch.got);
        cJSON_AddNumberToObject(m, "expected", r->mismatch.expected);
        cJSON_AddNumberToObject(m, "wrong_batches", r->mismatch.wrong_batches);
        cJSON_AddStringToObject(m, "why", r->mismatch.why);
    }
    cJSON_AddNumberToObject(o, "races", (double)r->races);
    cJSON *races = cJSON_AddArrayToObject(o, "race_reports");
    for (size_t i = 0; i < r->races_shown; i++) cJSON_AddItemToArray(races, race_json(&r->race[i]));
    cJSON_AddNumberToObject(o, "speedup", r->speedup);
    cJSON_AddNumberToObject(o, "speedup_best", r->speedup_best);
    cJSON_AddNumberToObject(o, "target", r->target_speedup);
    cJSON_AddNumberToObject(o, "target_bound_fraction", r->spec->target_bound_fraction);
    cJSON_AddNumberToObject(o, "pipeline_bound", r->pipeline_bound);
    cJSON_AddNumberToObject(o, "pipeline_ms", r->pipeline_ms);
    cJSON_AddNumberToObject(o, "bound_fraction", r->bound_fraction);
    cJSON_AddNumberToObject(o, "runs", r->runs);
    cJSON_AddNumberToObject(o, "schedules", r->schedules);
    if (r->schedule_failed) cJSON_AddNumberToObject(o, "schedule_failed", r->schedule_failed);
    cJSON *t = cJSON_AddObjectToObject(o, "timings");
    cJSON_AddItemToObject(t, "baseline_ms", ms_array(r->baseline_ms, r->baseline_ms ? r->runs : 0));
    cJSON_AddItemToObject(t, "yours_ms", ms_array(r->yours_ms, r->yours_ms ? r->runs : 0));
    cJSON_AddNumberToObject(t, "baseline_median_ms", r->baseline_median_ms);
    cJSON_AddNumberToObject(t, "yours_median_ms", r->yours_median_ms);
    cJSON_AddNumberToObject(t, "baseline_best_ms", r->baseline_best_ms);
    cJSON_AddNumberToObject(t, "yours_best_ms", r->yours_best_ms);
    if (r->phases_ok) {
        cJSON *p = cJSON_AddObjectToObject(o, "phases_us");
        cJSON_AddNumberToObject(p, "h2d", r->phases.h2d_ns / 1e3);
        cJSON_AddNumberToObject(p, "kernel", r->phases.kernel_ns / 1e3);
        cJSON_AddNumberToObject(p, "d2h", r->phases.d2h_ns / 1e3);
        cJSON_AddNumberToObject(p, "bidir_factor", r->phases.bidir_factor);
    }
    if (r->have_metrics) {
        cJSON *m = cJSON_AddObjectToObject(o, "metrics");
        cJSON_AddNumberToObject(m, "makespan_ms", r->makespan_ms);
        cJSON_AddNumberToObject(m, "overlap", r->overlap);
        cJSON_AddNumberToObject(m, "util_h2d", r->util_h2d);
        cJSON_AddNumberToObject(m, "util_compute", r->util_compute);
        cJSON_AddNumberToObject(m, "util_d2h", r->util_d2h);
    }
    cJSON_AddStringToObject(o, "timing_source", r->backend.timing);
    /* The run (the "run" of its ops on the event stream) the metrics and timeline describe. */
    if (r->timeline_run > 0) cJSON_AddNumberToObject(o, "timeline_run", r->timeline_run);
    return o;
}
