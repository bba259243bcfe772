/* labs/referee/spin.c: spinning for a time before sleeping (see spin.h). */
#define _POSIX_C_SOURCE 200809L
#include "labs/referee/spin.h"

#include <time.h>

/* Reading the clock costs about as much as a few pauses: once every this many looks. */
#define LOOKS_PER_CLOCK 32u

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

lab_spin lab_spin_start(uint64_t budget_ns) { return (lab_spin){.budget_ns = budget_ns, .over = budget_ns == 0}; }

bool lab_spin_again(lab_spin *s) {
    if (s->over) return false;
    if (s->looks++ % LOOKS_PER_CLOCK == 0) {
        uint64_t now = now_ns();
        if (!s->until_ns)
            s->until_ns = now + s->budget_ns;
        else if (now >= s->until_ns) {
            s->over = true;
            return false;
        }
    }
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
    return true;
}
