/* labs/referee/spin.h: how a side of the referee's channel waits before it sleeps. Waking a
 * process that sleeps on a futex costs tens of microseconds on a GPU host (more after a
 * deep idle state), as much as a lab 06 request's whole latency; so on a real device both
 * sides look again for a while first. The while is a time, not a count: a pause
 * instruction lasts a few cycles on one CPU and over a hundred on another. */
#ifndef STREAMLAB_LAB_REFEREE_SPIN_H
#define STREAMLAB_LAB_REFEREE_SPIN_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lab_spin {
    uint64_t budget_ns; /* how long to look again; 0: sleep at once */
    uint64_t until_ns;  /* 0 until the first look */
    uint32_t looks;
    bool over;
} lab_spin;

/* A wait that may spin for budget_ns. */
lab_spin lab_spin_start(uint64_t budget_ns);
/* Whether to look again (after a pause instruction) rather than sleep; false from the
 * moment the budget is spent, and always false with a budget of 0. */
bool lab_spin_again(lab_spin *s);

#ifdef __cplusplus
}
#endif

#endif
