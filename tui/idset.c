/* tui/idset.c: a set of op ids (see idset.h). */
#include "tui/idset.h"

#include <stdlib.h>

static size_t slot_of(uint64_t id, size_t cap) {
    id ^= id >> 33;
    id *= 0xff51afd7ed558ccdull;
    id ^= id >> 33;
    return (size_t)id & (cap - 1);
}

static void insert(uint64_t *slots, size_t cap, uint64_t id) {
    size_t i = slot_of(id, cap);
    while (slots[i] != 0 && slots[i] != id) i = (i + 1) & (cap - 1);
    slots[i] = id;
}

void tui_idset_free(tui_idset *s) {
    free(s->slots);
    s->slots = NULL;
    s->n = s->cap = 0;
}

int tui_idset_add(tui_idset *s, uint64_t id) {
    if (id == 0 || tui_idset_has(s, id)) return 0;
    if ((s->n + 1) * 2 > s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        uint64_t *slots = calloc(cap, sizeof(uint64_t));
        if (!slots) return -1;
        for (size_t i = 0; i < s->cap; i++)
            if (s->slots[i]) insert(slots, cap, s->slots[i]);
        free(s->slots);
        s->slots = slots;
        s->cap = cap;
    }
    insert(s->slots, s->cap, id);
    s->n++;
    return 0;
}

bool tui_idset_has(const tui_idset *s, uint64_t id) {
    if (id == 0 || s->cap == 0) return false;
    for (size_t i = slot_of(id, s->cap);; i = (i + 1) & (s->cap - 1)) {
        if (s->slots[i] == id) return true;
        if (s->slots[i] == 0) return false;
    }
}
