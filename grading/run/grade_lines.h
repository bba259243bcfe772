/* grading/run/grade_lines.h: the student's source lines of the races and refusals a
 * sandboxed run shows.
 *
 * A lab under the grader may not start a process, so the harness cannot run addr2line
 * itself; it gives each race side's call site as an address in the student's program instead
 * ("first_site", "second_site", and in a race's "blamed_wait" the "wait_site" and
 * "record_site" of the wait and the record its fix names: labs/harness/result.c), and a
 * refusal that names the line that freed a buffer names it as "address 0x... of your
 * program" (LAB_SITE_WORDS_FORMAT, labs/harness/remote.c). The grader, outside the sandbox,
 * looks them up in the program it built and adds "first_line" / "second_line" ("wait_line" /
 * "record_line"), and puts each line in place of those words, as an unsandboxed `bazel run`
 * of the lab prints them. */
#ifndef STREAMLAB_GRADE_LINES_H
#define STREAMLAB_GRADE_LINES_H

#include <cjson/cJSON.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Adds the lines of result's race_reports sites from binary (addr2line, stopped after a
 * few seconds), as paths relative to build_dir where the binary was built from it
 * ("labs/03_double_buffer/lab.c:31"), and puts the line of each "address 0x... of your
 * program" in its place in the result's strings. Sites addr2line has no line for, or a
 * missing addr2line, change nothing. */
void grade_lines_fill(const char *binary, const char *build_dir, cJSON *result);
/* The same for a text (the program's output the report shows): a new string with the line
 * of each "address 0x... of your program" in its place (the caller frees it), or NULL when
 * the text has none. */
char *grade_lines_in_text(const char *binary, const char *build_dir, const char *text);

#ifdef __cplusplus
}
#endif

#endif
