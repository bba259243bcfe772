/* tui/session.c: one lab program's event stream, runs and ending (see session.h). */
#define _POSIX_C_SOURCE 200809L
#include "tui/session.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cli/cli.h"

const char *tui_variant_name(tui_variant v) { return v == TUI_REFERENCE ? "reference" : "yours"; }

tui_session *tui_session_create(const char *lab, tui_variant variant) {
    tui_session *s = calloc(1, sizeof(*s));
    if (!s) return NULL;
    s->output = calloc(1, sizeof(tui_textlog));
    s->reader = trace_events_reader_create(NULL);
    if (!s->output || !s->reader) {
        free(s->output);
        trace_events_reader_destroy(s->reader);
        free(s);
        return NULL;
    }
    snprintf(s->lab, sizeof(s->lab), "%s", lab);
    s->variant = variant;
    return s;
}

static void clear(tui_session *s) {
    for (int32_t i = 0; i < s->n_runs; i++) tui_run_destroy(s->runs[i]);
    free(s->runs);
    free(s->streams);
    free(s->known);
    free(s->races);
    cJSON_Delete(s->result);
    s->runs = NULL;
    s->streams = NULL;
    s->known = NULL;
    s->races = NULL;
    s->result = NULL;
    s->n_runs = s->n_streams = 0;
    s->n_races = s->cap_races = 0;
}

void tui_session_destroy(tui_session *s) {
    if (!s) return;
    clear(s);
    trace_events_reader_destroy(s->reader);
    free(s->output);
    free(s);
}

void tui_session_reset(tui_session *s) {
    clear(s);
    trace_events_reader_destroy(s->reader);
    s->reader = trace_events_reader_create(NULL);
    s->state = TUI_SESSION_IDLE;
    s->have_hello = false;
    memset(&s->hello, 0, sizeof(s->hello));
    s->progress[0] = '\0';
    s->done = s->total = 0;
    s->have_bye = false;
    memset(&s->bye, 0, sizeof(s->bye));
    s->lines = s->ops = s->bad_lines = 0;
    s->first_bad[0] = '\0';
    s->status[0] = '\0';
    s->ended = false;
    s->exit_code = 0;
    s->started_ms = s->last_event_ms = 0;
    tui_textlog_clear(s->output);
    s->version++;
}

void tui_session_started(tui_session *s, const char *nonce, double now_ms) {
    trace_events_reader *r = trace_events_reader_create(nonce);
    if (r) {
        trace_events_reader_destroy(s->reader);
        s->reader = r;
    }
    s->state = TUI_SESSION_RUNNING;
    s->started_ms = s->last_event_ms = now_ms;
    snprintf(s->status, sizeof(s->status), "starting %s", tui_variant_name(s->variant));
    s->version++;
}

void tui_session_waiting(tui_session *s, const char *why) {
    s->state = TUI_SESSION_WAITING;
    snprintf(s->status, sizeof(s->status), "%s", why);
    s->version++;
}

void tui_session_start_failed(tui_session *s, const char *why) {
    s->state = TUI_SESSION_FAILED;
    snprintf(s->status, sizeof(s->status), "could not start the lab: %s", why);
    s->version++;
}

void tui_session_bad_line(tui_session *s, const char *err) {
    if (s->bad_lines++ == 0) snprintf(s->first_bad, sizeof(s->first_bad), "%s", err);
    s->version++;
}

static void drain(tui_session *s, double now_ms) {
    if (!s->reader) return;
    trace_event ev;
    char err[256];
    int rc;
    while ((rc = trace_events_reader_next(s->reader, &ev, err, sizeof(err))) != 0) {
        if (rc < 0)
            tui_session_bad_line(s, err);
        else
            tui_session_event(s, &ev, now_ms);
    }
}

void tui_session_feed(tui_session *s, const void *bytes, size_t n, double now_ms) {
    if (!s->reader) return;
    trace_events_reader_feed(s->reader, bytes, n);
    drain(s, now_ms);
}

void tui_session_end_of_stream(tui_session *s, double now_ms) {
    if (!s->reader) return;
    trace_events_reader_end(s->reader);
    drain(s, now_ms);
}

void tui_session_output(tui_session *s, const void *bytes, size_t n) {
    tui_textlog_feed(s->output, bytes, n);
    s->version++;
}

tui_run *tui_session_run(const tui_session *s, int32_t n) {
    if (n < 0 || n >= s->n_runs) return NULL;
    return s->runs[n];
}

/* Run n, created (with every stream known so far) when new. */
static tui_run *run_slot(tui_session *s, int32_t n) {
    if (n < 0 || n > (1 << 24)) return NULL;
    if (n >= s->n_runs) {
        int32_t size = n + 1 > 2 * s->n_runs ? n + 1 : 2 * s->n_runs;
        tui_run **r = realloc(s->runs, (size_t)size * sizeof(tui_run *));
        if (!r) return NULL;
        memset(r + s->n_runs, 0, (size_t)(size - s->n_runs) * sizeof(tui_run *));
        s->runs = r;
        s->n_runs = size;
    }
    if (!s->runs[n]) {
        tui_run *run = tui_run_create(n);
        if (!run) return NULL;
        for (int32_t i = 0; i < s->n_streams; i++)
            if (s->known[i]) tui_run_add_stream(run, &s->streams[i]);
        s->runs[n] = run;
    }
    return s->runs[n];
}

static void add_stream(tui_session *s, const trace_stream *st) {
    if (st->id < 0 || st->id > TRACE_EVENTS_MAX_STREAM) return;
    if (st->id >= s->n_streams) {
        int32_t n = st->id + 1;
        trace_stream *a = realloc(s->streams, (size_t)n * sizeof(trace_stream));
        if (!a) return;
        s->streams = a;
        bool *k = realloc(s->known, (size_t)n * sizeof(bool));
        if (!k) return;
        s->known = k;
        memset(s->known + s->n_streams, 0, (size_t)(n - s->n_streams) * sizeof(bool));
        s->n_streams = n;
    }
    s->streams[st->id] = *st;
    s->known[st->id] = true;
    for (int32_t i = 0; i < s->n_runs; i++)
        if (s->runs[i]) tui_run_add_stream(s->runs[i], st);
}

static void add_race(tui_session *s, const trace_race *race) {
    if (s->n_races == s->cap_races) {
        size_t cap = s->cap_races ? 2 * s->cap_races : 16;
        trace_race *r = realloc(s->races, cap * sizeof(trace_race));
        if (!r) return;
        s->races = r;
        s->cap_races = cap;
    }
    s->races[s->n_races++] = *race;
    const trace_race_op *side[2] = {&race->first, &race->second};
    for (int i = 0; i < 2; i++) {
        tui_run *run = run_slot(s, side[i]->run);
        if (run) tui_run_mark_racy(run, side[i]->id);
    }
    tui_run *owner = run_slot(s, race->second.run >= 0 ? race->second.run : race->first.run);
    if (owner) owner->races++;
}

/* The run this phase timed: its own run number, else the latest run the harness named so. */
static void add_phase(tui_session *s, const trace_event_phase *ph) {
    tui_run *run = ph->run >= 0 ? run_slot(s, ph->run) : NULL;
    for (int32_t i = s->n_runs - 1; !run && i >= 0; i--)
        if (s->runs[i] && strcmp(s->runs[i]->label, ph->name) == 0) run = s->runs[i];
    if (run) tui_run_set_phase(run, ph->start_ns, ph->end_ns);
}

/* The harness announces each run with a progress record whose done count is the number of
 * runs before it ("run 3/5 (yours)", done 4): that names run done + 1. */
static void add_progress(tui_session *s, const trace_event_progress *pr) {
    snprintf(s->progress, sizeof(s->progress), "%s", pr->text);
    s->done = pr->done;
    s->total = pr->total;
    if ((strstr(pr->text, "(yours)") || strstr(pr->text, "(baseline)")) && pr->done >= 0 && pr->done < (1 << 24)) {
        tui_run *run = run_slot(s, (int32_t)pr->done + 1);
        if (run) tui_run_set_label(run, pr->text);
    }
}

void tui_session_event(tui_session *s, const trace_event *ev, double now_ms) {
    s->lines++;
    s->last_event_ms = now_ms;
    switch (ev->type) {
    case TRACE_EVENT_HELLO:
        s->hello = ev->u.hello;
        s->have_hello = true;
        break;
    case TRACE_EVENT_STREAM: add_stream(s, &ev->u.stream); break;
    case TRACE_EVENT_OP:
        s->ops++;
        if (ev->u.op.run >= 0) {
            tui_run *run = run_slot(s, ev->u.op.run);
            if (run) {
                if (!run->label[0]) snprintf(run->label, sizeof(run->label), "run %d", (int)run->number);
                tui_run_add_op(run, &ev->u.op);
            }
        }
        break;
    case TRACE_EVENT_RACE: add_race(s, &ev->u.race); break;
    case TRACE_EVENT_PHASE: add_phase(s, &ev->u.phase); break;
    case TRACE_EVENT_PROGRESS: add_progress(s, &ev->u.progress); break;
    case TRACE_EVENT_RESULT:
        if (ev->result && cJSON_IsObject(ev->result)) {
            cJSON_Delete(s->result);
            s->result = cJSON_Duplicate(ev->result, 1);
        }
        break;
    case TRACE_EVENT_BYE:
        s->bye = ev->u.bye;
        s->have_bye = true;
        break;
    }
    s->version++;
}

tui_run *tui_session_latest(const tui_session *s, tui_role role) {
    /* Once the lab has reported, yours is the run its report describes (its last timed run,
     * not a perturbed schedule after it). */
    if (role == TUI_ROLE_YOURS && s->result) {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(s->result, "timeline_run");
        tui_run *r = cJSON_IsNumber(n) ? tui_session_run(s, (int32_t)n->valuedouble) : NULL;
        if (r && r->any) return r;
    }
    for (int32_t i = s->n_runs - 1; i >= 0; i--) {
        tui_run *r = s->runs[i];
        if (r && r->any && (role == TUI_ROLE_OTHER || r->role == role)) return r;
    }
    return NULL;
}

void tui_session_run_name(const tui_session *s, const tui_run *run, char *buf, size_t size) {
    const char *yours = strstr(run->label, "(yours)");
    if (s->variant == TUI_REFERENCE && yours)
        snprintf(buf, size, "%.*s(reference)%s", (int)(yours - run->label), run->label, yours + 7);
    else
        snprintf(buf, size, "%s", run->label);
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Median of the timed runs of this role; 0 when none. */
static double median_phase(const tui_session *s, tui_role role) {
    uint64_t *v = malloc(((size_t)s->n_runs + 1) * sizeof(uint64_t));
    if (!v) return 0;
    size_t n = 0;
    for (int32_t i = 0; i < s->n_runs; i++) {
        const tui_run *r = s->runs[i];
        if (r && r->timed && r->role == role && r->have_phase && r->phase_ns > 0) v[n++] = r->phase_ns;
    }
    double m = 0;
    if (n > 0) {
        qsort(v, n, sizeof(uint64_t), cmp_u64);
        m = n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2.0;
    }
    free(v);
    return m;
}

bool tui_session_live_speedup(const tui_session *s, double *speedup) {
    double base = median_phase(s, TUI_ROLE_BASELINE), yours = median_phase(s, TUI_ROLE_YOURS);
    if (base <= 0 || yours <= 0) return false;
    *speedup = base / yours;
    return true;
}

size_t tui_session_races_in(const tui_session *s, int32_t run) {
    const tui_run *r = tui_session_run(s, run);
    return r ? r->races : 0;
}

const char *tui_session_result_status(const tui_session *s) {
    if (!s->result) return NULL;
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s->result, "status"));
}

bool tui_session_result_number(const tui_session *s, const char *key, double *out) {
    if (!s->result) return false;
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(s->result, key);
    if (!cJSON_IsNumber(n)) return false;
    *out = n->valuedouble;
    return true;
}

static void metric_value(double v, const char *unit, char *buf, size_t len) {
    if (!strcmp(unit, "x"))
        snprintf(buf, len, "%.2fx", v);
    else if (!strcmp(unit, "ms"))
        snprintf(buf, len, "p99 %.3f ms", v); /* a latency (lab 04): the target is a most */
    else
        snprintf(buf, len, "%.1f %s", v, unit);
}

bool tui_session_metric_text(const tui_session *s, bool with_target, bool short_form, char *buf, size_t len) {
    if (!s->result) return false;
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(s->result, "metric");
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "name"));
    const char *unit = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "unit"));
    const cJSON *value = cJSON_GetObjectItemCaseSensitive(m, "value");
    const cJSON *target = cJSON_GetObjectItemCaseSensitive(m, "target");
    char v[48], t[48];
    if (name && unit && cJSON_IsNumber(value)) {
        metric_value(value->valuedouble, unit, v, sizeof(v));
        if (short_form)
            snprintf(buf, len, "%s", v);
        else if (with_target && cJSON_IsNumber(target) && target->valuedouble > 0) {
            metric_value(target->valuedouble, unit, t, sizeof(t));
            snprintf(buf, len, "%s %s (target %s)", name, v, t);
        } else
            snprintf(buf, len, "%s %s", name, v);
        return true;
    }
    /* A result from before labs named their metric: the speedup. */
    double sp = 0, tg = 0;
    if (!tui_session_result_number(s, "speedup", &sp)) return false;
    if (short_form)
        snprintf(buf, len, "%.2fx", sp);
    else if (with_target && tui_session_result_number(s, "target", &tg) && tg > 0)
        snprintf(buf, len, "speedup %.2fx (target %.2fx)", sp, tg);
    else
        snprintf(buf, len, "speedup %.2fx", sp);
    return true;
}

const char *tui_session_verdict(const tui_session *s) {
    const char *st = tui_session_result_status(s);
    if (!st) return NULL;
    if (!strcmp(st, "pass")) return "PASS";
    if (!strcmp(st, "below_target")) return "BELOW TARGET";
    if (!strcmp(st, "incorrect")) return "FAIL: incorrect";
    if (!strcmp(st, "racy")) return "FAIL: racy";
    return "ERROR";
}

bool tui_session_passed(const tui_session *s) {
    const char *st = tui_session_result_status(s);
    return st && !strcmp(st, "pass");
}

void tui_session_backend(const tui_session *s, char *buf, size_t size) {
    if (!s->have_hello) {
        snprintf(buf, size, "%s", "");
        return;
    }
    if (!strcmp(s->hello.backend, "sim"))
        snprintf(buf, size, "simulated %s", s->hello.profile[0] ? s->hello.profile : "GPU");
    else
        snprintf(buf, size, "%s", s->hello.device[0] ? s->hello.device : s->hello.backend);
}

/* "crash: SIGSEGV in run (yours)" (the harness's bye reason) -> "SIGSEGV in run() of your lab". */
static void describe_fatal(const tui_session *s, const char *rest, char *buf, size_t size) {
    char detail[128] = "", phase[64] = "", who[32] = "";
    const char *in = strstr(rest, " in ");
    const char *open = strrchr(rest, '(');
    if (!in || !open || open < in) {
        snprintf(buf, size, "%s", rest);
        return;
    }
    snprintf(detail, sizeof(detail), "%.*s", (int)(in - rest), rest);
    int plen = (int)(open - (in + 4));
    while (plen > 0 && in[4 + plen - 1] == ' ') plen--;
    snprintf(phase, sizeof(phase), "%.*s", plen, in + 4);
    snprintf(who, sizeof(who), "%.*s", (int)strcspn(open + 1, ")"), open + 1);
    bool callback = !strcmp(phase, "setup") || !strcmp(phase, "run") || !strcmp(phase, "teardown");
    const char *owner = !strcmp(who, "yours")      ? (s->variant == TUI_REFERENCE ? "of the reference" : "of your lab")
                        : !strcmp(who, "baseline") ? "of the baseline"
                                                   : "of the harness";
    if (!strcmp(detail, "timeout") || !strcmp(detail, "exit"))
        snprintf(buf, size, "in %s%s %s", phase, callback ? "()" : "", owner);
    else
        snprintf(buf, size, "%s in %s%s %s", detail, phase, callback ? "()" : "", owner);
}

void tui_session_exited(tui_session *s, int wait_status) {
    tui_textlog_flush(s->output);
    double code_in_result = 0;
    s->ended = true;
    if (tui_session_result_number(s, "exit_code", &code_in_result))
        s->exit_code = (int)code_in_result;
    else if (WIFEXITED(wait_status))
        s->exit_code = WEXITSTATUS(wait_status);
    else if (WIFSIGNALED(wait_status))
        s->exit_code = 128 + WTERMSIG(wait_status);
    else
        s->exit_code = 1;
    const char *last = tui_textlog_last(s->output);
    char what[200];
    if (s->have_bye && !strncmp(s->bye.reason, "crash: ", 7)) {
        describe_fatal(s, s->bye.reason + 7, what, sizeof(what));
        snprintf(s->status, sizeof(s->status), "lab crashed: %s", what);
        s->state = TUI_SESSION_FAILED;
    } else if (s->have_bye && !strncmp(s->bye.reason, "timeout: ", 9)) {
        describe_fatal(s, s->bye.reason + 9, what, sizeof(what));
        snprintf(s->status, sizeof(s->status), "lab timed out %s (--timeout)", what);
        s->state = TUI_SESSION_FAILED;
    } else if (s->have_bye && !strncmp(s->bye.reason, "exit: ", 6)) {
        describe_fatal(s, s->bye.reason + 6, what, sizeof(what));
        snprintf(s->status, sizeof(s->status), "lab called exit() %s", what);
        s->state = TUI_SESSION_FAILED;
    } else if (s->result) {
        const cJSON *err = cJSON_GetObjectItemCaseSensitive(s->result, "error");
        double code = 0;
        bool have_code = tui_session_result_number(s, "exit_code", &code);
        if (cJSON_IsString(err))
            snprintf(s->status, sizeof(s->status), "lab error: %s", err->valuestring);
        else
            snprintf(s->status, sizeof(s->status), "finished: %s (exit %d)", tui_session_verdict(s),
                     have_code ? (int)code : (WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1));
        s->state = TUI_SESSION_DONE;
    } else if (WIFSIGNALED(wait_status)) {
        int sig = WTERMSIG(wait_status);
        const char *name = cli_signal_name(sig);
        char num[16];
        snprintf(num, sizeof(num), "signal %d", sig);
        snprintf(s->status, sizeof(s->status), "lab %s by %s before it finished%s%.150s",
                 sig == SIGKILL || sig == SIGTERM || sig == SIGINT || sig == SIGHUP ? "killed" : "crashed",
                 name ? name : num, last ? ": " : "", last ? last : "");
        s->state = TUI_SESSION_FAILED;
    } else {
        int code = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
        snprintf(s->status, sizeof(s->status), "lab exited with status %d without a result%s%.150s", code,
                 last ? ": " : "", last ? last : "");
        s->state = TUI_SESSION_FAILED;
    }
    s->version++;
}

/* ---- races: their numbers and the student's lines ---------------------------------------- */

static int32_t race_run(const trace_race *r) { return r->second.run >= 0 ? r->second.run : r->first.run; }

size_t tui_session_race_number(const tui_session *s, size_t i) {
    if (i >= s->n_races) return 0;
    int32_t run = race_run(&s->races[i]);
    size_t n = 1;
    for (size_t j = 0; j < i; j++)
        if (race_run(&s->races[j]) == run) n++;
    return n;
}

/* text without its " batch N" parts: "kernel process batch 3" -> "kernel process". */
static void without_batch(const char *text, char *out, size_t size) {
    size_t n = 0;
    for (const char *p = text; *p && n + 1 < size;) {
        if (!strncmp(p, " batch ", 7) && p[7] >= '0' && p[7] <= '9') {
            p += 7;
            while (*p >= '0' && *p <= '9') p++;
            continue;
        }
        out[n++] = *p++;
    }
    out[n] = '\0';
}

static const char *json_string(const cJSON *o, const char *key) {
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
}

const char *tui_session_race_line(const tui_session *s, const trace_race *race, bool second) {
    const trace_race_op *side = second ? &race->second : &race->first;
    if (side->line[0]) return side->line;
    const cJSON *reports = s->result ? cJSON_GetObjectItemCaseSensitive(s->result, "race_reports") : NULL;
    if (!cJSON_IsArray(reports)) return NULL;
    char a[TRACE_NAME_MAX + 64], b[TRACE_NAME_MAX + 64];
    trace_race_op_describe(&race->first, a, sizeof(a));
    trace_race_op_describe(&race->second, b, sizeof(b));
    const char *kind = trace_race_kind_name(race->kind);
    /* The same race in the report (the same ops of the same batches, from the same lines). */
    const cJSON *r;
    cJSON_ArrayForEach(r, reports) {
        const char *k = json_string(r, "kind"), *f = json_string(r, "first"), *g = json_string(r, "second");
        const char *fs = json_string(r, "first_stream"), *gs = json_string(r, "second_stream");
        if (!k || !f || !g || !kind || strcmp(k, kind) || strcmp(f, a) || strcmp(g, b)) continue;
        if (fs && strcmp(fs, race->first.stream_name)) continue;
        if (gs && strcmp(gs, race->second.stream_name)) continue;
        const char *line = json_string(r, second ? "second_line" : "first_line");
        if (line && *line) return line;
    }
    /* Else the line the report gives the same operation, when it gives it only one. */
    char want[TRACE_NAME_MAX + 64], have[TRACE_NAME_MAX + 64];
    without_batch(second ? b : a, want, sizeof(want));
    const char *found = NULL;
    cJSON_ArrayForEach(r, reports) {
        for (int k = 0; k < 2; k++) {
            const char *desc = json_string(r, k ? "second" : "first");
            const char *stream = json_string(r, k ? "second_stream" : "first_stream");
            const char *line = json_string(r, k ? "second_line" : "first_line");
            if (!desc || !line || !*line || (stream && strcmp(stream, side->stream_name))) continue;
            without_batch(desc, have, sizeof(have));
            if (strcmp(have, want)) continue;
            if (found && strcmp(found, line)) return NULL; /* two lines issue it: which is unknown */
            found = line;
        }
    }
    return found;
}
