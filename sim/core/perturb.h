/* sim/core/perturb.h: schedule perturbation (sim_set_perturbation): a seeded pseudo-random
 * stretch or shrink of op durations and host call costs, and a random tie-break for
 * equal-priority dispatch, so that races the calibrated timing happens to hide show up as
 * wrong data. Deterministic: the same seed and program give the same timeline. With
 * amount 0 nothing is drawn and every factor is exactly 1. */
#ifndef STREAMLAB_SIM_PERTURB_H
#define STREAMLAB_SIM_PERTURB_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Starts perturbing with this seed by up to amount (0 < amount <= 0.9); amount 0 stops.
 * (Declared for programs in streamlab_sim.h too.) */
void sim_set_perturbation(uint64_t seed, double amount);
/* A duration factor in [1 - amount, 1 + amount]; exactly 1 when inactive. */
double sim_perturb_factor(void);
/* A random tie-break key when active; 0 when inactive (callers then keep FIFO order). */
uint64_t sim_perturb_key(void);
/* Back to amount 0. */
void sim_perturb_reset(void);

#ifdef __cplusplus
}
#endif

#endif
