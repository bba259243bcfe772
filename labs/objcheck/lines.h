/* labs/objcheck/lines.h: the student's line for a place in a compiled lab file.
 *
 * A lab file is compiled with -g, so its object carries DWARF: the line table maps code
 * to lines, and each global's entry says where it was declared. libdwfl reads the
 * relocatable object as the linker would see it (its sections laid out, the debug
 * sections' relocations applied), which addr2line cannot do for a variable. A place
 * inside code inlined from a header is given at the student's line that the inlining
 * started from. When the object has no line for a place (code written in assembler), the
 * first line of the student's source that names it is given instead. */
#ifndef STREAMLAB_LAB_OBJCHECK_LINES_H
#define STREAMLAB_LAB_OBJCHECK_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lab_objcheck_lines lab_objcheck_lines;

/* Opens the DWARF of the object at path. source is the student's file as the compiler
 * was given it ("labs/03_double_buffer/lab.c"), or NULL for the object's own name for it;
 * it is also read, for the places DWARF has no line for. Never NULL (without DWARF every
 * answer is "no line"). */
lab_objcheck_lines *lab_objcheck_lines_open(const char *path, const char *source);
void lab_objcheck_lines_close(lab_objcheck_lines *l);

/* The source file's name as the refusals give it. */
const char *lab_objcheck_lines_file(const lab_objcheck_lines *l);

/* "file:line" of the code at offset in section shndx, into out. False when unknown. */
bool lab_objcheck_lines_code(lab_objcheck_lines *l, size_t shndx, uint64_t offset, char *out, size_t out_len);

/* "file:line" where the global name is declared (a function or a variable). */
bool lab_objcheck_lines_decl(lab_objcheck_lines *l, const char *name, char *out, size_t out_len);

/* "file:line" of the first line of the student's source that holds word (an identifier,
 * or a section name such as .init_array) outside a comment. */
bool lab_objcheck_lines_grep(lab_objcheck_lines *l, const char *word, char *out, size_t out_len);

#ifdef __cplusplus
}
#endif

#endif
