/* labs/harness/freed.c: the latest frees of the student's program (see freed.h), a ring. */
#include "labs/harness/freed.h"

#include <string.h>

static struct {
    lab_freed ring[LAB_FREED_KEPT];
    uint32_t next, n; /* where the next free goes; how many are kept */
} F;

void lab_freed_note(uint64_t start, uint64_t bytes, uint64_t site, const char *call) {
    F.ring[F.next] = (lab_freed){start, bytes, site, call};
    F.next = (F.next + 1) % LAB_FREED_KEPT;
    if (F.n < LAB_FREED_KEPT) F.n++;
}

bool lab_freed_find(uint64_t addr, lab_freed *f) {
    for (uint32_t k = 1; k <= F.n; k++) {
        const lab_freed *e = &F.ring[(F.next + LAB_FREED_KEPT - k) % LAB_FREED_KEPT];
        if (addr >= e->start && addr - e->start < (e->bytes ? e->bytes : 1)) {
            *f = *e;
            return true;
        }
    }
    return false;
}

void lab_freed_clear(void) { memset(&F, 0, sizeof(F)); }
