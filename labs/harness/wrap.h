/* labs/harness/wrap.h: the lab report's prose at 80 columns. The report (result.c), the
 * next step and the hints (steps.c) are written to a stream that lab_wrap_begin gives;
 * lab_wrap_end writes them on with every prose line over the width broken at spaces, its
 * continuation lines indented under the line's text:
 *
 *     "  correct    NO (warm-up): ..."    continues under "NO", after the label column
 *     "            fix: record an ..."    continues under "record", after "fix: "
 *     "Next: TODO 1 (...): ..."           continues under "TODO", after "Next: "
 *     "            H2D batch 2 (op ..."   continues at the line's own indent
 *
 * Tables and code stay whole, whatever their width (lab_wrap_keeps): the timeline (which
 * lab_wrap_verbatim writes as it is), a line of box-drawing characters, a line whose
 * columns are aligned with runs of spaces after its label, and a line of C (a call, a
 * keyword, a type or a brace first; ';', '{', '}' or ')' last). A word longer than the
 * width (a long path) is not cut. */
#ifndef STREAMLAB_LAB_WRAP_H
#define STREAMLAB_LAB_WRAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The report's width for prose. */
#define LAB_WRAP_COLUMNS 80

typedef struct lab_wrap {
    FILE *out;    /* where the wrapped text goes */
    FILE *mem;    /* what was written since the last flush; NULL when out is used as is */
    char *buf;
    size_t len;
    size_t done;  /* the bytes of buf already written to out */
    int width;
} lab_wrap;

/* A stream to write the report to; its text goes to out, wrapped at width, at
 * lab_wrap_verbatim and lab_wrap_end. Where no memory stream can be had it is out itself
 * (nothing is lost; nothing is wrapped). */
FILE *lab_wrap_begin(lab_wrap *w, FILE *out, int width);
/* Writes what the stream has so far, wrapped, then text exactly as it is. */
void lab_wrap_verbatim(lab_wrap *w, const char *text);
/* Writes the rest, wrapped, and closes the stream. */
void lab_wrap_end(lab_wrap *w);

/* Writes text (len bytes, lines ending in '\n') to out with its prose wrapped at width. */
void lab_wrap_text(const char *text, size_t len, int width, FILE *out);
/* Whether a line (len bytes, no newline) is a table or code, kept whole. */
bool lab_wrap_keeps(const char *line, size_t len);
/* The columns a line takes on a terminal: its UTF-8 characters. */
size_t lab_wrap_columns(const char *s, size_t len);

#ifdef __cplusplus
}
#endif

#endif
