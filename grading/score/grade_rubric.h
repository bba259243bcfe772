/* grading/score/grade_rubric.h: the instructor's rubric (grading/rubric.json): points per lab
 * for a correct result, for race-freedom, for speed and (optionally) for a stage the
 * student timed on the GPU, and how re-runs near a threshold are made. Loaded and
 * validated in one go: unknown keys, missing fields, wrong types, negative points, a floor
 * at or above its target are each reported with the file and the field.
 *
 *   {
 *     "comment": "any object may carry a comment string",
 *     "noise": {"band": 0.05, "max_reruns": 2},
 *     "labs": {
 *       "03_double_buffer": {
 *         "correct":   {"points": 40},
 *         "race_free": {"points": 20},
 *         "speedup":   {"points": 40, "unit": "bound_fraction", "floor": "baseline", "target": "lab"},
 *         "measurement": {"points": 20}
 *       }
 *     }
 *   }
 *
 * Speed points scale linearly between floor (none) and target (all). unit says what the
 * numbers measure: "bound_fraction", the submission's speedup as a fraction of the lab's
 * pipeline bound (the best speedup a perfect pipeline of the measured phases reaches, so
 * the same rubric fits any GPU), or "speedup", the speedup over the lab's baseline. floor
 * may be "baseline" (no faster than the baseline: speedup 1) and target may be "lab" (the
 * pass target the lab's spec sets).
 *
 * "measurement" is optional: labs that ask the student to time a stage with CUDA events
 * and report it (lab 02) carry a "measurement" object in their result, and these points
 * go to a correct result whose measurement the lab accepted. Left out (or 0 points), the
 * lab has no such check and no report shows one. */
#ifndef STREAMLAB_GRADE_RUBRIC_H
#define STREAMLAB_GRADE_RUBRIC_H

#include <stdbool.h>
#include <stddef.h>

#include "grading/base/grade_time.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum grade_speed_unit {
    GRADE_UNIT_BOUND_FRACTION = 0,
    GRADE_UNIT_SPEEDUP
} grade_speed_unit;

typedef struct grade_speed_rule {
    double points;
    grade_speed_unit unit;
    bool floor_is_baseline; /* floor "baseline": speedup 1 */
    double floor;           /* in unit, when not floor_is_baseline */
    bool target_is_lab;     /* target "lab": the lab's own pass target */
    double target;          /* in unit, when not target_is_lab */
} grade_speed_rule;

/* The lab's late policy (optional "late" object; grade_late.h applies it):
 *   "late": {"due": "2026-12-01T23:59:00Z", "per_day": 10, "max_days": 5, "grace_minutes": 15}
 * due is an ISO 8601 time with its zone (Z or +01:00); per_day is points taken per day
 * late, or started day after due + grace; more than max_days days late takes all of the
 * lab's points (not accepted). grace_minutes is optional (0). */
typedef struct grade_late_rule {
    bool on;
    long long due;       /* seconds since 1970, UTC */
    char due_text[48];   /* as the rubric wrote it */
    double per_day;
    int max_days;
    int grace_minutes;
} grade_late_rule;

typedef struct grade_rubric_lab {
    char id[64];
    double correct_points;
    double race_free_points;
    grade_speed_rule speed;
    double measurement_points; /* 0: the lab has no measurement check */
    grade_late_rule late;      /* .on false: no late policy */
    /* "race_free": {"needs_correct": true}: race-freedom's points only for correct results
     * (default false: judged on its own). */
    bool race_needs_correct;
    /* "output": "cut": output past --output-mb is cut and the run goes on (default "fail":
     * the run is ended, as a program that fills the disk is). */
    bool output_cut;
} grade_rubric_lab;

typedef struct grade_rubric {
    char path[512];  /* the file read */
    char shown[512]; /* the file as messages name it: as the instructor gave it */
    grade_rubric_lab *labs;
    size_t n_labs;
    double noise_band; /* re-run when the speed is within this fraction of the target */
    int max_reruns;    /* at most this many re-runs per lab */
} grade_rubric;

/* Reads and validates a rubric file. Returns 0, or -1 with "FILE: what is wrong" in err. */
int grade_rubric_load(const char *path, grade_rubric *out, char *err, size_t err_len);
/* The same, with the file named `shown` in messages (the path as the instructor gave it, or
 * grading/rubric.json for the built-in one, not its place in Bazel's cache). */
int grade_rubric_load_as(const char *path, const char *shown, grade_rubric *out, char *err, size_t err_len);
/* Lines for stderr about a rubric that loads but may not be what was meant (a lab whose
 * points do not add up to 100), or NULL. */
char *grade_rubric_warnings(const grade_rubric *r);
/* A lab of the rubric that no kit has (a typo in its key): "FILE: labs.ID: no such lab
 * (did you mean NEAREST?) ...". known: the labs there are. Returns 0, or -1 with err. */
int grade_rubric_check_labs(const grade_rubric *r, const char *const *known, size_t n_known, char *err,
                            size_t err_len);
/* The same from text; `name` stands for the file in messages. */
int grade_rubric_parse(const char *text, size_t len, const char *name, grade_rubric *out, char *err, size_t err_len);
void grade_rubric_free(grade_rubric *r);
const grade_rubric_lab *grade_rubric_find(const grade_rubric *r, const char *lab);
/* The lab a student or instructor names: its id ("03_double_buffer"), its number ("03",
 * "3") or a prefix of its id that only it has ("03_d"). NULL when none or several match. */
const grade_rubric_lab *grade_rubric_lookup(const grade_rubric *r, const char *name);
double grade_rubric_lab_points(const grade_rubric_lab *lab);

#ifdef __cplusplus
}
#endif

#endif
