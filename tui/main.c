/* tui/main.c: `bazel run //tui [-- LAB]`: the options (getopt_long), the terminal, the
 * signals that must restore it, and the loop. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "tui/app.h"
#include "tui/term.h"

#define EXIT_USAGE 64

static volatile sig_atomic_t stop_signal = 0;

static void on_stop(int sig) { stop_signal = sig; }

static void usage(const char *prog, FILE *out) {
    fprintf(out,
            "usage: %s [options] [LAB]\n"
            "The live timeline of a streamlab lab: runs the lab (your labs/NN_topic/lab.c) as a child process\n"
            "and draws every stream and engine as the ops arrive. With no LAB, a list of labs to pick from.\n\n"
            "  LAB                    a lab's id (03_double_buffer), number (03) or unique prefix\n"
            "  --backend=auto|gpu|sim passed to the lab: which GPU to use (auto: a real one when usable)\n"
            "  --profile=NAME|FILE    passed to the lab: the simulated device (h200, h100, a100, l4)\n"
            "  --runs K               passed to the lab: timed runs of the baseline and yours\n"
            "  --schedules N          passed to the lab: runs under perturbed timing (simulator)\n"
            "  --seed S               passed to the lab: the workload seed\n"
            "  --timeout S            passed to the lab: give up after S seconds\n"
            "  --program FILE         run this lab binary as yours (a variant built with bazel build)\n"
            "  --replay FILE          draw a recorded event stream (what a lab wrote with --events-fd)\n"
            "  --no-color             glyphs instead of colours (as with NO_COLOR=1 or TERM=dumb)\n"
            "  --help                 this text\n\n"
            "Keys: r rerun, s yours/reference, c compare, b baseline run, +/- zoom, arrows pan, f fit,\n"
            "Tab and Enter a bar's details, t Chrome trace, o the lab's output, ? help, q quit.\n\n"
            "Exit status: after q, that of your lab's last run (0 pass, 1 below target, 2 wrong, racy,\n"
            "crashed or timed out: the lab's own), 0 when it had not finished or no lab was opened;\n"
            "64 bad usage, an unknown lab or no terminal to draw on; 128+N when stopped by signal N.\n",
            prog);
}

/* A whole number from lo up. */
static bool whole_from(const char *s, long long lo) {
    long long v;
    return cli_int(s, lo, INT32_MAX, &v);
}

int main(int argc, char **argv) {
    setlocale(LC_ALL, "");
    enum { O_BACKEND = 1000, O_PROFILE, O_RUNS, O_SCHEDULES, O_SEED, O_TIMEOUT, O_PROGRAM, O_REPLAY, O_NO_COLOR,
           O_HELP, O_HISTORY };
    static const struct option long_options[] = {
        {"backend", required_argument, NULL, O_BACKEND},
        {"profile", required_argument, NULL, O_PROFILE},
        {"runs", required_argument, NULL, O_RUNS},
        {"schedules", required_argument, NULL, O_SCHEDULES},
        {"seed", required_argument, NULL, O_SEED},
        {"timeout", required_argument, NULL, O_TIMEOUT},
        {"program", required_argument, NULL, O_PROGRAM},
        {"replay", required_argument, NULL, O_REPLAY},
        {"history", required_argument, NULL, O_HISTORY},
        {"no-color", no_argument, NULL, O_NO_COLOR},
        {"help", no_argument, NULL, O_HELP},
        {NULL, 0, NULL, 0},
    };
    tui_app_options o;
    memset(&o, 0, sizeof(o));
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "h", long_options, NULL)) != -1) {
        const char *bad = NULL;
        switch (c) {
        case O_BACKEND:
            o.backend = optarg;
            if (strcmp(optarg, "auto") && strcmp(optarg, "gpu") && strcmp(optarg, "sim"))
                bad = "--backend must be auto, gpu or sim";
            break;
        case O_PROFILE:
            o.profile = optarg;
            if (!*optarg) bad = "--profile needs a name (h200, h100, a100, l4) or a file";
            break;
        case O_RUNS:
            o.runs = optarg;
            if (!whole_from(optarg, 1)) bad = "--runs must be a whole number from 1";
            break;
        case O_SCHEDULES:
            o.schedules = optarg;
            if (!whole_from(optarg, 0)) bad = "--schedules must be a whole number";
            break;
        case O_SEED:
            o.seed = optarg;
            uint64_t seed;
            if (!cli_u64(optarg, &seed)) bad = "--seed must be a non-negative whole number";
            break;
        case O_TIMEOUT:
            o.timeout = optarg;
            if (!whole_from(optarg, 1)) bad = "--timeout must be a number of seconds from 1";
            break;
        case O_PROGRAM: o.program = optarg; break;
        case O_REPLAY: o.replay = optarg; break;
        case O_HISTORY: o.history = optarg; break;
        case O_NO_COLOR: o.no_color = true; break;
        case 'h':
        case O_HELP: usage(argv[0], stdout); return 0;
        default: {
            char err[256];
            cli_refused(argc, argv, long_options, err, sizeof(err));
            fprintf(stderr, "tui: %s\nTry '%s --help'.\n", err, argv[0]);
            return EXIT_USAGE;
        }
        }
        if (bad) {
            fprintf(stderr, "tui: %s, not '%s'\nTry '%s --help'.\n", bad, optarg, argv[0]);
            return EXIT_USAGE;
        }
    }
    static char program[4096], replay[4096], history[4096];
    o.program = cli_user_path(o.program, program, sizeof(program));
    o.replay = cli_user_path(o.replay, replay, sizeof(replay));
    o.history = cli_user_path(o.history, history, sizeof(history));
    if (optind < argc) o.lab = argv[optind++];
    if (optind < argc) {
        fprintf(stderr, "tui: one lab at a time ('%s' is one too many)\nTry '%s --help'.\n", argv[optind], argv[0]);
        return EXIT_USAGE;
    }
    if (o.program && !o.lab) {
        fprintf(stderr, "tui: --program needs the LAB it is a build of (for example 03_double_buffer)\n");
        return EXIT_USAGE;
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    static tui_app app;
    char err[4096];
    /* A lab that does not exist, a broken catalog or no terminal to draw on: usage and
     * environment errors, 64, as for the labs (never 1, which a lab uses for "below
     * target"). */
    if (tui_app_init(&app, &o, argv[0], 80, 24, err, sizeof(err)) != 0) {
        fprintf(stderr, "tui: %s\n", err);
        tui_app_free(&app);
        return EXIT_USAGE;
    }
    tui_term *term = tui_term_open(o.no_color, err, sizeof(err));
    if (!term) {
        fprintf(stderr, "tui: %s\n", err);
        tui_app_free(&app);
        return EXIT_USAGE;
    }
    tui_app_attach(&app, term);
    tui_app_run(&app, &stop_signal);
    tui_term_close(term);

    /* What the timeline showed last, where the terminal keeps it: the reference first, then
     * yours, whose line is the last and whose exit status the timeline's is. */
    char stale[512];
    if (tui_app_stale(&app, stale, sizeof(stale), NULL, 0)) printf("streamlab: %s\n", stale);
    int status = 0;
    static const tui_variant order[] = {TUI_REFERENCE, TUI_YOURS};
    for (int i = 0; i < TUI_VARIANTS; i++) {
        const tui_session *s = app.sessions[order[i]];
        const char *lab = s && s->lab[0] ? s->lab : app.model.lab_id;
        if (s && (s->state == TUI_SESSION_DONE || s->state == TUI_SESSION_FAILED)) {
            printf("streamlab: %s %s: %s\n", lab, tui_variant_name(s->variant), s->status);
            if (order[i] == TUI_YOURS) status = s->ended ? s->exit_code : 1;
        } else if (s && order[i] == TUI_YOURS && (s->state == TUI_SESSION_RUNNING || s->state == TUI_SESSION_WAITING)) {
            printf("streamlab: %s %s: stopped before it finished (no verdict)\n", lab, tui_variant_name(s->variant));
        }
    }
    tui_app_free(&app);
    if (stop_signal) return 128 + stop_signal;
    return status;
}
