/* grading/reports/grade_gradebook.h: the class's gradebook.csv (RFC 4180): one row per student
 * with the total, the points of every lab's every check, and a note on what went wrong;
 * with sid, email and platform_id columns after the name when a platform's export or a
 * roster said who students are. */
#ifndef STREAMLAB_GRADE_GRADEBOOK_H
#define STREAMLAB_GRADE_GRADEBOOK_H

#include <stddef.h>

#include "grading/score/grade_result.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The CSV text (CRLF line ends, as RFC 4180 has them). The columns follow the first
 * student's labs; all students are graded on the same labs. */
char *grade_gradebook_csv(const grade_student *const *students, size_t n);
/* The UTF-8 byte order mark --csv-bom puts before the CSV text: spreadsheets that guess a
 * CSV file's encoding (Excel on Windows) then read non-ASCII names right. */
#define GRADE_CSV_BOM "\xEF\xBB\xBF"

/* s as one CSV field (quoted when it needs to be; malloc'd). A cell a spreadsheet could
 * run as a formula (a tab or CR first, or = + - @ as its first character after spaces,
 * tabs and line breaks) gets a ' before it. */
char *grade_csv_field(const char *s);
/* A cell read back from the gradebook (unquoted by the CSV reader) without the ' that
 * grade_csv_field put before it: points into cell. */
const char *grade_csv_unescape(const char *cell);

#ifdef __cplusplus
}
#endif

#endif
