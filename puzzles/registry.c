/* puzzles/registry.c: finding a puzzle by its id (the list itself is generated from the
 * puzzle files, embed_sources.sh). */
#include <string.h>

#include "puzzles/puzzle.h"

const puzzle *puzzle_find(const char *name) {
    if (!name || !*name) return NULL;
    size_t n = strlen(name);
    const puzzle *prefix = NULL;
    int prefixes = 0;
    for (const puzzle *const *p = puzzle_all(); *p; p++) {
        if (strcmp((*p)->id, name) == 0) return *p;
        if (strncmp((*p)->id, name, n) == 0) {
            prefix = *p;
            prefixes++;
        }
    }
    return prefixes == 1 ? prefix : NULL;
}
