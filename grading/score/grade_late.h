/* grading/score/grade_late.h: a lab's late policy (the rubric's optional "late" object,
 * grade_rubric.h) applied to a submission: when it was handed in, how many days late,
 * and the points that costs.
 *
 * When a submission was handed in comes from what the platform gives: a Gradescope
 * export's :created_at:; for a Canvas download, Canvas's _LATE flag decides whether it is
 * late at all (Canvas knows each student's due date and extensions). --submitted-at
 * FILE.csv (columns student and submitted_at) gives or overrides the time of the students
 * it names. The files' modification times are used only when the instructor asks
 * (--file-times): a class copied with cp -r, git clone or rsync, or unpacked without its
 * times, has the copy's times, which would make everyone late. Even then, times that look
 * like a copy's (all within a minute of each other, or after the grading started) are
 * refused. A student with no time is not late (a Canvas _LATE one is 1 day late), and the
 * grader says so on stderr for the whole class (grade_late_warning).
 *
 * Days late: (submitted - due - grace) in started days of 24 hours, 0 when not after
 * due + grace. Penalty: per_day points a day, up to max_days days; more days late take
 * all of the lab's points. Never more than the lab's checks gave, so no lab goes below 0. */
#ifndef STREAMLAB_GRADE_LATE_H
#define STREAMLAB_GRADE_LATE_H

#include <stddef.h>

#include "grading/score/grade_result.h"
#include "grading/score/grade_rubric.h"
#include "grading/submissions/grade_submission.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --file-times: gives every submission without a time (from its platform or
 * --submitted-at) its files' newest modification time. Returns 0, or -1 with why in err
 * when those times cannot be when students handed in: two or more of them within a minute
 * of each other (a copy's), or one after `started` (when the grading began). */
int grade_late_fill_times(grade_submission_list *l, long long started, char *err, size_t err_len);
/* With a late policy in any lab (policy names one): the students it cannot judge, in words
 * for stderr (no time: not late; Canvas _LATE without a time: 1 day), and what to give;
 * NULL when every student has a time. */
char *grade_late_warning(const grade_submission_list *l, const char *policy, bool file_times);
/* --submitted-at FILE.csv: sets the time of each student it names (by name, sid, email or
 * platform id). A row naming no submission, or a time that does not parse, is refused.
 * Returns 0, or -1 with "FILE: line N: why" in err. */
int grade_late_read_overrides(const char *path, grade_submission_list *l, char *err, size_t err_len);
/* Sets lab's late_policy, late_days, late_penalty and late_reason by rule (call it after
 * the checks are scored). Nothing when the rule is off. */
void grade_late_apply(const grade_late_rule *rule, const grade_submission *sub, grade_lab *lab);
/* --rescore of a lab this run does not grade: its days late as found when it was graded
 * (lab->late_days), the penalty by rule again (off: none). */
void grade_late_rescore(const grade_late_rule *rule, grade_lab *lab);
/* Whole days late (0 on time) of a submission handed in at t. canvas_late as in
 * grade_submission (0 when not a Canvas download). */
int grade_late_days(const grade_late_rule *rule, long long t, int canvas_late);
/* t as "2026-12-01 23:59:00 UTC" (malloc'd). */
char *grade_late_time_text(long long t);

#ifdef __cplusplus
}
#endif

#endif
