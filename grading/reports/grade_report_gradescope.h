/* grading/reports/grade_report_gradescope.h: a student's results.json in Gradescope's autograder
 * format: the score, an output text, and one test per lab and check (name, score,
 * max_score, status "passed"/"failed", output, visibility), the output formats (the
 * timeline and race reports are aligned text: "text" shows them monospaced, "md" inside a
 * code block), and optionally a leaderboard of each lab's speedup. What the instructor
 * sets (--visibility, --output-format, --leaderboard) is a grade_gradescope_settings. */
#ifndef STREAMLAB_GRADE_REPORT_GRADESCOPE_H
#define STREAMLAB_GRADE_REPORT_GRADESCOPE_H

#include <stdbool.h>
#include <stddef.h>

#include "grading/reports/grade_report.h"
#include "grading/score/grade_result.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Gradescope's visibility values: "visible", "hidden", "after_due_date", "after_published". */
typedef struct grade_gradescope_settings {
    const char *visibility;                     /* the whole result's, and every test's by default */
    const char *test_visibility[GRADE_CHECKS];  /* a check's own tests, or NULL: visibility */
    const char *format;                         /* "text" or "md" */
    bool leaderboard;                           /* a "<lab> speedup" column per lab */
} grade_gradescope_settings;

/* Everything visible, "text", no leaderboard. */
void grade_gradescope_settings_init(grade_gradescope_settings *g);
/* --visibility: a comma-separated list of V (the default) and CHECK=V (one check's tests:
 * correct, race-free, speed, measurement; the rubric's names work too). Returns 0, or -1
 * with err (g is then unchanged). */
int grade_gradescope_parse_visibility(const char *spec, grade_gradescope_settings *g, char *err, size_t err_len);
/* --output-format: "text" or "md". Returns 0, or -1 with err. */
int grade_gradescope_parse_format(const char *v, grade_gradescope_settings *g, char *err, size_t err_len);

/* The JSON text (malloc'd); ctx->gradescope NULL: the defaults. */
char *grade_report_gradescope(const grade_student *s, const grade_report_context *ctx);

#ifdef __cplusplus
}
#endif

#endif
