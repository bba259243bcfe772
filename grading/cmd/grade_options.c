/* grading/cmd/grade_options.c: the grader's command line (see grade_options.h). */
#define _GNU_SOURCE
#include "grading/cmd/grade_options.h"

#include "cli/cli.h"
#include "grading/sandbox/grade_sandbox.h"
#include "grading/submissions/grade_layout.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
    OPT_SUBMISSIONS = 1000,
    OPT_OUT,
    OPT_LABS,
    OPT_JOBS,
    OPT_BACKEND,
    OPT_RUNS,
    OPT_SCHEDULES,
    OPT_TIMEOUT,
    OPT_RUBRIC,
    OPT_KITS,
    OPT_SCRATCH,
    OPT_KEEP_SCRATCH,
    OPT_PROFILE,
    OPT_MEMORY,
    OPT_OUTPUT,
    OPT_COMPILE_TIMEOUT,
    OPT_SCRATCH_MB,
    OPT_SEED,
    OPT_SUBMITTED_AT,
    OPT_GRADESCOPE,
    OPT_SUBMISSION_DIR,
    OPT_RESULTS,
    OPT_PROGRESS,
    OPT_NO_PROGRESS,
    OPT_QUIET,
    OPT_REGRADE,
    OPT_FORCE,
    OPT_RESUME,
    OPT_CSV_BOM,
    OPT_LAYOUT,
    OPT_ROSTER,
    OPT_SIMILARITY,
    OPT_SIMILARITY_TOOL,
    OPT_SLURM,
    OPT_SUBMIT,
    OPT_ONLY_FAILED,
    OPT_PARTITION,
    OPT_GPUS_PER_TASK,
    OPT_TIME,
    OPT_ARRAY_SIZE,
    OPT_SHARD,
    OPT_MERGE,
    OPT_FILE_TIMES,
    OPT_RESCORE,
    OPT_VISIBILITY,
    OPT_OUTPUT_FORMAT,
    OPT_LEADERBOARD,
    OPT_TASK_MEM,
    OPT_ARRAY_THROTTLE,
    OPT_PROLOGUE,
    OPT_GRES,
    OPT_SBATCH_OPTION,
    OPT_INSTALL,
    OPT_HELP
};

/* What a Slurm partition name may hold (written into a batch script). */
#define SLURM_NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.,"

static const struct option long_options[] = {
    {"submissions", required_argument, NULL, OPT_SUBMISSIONS},
    {"out", required_argument, NULL, OPT_OUT},
    {"labs", required_argument, NULL, OPT_LABS},
    {"jobs", required_argument, NULL, OPT_JOBS},
    {"backend", required_argument, NULL, OPT_BACKEND},
    {"runs", required_argument, NULL, OPT_RUNS},
    {"schedules", required_argument, NULL, OPT_SCHEDULES},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"rubric", required_argument, NULL, OPT_RUBRIC},
    {"kits", required_argument, NULL, OPT_KITS},
    {"scratch", required_argument, NULL, OPT_SCRATCH},
    {"keep-scratch", no_argument, NULL, OPT_KEEP_SCRATCH},
    {"profile", required_argument, NULL, OPT_PROFILE},
    {"memory-mb", required_argument, NULL, OPT_MEMORY},
    {"output-mb", required_argument, NULL, OPT_OUTPUT},
    {"compile-timeout", required_argument, NULL, OPT_COMPILE_TIMEOUT},
    {"scratch-mb", required_argument, NULL, OPT_SCRATCH_MB},
    {"seed", required_argument, NULL, OPT_SEED},
    {"submitted-at", required_argument, NULL, OPT_SUBMITTED_AT},
    {"gradescope", no_argument, NULL, OPT_GRADESCOPE},
    {"submission-dir", required_argument, NULL, OPT_SUBMISSION_DIR},
    {"results", required_argument, NULL, OPT_RESULTS},
    {"progress", no_argument, NULL, OPT_PROGRESS},
    {"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
    {"quiet", no_argument, NULL, OPT_QUIET},
    {"regrade", no_argument, NULL, OPT_REGRADE},
    {"force", no_argument, NULL, OPT_FORCE},
    {"resume", no_argument, NULL, OPT_RESUME},
    {"csv-bom", no_argument, NULL, OPT_CSV_BOM},
    {"layout", required_argument, NULL, OPT_LAYOUT},
    {"roster", required_argument, NULL, OPT_ROSTER},
    {"similarity", no_argument, NULL, OPT_SIMILARITY},
    {"similarity-tool", required_argument, NULL, OPT_SIMILARITY_TOOL},
    {"slurm", no_argument, NULL, OPT_SLURM},
    {"submit", no_argument, NULL, OPT_SUBMIT},
    {"only-failed", no_argument, NULL, OPT_ONLY_FAILED},
    {"partition", required_argument, NULL, OPT_PARTITION},
    {"gpus-per-task", required_argument, NULL, OPT_GPUS_PER_TASK},
    {"time", required_argument, NULL, OPT_TIME},
    {"array-size", required_argument, NULL, OPT_ARRAY_SIZE},
    {"shard", required_argument, NULL, OPT_SHARD},
    {"merge", no_argument, NULL, OPT_MERGE},
    {"file-times", no_argument, NULL, OPT_FILE_TIMES},
    {"rescore", no_argument, NULL, OPT_RESCORE},
    {"visibility", required_argument, NULL, OPT_VISIBILITY},
    {"output-format", required_argument, NULL, OPT_OUTPUT_FORMAT},
    {"leaderboard", no_argument, NULL, OPT_LEADERBOARD},
    {"task-mem", required_argument, NULL, OPT_TASK_MEM},
    {"array-throttle", required_argument, NULL, OPT_ARRAY_THROTTLE},
    {"prologue", required_argument, NULL, OPT_PROLOGUE},
    {"gres", required_argument, NULL, OPT_GRES},
    {"sbatch-option", required_argument, NULL, OPT_SBATCH_OPTION},
    {"install", required_argument, NULL, OPT_INSTALL},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0},
};


int grade_parse_options(int argc, char **argv, grade_options *o, char *err, size_t err_len) {
    memset(o, 0, sizeof(*o));
    o->jobs = 1;
    o->backend = "auto";
    o->runs = 5;
    o->schedules = 2;
    o->timeout_s = 60;
    o->mem_mb = 2048;
    o->output_mb = 8;
    o->compile_s = GRADE_COMPILE_SECONDS_DEFAULT;
    o->scratch_mb = GRADE_SCRATCH_MB_DEFAULT;
    o->progress = -1;
    o->submission_dir = "/autograder/submission";
    o->results = "/autograder/results/results.json";
    o->gpus_per_task = -1;
    grade_gradescope_settings_init(&o->gs);
    err[0] = '\0';
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (online > 0) o->jobs = (int)online;

    opterr = 0;
    optind = 1;
    int c;
    long long v;
    while ((c = getopt_long(argc, argv, "hj:", long_options, NULL)) != -1) {
        switch (c) {
        case OPT_SUBMISSIONS: o->submissions = optarg; break;
        case OPT_OUT: o->out = optarg; break;
        case OPT_LABS: o->labs = optarg; break;
        case 'j':
        case OPT_JOBS:
            if (!cli_int(optarg, 1, 256, &v)) {
                snprintf(err, err_len, "--jobs must be a whole number from 1 to 256, not '%s'", optarg);
                return GRADE_EXIT_USAGE;
            }
            o->jobs = (int)v;
            o->jobs_given = true;
            break;
        case OPT_BACKEND:
            if (strcmp(optarg, "auto") && strcmp(optarg, "sim") && strcmp(optarg, "gpu")) {
                snprintf(err, err_len, "--backend must be auto, sim or gpu, not '%s'", optarg);
                return GRADE_EXIT_USAGE;
            }
            o->backend = optarg;
            break;
        case OPT_RUNS:
            if (!cli_int(optarg, 1, 1000, &v)) {
                snprintf(err, err_len, "--runs must be a whole number from 1 to 1000, not '%s'", optarg);
                return GRADE_EXIT_USAGE;
            }
            o->runs = (int)v;
            break;
        case OPT_SCHEDULES:
            if (!cli_int(optarg, 0, 10000, &v)) {
                snprintf(err, err_len, "--schedules must be a whole number from 0 to 10000, not '%s'", optarg);
                return GRADE_EXIT_USAGE;
            }
            o->schedules = (int)v;
            break;
        case OPT_TIMEOUT:
            if (!cli_int(optarg, 1, 24 * 3600, &v)) {
                snprintf(err, err_len, "--timeout must be a number of seconds from 1 to 86400, not '%s'", optarg);
                return GRADE_EXIT_USAGE;
            }
            o->timeout_s = (int)v;
            break;
        case OPT_RUBRIC: o->rubric = optarg; break;
        case OPT_KITS: o->kits = optarg; break;
        case OPT_SCRATCH: o->scratch = optarg; break;
        case OPT_KEEP_SCRATCH: o->keep_scratch = true; break;
        case OPT_PROFILE:
            if (!*optarg) {
                snprintf(err, err_len, "--profile needs a simulator profile name (h200, h100, ...)");
                return GRADE_EXIT_USAGE;
            }
            o->profile = optarg;
            break;
        case OPT_MEMORY:
            if (!cli_int(optarg, 64, 1 << 20, &v)) {
                snprintf(err, err_len, "--memory-mb must be a whole number from 64 to 1048576, not '%s'", optarg);
                return GRADE_EXIT_USAGE;
            }
            o->mem_mb = (long)v;
            break;
        case OPT_OUTPUT:
            if (!cli_int(optarg, 1, 1 << 16, &v)) {
                snprintf(err, err_len, "--output-mb must be a whole number from 1 to 65536, not '%s'", optarg);
                return GRADE_EXIT_USAGE;
            }
            o->output_mb = (long)v;
            break;
        case OPT_COMPILE_TIMEOUT:
            if (!cli_int(optarg, 1, 3600, &v)) {
                snprintf(err, err_len, "--compile-timeout must be a number of seconds from 1 to 3600, not '%s'", optarg);
                return GRADE_EXIT_USAGE;
            }
            o->compile_s = (int)v;
            break;
        case OPT_SCRATCH_MB:
            if (!cli_int(optarg, 1, 1 << 20, &v)) {
                snprintf(err, err_len, "--scratch-mb must be a whole number from 1 to 1048576, not '%s'", optarg);
                return GRADE_EXIT_USAGE;
            }
            o->scratch_mb = (long)v;
            break;
        case OPT_SUBMITTED_AT: o->submitted_at = optarg; break;
        case OPT_SEED:
            if (!cli_u64(optarg, &o->seed) || o->seed >= (1ull << 53)) {
                snprintf(err, err_len, "--seed must be a whole number below 2^53, not '%s'", optarg);
                return GRADE_EXIT_USAGE;
            }
            o->seed_given = true;
            break;
        case OPT_GRADESCOPE: o->gradescope = true; break;
        case OPT_SUBMISSION_DIR: o->submission_dir = optarg; break;
        case OPT_RESULTS: o->results = optarg; break;
        case OPT_PROGRESS: o->progress = 1; break;
        case OPT_NO_PROGRESS: o->progress = 0; break;
        case OPT_QUIET: o->quiet = true; break;
        case OPT_REGRADE: o->regrade = true; break;
        case OPT_FORCE: o->force = true; break;
        case OPT_RESUME: o->resume = true; break;
        case OPT_FILE_TIMES: o->file_times = true; break;
        case OPT_RESCORE: o->rescore = true; break;
        case OPT_CSV_BOM: o->csv_bom = true; break;
        case OPT_LAYOUT: {
            grade_layout l;
            if (grade_layout_parse(optarg, &l) != 0) {
                snprintf(err, err_len,
                         "--layout must be %s, not '%s'", grade_layout_choices(), optarg);
                return GRADE_EXIT_USAGE;
            }
            o->layout = (int)l;
            break;
        }
        case OPT_ROSTER: o->roster = optarg; break;
        case OPT_SIMILARITY: o->similarity = true; break;
        case OPT_SIMILARITY_TOOL:
            if (!*optarg) {
                snprintf(err, err_len, "--similarity-tool needs the similarity tester's path (/usr/bin/sim_c)");
                return GRADE_EXIT_USAGE;
            }
            o->similarity_tool = optarg;
            o->similarity = true;
            break;
        case OPT_SLURM: o->slurm = true; break;
        case OPT_SUBMIT: o->submit = true; break;
        case OPT_ONLY_FAILED: o->only_failed = true; break;
        case OPT_PARTITION:
            if (!*optarg || strspn(optarg, SLURM_NAME_CHARS) != strlen(optarg)) {
                snprintf(err, err_len, "--partition must be a Slurm partition name (letters, digits, - _ . ,), not '%s'",
                         optarg);
                return GRADE_EXIT_USAGE;
            }
            o->partition = optarg;
            break;
        case OPT_GPUS_PER_TASK:
            if (!cli_int(optarg, 0, 64, &v)) {
                snprintf(err, err_len, "--gpus-per-task must be a whole number from 0 to 64, not '%s'", optarg);
                return GRADE_EXIT_USAGE;
            }
            o->gpus_per_task = (int)v;
            break;
        case OPT_TIME:
            /* Slurm's forms: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS. */
            if (!*optarg || strspn(optarg, "0123456789:-") != strlen(optarg) || !isdigit((unsigned char)*optarg) ||
                !isdigit((unsigned char)optarg[strlen(optarg) - 1]) || strstr(optarg, "::") ||
                strchr(strchr(optarg, '-') ? strchr(optarg, '-') + 1 : optarg, '-')) {
                snprintf(err, err_len,
                         "--time must be a Slurm time limit (minutes, HH:MM:SS or D-HH:MM:SS, like 2:00:00), not '%s'",
                         optarg);
                return GRADE_EXIT_USAGE;
            }
            o->time_limit = optarg;
            break;
        case OPT_ARRAY_SIZE:
            if (!cli_int(optarg, 1, 10000, &v)) {
                snprintf(err, err_len, "--array-size must be a whole number of tasks from 1 to 10000, not '%s'", optarg);
                return GRADE_EXIT_USAGE;
            }
            o->array_size = (int)v;
            break;
        case OPT_SHARD: {
            long long k, n;
            const char *slash = strchr(optarg, '/');
            char kbuf[32];
            size_t klen = slash ? (size_t)(slash - optarg) : 0;
            if (slash && klen < sizeof(kbuf)) {
                memcpy(kbuf, optarg, klen);
                kbuf[klen] = '\0';
            }
            if (!slash || klen >= sizeof(kbuf) || !cli_int(kbuf, 0, 9999, &k) || !cli_int(slash + 1, 1, 10000, &n) ||
                k >= n) {
                snprintf(err, err_len,
                         "--shard must be K/N, task K (from 0) of N, with K below N (like 3/8), not '%s'", optarg);
                return GRADE_EXIT_USAGE;
            }
            o->shard_k = (int)k;
            o->shard_n = (int)n;
            break;
        }
        case OPT_MERGE: o->merge = true; break;
        case OPT_VISIBILITY:
            if (grade_gradescope_parse_visibility(optarg, &o->gs, err, err_len) != 0) return GRADE_EXIT_USAGE;
            break;
        case OPT_OUTPUT_FORMAT:
            if (grade_gradescope_parse_format(optarg, &o->gs, err, err_len) != 0) return GRADE_EXIT_USAGE;
            break;
        case OPT_LEADERBOARD: o->gs.leaderboard = true; break;
        case OPT_TASK_MEM: {
            /* Slurm's form: a whole number, optionally K, M, G or T. */
            size_t digits = strspn(optarg, "0123456789");
            if (digits == 0 || digits > 9 || (optarg[digits] && (strchr("KMGT", optarg[digits]) == NULL ||
                                                                 optarg[digits + 1]))) {
                snprintf(err, err_len, "--task-mem must be a Slurm memory size (8G, 8192M, or megabytes), not '%s'",
                         optarg);
                return GRADE_EXIT_USAGE;
            }
            o->task_mem = optarg;
            break;
        }
        case OPT_ARRAY_THROTTLE:
            if (!cli_int(optarg, 1, 10000, &v)) {
                snprintf(err, err_len, "--array-throttle must be a whole number of tasks from 1 to 10000, not '%s'",
                         optarg);
                return GRADE_EXIT_USAGE;
            }
            o->array_throttle = (int)v;
            break;
        case OPT_PROLOGUE:
            if (!*optarg) {
                snprintf(err, err_len, "--prologue needs a file of shell lines (module load cuda, ...)");
                return GRADE_EXIT_USAGE;
            }
            o->prologue = optarg;
            break;
        case OPT_GRES:
            if (!*optarg || strspn(optarg, SLURM_NAME_CHARS ":") != strlen(optarg)) {
                snprintf(err, err_len, "--gres must be a Slurm resource (gpu:1, gpu:a100:2), not '%s'", optarg);
                return GRADE_EXIT_USAGE;
            }
            o->gres = optarg;
            break;
        case OPT_SBATCH_OPTION:
            /* One #SBATCH line: an option of sbatch, on one line. */
            if (strncmp(optarg, "--", 2) || strlen(optarg) < 3 || strpbrk(optarg, "\n\r")) {
                snprintf(err, err_len,
                         "--sbatch-option must be one sbatch option on one line, like --sbatch-option=--account=cs101, "
                         "not '%s'",
                         optarg);
                return GRADE_EXIT_USAGE;
            }
            {
                /* What the scripts write themselves, or an option of the grader's sets. */
                static const char *const own[][2] = {
                    {"--array", "--array-size, --array-throttle"}, {"--output", "(the scripts' logs)"},
                    {"--open-mode", "(the scripts' logs)"},        {"--ntasks", "(one per task)"},
                    {"--cpus-per-task", "--jobs"},                 {"--mem", "--task-mem"},
                    {"--partition", "--partition"},                {"--time", "--time"},
                    {"--gres", "--gres"},                          {"--gpus-per-task", "--gpus-per-task"},
                    {"--dependency", "(submit.sh)"},
                };
                size_t name_len = strcspn(optarg, "= ");
                for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
                    if (strlen(own[i][0]) == name_len && !strncmp(optarg, own[i][0], name_len)) {
                        snprintf(err, err_len, "--sbatch-option %s: the scripts set %s themselves: use %s", optarg,
                                 own[i][0], own[i][1]);
                        return GRADE_EXIT_USAGE;
                    }
            }
            if (o->n_sbatch_options == 16) {
                snprintf(err, err_len, "--sbatch-option: at most 16 (put the rest in one --prologue file)");
                return GRADE_EXIT_USAGE;
            }
            o->sbatch_options[o->n_sbatch_options++] = optarg;
            break;
        case OPT_INSTALL:
            if (!*optarg) {
                snprintf(err, err_len, "--install needs the folder to install into");
                return GRADE_EXIT_USAGE;
            }
            o->install = optarg;
            break;
        case 'h':
        case OPT_HELP: o->help = true; break;
        default:
            cli_refused(argc, argv, long_options, err, err_len);
            return GRADE_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        snprintf(err, err_len, "unexpected argument '%s' (options start with --)", argv[optind]);
        return GRADE_EXIT_USAGE;
    }
    if (o->help) return 0;
    if (o->install) {
        if (o->submissions || o->out || o->gradescope || o->slurm || o->merge || o->shard_n) {
            snprintf(err, err_len, "--install DIR copies the grader, kits and rubric and grades nobody: give it alone "
                                   "(with --rubric or --kits to install others than the built-in ones)");
            return GRADE_EXIT_USAGE;
        }
        return 0;
    }
    if (o->slurm && o->only_failed && o->out && !o->submissions) return 0; /* the plan has the rest */
    if (!o->gradescope && (!o->submissions || !o->out)) {
        snprintf(err, err_len, "--submissions DIR and --out DIR are both needed (or --gradescope)");
        return GRADE_EXIT_USAGE;
    }
    if ((int)o->regrade + (int)o->force + (int)o->resume > 1) {
        snprintf(err, err_len, "--regrade, --resume and --force each say what to do with a used --out: give one");
        return GRADE_EXIT_USAGE;
    }
    if (o->gradescope && (o->layout || o->roster)) {
        snprintf(err, err_len, "--layout and --roster are for class mode (--submissions), not --gradescope");
        return GRADE_EXIT_USAGE;
    }
    if (o->gradescope && o->similarity) {
        snprintf(err, err_len, "--similarity compares a class's submissions: it is for class mode (--submissions), "
                               "not --gradescope");
        return GRADE_EXIT_USAGE;
    }
    bool slurm_only = o->submit || o->only_failed || o->partition || o->gpus_per_task >= 0 || o->time_limit ||
                      o->array_size || o->task_mem || o->array_throttle || o->prologue || o->gres ||
                      o->n_sbatch_options;
    if (slurm_only && !o->slurm) {
        snprintf(err, err_len, "--submit, --only-failed, --partition, --gpus-per-task, --gres, --time, --task-mem, "
                               "--array-size, --array-throttle, --prologue and --sbatch-option are for --slurm");
        return GRADE_EXIT_USAGE;
    }
    if (o->gres && o->gpus_per_task >= 0) {
        snprintf(err, err_len, "--gres and --gpus-per-task both ask for GPUs: give one (--gres gpu:1 where the cluster "
                               "has no cons_tres for --gpus-per-task)");
        return GRADE_EXIT_USAGE;
    }
    if ((int)o->slurm + (int)(o->shard_n > 0) + (int)o->merge + (int)o->gradescope > 1) {
        snprintf(err, err_len, "--slurm, --shard, --merge and --gradescope are different ways to run the grader: give "
                               "one");
        return GRADE_EXIT_USAGE;
    }
    if (o->merge && (o->regrade || o->force || o->resume)) {
        snprintf(err, err_len, "--merge takes a Slurm run's results into --out as they are: --regrade, --resume and "
                               "--force go with --slurm");
        return GRADE_EXIT_USAGE;
    }
    if (o->gradescope && (o->regrade || o->force || o->resume)) {
        snprintf(err, err_len, "--regrade, --resume and --force are for class mode (--out), not --gradescope");
        return GRADE_EXIT_USAGE;
    }
    if (o->rescore && (o->regrade || o->force || o->resume || o->gradescope || o->slurm || o->merge ||
                       o->shard_n > 0)) {
        snprintf(err, err_len, "--rescore scores the results stored in --out again, running no lab: it goes with "
                               "none of --regrade, --resume, --force, --gradescope, --slurm, --shard and --merge");
        return GRADE_EXIT_USAGE;
    }
    if (o->file_times && o->gradescope) {
        snprintf(err, err_len, "--file-times is for class mode (--submissions), not --gradescope");
        return GRADE_EXIT_USAGE;
    }
    return 0;
}

const char *grade_usage_name(const char *argv0) {
    const char *set = getenv("STREAMLAB_USAGE_NAME");
    if (set && *set) return set;
    if (getenv("BUILD_WORKSPACE_DIRECTORY")) return "bazel run //grading:grade --";
    const char *slash = argv0 ? strrchr(argv0, '/') : NULL;
    return slash ? slash + 1 : (argv0 ? argv0 : "grade");
}

void grade_print_usage(const char *prog, FILE *out) {
    fprintf(out,
            "usage: %s --submissions DIR --out DIR [options]\n"
            "       %s --gradescope [--submission-dir DIR] [--results FILE] [options]\n"
            "Grades streamlab labs: builds each student's lab files against the instructor's\n"
            "prebuilt lab (only the student's files are taken), runs them sandboxed, and scores\n"
            "them by the rubric from results on the lab's private event stream.\n\n"
            "  --submissions DIR    one entry per student: a folder mirroring the repository's\n"
            "                       paths (alice/labs/03_double_buffer/lab.c), a .zip/.tar.gz, or\n"
            "                       a bare .c file; or a Gradescope, Canvas or Moodle export\n"
            "  --out DIR            per student report.txt, results.json (Gradescope), junit.xml;\n"
            "                       gradebook.csv and junit.xml for the class\n"
            , prog, prog);
    /* The layouts are grade_layout.c's table. */
    fprintf(out,
            "  --layout L           what --submissions is: %s\n"
            "                       (docs/grading.md, \"Submissions\"); default: auto, detected and\n"
            "                       said\n",
            grade_layout_choices());
    fprintf(out,
            "  --roster FILE.csv    the class list: name plus sid, email, canvas_id, moodle_id or id\n"
            "                       columns, giving the gradebook names and student ids\n"
            "  --labs a,b           grade only these labs, by id or number (--labs 00,03; default:\n"
            "                       every lab in the rubric)\n"
            "  --jobs N, -j N       students graded at once (default: the number of CPUs)\n"
            "  --backend B          auto (the GPU when one is usable), sim or gpu\n"
            "  --runs K             timed runs of baseline and submission, interleaved (5)\n"
            "  --schedules N        simulator: perturbed schedules that shake out races (2)\n"
            "  --timeout S          seconds per lab run before it is stopped (60)\n"
            "  --rubric FILE        points and thresholds (default: grading/rubric.json)\n"
            "  --profile NAME       simulated device profile (default: the lab's, h200)\n"
            "  --memory-mb N        memory per lab program, and per compile (2048)\n"
            "  --output-mb N        output per lab program (8)\n"
            "  --scratch-mb N       what a lab program may keep in its scratch folder, all its\n"
            "                       files together (128)\n"
            "  --compile-timeout S  CPU seconds a compile or link may take (20; in all, 3 times\n"
            "                       that and at least 30 s)\n"
            "  --seed S             one workload seed for everyone (default: a fresh secret one\n"
            "                       per student and lab)\n"
            "  --submitted-at FILE.csv  when students handed in, for the rubric's late policy\n"
            "                       (columns student,submitted_at; overrides the platform's time)\n"
            "  --file-times         where the platform gives no time (plain folders, Moodle, the\n"
            "                       days of Canvas's _LATE), take the files' modification times;\n"
            "                       refused when they look like a copy's\n"
            "  --kits DIR           prebuilt lab kits (default: the ones built with the grader)\n"
            "  --scratch DIR        where scratch folders go (default: $TMPDIR or /tmp)\n"
            "  --keep-scratch       keep them, to look at builds and logs\n"
            "  --progress, --no-progress  progress on stderr: a bar on a terminal, a line per\n"
            "                       student otherwise (default: on)\n"
            "  --quiet              no summary table\n"
            "  --csv-bom            start gradebook.csv with a UTF-8 byte order mark, for\n"
            "                       spreadsheets that read CSV as another encoding without one\n"
            "  --similarity         after grading, compare the students' files of each lab with\n"
            "                       Debian's similarity-tester (sim_c), the lab's skeleton taken\n"
            "                       out, into OUT/similarity.txt: a reading aid, not a verdict;\n"
            "                       without sim_c it says so and grades as usual\n"
            "  --similarity-tool P  the sim_c program to use (implies --similarity)\n"
            "  --regrade            --out was used before: grade these students again and merge\n"
            "                       (their rows are replaced, other students keep theirs)\n"
            "  --resume             --out holds an interrupted (or earlier) run: grade only the\n"
            "                       students whose submission, kits, rubric or settings changed\n"
            "  --force              --out was used before: remove its reports and start clean\n"
            "  --rescore            score the results stored in --out by the rubric again (after\n"
            "                       a rubric change): no lab runs; --submissions gives the late\n"
            "                       times and who is in the class\n"
            "  --slurm              grade on a Slurm cluster: write OUT/slurm/ (a job array whose\n"
            "                       tasks each grade a share of the class, and a merge job that\n"
            "                       writes OUT as a local run does); see docs/grading.md\n"
            "    --submit           also submit them with sbatch (the merge after the array)\n"
            "    --partition P      the partition (default: the cluster's)\n"
            "    --gpus-per-task G  GPUs per task (default: 1 with --backend gpu, else none;\n"
            "                       Slurm's cons_tres plugin)\n"
            "    --gres SPEC        GPUs as a generic resource instead (gpu:1, gpu:a100:1)\n"
            "                       (--backend auto is written as gpu when GPUs are asked for,\n"
            "                       else sim: every node grades the same way)\n"
            "    --task-mem SIZE    memory per task (8G; default: --jobs x 2 x --memory-mb)\n"
            "    --array-throttle N at most N tasks running at once\n"
            "    --prologue FILE    shell lines each job runs first (module load, ...)\n"
            "    --sbatch-option O  one more #SBATCH line (--account=cs101); repeatable\n"
            "    --time T           each task's time limit (2:00:00; default: the partition's)\n"
            "    --array-size N     tasks in the array (default: one per 10 students)\n"
            "    --only-failed      with --out OUT: write (and --submit) the tasks that did not\n"
            "                       finish again, and the merge\n"
            "  --shard K/N          grade only submissions K, K+N, K+2N, ... (name order): one task\n"
            "  --merge              grade nobody: merge the tasks' results in OUT/slurm into OUT\n"
            "  --install DIR        copy the grader, its kits, rubric and lab catalog into DIR\n"
            "                       (shared storage), to run from there: DIR/grade\n"
            "  --gradescope         grade the one submission in --submission-dir\n"
            "                       (/autograder/submission) into --results\n"
            "                       (/autograder/results/results.json)\n"
            "  --visibility V       results.json (Gradescope): who sees the results and when:\n"
            "                       visible, hidden, after_due_date or after_published, and\n"
            "                       CHECK=V for one check's tests (speed=hidden,correct=visible)\n"
            "  --output-format F    results.json: text (default) or md; either keeps the\n"
            "                       timeline's and race reports' columns\n"
            "  --leaderboard        results.json: a leaderboard of each lab's speedup\n\n"
            "Exit status: 0 when every submission was graded and every report written (a broken\n"
            "submission is a grade, not an error); 1 when the grader could not run or refused\n"
            "its inputs (a rubric that does not fit a lab, options the lab rejects, an empty or\n"
            "wrong submissions folder, a used, locked or overlapping --out) or a report could not\n"
            "be written; 64 bad usage; 130 (Ctrl-C) or 143 (SIGTERM) interrupted, with the\n"
            "students graded so far in gradebook.csv and the rest marked NOT GRADED (--resume).\n");
}
