/* grading/run/grade_lines.h: the student's source lines that a sandboxed run names.
 *
 * A lab under the grader may not start a process, so the harness cannot run addr2line
 * itself; every line it would give (a race side's, a blamed wait's and its record's, a
 * wait's in the reasons and the blame, the line that freed a buffer in a refusal) it gives
 * as "address 0x... of your program" instead (LAB_SITE_WORDS_FORMAT:
 * lab_source_line_words, labs/harness/source_line.c). The grader, outside the sandbox,
 * looks them up in the program it built and puts each line in place of those words, as an
 * unsandboxed `bazel run` of the lab prints them. */
#ifndef STREAMLAB_GRADE_LINES_H
#define STREAMLAB_GRADE_LINES_H

#include <cjson/cJSON.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Puts the line of each "address 0x... of your program" in its place in the result's
 * strings, looked up in binary (addr2line, stopped after a few seconds), as a path relative
 * to build_dir where the binary was built from it ("labs/03_double_buffer/lab.c:31").
 * Addresses addr2line has no line for, or a missing addr2line, change nothing. */
void grade_lines_fill(const char *binary, const char *build_dir, cJSON *result);
/* The same for a text (the program's output the report shows): a new string with the line
 * of each "address 0x... of your program" in its place (the caller frees it), or NULL when
 * the text has none. */
char *grade_lines_in_text(const char *binary, const char *build_dir, const char *text);

#ifdef __cplusplus
}
#endif

#endif
