/* labs/objcheck/allow.h: what a student's lab file may define and call, by name.
 *
 * Define: only LAB_STUDENT, the lab's `const lab_impl LAB_STUDENT = {setup, run,
 * teardown};` (labs/harness/lab.h); everything else of a lab file is static.
 *
 * Call (or otherwise use): the CUDA runtime calls of the kit's one list of them
 * (cuda_calls/cuda_calls.inc, with their per-thread entry points), lab.h's own lab_*
 * functions and kernels.h's kernels_* (read from the headers when the checker is built:
 * api_names.bzl; spec.h's are not among them), and an explicit list of ordinary C
 * library functions (allow.c): string.h, allocation, printing to stdout and stderr, math,
 * reading a clock, and the helpers the compiler emits on its own (memcpy, __stack_chk_fail).
 * Nothing that reads the environment, opens files or descriptors, starts processes or
 * threads, loads code, handles signals or changes memory protection.
 *
 * docs/labs.md ("What your file may define and call") says the same for students. */
#ifndef STREAMLAB_LAB_OBJCHECK_ALLOW_H
#define STREAMLAB_LAB_OBJCHECK_ALLOW_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Whether a lab file may give name a global definition (weak and common ones included). */
bool lab_objcheck_may_define(const char *name);

/* Whether a lab file may refer to name, defined elsewhere. */
bool lab_objcheck_may_use(const char *name);

/* Whose name it is, for a refusal: "a name of the harness", "a name of the simulator",
 * "a CUDA runtime call the labs do not offer", ... or NULL for a name of nobody in the kit. */
const char *lab_objcheck_owner(const char *name);

/* The lists themselves (for the tests and --list): n names, sorted. */
const char *const *lab_objcheck_api_names(size_t *n);
const char *const *lab_objcheck_libc_names(size_t *n);

#ifdef __cplusplus
}
#endif

#endif
