/* labs/harness/source_line.h: the source line of a code address in the running lab
 * binary, from inside a signal handler, so that a crash report can name the student's
 * line. The student's file is compiled with line information (-g, labs/lab.bzl) and the
 * binary keeps it (--strip=never, .bazelrc); the lookup starts addr2line (fork and execve,
 * both async-signal-safe) on the binary with the addresses made relative to where it is
 * loaded (the binary is position-independent), and takes the first address that has a
 * line: only code built with -g has one, so that is the student's.
 *
 * STREAMLAB_NO_SUBPROCESS=1 in the environment (the grader sets it: its sandbox kills a
 * lab that starts a process) turns the lookup off; the report then gives the address to
 * look up by hand. */
#ifndef STREAMLAB_LAB_SOURCE_LINE_H
#define STREAMLAB_LAB_SOURCE_LINE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum lab_line_result {
    LAB_LINE_FOUND = 0,    /* "file:line" */
    LAB_LINE_NOT_IN_BINARY, /* no address lies in the lab binary's own code */
    LAB_LINE_NO_INFO,      /* addr2line ran; no address has line information */
    LAB_LINE_NO_TOOL,      /* addr2line is not installed (or the binary's path is unknown) */
    LAB_LINE_NOT_ALLOWED,  /* STREAMLAB_NO_SUBPROCESS: not looked up */
    LAB_LINE_FAILED        /* addr2line could not be started or said nothing */
} lab_line_result;

/* Outside any handler, once: finds the binary, where it is loaded, and addr2line. */
void lab_source_line_prepare(void);
/* Inside a handler: the source line of the first of pcs (innermost first) that has one,
 * as "file:line" in out. *offset receives the address, relative to the binary, of the
 * first of pcs inside the binary's code (0 when none is), for the report to give when
 * no line was found. */
lab_line_result lab_source_line_of(const uintptr_t *pcs, size_t n, char *out, size_t out_len, uintptr_t *offset);
/* Outside any handler: what a report says of the call at return address site (an op's call
 * site). The call's "file:line"; where the line may not be looked up here (the grader's
 * sandbox: LAB_LINE_NOT_ALLOWED) but the call is the program's, the site words
 * (LAB_SITE_WORDS_FORMAT: "address 0x... of your program") that whoever ran the lab puts the
 * line in place of (the grader does, grading/run/grade_lines.c); else "". Returns the
 * result of the lookup; *offset (may be NULL) receives the call's offset in the binary. */
lab_line_result lab_source_line_words(uint64_t site, char *out, size_t out_len, uintptr_t *offset);
/* The lab binary's path ("" when unknown). */
const char *lab_source_line_binary(void);

/* The student's binary, when the student's code runs in a process of its own (remote.h):
 * an address with LAB_SOURCE_LINE_STUDENT set is the rest's offset in that binary, and
 * lab_source_line_of looks it up there. Outside any handler. */
#define LAB_SOURCE_LINE_STUDENT ((uintptr_t)1 << 62)
void lab_source_line_set_student(const char *path);
/* That binary's path ("" when the student's code runs in this process). */
const char *lab_source_line_student(void);

#ifdef __cplusplus
}
#endif

#endif
