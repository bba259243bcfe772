/* grading/reports/grade_report.h: what every report says at its top: how the grading was done
 * (backend, runs, limits, the sandbox), shared by the report writers. */
#ifndef STREAMLAB_GRADE_REPORT_H
#define STREAMLAB_GRADE_REPORT_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct grade_report_context {
    const char *backend;  /* "the SIMULATED GPU (h200 profile)", "the real GPU" */
    const char *sandbox;  /* grade_sandbox_describe */
    const char *settings; /* "5 timed runs, 2 perturbed schedules, 60 s per lab, ..." */
    const char *when;     /* date and time */
    /* results.json's Gradescope settings (grade_report_gradescope.h), or NULL: defaults. */
    const struct grade_gradescope_settings *gradescope;
} grade_report_context;

#ifdef __cplusplus
}
#endif

#endif
