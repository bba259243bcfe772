/* labs/harness/result_schema.h: the lab result's schema, its one definition. The lab binary
 * writes its result (`--json`, and the `result` line of the event stream) by these names
 * (result.c, measure.c), and the grader reads it by them (grading/score/, grading/run/,
 * grading/reports/). The result crosses a process boundary as JSON: the lab binary and the
 * grader are two programs, built from one kit, and a result can be stored in a class's
 * --out folder and read again by a later grader (--rescore, --resume).
 *
 * LAB_RESULT_VERSION is the schema's version, written as LAB_KEY_VERSION, the result's
 * first key. Change it when a key the grader reads changes its name, type or meaning, or
 * goes away; a key added changes nothing. The grader refuses a result whose version is
 * newer than the one it was built with (grading/score/grade_result_version.h); a result
 * with no version was written before versions were (a term's stored results) and is read
 * as version 1.
 *
 * Macros, so that they are string literals in C and C++ alike. Each key: what it holds,
 * and its JSON type. Keys no reader outside the lab names (the blame object, a race's
 * early_record, latency, host_memory, ...) are spelled in the writer alone; docs/labs.md
 * describes them. */
#ifndef STREAMLAB_LAB_RESULT_SCHEMA_H
#define STREAMLAB_LAB_RESULT_SCHEMA_H

#include <stddef.h>
#include <string.h>

/* The schema's version: an integer, 1 and up. */
#define LAB_RESULT_VERSION 1

/* A line of the student's program that the lab binary could not look up (the grader runs it
 * with STREAMLAB_NO_SUBPROCESS), in the words of its result and its report (a race's sides,
 * a wait's line in the reasons, a refusal that names the line that freed a buffer:
 * lab_source_line_words, labs/harness/source_line.c): the address, relative to the
 * student's program, of the call. The grader replaces each such phrase with the line
 * (grading/run/grade_lines.c). printf format, of an unsigned long long; the prefix and
 * suffix for readers. */
#define LAB_SITE_WORDS_FORMAT "address %#llx of your program"
#define LAB_SITE_WORDS_PREFIX "address 0x"
#define LAB_SITE_WORDS_SUFFIX " of your program"

/* The length of the site words that start at p (at most avail bytes there), 0 when none
 * do: the prefix, 1 to 16 lowercase hex digits, the suffix. */
static inline size_t lab_site_words_at(const char *p, size_t avail) {
    const size_t prefix = sizeof(LAB_SITE_WORDS_PREFIX) - 1, suffix = sizeof(LAB_SITE_WORDS_SUFFIX) - 1;
    if (avail < prefix || memcmp(p, LAB_SITE_WORDS_PREFIX, prefix) != 0) return 0;
    size_t digits = 0;
    while (prefix + digits < avail && digits <= 16 &&
           ((p[prefix + digits] >= '0' && p[prefix + digits] <= '9') ||
            (p[prefix + digits] >= 'a' && p[prefix + digits] <= 'f')))
        digits++;
    if (digits == 0 || digits > 16 || avail - prefix - digits < suffix) return 0;
    return memcmp(p + prefix + digits, LAB_SITE_WORDS_SUFFIX, suffix) == 0 ? prefix + digits + suffix : 0;
}

/* ---- the result object ------------------------------------------------------------------ */
#define LAB_KEY_VERSION "result_version"         /* number: LAB_RESULT_VERSION of the writer */
#define LAB_KEY_LAB "lab"                        /* string: the lab's id, "03_double_buffer" */
#define LAB_KEY_BACKEND "backend"                /* string: "sim" or "gpu" */
#define LAB_KEY_PROFILE "profile"                /* string: the simulator's profile */
#define LAB_KEY_DEVICE "device"                  /* string: the device's name */
#define LAB_KEY_SIMULATED "simulated"            /* bool: ran on the simulator */
#define LAB_KEY_SEED "seed"                      /* number (its own digits): the workload seed */
#define LAB_KEY_STATUS "status"                  /* string: pass, below_target, incorrect, racy, error */
#define LAB_KEY_PASSED "passed"                  /* bool: status is pass */
#define LAB_KEY_EXIT_CODE "exit_code"            /* number: the lab binary's exit status */
#define LAB_KEY_ERROR "error"                    /* string, when status is error: what went wrong */
#define LAB_KEY_CORRECT "correct"                /* bool: every output matched the CPU oracle */
#define LAB_KEY_FIRST_MISMATCH "first_mismatch"  /* object (LAB_KEY_MISMATCH_*), when not correct */
#define LAB_KEY_RACES "races"                    /* number: race reports found */
#define LAB_KEY_PLANTED_RACES "planted_races"    /* object (LAB_KEY_PLANTED_*), labs with planted races */
#define LAB_KEY_RACE_REPORTS "race_reports"      /* array of objects (LAB_KEY_RACE_*): the first ones */
#define LAB_KEY_SPEEDUP "speedup"                /* number: median speedup over the baseline (0: not counted) */
#define LAB_KEY_SPEEDUP_BEST "speedup_best"      /* number: best run's speedup */
#define LAB_KEY_TARGET "target"                  /* number: the lab's pass target, as a speedup */
#define LAB_KEY_TARGET_BOUND_FRACTION "target_bound_fraction" /* number: that target, of the bound */
#define LAB_KEY_PIPELINE_BOUND "pipeline_bound"  /* number: the speedup at the bound */
#define LAB_KEY_PIPELINE_MS "pipeline_ms"        /* number: the bound's time, ms */
#define LAB_KEY_BOUND_FRACTION "bound_fraction"  /* number: speedup / pipeline_bound (0: not counted) */
#define LAB_KEY_METRIC "metric"                  /* object (LAB_KEY_METRIC_*): the graded figure */
#define LAB_KEY_WORK "work"                      /* object (LAB_KEY_WORK_*), when the work was checked */
#define LAB_KEY_REFUSED "refused"                /* string: a command the referee refused */
#define LAB_KEY_BOUND "bound"                    /* object (LAB_KEY_BOUND_*): the lab's bound */
#define LAB_KEY_RUNS "runs"                      /* number: timed runs */
#define LAB_KEY_BATCHES "batches"                /* number: the workload's batches (or requests) */
#define LAB_KEY_SCHEDULES "schedules"            /* number: perturbed schedules checked */
#define LAB_KEY_SCHEDULE_FAILED "schedule_failed" /* number: the schedule that failed, when one did */
#define LAB_KEY_TIMINGS "timings"                /* object (LAB_KEY_TIMINGS_*): each run's time */
#define LAB_KEY_BOUND_FIGURES "bound_figures"    /* object of numbers: the bound's figures (a lab may
                                                    name this object otherwise: lab_bound) */
#define LAB_KEY_METRICS "metrics"                /* object (LAB_KEY_METRICS_*): the timeline's run */
#define LAB_KEY_TIMING_SOURCE "timing_source"    /* string: how device times were taken */
#define LAB_KEY_STREAM0_STALLS "stream0_stalls"  /* object: count (number), held (number: of them, those that
                                                    held a stream back), first (array of strings) */
#define LAB_KEY_BUSY_AT_RETURN "busy_at_return"  /* string: streams busy when run() returned */
#define LAB_KEY_HOST_MEMORY "host_memory"        /* object: pinning and pageable copies (host_memory.c) */
#define LAB_KEY_LATENCY "latency"                /* object: the requests' latencies (a lab of requests) */
#define LAB_KEY_MEASUREMENT "measurement"        /* object (LAB_KEY_MEASUREMENT_*): stage times reported */
#define LAB_KEY_STEPS "steps"                    /* object: the student's path (of, done, next, ...) */
#define LAB_KEY_NEXT "next"                      /* string: advice past the last step */
#define LAB_KEY_BLAME "blame"                    /* object: the waits on the critical path */
#define LAB_KEY_TIMELINE_RUN "timeline_run"      /* number: the run (of the event stream) the timeline is */
#define LAB_KEY_TIMELINE_FROM "timeline_from"    /* string: last_timed_run or traced_run */
#define LAB_KEY_TIMED_RUNS_TRACED "timed_runs_traced" /* bool: the timed runs were traced */
#define LAB_KEY_TIMED_RUNS_TIMING "timed_runs_timing" /* string: traced, none, cuda_events, ... */

/* ---- first_mismatch --------------------------------------------------------------------- */
#define LAB_KEY_MISMATCH_RUN "run"               /* string: which run was wrong */
#define LAB_KEY_MISMATCH_BATCH "batch"           /* number: the first wrong batch */
#define LAB_KEY_MISMATCH_INDEX "index"           /* number: its first wrong element */
#define LAB_KEY_MISMATCH_GOT "got"               /* number: the element's bits */
#define LAB_KEY_MISMATCH_EXPECTED "expected"     /* number: the oracle's bits */
#define LAB_KEY_MISMATCH_WRONG_BATCHES "wrong_batches" /* number: batches with a wrong element */
#define LAB_KEY_MISMATCH_WHY "why"               /* string: the likely cause in words */

/* ---- race_reports[] --------------------------------------------------------------------- */
#define LAB_KEY_RACE_KIND "kind"                 /* string: the race's kind (trace_race_kind_name) */
#define LAB_KEY_RACE_FIRST "first"               /* string: the first side's operation */
#define LAB_KEY_RACE_FIRST_STREAM "first_stream" /* string: its stream, by the student's name */
#define LAB_KEY_RACE_FIRST_LINE "first_line"     /* string: its source line, when known (under the
                                                    grader's sandbox, site words the grader replaces) */
#define LAB_KEY_RACE_FIRST_SITE "first_site"     /* string: its call site, "0x...", where the line was
                                                    not looked up: for addr2line by hand */
#define LAB_KEY_RACE_SECOND "second"             /* string: the second side's operation */
#define LAB_KEY_RACE_SECOND_STREAM "second_stream" /* string */
#define LAB_KEY_RACE_SECOND_LINE "second_line"   /* string */
#define LAB_KEY_RACE_SECOND_SITE "second_site"   /* string: "0x..." */
#define LAB_KEY_RACE_BYTES "bytes"               /* number: bytes both sides touch */
#define LAB_KEY_RACE_FIX "fix"                   /* string: the fix, in the student's names */
#define LAB_KEY_RACE_BLAMED_WAIT "blamed_wait"   /* object (LAB_KEY_BLAMED_*), when the fix blames a
                                                    wait (its other keys: docs/labs.md) */

/* ---- race_reports[].blamed_wait ---------------------------------------------------------- */
#define LAB_KEY_BLAMED_FAULT "fault"             /* string: late, before_record, other_event, ... */
#define LAB_KEY_BLAMED_STREAM "stream"           /* string: the stream that waits, "host" for the host */
#define LAB_KEY_BLAMED_WAIT_LINE "wait_line"     /* string: the wait's source line, when known */
#define LAB_KEY_BLAMED_WAIT_SITE "wait_site"     /* string: its call site, "0x...", as first_site */
#define LAB_KEY_BLAMED_RECORD_LINE "record_line" /* string: the line of the record the fix names */
#define LAB_KEY_BLAMED_RECORD_SITE "record_site" /* string: its call site, "0x..." */

/* ---- planted_races ---------------------------------------------------------------------- */
#define LAB_KEY_PLANTED_TOTAL "total"            /* number: races the skeleton plants */
#define LAB_KEY_PLANTED_FIXED "fixed"            /* number: of them fixed */
#define LAB_KEY_PLANTED_OTHER "other"            /* number: race reports that are none of them */
#define LAB_KEY_PLANTED_LEFT "left"              /* array of strings: the planted races left */

/* ---- metric ----------------------------------------------------------------------------- */
#define LAB_KEY_METRIC_NAME "name"               /* string: speedup, bandwidth or latency */
#define LAB_KEY_METRIC_UNIT "unit"               /* string: "x", "GB/s" or "ms" */
#define LAB_KEY_METRIC_VALUE "value"             /* number: the median, in unit */
#define LAB_KEY_METRIC_BEST "best"               /* number: the best run's */
#define LAB_KEY_METRIC_BOUND "bound"             /* number: at the bound */
#define LAB_KEY_METRIC_TARGET "target"           /* number: the target */
#define LAB_KEY_METRIC_COUNTED "counted"         /* bool, false only: the work was missing */

/* ---- work ------------------------------------------------------------------------------- */
#define LAB_KEY_WORK_CHECKED "checked"           /* bool: the lab checks the work */
#define LAB_KEY_WORK_OK "ok"                     /* bool: the runs did the lab's work on the device */
#define LAB_KEY_WORK_WHY "why"                   /* string: what was missing, in words */

/* ---- latency (a lab of requests) --------------------------------------------------------- */
#define LAB_KEY_LATENCY_BACKGROUND_OK "background_ok"   /* bool: the runs did the whole background, at
                                                           the baseline's pace, from run()'s start */
#define LAB_KEY_LATENCY_BACKGROUND_WHY "background_why" /* string, when not ok: what was wrong, in words */

/* ---- bound ------------------------------------------------------------------------------ */
#define LAB_KEY_BOUND_NAME "name"                /* string: the bound's name ("pipeline bound") */
#define LAB_KEY_BOUND_SPEEDUP "speedup"          /* number: the speedup at the bound */
#define LAB_KEY_BOUND_IDEAL_MS "ideal_ms"        /* number: the bound's time, ms */
#define LAB_KEY_BOUND_DETAIL "detail"            /* string: how the bound comes about */
#define LAB_KEY_BOUND_MEASURED_MS "measured_ms"  /* array of numbers: each measurement, ms (the median stands) */

/* ---- timings ---------------------------------------------------------------------------- */
#define LAB_KEY_TIMINGS_BASELINE_MS "baseline_ms" /* array of numbers: each baseline run, ms */
#define LAB_KEY_TIMINGS_YOURS_MS "yours_ms"       /* array of numbers: each of the student's runs, ms */

/* ---- metrics ---------------------------------------------------------------------------- */
#define LAB_KEY_METRICS_MAKESPAN_MS "makespan_ms" /* number: the run's length, ms */
#define LAB_KEY_METRICS_OVERLAP "overlap"        /* number, 0 to 1: copies under compute */
#define LAB_KEY_METRICS_UTIL_H2D "util_h2d"      /* number, 0 to 1: the H2D engine's busy share */
#define LAB_KEY_METRICS_UTIL_COMPUTE "util_compute" /* number, 0 to 1: the SMs' */
#define LAB_KEY_METRICS_UTIL_D2H "util_d2h"      /* number, 0 to 1: the D2H engine's */

/* ---- measurement (measure.c) ------------------------------------------------------------ */
#define LAB_KEY_MEASUREMENT_OK "ok"              /* bool: the reported stage times were accepted */
#define LAB_KEY_MEASUREMENT_STAGES "stages"      /* array of objects (LAB_KEY_STAGE_*) */
#define LAB_KEY_STAGE_NAME "name"                /* string: the stage */
#define LAB_KEY_STAGE_REPORTED "reported"        /* bool: the student reported a time */
#define LAB_KEY_STAGE_REPORTED_MS "reported_ms"  /* number: that time, ms (-1: not a number) */
#define LAB_KEY_STAGE_DEVICE_MS "device_ms"      /* number: the device's time for the stage, ms */
#define LAB_KEY_STAGE_OPS "ops"                  /* number: the device's operations in it */
#define LAB_KEY_STAGE_OK "ok"                    /* bool: the report matches the device */
#define LAB_KEY_STAGE_WHY "why"                  /* string: the lab's words on it */

#endif
