/* labs/harness/measure.c: reported stage times against the device's (see measure.h). */
#include "labs/harness/measure.h"

#include <math.h>
#include <string.h>

#include "labs/harness/result_schema.h"

void lab_measurement_check(lab_measurement *m, const lab_spec *spec, const lab_workload *w,
                           const lab_reported reported[LAB_MAX_STAGES], trace_timeline *tl, int32_t run) {
    memset(m, 0, sizeof(*m));
    m->n = spec->n_stages < LAB_MAX_STAGES ? spec->n_stages : LAB_MAX_STAGES;
    m->ok = true;
    size_t n = tl ? trace_timeline_count(tl) : 0;
    /* Whether the run read events at all: a time far too short then comes from events that
     * do not span the stage, not from a host clock. */
    for (size_t k = 0; k < n && m->n > 0; k++) {
        const trace_op *op = trace_timeline_get(tl, k);
        m->event_reads +=
            trace_timeline_in_run(op, run) && op->kind == TRACE_OP_API && !strcmp(op->name, "cudaEventElapsedTime");
    }
    for (int i = 0; i < m->n; i++) {
        const lab_stage *st = &spec->stages[i];
        lab_stage_check *c = &m->stage[i];
        c->name = st->name;
        double ns = 0;
        for (size_t k = 0; k < n; k++) {
            const trace_op *op = trace_timeline_get(tl, k);
            if (!trace_timeline_in_run(op, run) || !op->timed || !st->has_op(op, w)) continue;
            ns += (double)(op->end_ns - op->start_ns);
            c->ops++;
        }
        c->device_ms = ns / 1e6;
        const lab_reported *r = &reported[i];
        c->reported = r->set && r->run == run;
        c->reported_ms = c->reported ? r->ms : 0;
        /* Events recorded on the stage's stream just before and just after each op span the
         * op and its set-up: what they give may exceed the device's time by the slack, never
         * fall short of it by more than their resolution. */
        double over = st->tolerance * c->device_ms + st->slack_us_per_op * c->ops / 1e3;
        double under = st->tolerance * c->device_ms + LAB_EVENT_RESOLUTION_US * c->ops / 1e3;
        double off = c->reported_ms - c->device_ms;
        bool near = off <= over && off >= -under;
        if (!c->reported) {
            snprintf(c->why, sizeof(c->why),
                     "not reported: call lab_report_ms(ctx, \"%s\", ms) in run(), with the GPU time of the %s", st->name,
                     st->what);
        } else if (!(c->reported_ms == c->reported_ms) || isinf(c->reported_ms)) {
            snprintf(c->why, sizeof(c->why), "you reported %g ms, which is not a time", c->reported_ms);
        } else if (near && m->event_reads == 0) {
            /* Close, but not measured on the GPU: a host clock around a launch and a wait
             * counts the launch and the wait's wake-up too, and lands near the device's time
             * only where the work is long next to them. What the stage asks for is the
             * device's own time, which only events (or a profiler) give. */
            snprintf(c->why, sizeof(c->why),
                     "you reported %.3f ms, near the %.3f ms the GPU ran its %d %s, but your run read no event "
                     "(no cudaEventElapsedTime): a host clock counts the launch and the wait too, and is near only "
                     "when the work is long. Time them on the GPU, with events",
                     c->reported_ms, c->device_ms, c->ops, st->what);
        } else if (near) {
            c->ok = true;
            snprintf(c->why, sizeof(c->why), "you reported %.3f ms; the GPU ran its %d %s for %.3f ms: right", c->reported_ms,
                     c->ops, st->what, c->device_ms);
        } else if (off < -under && m->event_reads > 0) {
            snprintf(c->why, sizeof(c->why),
                     "you reported %.3f ms, but the GPU ran its %d %s for %.3f ms: the events you read do not span "
                     "them (recorded on another stream, around other work, or read before both completed). Record "
                     "each pair on their stream, just before and just after each",
                     c->reported_ms, c->ops, st->what, c->device_ms);
        } else if (c->reported_ms < 0.5 * c->device_ms) {
            snprintf(c->why, sizeof(c->why),
                     "you reported %.3f ms, but the GPU ran its %d %s for %.3f ms: a host clock around asynchronous "
                     "calls measures how long they took to queue, not to run. Time them on the GPU, with events",
                     c->reported_ms, c->ops, st->what, c->device_ms);
        } else {
            snprintf(c->why, sizeof(c->why),
                     "you reported %.3f ms, but the GPU ran its %d %s for %.3f ms (allowed: %.3f ms less, %.3f ms "
                     "more): time exactly those, with an event just before and one just after each",
                     c->reported_ms, c->ops, st->what, c->device_ms, under, over);
        }
        m->ok &= c->ok;
    }
}

void lab_measurement_print(const lab_measurement *m, FILE *out) {
    for (int i = 0; i < m->n; i++)
        fprintf(out, "  %-10s \"%s\": %s%s\n", i == 0 ? "measured" : "", m->stage[i].name, m->stage[i].ok ? "" : "NOT right: ",
                m->stage[i].why);
}

cJSON *lab_measurement_json(const lab_measurement *m) {
    if (m->n == 0) return NULL;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, LAB_KEY_MEASUREMENT_OK, m->ok);
    cJSON *a = cJSON_AddArrayToObject(o, LAB_KEY_MEASUREMENT_STAGES);
    for (int i = 0; i < m->n; i++) {
        const lab_stage_check *c = &m->stage[i];
        cJSON *s = cJSON_CreateObject();
        cJSON_AddStringToObject(s, LAB_KEY_STAGE_NAME, c->name);
        cJSON_AddBoolToObject(s, LAB_KEY_STAGE_REPORTED, c->reported);
        cJSON_AddNumberToObject(s, LAB_KEY_STAGE_REPORTED_MS, c->reported_ms == c->reported_ms ? c->reported_ms : -1);
        cJSON_AddNumberToObject(s, LAB_KEY_STAGE_DEVICE_MS, c->device_ms);
        cJSON_AddNumberToObject(s, LAB_KEY_STAGE_OPS, c->ops);
        cJSON_AddBoolToObject(s, LAB_KEY_STAGE_OK, c->ok);
        cJSON_AddStringToObject(s, LAB_KEY_STAGE_WHY, c->why);
        cJSON_AddItemToArray(a, s);
    }
    return o;
}
