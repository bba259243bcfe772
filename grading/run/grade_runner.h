/* grading/run/grade_runner.h: one run of a built lab binary, the way the grader trusts it.
 *
 *   <binary> --json --events-fd 3 --seed S --runs K --schedules N --timeout T
 *            --harness-timeout H
 *
 * in the sandbox, with a fresh random nonce in STREAMLAB_EVENTS_NONCE (the harness reads
 * and removes it). The result comes only from the event stream's `result` and `bye` lines
 * that carry the nonce; stdout and stderr go to size-capped files and are shown to people,
 * never parsed. The stream's ops of the submission's last run become the text timeline.
 * When the program produced no result, `failure` says why in words (it crashed, hung,
 * used too much memory or CPU, wrote too much, tried to start a process, exited early).
 *
 * Time: T is the student's budget, for the student's own phases only (setup, run and
 * teardown of "yours"); the harness's own phases (the baseline, checking, the report) have
 * a budget of their own, scaled to the machine and at most H (labs/harness/guard.h,
 * budget.h). The lab ends itself when either runs out. The grader's watchdog is the last
 * resort for a lab that does not: it follows the phases the harness announces on the
 * stream ("in run (yours)") and stops the program once the student's phases have run
 * T + 10 s, or the harness's H + 10 s (time before the first announcement is the
 * student's). A harness past its budget, by the lab's word or the watchdog's, is the
 * grading host's problem: host_problem is set, the failure says "not graded", and the
 * student is graded again later (grade_host.h), never given 0 for it.
 *
 * Test hooks: STREAMLAB_TEST_SLOW_BASELINE_MS and STREAMLAB_TEST_HARNESS_BUDGET_S
 * (labs/harness/budget.h), when the grader has them, are passed on to the lab. */
#ifndef STREAMLAB_GRADE_RUNNER_H
#define STREAMLAB_GRADE_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "grading/build/grade_kit.h"
#include "grading/sandbox/grade_sandbox.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct grade_run_settings {
    int runs;               /* --runs */
    int schedules;          /* --schedules */
    int timeout_s;          /* --timeout: the student's phases' budget; the watchdog stops them 10 s later */
    int harness_timeout_s;  /* --harness-timeout: the most the harness's own budget may be (0:
                               GRADE_HARNESS_TIMEOUT_S); the watchdog stops it 10 s later */
    const char *profile;    /* simulator profile, NULL: the lab's default */
    long mem_mb;            /* resident memory limit */
    long output_mb;         /* stdout/stderr/file size limit */
    bool cut_output;        /* output past output_mb is cut, the run goes on (the rubric's "output": "cut") */
    int width;              /* timeline columns */
    const char *gpu_lock;   /* a file to lock while the program runs (real GPU), or NULL */
} grade_run_settings;

/* The harness's own budget, at most, unless the settings say otherwise. */
#define GRADE_HARNESS_TIMEOUT_S 600

typedef struct grade_attempt {
    uint64_t seed;
    grade_outcome outcome;
    cJSON *result;            /* the first result record's object, or NULL */
    unsigned results;         /* how many result records came (grade_trust.h) */
    bool have_bye;
    int bye_status;
    char bye_reason[256];
    uint64_t foreign_lines;   /* event lines without this run's nonce (not from the harness) */
    char first_foreign[160];
    uint64_t bad_lines;       /* other unreadable event lines */
    char *timeline;           /* text timeline of the last run of the submission, or NULL */
    char *output;             /* the first part of stderr and stdout, cleaned */
    bool output_cut;          /* cut_output, and stdout or stderr reached output_mb: the rest was cut */
    char *failure;            /* why there is no result, or NULL */
    bool grader_fault;        /* failure is the grader's (could not start), not the program's */
    bool host_problem;        /* failure is the grading host's (too slow for the harness's own
                                 work): no grade, grade again */
} grade_attempt;

/* Runs binary (built in build_dir) with run_dir as its working and home folder (created
 * and given to the sandbox user); log_dir takes the output files. */
int grade_run_lab(const grade_sandbox_config *cfg, const grade_kit *kit, const char *binary, const char *build_dir,
                  const char *run_dir, const char *log_dir, const grade_run_settings *settings, uint64_t seed,
                  grade_attempt *out);
void grade_attempt_free(grade_attempt *a);

/* Random numbers from the kernel (getrandom). */
uint64_t grade_random_u64(void);
/* 2*nbytes lower-case hex digits of randomness and a NUL into out. */
void grade_random_hex(char *out, size_t nbytes);

#ifdef __cplusplus
}
#endif

#endif
