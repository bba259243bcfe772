/* tui/app.c: the main loop (see app.h). */
#define _POSIX_C_SOURCE 200809L
#include "tui/app.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/state.h"
#include "trace/view/export_chrome.h"
#include "tui/draw.h"
#include "tui/runfiles.h"

double tui_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void stamp(tui_app *a) {
    a->model.now_ms = tui_now_ms();
    a->model.wall_now = (long long)time(NULL);
}

int tui_app_init(tui_app *a, const tui_app_options *o, const char *argv0, int cols, int rows, char *err,
                 size_t err_size) {
    memset(a, 0, sizeof(*a));
    a->built_lab = -1;
    a->opt = *o;
    for (int v = 0; v < TUI_VARIANTS; v++) tui_child_init(&a->child[v]);
    a->cols = cols;
    a->rows = rows;
    a->screen = tui_screen_create(cols, rows);
    if (!a->screen) {
        snprintf(err, err_size, "out of memory");
        return -1;
    }
    char hist_err[512] = "";
    char path[4096] = "";
    if (o->history)
        snprintf(path, sizeof(path), "%s", o->history);
    else if (tui_history_default_path(path, sizeof(path)) != 0)
        path[0] = '\0';
    tui_history_open(&a->history, path, hist_err, sizeof(hist_err));
    tui_model_init(&a->model, &a->catalog, &a->history);
    a->model.defer_metrics = true;
    stamp(a);
    if (hist_err[0]) tui_model_say(&a->model, true, "last results: %s", hist_err);

    if (o->replay) {
        int fd = open(o->replay, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            snprintf(err, err_size, "--replay %s: %s", o->replay, strerror(errno));
            return -1;
        }
        a->sessions[TUI_YOURS] = tui_session_create("", TUI_YOURS);
        a->sessions[TUI_REFERENCE] = tui_session_create("", TUI_REFERENCE);
        if (!a->sessions[TUI_YOURS] || !a->sessions[TUI_REFERENCE]) {
            close(fd);
            snprintf(err, err_size, "out of memory");
            return -1;
        }
        tui_child_attach(&a->child[TUI_YOURS], fd);
        tui_session_started(a->sessions[TUI_YOURS], NULL, a->model.now_ms);
        tui_model_open_lab(&a->model, -1, a->sessions[TUI_YOURS], a->sessions[TUI_REFERENCE]);
        const char *base = strrchr(o->replay, '/');
        snprintf(a->model.lab_id, sizeof(a->model.lab_id), "%s", base ? base + 1 : o->replay);
        a->dirty = true;
        return 0;
    }

    char why[4096];
    if (tui_runfiles_root(argv0, "labs/catalog.json", a->runfiles, sizeof(a->runfiles)) != 0) {
        snprintf(why, sizeof(why), "%s", a->runfiles);
        snprintf(err, err_size, "%s", why);
        a->runfiles[0] = '\0';
        return -1;
    }
    char cat_path[4200];
    tui_runfiles_path(a->runfiles, "labs/catalog.json", cat_path, sizeof(cat_path));
    if (tui_catalog_load(cat_path, &a->catalog, why, sizeof(why)) != 0) {
        snprintf(err, err_size, "the lab catalog is broken: %s", why);
        return -1;
    }
    if (o->lab) {
        long i = tui_catalog_find(&a->catalog, o->lab);
        if (i < 0) {
            int at = snprintf(err, err_size, "%s lab '%s'; the labs are:", i == -2 ? "more than one matches" : "no",
                              o->lab);
            for (size_t k = 0; k < a->catalog.n && at > 0 && (size_t)at < err_size; k++)
                at += snprintf(err + at, err_size - (size_t)at, " %s", a->catalog.labs[k].id);
            return -1;
        }
        tui_app_open_lab(a, (int)i);
    }
    a->dirty = true;
    return 0;
}

void tui_app_attach(tui_app *a, tui_term *term) {
    a->term = term;
    a->model.color = tui_term_color(term);
    a->model.utf8 = tui_term_utf8(term);
    a->full = true;
    a->dirty = true;
}

static void stop_variant(tui_app *a, tui_variant v) {
    tui_child_stop(&a->child[v], 300);
    a->queued &= ~(1u << v);
}

void tui_app_open_lab(tui_app *a, int index) {
    if (a->model.lab == index && a->sessions[TUI_YOURS]) {
        a->model.mode = TUI_MODE_TIMELINE;
        a->dirty = true;
        return;
    }
    for (int v = 0; v < TUI_VARIANTS; v++) {
        stop_variant(a, (tui_variant)v);
        tui_session_destroy(a->sessions[v]);
        a->sessions[v] = tui_session_create(a->catalog.labs[index].id, (tui_variant)v);
        a->recorded[v] = false;
    }
    tui_model_open_lab(&a->model, index, a->sessions[TUI_YOURS], a->sessions[TUI_REFERENCE]);
    a->dirty = true;
    if (a->sessions[TUI_YOURS]) tui_app_start(a, TUI_YOURS);
}

/* The lab's argv: the launcher (it finds the lab's builds next to itself), the event stream
 * on descriptor 3, the report's width, and the options passed through. */
static int lab_argv(tui_app *a, tui_variant v, char *path, size_t path_size, char **argv, char *bufs, size_t n_bufs) {
    int argc = 0;
    const char *program = a->catalog.labs[a->model.lab].program[v];
    bool launcher = !(v == TUI_YOURS && a->opt.program);
    if (!launcher) {
        snprintf(path, path_size, "%s", a->opt.program);
    } else if (tui_runfiles_path(a->runfiles, program, path, path_size) != 0) {
        return -1;
    }
    argv[argc++] = path;
    int cols = 0, rows = 0;
    if (a->term)
        tui_term_size(a->term, &cols, &rows);
    else
        cols = a->cols;
    if (cols < 40) cols = 40;
    if (cols > 200) cols = 200;
    size_t b = 0;
    const char *names[] = {"--backend", "--profile", "--runs", "--schedules", "--seed", "--timeout"};
    const char *values[] = {a->opt.backend, a->opt.profile, a->opt.runs, a->opt.schedules, a->opt.seed, a->opt.timeout};
    char *slot;
    slot = bufs + (b++) * 64;
    snprintf(slot, 64, "--events-fd=%d", TUI_CHILD_EVENTS_FD);
    argv[argc++] = slot;
    slot = bufs + (b++) * 64;
    snprintf(slot, 64, "--width=%d", cols);
    argv[argc++] = slot;
    (void)n_bufs;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (!values[i]) continue;
        argv[argc++] = (char *)names[i];
        argv[argc++] = (char *)values[i];
    }
    argv[argc] = NULL;
    return argc;
}

void tui_app_start(tui_app *a, tui_variant v) {
    stamp(a);
    tui_session *s = a->sessions[v];
    if (!s) return;
    if (a->opt.replay) {
        tui_model_say(&a->model, true, "this is a recorded event stream: there is nothing to run");
        return;
    }
    stop_variant(a, v);
    tui_session_reset(s);
    a->recorded[v] = false;
    a->dirty = true;
    tui_variant other = v == TUI_YOURS ? TUI_REFERENCE : TUI_YOURS;
    if (a->child[other].running) {
        a->queued |= 1u << v;
        char why[96];
        snprintf(why, sizeof(why), "waiting for %s to finish (one lab runs at a time)", tui_variant_name(other));
        tui_session_waiting(s, why);
        return;
    }
    char path[4200], bufs[4 * 64];
    char *argv[32];
    if (lab_argv(a, v, path, sizeof(path), argv, bufs, 4) < 0) {
        tui_session_start_failed(s, "the lab's path is too long");
        return;
    }
    char nonce[64], nonce_env[96], runfiles_env[4200];
    tui_child_make_nonce(nonce, sizeof(nonce));
    snprintf(nonce_env, sizeof(nonce_env), "STREAMLAB_EVENTS_NONCE=%s", nonce);
    snprintf(runfiles_env, sizeof(runfiles_env), "RUNFILES_DIR=%s", a->runfiles);
    char *env[] = {nonce_env, a->runfiles[0] ? runfiles_env : NULL, NULL};
    char err[512];
    if (tui_child_start(&a->child[v], argv, env, err, sizeof(err)) != 0) {
        tui_session_start_failed(s, err);
        return;
    }
    tui_session_started(s, nonce, a->model.now_ms);
    if (v == TUI_YOURS) tui_app_check_stale(a);
}

/* ---- the student's file against the build the timeline runs ----------------------------- */

/* The modification time of path (following links, as the runfiles are), or false. */
static bool mtime_of(const char *path, struct timespec *out) {
    struct stat st;
    if (stat(path, &st) != 0) return false;
    *out = st.st_mtim;
    return true;
}

static bool newer(const struct timespec *a, const struct timespec *b) {
    return a->tv_sec > b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec > b->tv_nsec);
}

/* FNV-1a of a file's first MiB; false when it cannot be read. */
static bool hash_file(const char *path, uint64_t *out) {
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    uint64_t h = 1469598103934665603ull;
    unsigned char buf[4096];
    size_t n, total = 0;
    while (total < (1u << 20) && (n = fread(buf, 1, sizeof(buf), f)) > 0) {
        for (size_t i = 0; i < n; i++) h = (h ^ buf[i]) * 1099511628211ull;
        total += n;
    }
    fclose(f);
    *out = h;
    return true;
}

bool tui_app_stale(tui_app *a, char *why, size_t size, char *short_why, size_t short_size) {
    if (why && size) why[0] = '\0';
    if (short_why && short_size) short_why[0] = '\0';
    if (a->opt.replay || a->opt.program || a->model.lab < 0 || (size_t)a->model.lab >= a->catalog.n ||
        !a->runfiles[0])
        return false;
    const tui_lab *lab = &a->catalog.labs[a->model.lab];
    const char *ws = getenv("BUILD_WORKSPACE_DIRECTORY");
    if (!ws || !*ws || !lab->student_file[0]) return false;
    char source[4400];
    struct timespec src_time, built = {0, 0};
    if (snprintf(source, sizeof(source), "%s/%s", ws, lab->student_file) >= (int)sizeof(source) ||
        !mtime_of(source, &src_time))
        return false;
    /* The launcher (labs/NN_topic_run) runs NN_topic_sim or NN_topic_gpu, which run the
     * student's program NN_topic_sim_student or NN_topic_gpu_student: the oldest of those
     * built is what may run. */
    char base[4300], path[4400];
    if (tui_runfiles_path(a->runfiles, lab->program[TUI_YOURS], base, sizeof(base)) != 0) return false;
    size_t len = strlen(base);
    if (len > 4 && !strcmp(base + len - 4, "_run")) base[len - 4] = '\0';
    static const char *const builds[] = {"_sim_student", "_gpu_student"};
    bool any = false;
    for (size_t i = 0; i < sizeof(builds) / sizeof(builds[0]); i++) {
        struct timespec t;
        snprintf(path, sizeof(path), "%s%s", base, builds[i]);
        if (!mtime_of(path, &t)) continue;
        if (!any || newer(&built, &t)) built = t;
        any = true;
    }
    if (!any) {
        snprintf(path, sizeof(path), "%s_sim", base);
        if (!mtime_of(path, &built)) return false;
    }
    /* What the build was made from, as far as the timeline can tell: the file's contents
     * whenever it was not newer than the build. A file saved again unchanged (Bazel would
     * rebuild nothing) is then not stale. */
    uint64_t hash = 0;
    bool have_hash = hash_file(source, &hash);
    bool same_build = a->built_lab == a->model.lab && a->built_time.tv_sec == built.tv_sec &&
                      a->built_time.tv_nsec == built.tv_nsec;
    if (!newer(&src_time, &built)) {
        a->built_lab = a->model.lab;
        a->built_time = built;
        a->built_hash_known = have_hash;
        a->built_hash = hash;
        return false;
    }
    if (same_build && a->built_hash_known && have_hash && hash == a->built_hash) return false;
    /* The lab's label from its launcher's runfiles path: labs/03_double_buffer_run ->
     * //labs:03_double_buffer. */
    char label[160];
    const char *program = lab->program[TUI_YOURS];
    const char *slash = strrchr(program, '/');
    const char *name = slash ? slash + 1 : program;
    size_t name_len = strlen(name);
    if (name_len > 4 && !strcmp(name + name_len - 4, "_run")) name_len -= 4;
    snprintf(label, sizeof(label), "//%.*s:%.*s", slash ? (int)(slash - program) : 0, program, (int)name_len, name);
    if (why && size)
        snprintf(why, size,
                 "%s is newer than the build r runs: rebuild with `bazel build %s` in another terminal, "
                 "then press r",
                 lab->student_file, label);
    if (short_why && short_size) {
        const char *file = strrchr(lab->student_file, '/');
        snprintf(short_why, short_size, "%s newer than its build: bazel build %s, then r",
                 file ? file + 1 : lab->student_file, label);
    }
    return true;
}

void tui_app_check_stale(tui_app *a) {
    if (a->model.lab != a->built_lab) a->built_hash_known = false;
    a->last_stale_ms = tui_now_ms();
    char why[sizeof(a->model.notice)], short_why[sizeof(a->model.notice_short)];
    bool stale = a->model.mode == TUI_MODE_TIMELINE &&
                 tui_app_stale(a, why, sizeof(why), short_why, sizeof(short_why));
    if (!stale) why[0] = short_why[0] = '\0';
    if (strcmp(why, a->model.notice) != 0) {
        snprintf(a->model.notice, sizeof(a->model.notice), "%s", why);
        snprintf(a->model.notice_short, sizeof(a->model.notice_short), "%s", short_why);
        a->dirty = true;
    }
}

/* Remembers a finished run's verdict for the picker. */
static void record(tui_app *a, tui_variant v) {
    tui_session *s = a->sessions[v];
    if (a->recorded[v] || !s || a->opt.replay || (v == TUI_YOURS && a->opt.program) || a->model.lab < 0) return;
    if (s->state != TUI_SESSION_DONE && s->state != TUI_SESSION_FAILED) return;
    a->recorded[v] = true;
    tui_last_result r;
    memset(&r, 0, sizeof(r));
    const char *st = tui_session_result_status(s);
    snprintf(r.status, sizeof(r.status), "%s", st ? st : "crashed");
    tui_session_result_number(s, "speedup", &r.speedup);
    tui_session_result_number(s, "target", &r.target);
    r.when = time(NULL);
    char err[512];
    if (tui_history_put(&a->history, s->lab, tui_variant_name(v), &r, err, sizeof(err)) != 0)
        tui_model_say(&a->model, true, "could not save the result: %s", err);
}

/* mkdir -p dir; 0 when it is a directory afterwards. */
static int make_dirs(const char *dir) {
    char d[4096];
    if (snprintf(d, sizeof(d), "%s", dir) >= (int)sizeof(d)) return -1;
    for (char *p = d + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        mkdir(d, 0755);
        *p = '/';
    }
    mkdir(d, 0755);
    struct stat st;
    return stat(d, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1;
}

void tui_app_trace_dir(char *out, size_t size) {
    char dir[4096];
    if (cli_state_path("traces", dir, sizeof(dir)) && make_dirs(dir) == 0) {
        snprintf(out, size, "%s", dir);
        return;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(out, size, "%s", tmp && *tmp ? tmp : "/tmp");
}

/* The path as the student would type it: $HOME as ~. */
static void shown_path(const char *path, char *out, size_t size) {
    const char *home = getenv("HOME");
    size_t n = home ? strlen(home) : 0;
    if (n > 1 && !strncmp(path, home, n) && path[n] == '/')
        snprintf(out, size, "~%s", path + n);
    else
        snprintf(out, size, "%s", path);
}

/* A Chrome trace of each run on screen, in the kit's state folder (never the workspace). */
static void export_trace(tui_app *a) {
    tui_pane panes[TUI_VARIANTS];
    int n = tui_model_panes(&a->model, panes);
    char dir[4096];
    tui_app_trace_dir(dir, sizeof(dir));
    char written[2][4200];
    int count = 0;
    for (int i = 0; i < n; i++) {
        tui_run *run = panes[i].run;
        tui_session *s = panes[i].session;
        if (!run || !s) continue;
        trace_race *races = calloc(s->n_races + 1, sizeof(trace_race));
        size_t nr = 0;
        /* The run's races, numbered as on screen (race 1, 2, ... of the run) and with the
         * student's lines where the event stream gave them. */
        for (size_t k = 0; races && k < s->n_races; k++)
            if (s->races[k].first.run == run->number || s->races[k].second.run == run->number) {
                trace_race *r = &races[nr++];
                *r = s->races[k];
                r->seq = tui_session_race_number(s, k);
                const char *line = tui_session_race_line(s, &s->races[k], false);
                if (line) snprintf(r->first.line, sizeof(r->first.line), "%s", line);
                line = tui_session_race_line(s, &s->races[k], true);
                if (line) snprintf(r->second.line, sizeof(r->second.line), "%s", line);
            }
        char path[4200], err[512];
        snprintf(path, sizeof(path), "%s/streamlab-%s-%s-run%d.json", dir, a->model.lab_id,
                 tui_variant_name(panes[i].variant), (int)run->number);
        int rc = trace_export_chrome_file(run->tl, TRACE_RUN_ANY, races, nr, path, err, sizeof(err));
        free(races);
        if (rc != 0) {
            tui_model_say(&a->model, true, "could not write the trace: %s", err);
            return;
        }
        snprintf(written[count++], sizeof(written[0]), "%s", path);
    }
    char shown[4200];
    if (count == 0) {
        tui_model_say(&a->model, true, "nothing to export yet: no run is on screen");
    } else if (count == 1) {
        shown_path(written[0], shown, sizeof(shown));
        tui_model_say(&a->model, false, "trace written to %s (open it in ui.perfetto.dev)", shown);
    } else {
        shown_path(dir, shown, sizeof(shown));
        tui_model_say(&a->model, false, "traces written to %s/: %s and %s", shown, strrchr(written[0], '/') + 1,
                      strrchr(written[1], '/') + 1);
    }
}

static void handle_request(tui_app *a, tui_request r) {
    switch (r) {
    case TUI_REQUEST_NONE: break;
    case TUI_REQUEST_QUIT: a->quit = true; break;
    case TUI_REQUEST_RUN:
        for (int v = 0; v < TUI_VARIANTS; v++)
            if (a->model.run_mask & (1u << v)) tui_app_start(a, (tui_variant)v);
        break;
    case TUI_REQUEST_EXPORT: export_trace(a); break;
    case TUI_REQUEST_OPEN: tui_app_open_lab(a, a->model.picker_cursor); break;
    }
}

void tui_app_key(tui_app *a, int key) {
    stamp(a);
    handle_request(a, tui_model_key(&a->model, key));
    a->dirty = true;
}

void tui_app_draw(tui_app *a) {
    stamp(a);
    int cols = a->cols, rows = a->rows;
    if (a->term) tui_term_size(a->term, &cols, &rows);
    if (cols != a->screen->cols || rows != a->screen->rows) {
        if (tui_screen_resize(a->screen, cols, rows) != 0) return;
        a->full = true;
    }
    if (a->have_layout) tui_layout_free(&a->layout);
    tui_layout_compute(&a->layout, &a->model, cols, rows);
    a->have_layout = true;
    tui_draw(a->screen, &a->model, &a->layout);
    if (a->term) tui_term_blit(a->term, a->screen, a->full);
    a->full = false;
    a->dirty = false;
    a->last_draw_ms = tui_now_ms();
    a->frames++;
    if (a->on_frame) a->on_frame(a->on_frame_ctx, a);
}

/* After the pipes were read: record verdicts, start what waited its turn. */
static void after_pump(tui_app *a) {
    for (int v = 0; v < TUI_VARIANTS; v++) record(a, (tui_variant)v);
    for (int v = 0; v < TUI_VARIANTS; v++) {
        tui_variant other = v == TUI_YOURS ? TUI_REFERENCE : TUI_YOURS;
        if ((a->queued & (1u << v)) && !a->child[other].running) {
            a->queued &= ~(1u << v);
            tui_app_start(a, (tui_variant)v);
        }
    }
}

static bool any_running(const tui_app *a) {
    for (int v = 0; v < TUI_VARIANTS; v++)
        if (tui_child_active(&a->child[v])) return true;
    return false;
}

bool tui_app_step(tui_app *a, int max_wait_ms) {
    if (a->quit) return false;
    struct pollfd fds[1 + 3 * TUI_VARIANTS];
    int n = 0;
    if (a->term) fds[n++] = (struct pollfd){.fd = tui_term_fd(a->term), .events = POLLIN};
    for (int v = 0; v < TUI_VARIANTS; v++) n += tui_child_pollfds(&a->child[v], fds + n);
    double now = tui_now_ms();
    double wait = any_running(a) ? 250 : 1000;
    if (a->dirty) wait = TUI_FRAME_MS - (now - a->last_draw_ms);
    if (wait < 0) wait = 0;
    if (wait > max_wait_ms) wait = max_wait_ms;
    int rc = poll(fds, (nfds_t)n, (int)wait);
    (void)rc; /* EINTR (a signal, a resize) or a timeout: look at everything anyway */
    stamp(a);
    bool changed = false;
    for (int v = 0; v < TUI_VARIANTS; v++)
        if (a->sessions[v] && tui_child_active(&a->child[v]))
            changed |= tui_child_pump(&a->child[v], a->sessions[v], TUI_PUMP_BUDGET, a->model.now_ms);
    if (changed) {
        after_pump(a);
        a->dirty = true;
    }
    bool input = false;
    tui_input in;
    while (a->term && !a->quit && tui_term_read(a->term, &in)) {
        input = true;
        switch (in.type) {
        case TUI_INPUT_KEY: handle_request(a, tui_model_key(&a->model, in.key)); break;
        case TUI_INPUT_CLICK:
            if (a->have_layout && a->model.mode == TUI_MODE_TIMELINE) {
                if (a->model.overlay != TUI_OVERLAY_NONE)
                    a->model.overlay = TUI_OVERLAY_NONE;
                else
                    tui_layout_click(&a->layout, &a->model, in.x, in.y);
            }
            break;
        case TUI_INPUT_WHEEL:
            if (a->have_layout && a->model.mode == TUI_MODE_TIMELINE)
                tui_layout_wheel(&a->layout, &a->model, in.x, in.y, in.up);
            break;
        case TUI_INPUT_RESIZE: a->full = true; break;
        }
    }
    if (a->quit) return false;
    now = tui_now_ms();
    /* A student who saves lab.c while the timeline is open hears at once that r would run
     * the old build (two stat calls a second). */
    if (now - a->last_stale_ms >= 1000) tui_app_check_stale(a);
    /* The status line counts seconds and warns about a quiet lab: refresh it now and then. */
    if (any_running(a) && now - a->last_draw_ms >= 500) a->dirty = true;
    if (input || (a->dirty && now - a->last_draw_ms >= TUI_FRAME_MS)) {
        tui_app_draw(a);
    } else if (!changed || now - a->last_refresh_ms >= 1000) {
        /* A quiet turn (or a second of constant events): bring the metrics up to date. */
        stamp(a);
        if (tui_model_refresh(&a->model, false)) a->dirty = true;
        a->last_refresh_ms = tui_now_ms();
    }
    return true;
}

void tui_app_run(tui_app *a, volatile sig_atomic_t *stop) {
    tui_app_draw(a);
    while (!(stop && *stop) && tui_app_step(a, 1000)) {
    }
}

void tui_app_free(tui_app *a) {
    for (int v = 0; v < TUI_VARIANTS; v++) {
        tui_child_stop(&a->child[v], 300);
        tui_session_destroy(a->sessions[v]);
        a->sessions[v] = NULL;
    }
    if (a->have_layout) tui_layout_free(&a->layout);
    tui_screen_destroy(a->screen);
    tui_catalog_free(&a->catalog);
    tui_history_close(&a->history);
    memset(a, 0, sizeof(*a));
}
