/* labs/objcheck/objcheck.h: the check of a student's compiled lab file before it is
 * linked into a lab binary (defence in depth at link time).
 *
 * A lab binary is the student's object linked with the lab's spec, the harness, the
 * simulator or the GPU interposer, the tracer and the kernels. The object is refused when
 *   - it has code that runs outside setup/run/teardown: constructors or destructors
 *     (.init_array, .fini_array, .preinit_array, .ctors, .dtors, .init, .fini, in any
 *     spelling: attributes, section attributes or assembler), or indirect functions
 *     (ifunc), whose resolvers run while the program is loaded;
 *   - it has a section no C compiler makes (an .interp names the program's loader, a
 *     .rela.dyn adds load-time relocations: the linker gives such sections a meaning);
 *   - it gives a global definition other than LAB_STUDENT (weak and common ones count):
 *     a name of the harness defined there would replace the harness's own, and a helper
 *     must be static;
 *   - it uses a name defined elsewhere that is not on the allow-list (allow.h).
 * Each refusal names the symbol and the student's line (lines.h):
 *   labs/03_double_buffer/lab.c:12: not accepted: defines lab_verify, a name of the harness
 * Both ways a lab file is built run it: labs/lab.bzl (bazel run //labs:NN, the TUI, the
 * tests) and the grader (grading/build/grade_build.c). */
#ifndef STREAMLAB_LAB_OBJCHECK_H
#define STREAMLAB_LAB_OBJCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lab_objcheck_refusal {
    char *symbol;  /* the name refused, or the section's name */
    char *where;   /* "file:line", or "file" when no line is known */
    char *message; /* "not accepted: defines lab_verify, a name of the harness" */
} lab_objcheck_refusal;

typedef struct lab_objcheck_result {
    lab_objcheck_refusal *refusals;
    size_t n;
    char *error; /* the object could not be read (not an ELF relocatable object): refused */
} lab_objcheck_result;

typedef struct lab_objcheck_options {
    const char *source; /* the student's file as the compiler was given it; NULL: the name
                           the object records */
    /* Built with -fsanitize=address/undefined (--config=asan, a kit built so): what the
     * sanitizers add is accepted, and only that: calls of __asan_*, __ubsan_*,
     * __sanitizer_*; ASan's __odr_asan.NAME beside a definition; and its module
     * constructor and destructor (gcc's _sub_I_00099_N/_sub_D_00099_N, clang's
     * asan.module_ctor/dtor) when their code calls nothing but the sanitizer. */
    bool sanitized;
} lab_objcheck_options;

/* Checks the object at path. Returns 0 when the object is accepted, 1 when it is refused
 * (out->n refusals, or out->error). */
int lab_objcheck_file(const char *path, const lab_objcheck_options *options, lab_objcheck_result *out);
void lab_objcheck_result_free(lab_objcheck_result *r);

/* Writes the refusals as the compiler writes errors: "where: message", a line each. */
void lab_objcheck_print(const lab_objcheck_result *r, const char *path, FILE *to);

#ifdef __cplusplus
}
#endif

#endif
