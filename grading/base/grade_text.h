/* grading/base/grade_text.h: text the grader builds and the text it takes from submissions.
 *
 * A growable string buffer for the reports, and the one function every piece of student-
 * derived text (compiler output, program output, file names, event-stream strings) goes
 * through before it reaches a report: grade_text_clean makes it valid UTF-8 without
 * control characters (tabs and newlines kept) and caps its length, so that JSON, XML, CSV
 * and terminals downstream never see bytes they cannot take. */
#ifndef STREAMLAB_GRADE_TEXT_H
#define STREAMLAB_GRADE_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct grade_buf {
    char *data; /* always NUL-terminated once anything was added */
    size_t len, cap;
} grade_buf;

void grade_buf_init(grade_buf *b);
void grade_buf_free(grade_buf *b);
void grade_buf_append(grade_buf *b, const char *bytes, size_t n);
void grade_buf_puts(grade_buf *b, const char *s);
void grade_buf_printf(grade_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The text so far as a malloc'd string ("" when nothing was added); the buffer is empty
 * afterwards. */
char *grade_buf_take(grade_buf *b);

/* printf into a new malloc'd string. Never returns NULL (aborts when out of memory). */
char *grade_strf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* strdup that never returns NULL; NULL gives "". */
char *grade_strdup(const char *s);

/* n bytes of untrusted text as valid UTF-8: invalid sequences become U+FFFD, control
 * characters other than tab and newline become '?', carriage returns are dropped. At most
 * max_bytes of the input are kept; when more were given, a line saying how much was cut
 * is appended. Returns a malloc'd string. */
char *grade_text_clean(const char *bytes, size_t n, size_t max_bytes);

/* The first line of s (without its newline), at most max bytes, as a malloc'd string. */
char *grade_text_first_line(const char *s, size_t max);

/* The columns a terminal gives the first line of s (UTF-8): an accented letter takes
 * one, a CJK character two, a combining mark none. */
size_t grade_text_width(const char *s);
/* The first line of s cut to at most `width` columns (between characters) and padded
 * with spaces to exactly `width`; malloc'd. For tables with non-ASCII names. */
char *grade_text_pad(const char *s, size_t width);

/* Replaces every occurrence of `from` in s by `to`; returns a malloc'd string. */
char *grade_text_replace(const char *s, const char *from, const char *to);

#ifdef __cplusplus
}
#endif

#endif
