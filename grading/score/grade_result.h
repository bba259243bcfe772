/* grading/score/grade_result.h: what grading found, per student and per lab: the checks of the
 * rubric (points, whether full marks, the reason in words), the build's
 * diagnostics, the speed figures of every attempt, the lab's own result object, the text
 * timeline and the program's output. Every report is written from these structs, and a
 * worker process hands a student's to the main process as JSON (to_json / from_json). */
#ifndef STREAMLAB_GRADE_RESULT_H
#define STREAMLAB_GRADE_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum grade_check_id {
    GRADE_CORRECT = 0,
    GRADE_RACE_FREE,
    GRADE_SPEEDUP,
    GRADE_MEASUREMENT, /* optional: only labs whose rubric gives it points have it */
    GRADE_CHECKS
} grade_check_id;

/* "correct", "race_free", "speedup", "measurement": the rubric's names. */
extern const char *const grade_check_names[GRADE_CHECKS];
/* "correct", "race-free", "speed", "measurement": what every report calls them (report.txt
 * and the summary, JUnit testcases, Gradescope tests); the gradebook's columns keep the
 * rubric's names. */
extern const char *const grade_check_titles[GRADE_CHECKS];

typedef struct grade_check {
    double points;
    double max;
    bool passed; /* full marks */
    char *reason;
} grade_check;

#define GRADE_MAX_ATTEMPTS 11

typedef struct grade_lab {
    char *lab;            /* "03_double_buffer" */
    char *student_file;   /* "labs/03_double_buffer/lab.c" */
    bool submitted;
    char *missing;        /* not submitted: why (with hints), else NULL */
    char *diagnostics;    /* the compiler's and linker's output about the file ("" when none) */
    char *build_error;    /* does not compile / link: the first error, else NULL */
    uint64_t seed;        /* the workload seed it ran with */
    bool seed_fixed;      /* the instructor's --seed (the same for every student) */
    int attempts;         /* lab runs made (1 + re-runs) */
    double speedups[GRADE_MAX_ATTEMPTS];       /* each attempt's median speedup */
    double bound_fractions[GRADE_MAX_ATTEMPTS];
    double speedup;       /* the median of the attempts' medians */
    double bound_fraction;
    double pipeline_bound;
    double lab_target;    /* the lab's own pass target (a speedup) */
    double floor_speedup, target_speedup; /* the rubric's, as speedups, for this run */
    char *failure;        /* why no usable result came (crash, limit, ...), else NULL */
    bool host_problem;    /* that was the grading host's doing (too slow for the harness's
                             own work): no grade, the student is graded again (grade_host.h) */
    cJSON *result;        /* the lab's result object (from the event stream), or NULL */
    char *timeline;       /* text timeline of the submission's last run, or NULL */
    char *output;         /* the first part of the program's stdout and stderr */
    char *notes;          /* re-runs, ignored event lines, ... ("" when none) */
    double seconds;       /* time spent on this lab */
    grade_check checks[GRADE_CHECKS];
    /* The rubric's late policy (grade_late.h), when the lab has one: the whole days late
     * and the points it took (never more than the checks gave), and why in words. */
    bool late_policy;
    int late_days;
    double late_penalty;
    char *late_reason;
    /* The instructor's manual adjustment, typed into the gradebook's "<lab> adjustment"
     * column and kept by --regrade and --resume (grade_adjust.h): points added (or taken,
     * when negative) and the note beside them. */
    bool adjusted;
    double adjustment;
    char *adjustment_note;
    /* Graded on another backend than the one asked for, and why (grade_devices.h: "lab
     * 09_two_gpus graded on the simulator: this machine has 1 GPU, the lab needs 2"), else
     * NULL. */
    char *backend_note;
} grade_lab;

typedef struct grade_student {
    char *name;
    char *source;         /* the folder or archive it came from */
    char *sid, *email;    /* from a platform's export or the roster, else NULL */
    char *platform_id;    /* the platform's id (Canvas user, Moodle participant, Gradescope submission) */
    char *problem;        /* a problem with the whole submission, else NULL */
    grade_lab *labs;
    size_t n_labs;
    double score, max_score;
    double seconds;
    bool not_graded;      /* no score, only the note (problem): an interrupted run did not get to
                             it, or the host was too slow for a lab's run (grade_host.h) */
} grade_student;

/* Whether lab has check c: the first three always; measurement only when the rubric gives
 * it points (max > 0). Reports show, count and total only the checks a lab has, so a lab
 * without the measurement check reads exactly as before the check existed. */
bool grade_lab_has_check(const grade_lab *lab, grade_check_id c);
/* How many checks lab has (3 or 4). */
int grade_lab_checks(const grade_lab *lab);

/* A lab with its checks' maxima set and nothing found yet. */
void grade_lab_init(grade_lab *lab, const char *id, const char *student_file, const double max[GRADE_CHECKS]);
void grade_lab_free(grade_lab *lab);
/* Sets a check (reason is copied). */
void grade_check_set(grade_check *c, double points, const char *reason);
/* The lab's points: its checks', less the late penalty, plus the adjustment; never
 * below 0. */
double grade_lab_score(const grade_lab *lab);
/* Sums the labs' points (grade_lab_score) into score and max_score. */
void grade_student_total(grade_student *s);
void grade_student_free(grade_student *s);

cJSON *grade_student_to_json(const grade_student *s);
/* Returns 0, or -1 when j is not a student object. */
int grade_student_from_json(const cJSON *j, grade_student *s);

/* The lab `id` of s, or NULL when s has no result for it. */
const grade_lab *grade_student_lab(const grade_student *s, const char *id);
/* The labs any of the students has, each once, sorted by id (the labs' numbers): the
 * gradebook's and the summary's columns when rows come from runs of different labs.
 * Returns how many; *ids (malloc'd; the strings are the students') holds them. */
size_t grade_students_labs(const grade_student *const *students, size_t n, const char ***ids);
/* A course folder graded one lab at a time: gives s (this run's result) the labs of
 * earlier, its stored result, that this run did not grade (in lab order), and totals it
 * again. Returns how many labs were taken. */
size_t grade_student_keep_labs(grade_student *s, const grade_student *earlier);

/* Points rounded to 2 decimals, as reports print them. */
double grade_round_points(double p);

#ifdef __cplusplus
}
#endif

#endif
