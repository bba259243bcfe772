/* labs/harness/options.h: the command line every lab binary takes. */
#ifndef STREAMLAB_LAB_OPTIONS_H
#define STREAMLAB_LAB_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum lab_backend_choice {
    LAB_BACKEND_AUTO = 0,
    LAB_BACKEND_GPU,
    LAB_BACKEND_SIM
} lab_backend_choice;

typedef struct lab_options {
    lab_backend_choice backend;
    const char *profile;    /* simulator profile, NULL: STREAMLAB_PROFILE or h200 */
    int runs;               /* timed runs of baseline and yours, interleaved */
    uint64_t seed;          /* workload seed */
    bool seed_given;
    const char *trace_path; /* Chrome/Perfetto trace to write, or NULL */
    bool json;              /* one JSON object on stdout, everything else on stderr */
    int events_fd;          /* live event stream, -1: none */
    int schedules;          /* simulator: extra runs under perturbed timing */
    bool schedules_given;
    bool quiet;             /* the verdict only: no timeline, no details */
    bool tui;               /* show the run in the live timeline */
    int timeout_s;          /* your code's budget: wall-clock seconds in your setup(), run() and
                               teardown() together (guard.h) */
    int harness_timeout_s;  /* the most the harness's own budget may grow to (budget.h) */
    int width;              /* timeline width in columns, 0: the terminal's */
    bool help;
    bool hint;              /* --hint: run, then give the next hint for the step the student is at */
    bool probe_device;      /* --probe-device: say whether this build can run, and exit */
    const char *student;    /* --student: the student's binary (remote.h); NULL: beside this one */
    int devices;            /* not an option: the GPUs the lab needs (its spec's devices), set by the runner */
} lab_options;

#define LAB_EXIT_PASS 0
#define LAB_EXIT_BELOW_TARGET 1
#define LAB_EXIT_FAIL 2
/* The machine was too slow for the harness's own work (the baseline, checking, the
 * report): not the code's fault, run again (guard.h). */
#define LAB_EXIT_HOST 3
#define LAB_EXIT_USAGE 64

/* Parses argv. Returns 0, or LAB_EXIT_USAGE after writing what is wrong into err. */
int lab_parse_options(int argc, char **argv, lab_options *out, char *err, size_t err_len);

/* How the student runs this binary, for messages: STREAMLAB_USAGE_NAME when the launcher
 * set it ("bazel run //labs:03_double_buffer --"), else argv0's last component. */
const char *lab_usage_name(const char *argv0);

/* Writes the usage text for program `prog` (a lab binary) to stream. */
void lab_print_usage(const char *prog, const char *lab_id, void *stream);

#ifdef __cplusplus
}
#endif

#endif
