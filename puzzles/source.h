/* puzzles/source.h: the code a puzzle shows. The puzzles' source files are built into the
 * runner as text (embed_sources.sh), and a puzzle shows the parts of its file between lines
 * reading `// [show]` and `// [/show]`: the code the player reads is the code that runs. */
#ifndef STREAMLAB_PUZZLES_SOURCE_H
#define STREAMLAB_PUZZLES_SOURCE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct puzzle_source_file {
    const char *path; /* "puzzles/004_blocking_copies.c" */
    const char *text;
} puzzle_source_file;

/* Every embedded file, ending with {NULL, NULL}. */
extern const puzzle_source_file puzzle_source_files[];

/* The shown parts of the file at path, one after another with a blank line between them,
 * as a malloc'd string; NULL when the file is not embedded or shows nothing. */
char *puzzle_shown_code(const char *path);

#ifdef __cplusplus
}
#endif

#endif
