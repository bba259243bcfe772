/* grading/build/grade_diag.h: the one line of a failed build's diagnostics that a reason quotes.
 *
 * The reason for "does not compile" goes into every report (the gradebook's note, JUnit's
 * failure message, Gradescope's test output), so it must name the student's own line. An
 * error about the student's file is quoted as it stands. An error the compiler places in
 * a header of the lab (a missing ';' before a LAB_CHECK, whose body starts with `do`) is
 * quoted at the student's line that the compiler's "note: in expansion of macro" names:
 *
 *   labs/03_double_buffer/lab.c:46:5: error: expected ';' before 'do' (in expansion of
 *   macro 'LAB_CHECK' from labs/harness/lab.h:92:5)
 *
 * Otherwise (a linker error, an error only in a header) the first error is quoted. */
#ifndef STREAMLAB_GRADE_DIAG_H
#define STREAMLAB_GRADE_DIAG_H

#ifdef __cplusplus
extern "C" {
#endif

/* The line to quote from diag (the compiler's or linker's output, with paths relative to
 * the build folder) for student_file ("labs/03_double_buffer/lab.c"). Returns a malloc'd
 * string, "" when diag says nothing. */
char *grade_diag_first_error(const char *diag, const char *student_file);

/* For a quoted error about a CUDA name the kit does not declare (an unknown type name, an
 * undeclared identifier or an implicit declaration of `cuda...` or `cuX...`: the graph
 * update and node APIs, say, which the simulated runtime does not model), what to add to
 * the reason: "cudaGraphExecUpdateResultInfo is a part of CUDA the labs do not offer
 * (docs/simulator.md says what the simulated runtime models)". A malloc'd string, "" for any
 * other error. */
char *grade_diag_cuda_missing(const char *quoted);

#ifdef __cplusplus
}
#endif

#endif
