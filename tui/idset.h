/* tui/idset.h: a set of op ids (open addressing), for "which ops take part in a race". */
#ifndef STREAMLAB_TUI_IDSET_H
#define STREAMLAB_TUI_IDSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tui_idset {
    uint64_t *slots; /* 0 is empty; ids are >= 1 */
    size_t n, cap;
} tui_idset;

void tui_idset_free(tui_idset *s);
/* Adds id (0 is ignored). Returns 0, or -1 when out of memory. */
int tui_idset_add(tui_idset *s, uint64_t id);
bool tui_idset_has(const tui_idset *s, uint64_t id);

#ifdef __cplusplus
}
#endif

#endif
