/* labs/harness/options.c: parses a lab binary's command line with getopt_long. */
#define _GNU_SOURCE
#include "labs/harness/options.h"

#include "cli/cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    OPT_BACKEND = 1000,
    OPT_PROFILE,
    OPT_RUNS,
    OPT_SEED,
    OPT_TRACE,
    OPT_JSON,
    OPT_EVENTS_FD,
    OPT_SCHEDULES,
    OPT_QUIET,
    OPT_TUI,
    OPT_TIMEOUT,
    OPT_HARNESS_TIMEOUT,
    OPT_WIDTH,
    OPT_HELP,
    OPT_HINT,
    OPT_PROBE,
    OPT_STUDENT
};

static const struct option long_options[] = {
    {"backend", required_argument, NULL, OPT_BACKEND},
    {"profile", required_argument, NULL, OPT_PROFILE},
    {"runs", required_argument, NULL, OPT_RUNS},
    {"seed", required_argument, NULL, OPT_SEED},
    {"trace", required_argument, NULL, OPT_TRACE},
    {"json", no_argument, NULL, OPT_JSON},
    {"events-fd", required_argument, NULL, OPT_EVENTS_FD},
    {"schedules", required_argument, NULL, OPT_SCHEDULES},
    {"quiet", no_argument, NULL, OPT_QUIET},
    {"tui", no_argument, NULL, OPT_TUI},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"harness-timeout", required_argument, NULL, OPT_HARNESS_TIMEOUT},
    {"width", required_argument, NULL, OPT_WIDTH},
    {"help", no_argument, NULL, OPT_HELP},
    {"hint", no_argument, NULL, OPT_HINT},
    {"probe-device", no_argument, NULL, OPT_PROBE},
    {"student", required_argument, NULL, OPT_STUDENT},
    {NULL, 0, NULL, 0},
};

int lab_parse_options(int argc, char **argv, lab_options *o, char *err, size_t err_len) {
    memset(o, 0, sizeof(*o));
    o->runs = 5;
    o->events_fd = -1;
    o->schedules = 2;
    o->timeout_s = 60;
    o->harness_timeout_s = 600;
    err[0] = '\0';

    opterr = 0;
    optind = 1;
    int c;
    long long v;
    while ((c = getopt_long(argc, argv, "h", long_options, NULL)) != -1) {
        switch (c) {
        case OPT_BACKEND:
            if (!strcmp(optarg, "auto")) o->backend = LAB_BACKEND_AUTO;
            else if (!strcmp(optarg, "gpu")) o->backend = LAB_BACKEND_GPU;
            else if (!strcmp(optarg, "sim")) o->backend = LAB_BACKEND_SIM;
            else {
                snprintf(err, err_len, "--backend must be auto, gpu or sim, not '%s'", optarg);
                return LAB_EXIT_USAGE;
            }
            break;
        case OPT_PROFILE:
            if (!*optarg) {
                snprintf(err, err_len, "--profile needs a name (h200, h100, a100, l4) or a file");
                return LAB_EXIT_USAGE;
            }
            o->profile = optarg;
            break;
        case OPT_RUNS:
            if (!cli_int(optarg, 1, 1000, &v)) {
                snprintf(err, err_len, "--runs must be a whole number from 1 to 1000, not '%s'", optarg);
                return LAB_EXIT_USAGE;
            }
            o->runs = (int)v;
            break;
        case OPT_SEED:
            if (!cli_u64(optarg, &o->seed)) {
                snprintf(err, err_len, "--seed must be a non-negative whole number, not '%s'", optarg);
                return LAB_EXIT_USAGE;
            }
            o->seed_given = true;
            break;
        case OPT_TRACE:
            if (!*optarg) {
                snprintf(err, err_len, "--trace needs a file name (for example trace.json)");
                return LAB_EXIT_USAGE;
            }
            o->trace_path = optarg;
            break;
        case OPT_JSON:
            o->json = true;
            break;
        case OPT_EVENTS_FD:
            if (!cli_int(optarg, 0, 1 << 20, &v)) {
                snprintf(err, err_len, "--events-fd must be an open file descriptor number, not '%s'", optarg);
                return LAB_EXIT_USAGE;
            }
            o->events_fd = (int)v;
            break;
        case OPT_SCHEDULES:
            if (!cli_int(optarg, 0, 10000, &v)) {
                snprintf(err, err_len, "--schedules must be a whole number from 0 to 10000, not '%s'", optarg);
                return LAB_EXIT_USAGE;
            }
            o->schedules = (int)v;
            o->schedules_given = true;
            break;
        case OPT_QUIET:
            o->quiet = true;
            break;
        case OPT_TUI:
            o->tui = true;
            break;
        case OPT_TIMEOUT:
            if (!cli_int(optarg, 1, 24 * 3600, &v)) {
                snprintf(err, err_len, "--timeout must be a number of seconds from 1 to 86400, not '%s'", optarg);
                return LAB_EXIT_USAGE;
            }
            o->timeout_s = (int)v;
            break;
        case OPT_HARNESS_TIMEOUT:
            if (!cli_int(optarg, 1, 24 * 3600, &v)) {
                snprintf(err, err_len, "--harness-timeout must be a number of seconds from 1 to 86400, not '%s'",
                         optarg);
                return LAB_EXIT_USAGE;
            }
            o->harness_timeout_s = (int)v;
            break;
        case OPT_WIDTH:
            if (!cli_int(optarg, 40, 1000, &v)) {
                snprintf(err, err_len, "--width must be a number of columns from 40 to 1000, not '%s'", optarg);
                return LAB_EXIT_USAGE;
            }
            o->width = (int)v;
            break;
        case 'h':
        case OPT_HELP:
            o->help = true;
            break;
        case OPT_HINT:
            o->hint = true;
            o->quiet = true; /* the verdict, then the hint */
            break;
        case OPT_PROBE:
            o->probe_device = true;
            break;
        case OPT_STUDENT:
            o->student = optarg;
            break;
        case '?':
        default:
            cli_refused(argc, argv, long_options, err, err_len);
            return LAB_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        snprintf(err, err_len, "unexpected argument '%s' (options start with --)", argv[optind]);
        return LAB_EXIT_USAGE;
    }
    return 0;
}

const char *lab_usage_name(const char *argv0) {
    const char *name = getenv("STREAMLAB_USAGE_NAME");
    if (name && *name) return name;
    const char *slash = argv0 ? strrchr(argv0, '/') : NULL;
    return slash ? slash + 1 : (argv0 ? argv0 : "lab");
}

void lab_print_usage(const char *prog, const char *lab_id, void *stream) {
    FILE *f = stream;
    fprintf(f,
            "usage: %s [options]\n"
            "Runs lab %s: builds nothing, runs your implementation against the baseline,\n"
            "checks every result bit, looks for races, and reports the speedup.\n\n"
            "  --backend=auto|gpu|sim  which GPU to use (auto: the one this binary was built for)\n"
            "  --profile=NAME|FILE     simulated device: h200 (default), h100, a100, l4, or a profile file\n"
            "  --runs K                timed runs of the baseline and yours, interleaved (default 5)\n"
            "  --seed S                workload seed (default: a fresh one, printed in the report)\n"
            "  --trace FILE.json       write a Chrome/Perfetto trace (open in ui.perfetto.dev)\n"
            "  --json                  print one JSON result object on stdout (all else on stderr)\n"
            "  --events-fd N           write the live event stream (JSON lines) to descriptor N\n"
            "  --schedules N           simulator: N more runs under perturbed timing (default 2)\n"
            "  --quiet                 print the verdict only\n"
            "  --hint                  print the verdict and a hint for your next step (a little more\n"
            "                          each time you ask)\n"
            "  --tui                   show the run in the live timeline\n"
            "  --timeout S             stop your code after S seconds of its own time: your setup(),\n"
            "                          run() and teardown() together (default 60)\n"
            "  --harness-timeout S     the harness's own work (the baseline, checking, the report) gets\n"
            "                          time scaled to this machine, at most S seconds (default 600)\n"
            "  --width N               timeline width in columns (default: the terminal's)\n"
            "  --student PATH          the student's program to referee (default: the one built beside\n"
            "                          this binary from your lab file)\n"
            "  --help                  this text\n\n"
            "Exit status: 0 all checks pass, 1 correct and race-free but below target,\n"
            "2 incorrect, racy, crashed or timed out, 3 this machine was too slow for the harness's\n"
            "own work (not your code: run again), 64 bad usage or no device to run on.\n",
            prog, lab_id);
}
