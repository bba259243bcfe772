/* grading/base/grade_time.h: the times rubrics and course platforms write: a rubric's late
 * "due", Gradescope's :created_at:, --submitted-at's cells. */
#ifndef STREAMLAB_GRADING_BASE_GRADE_TIME_H
#define STREAMLAB_GRADING_BASE_GRADE_TIME_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An ISO 8601 time with a zone: "2026-12-01T23:59:00Z", "2026-12-01 23:59:00 +01:00",
 * Gradescope's "2026-12-01 23:59:00.123456 -07:00"; seconds and fractions optional.
 * Without a zone it is refused, unless zone_optional (then UTC). Returns 0, or -1. */
int grade_time_parse(const char *s, bool zone_optional, long long *out);

#ifdef __cplusplus
}
#endif

#endif
